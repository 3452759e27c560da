//! The annotation index of `ralph spec` without flags: per spec, how many criteria carry a
//! `[verify]` link, a `[judge]` link or none, and the totals. Built from parsed specs
//! only: nothing runs.

use super::annotations::{self, AnnotationLine, RalphKind};
use crate::spec::Spec;

/// One spec's row of the index.
#[derive(Debug, Clone)]
pub struct IndexRow {
    /// The spec's file under the specs folder (`notify.md`, `auth/tokens.md`).
    pub file: String,
    /// Criteria whose first annotation is a verify kind.
    pub verify: usize,
    /// Criteria whose first annotation is a judge.
    pub judge: usize,
    /// Criteria without an annotation.
    pub unannotated: usize,
    /// Each criterion, for the verbose listing.
    pub criteria: Vec<AnnotationLine>,
}

/// The whole index.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// One row per spec with success criteria, in path order.
    pub rows: Vec<IndexRow>,
    /// Verify criteria over all rows.
    pub verify: usize,
    /// Judge criteria over all rows.
    pub judge: usize,
    /// Unannotated criteria over all rows.
    pub unannotated: usize,
}

/// The index of `specs` (specs without a success criterion are left out, as ralph does).
pub fn index(specs: &[Spec]) -> Index {
    let mut out = Index::default();
    for spec in specs.iter().filter(|s| !s.criteria.is_empty()) {
        let criteria = annotations::lines(spec);
        let count = |f: &dyn Fn(&RalphKind) -> bool| criteria.iter().filter(|l| f(&l.kind)).count();
        let row = IndexRow {
            file: spec_file(spec),
            verify: count(&RalphKind::is_verify),
            judge: count(&|k| *k == RalphKind::Judge),
            unannotated: count(&|k| *k == RalphKind::None),
            criteria,
        };
        out.verify += row.verify;
        out.judge += row.judge;
        out.unannotated += row.unannotated;
        out.rows.push(row);
    }
    out
}

/// The spec's file as ralph names it: its path under the specs folder (`notify.md`).
pub fn spec_file(spec: &Spec) -> String {
    format!("{}.md", spec.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_criterion_once_by_its_first_link() {
        let a = crate::spec::parse(
            "## Success Criteria\n- [ ] a\n  [verify](t.sh#a)\n- [ ] b\n  [judge](j.sh#b)\n  [verify](t.sh#b)\n- [ ] c\n",
            "specs/a.md",
        );
        let empty = crate::spec::parse("# No criteria\n", "specs/b.md");
        let i = index(&[a, empty]);
        assert_eq!(i.rows.len(), 1);
        let r = &i.rows[0];
        assert_eq!(
            (r.file.as_str(), r.verify, r.judge, r.unannotated),
            ("a.md", 1, 1, 1)
        );
        assert_eq!((i.verify, i.judge, i.unannotated), (1, 1, 1));
    }
}
