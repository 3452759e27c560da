//! ralph's view of a spec's success criteria: one record per criterion with the kind of
//! its first annotation, as ralph's `parse_spec_annotations` prints them
//! (`criterion<TAB>kind<TAB>file<TAB>function<TAB>checked`), built from vermas's own
//! spec parser.

use crate::spec::{Annotation, AnnotationKind, Criterion, Spec};
use std::fmt;

/// The kind of a criterion in ralph's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RalphKind {
    /// `[verify](...)`.
    Verify,
    /// `[verify:NAME](...)`: ralph's `verify-wrapix` for `[verify:wrapix]`.
    VerifyNamed(String),
    /// `[judge](...)`.
    Judge,
    /// No annotation.
    None,
}

impl RalphKind {
    /// The kind of annotation `a`.
    pub fn of(a: &Annotation) -> RalphKind {
        match &a.kind {
            AnnotationKind::Verify => RalphKind::Verify,
            AnnotationKind::Judge => RalphKind::Judge,
            AnnotationKind::VerifyWith(name) => RalphKind::VerifyNamed(name.clone()),
        }
    }

    /// True for `verify` and the named verify kinds (counted as verify, run with `--verify`).
    pub fn is_verify(&self) -> bool {
        matches!(self, RalphKind::Verify | RalphKind::VerifyNamed(_))
    }
}

impl fmt::Display for RalphKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RalphKind::Verify => f.write_str("verify"),
            RalphKind::VerifyNamed(name) => write!(f, "verify-{name}"),
            RalphKind::Judge => f.write_str("judge"),
            RalphKind::None => f.write_str("none"),
        }
    }
}

/// One criterion as ralph lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationLine {
    /// The criterion text.
    pub criterion: String,
    /// The kind of its first annotation, or none.
    pub kind: RalphKind,
    /// The annotation's file, repository-relative (empty without one).
    pub file: String,
    /// The annotation's function (empty without one).
    pub function: String,
    /// Ticked (`[x]`) in the spec.
    pub checked: bool,
}

impl AnnotationLine {
    /// The record of criterion `c`.
    pub fn of(c: &Criterion) -> AnnotationLine {
        let first = c.annotations.first();
        AnnotationLine {
            criterion: c.text.clone(),
            kind: first.map_or(RalphKind::None, RalphKind::of),
            file: first.map(|a| a.file.clone()).unwrap_or_default(),
            function: first.and_then(|a| a.function.clone()).unwrap_or_default(),
            checked: c.checked,
        }
    }

    /// ralph's reference to the test: `file::function`, or the file alone; `None` for a
    /// criterion without an annotation.
    pub fn reference(&self) -> Option<String> {
        if self.kind == RalphKind::None || self.file.is_empty() {
            return None;
        }
        Some(reference(&self.file, &self.function))
    }
}

impl fmt::Display for AnnotationLine {
    /// The tab-separated record, without a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\t{}\t{}\t{}\t{}",
            self.criterion,
            self.kind,
            self.file,
            self.function,
            if self.checked { "x" } else { "" }
        )
    }
}

/// ralph's way to name a test: `file::function`, or the file alone.
pub fn reference(file: &str, function: &str) -> String {
    if function.is_empty() {
        file.to_string()
    } else {
        format!("{file}::{function}")
    }
}

/// Every criterion of `spec`, in file order.
pub fn lines(spec: &Spec) -> Vec<AnnotationLine> {
    spec.criteria.iter().map(AnnotationLine::of).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_record_per_criterion_with_its_first_link() {
        let text = "# T\n\n## Success Criteria\n\n- [ ] Fast\n  [verify](tests/a.sh::test_a)\n- [x] Readable\n  [judge](../tests/judges/r.sh#test_r)\n- [ ] Offline\n- [ ] Boxed\n  [verify:wrapix](tests/box.sh)\n  [judge](tests/j.sh#j)\n";
        let spec = crate::spec::parse(text, "specs/t.md");
        let got: Vec<String> = lines(&spec).iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "Fast\tverify\ttests/a.sh\ttest_a\t",
                "Readable\tjudge\ttests/judges/r.sh\ttest_r\tx",
                "Offline\tnone\t\t\t",
                "Boxed\tverify-wrapix\ttests/box.sh\t\t",
            ]
        );
        let refs: Vec<Option<String>> = lines(&spec).iter().map(|l| l.reference()).collect();
        assert_eq!(
            refs,
            [
                Some("tests/a.sh::test_a".to_string()),
                Some("tests/judges/r.sh::test_r".to_string()),
                None,
                Some("tests/box.sh".to_string()),
            ]
        );
    }
}
