//! A three-way merge of one bead file by meaning: fields changed on one side take that
//! side, fields changed on both take the later side (by `updated_at`; on a tie the side
//! whose file text sorts last, which both machines see alike) with the other value kept
//! as a note dated from the records, lists merge as sets and the body by lines. Nothing is
//! ever lost, and the same three inputs give the same bytes in either order, anywhere.

use crate::bead::Bead;
use crate::bead::model::Note;
use crate::error::Result;
use crate::time::Timestamp;
use std::cmp::Ordering;

/// Who signs the notes a merge adds.
const MERGER: &str = "vermas merge-file";

/// The merge of `ours` and `theirs` (bead file texts) from `base` (`None` when both sides
/// added the file); refused when a side is not a bead. Two different beads at one path
/// (git paired a deleted bead with a new one as a rename) give the one the path names:
/// the other was deleted, and a delete wins.
pub(crate) fn merge(base: Option<&str>, ours: &str, theirs: &str, file: &str) -> Result<String> {
    let read = |text| crate::bead::store::parse_text(text, file);
    let base = base.map(read).transpose()?;
    let o = read(ours)?;
    let t = read(theirs)?;
    if o.id != t.id {
        return super::named_by_path(
            file,
            ".md",
            [(o.id.as_str(), ours), (t.id.as_str(), theirs)],
        )
        .ok_or_else(|| {
            crate::error::Error::Invalid(format!(
                "{file}: the two sides are different beads ({} and {})",
                o.id, t.id
            ))
        });
    }
    Ok(merge_beads(base.as_ref(), &o, &t).render())
}

/// True when `o` is the later side: the later `updated_at`, on a tie the side whose file
/// text sorts last (both machines see the same texts, so they pick the same side).
pub(crate) fn ours_later(o: &Bead, t: &Bead) -> bool {
    match o.updated_at.cmp(&t.updated_at) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => o.render() >= t.render(),
    }
}

/// The merge of two beads from `base`. The notes the merge adds are dated by the later
/// side's `updated_at`, so the same merge gives the same bytes whenever and wherever it
/// runs, and `merge_beads(b, o, t)` equals `merge_beads(b, t, o)`.
pub(crate) fn merge_beads(base: Option<&Bead>, o: &Bead, t: &Bead) -> Bead {
    let ours_later = ours_later(o, t);
    let mut m = Merger {
        ours_later,
        lost: Vec::new(),
    };
    let mut out = if ours_later { o.clone() } else { t.clone() };
    macro_rules! field {
        ($name:ident, $show:expr) => {
            out.$name = m.pick(
                stringify!($name),
                base.map(|b| &b.$name),
                &o.$name,
                &t.$name,
                $show,
            );
        };
    }
    field!(title, |v: &String| v.clone());
    field!(status, |v: &crate::bead::Status| v.to_string());
    field!(priority, |v: &u8| v.to_string());
    field!(issue_type, |v: &crate::bead::IssueType| v.to_string());
    field!(assignee, opt);
    field!(created_by, opt);
    field!(close_reason, opt);
    field!(parent, opt);
    field!(spec, opt);
    field!(branch, opt);
    field!(worktree, opt);
    field!(created_at, |v: &Option<Timestamp>| v
        .map_or("none".into(), |t| t.to_string()));
    field!(closed_at, |v: &Option<Timestamp>| v
        .map_or("none".into(), |t| t.to_string()));
    field!(approved, |v: &Option<crate::bead::model::Approval>| v
        .as_ref()
        .map_or("not approved".into(), |a| format!(
            "approved (criteria {})",
            a.criteria
        )));
    out.updated_at = o.updated_at.max(t.updated_at);
    let empty = Bead::new(o.id.clone(), o.title.clone());
    let b = base.unwrap_or(&empty);
    // Lists start from the later side's order, so either order of the sides gives one list.
    let (w, l) = if ours_later { (o, t) } else { (t, o) };
    out.labels = as_sets(&b.labels, &w.labels, &l.labels);
    out.dependencies = as_sets(&b.dependencies, &w.dependencies, &l.dependencies);
    out.acceptance_criteria = as_sets(
        &b.acceptance_criteria,
        &w.acceptance_criteria,
        &l.acceptance_criteria,
    );
    let body = super::lines::merge_text(&b.description, &o.description, &t.description, ours_later);
    out.description = body.text;
    for text in body.lost {
        m.lost.push(format!(
            "merged: the other side's text of the description was:\n{}",
            text.trim_end()
        ));
    }
    let mut notes = as_sets(&b.notes, &w.notes, &l.notes);
    let at = o.updated_at.max(t.updated_at).unwrap_or(Timestamp(0));
    notes.extend(m.lost.into_iter().map(|text| Note {
        at,
        by: MERGER.into(),
        text,
    }));
    // Ordered by time; notes of one moment keep the order they came in.
    notes.sort_by_key(|n| n.at);
    out.notes = notes;
    out
}

/// Settles fields changed on both sides.
struct Merger {
    /// True when our side changed last (it wins a field both sides changed).
    ours_later: bool,
    /// The losing values, as notes to add.
    lost: Vec<String>,
}

impl Merger {
    /// The merged value of one field: the side that changed it, else the later side (the
    /// other side's value noted).
    fn pick<T: PartialEq + Clone>(
        &mut self,
        name: &str,
        base: Option<&T>,
        ours: &T,
        theirs: &T,
        show: impl Fn(&T) -> String,
    ) -> T {
        if ours == theirs || base == Some(theirs) {
            return ours.clone();
        }
        if base == Some(ours) {
            return theirs.clone();
        }
        let (win, lose) = if self.ours_later {
            (ours, theirs)
        } else {
            (theirs, ours)
        };
        self.lost.push(format!(
            "merged: {name} was {} on the other side",
            show(lose)
        ));
        win.clone()
    }
}

/// An optional text as a note shows it.
fn opt(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "none".into())
}

/// A list merged as a set: what either side added is kept, what either side removed from
/// `base` goes; our order first, then their additions.
pub(crate) fn as_sets<T: PartialEq + Clone>(base: &[T], ours: &[T], theirs: &[T]) -> Vec<T> {
    // One side alone changed it: that side, in its own order.
    if ours == base {
        return theirs.to_vec();
    }
    if theirs == base || ours == theirs {
        return ours.to_vec();
    }
    let mut out: Vec<T> = Vec::new();
    for x in ours {
        if (theirs.contains(x) || !base.contains(x)) && !out.contains(x) {
            out.push(x.clone());
        }
    }
    for x in theirs {
        if !base.contains(x) && !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::Status;

    fn bead(updated: i64) -> Bead {
        let mut b = Bead::new("vm-abc".into(), "T".into());
        b.updated_at = Some(Timestamp(updated));
        b
    }

    #[test]
    fn a_field_changed_on_both_sides_takes_the_later_and_notes_the_other() {
        let base = bead(1);
        let mut o = bead(5);
        o.status = Status::InProgress;
        let mut t = bead(9);
        t.status = Status::Blocked;
        let m = merge_beads(Some(&base), &o, &t);
        assert_eq!(m.status, Status::Blocked);
        assert_eq!(m, merge_beads(Some(&base), &t, &o));
        assert_eq!(m.updated_at, Some(Timestamp(9)));
        assert!(
            m.notes.iter().any(
                |n| n.text == "merged: status was in_progress on the other side"
                    && n.at == Timestamp(9)
            ),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn a_tie_on_updated_at_picks_the_same_side_in_either_order() {
        let base = bead(1);
        let mut o = bead(5);
        o.status = Status::Blocked;
        let mut t = bead(5);
        t.status = Status::Deferred;
        let one = merge_beads(Some(&base), &o, &t);
        assert_eq!(one.render(), merge_beads(Some(&base), &t, &o).render());
        assert_eq!(one.notes.len(), 1, "{:?}", one.notes);
    }

    #[test]
    fn labels_merge_as_sets_with_removals_honoured() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            as_sets(&s(&["a", "b"]), &s(&["a", "b", "x"]), &s(&["b", "y"])),
            s(&["b", "x", "y"])
        );
    }
}
