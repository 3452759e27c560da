//! A three-way merge of text by lines that never leaves conflict markers: where both
//! sides changed the same lines, the preferred side's lines win and the other side's are
//! handed back, so the caller can keep them elsewhere (a bead keeps them as a note).

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// The merged text and the other side's text of every region both sides changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The result.
    pub text: String,
    /// The losing side's lines of each region changed on both sides, in order.
    pub lost: Vec<String>,
}

/// Merges `ours` and `theirs`, both changed from `base`, line by line; where both changed
/// the same lines, `ours` wins when `prefer_ours`, else `theirs`.
pub fn merge(base: &str, ours: &str, theirs: &str, prefer_ours: bool) -> Merged {
    let b: Vec<&str> = base.split_inclusive('\n').collect();
    let o: Vec<&str> = ours.split_inclusive('\n').collect();
    let t: Vec<&str> = theirs.split_inclusive('\n').collect();
    let in_o = matches(&b, &o);
    let in_t = matches(&b, &t);
    let mut out = Merged {
        text: String::new(),
        lost: Vec::new(),
    };
    let (mut i, mut oi, mut ti) = (0, 0, 0);
    loop {
        // The next base line both sides kept: everything before it is one region.
        let sync = (i..b.len()).find_map(|j| match (in_o[j], in_t[j]) {
            (Some(x), Some(y)) if x >= oi && y >= ti => Some((j, x, y)),
            _ => None,
        });
        let (j, x, y) = sync.unwrap_or((b.len(), o.len(), t.len()));
        region(&b[i..j], &o[oi..x], &t[ti..y], prefer_ours, &mut out);
        let Some(line) = b.get(j) else { break };
        out.text.push_str(line);
        (i, oi, ti) = (j + 1, x + 1, y + 1);
    }
    out
}

/// Merges one region between two lines both sides kept.
fn region(base: &[&str], ours: &[&str], theirs: &[&str], prefer_ours: bool, out: &mut Merged) {
    let (win, lose) = if ours == base {
        (theirs, None)
    } else if theirs == base || ours == theirs {
        (ours, None)
    } else if prefer_ours {
        (ours, Some(theirs))
    } else {
        (theirs, Some(ours))
    };
    out.text.push_str(&win.concat());
    if let Some(lost) = lose {
        out.lost.push(lost.concat());
    }
}

/// For each line of `base`, the line of `other` it is matched with, if any.
fn matches(base: &[&str], other: &[&str]) -> Vec<Option<usize>> {
    let mut out = vec![None; base.len()];
    for op in capture_diff_slices(Algorithm::Myers, base, other) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                out[old_index + k] = Some(new_index + k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_on_different_lines_both_land() {
        let m = merge("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n", true);
        assert_eq!(m.text, "A\nb\nC\n");
        assert!(m.lost.is_empty());
    }

    #[test]
    fn the_same_lines_changed_on_both_sides_keep_the_loser_aside() {
        let m = merge("a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n", false);
        assert_eq!(m.text, "a\ntheirs\nc\n");
        assert_eq!(m.lost, vec!["ours\n".to_string()]);
        assert!(!m.text.contains("<<<<"));
    }

    #[test]
    fn identical_changes_and_one_sided_changes_merge_cleanly() {
        assert_eq!(merge("a\n", "b\n", "b\n", true).text, "b\n");
        assert_eq!(merge("a\n", "a\n", "x\ny\n", true).text, "x\ny\n");
        assert_eq!(merge("", "x", "", false).text, "x");
    }
}
