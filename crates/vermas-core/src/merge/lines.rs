//! A three-way merge of text by lines that never leaves conflict markers: where both
//! sides changed the same lines, the preferred side's lines win and the other side's are
//! handed back, so the caller can keep them elsewhere (a bead keeps them as a note).

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// The merged text and the other side's text of every region both sides changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    /// The result.
    pub text: String,
    /// The losing side's lines of each region changed on both sides, in order.
    pub lost: Vec<String>,
}

/// [`merge`] for texts that may end without a newline (a bead's body): each is merged as
/// if it ended in one, so a last line one side kept and the other added lines after is
/// the same line on both sides (as `git merge-file` reads it), and the result ends as
/// the inputs do.
pub(crate) fn merge_text(base: &str, ours: &str, theirs: &str, prefer_ours: bool) -> Merged {
    let ended = |t: &str| {
        if t.is_empty() {
            String::new()
        } else {
            format!("{t}\n")
        }
    };
    let mut out = merge(&ended(base), &ended(ours), &ended(theirs), prefer_ours);
    if out.text.ends_with('\n') {
        out.text.pop();
    }
    out
}

/// Merges `ours` and `theirs`, both changed from `base`, line by line; where both changed
/// the same lines, `ours` wins when `prefer_ours`, else `theirs`.
pub(crate) fn merge(base: &str, ours: &str, theirs: &str, prefer_ours: bool) -> Merged {
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

/// For each line of `base`, the line of `other` it is matched with, if any: a Myers diff
/// whose changes are then slid as git slides them (see [`compact`]), so the lines vermas
/// holds as kept are those `git merge-file` holds as kept.
fn matches(base: &[&str], other: &[&str]) -> Vec<Option<usize>> {
    let mut changed_b = vec![true; base.len()];
    let mut changed_o = vec![true; other.len()];
    for op in capture_diff_slices(Algorithm::Myers, other, base) {
        if let DiffOp::Equal {
            old_index: new_index,
            new_index: old_index,
            len,
        } = op
        {
            changed_b[old_index..old_index + len].fill(false);
            changed_o[new_index..new_index + len].fill(false);
        }
    }
    compact(base, &mut changed_b, &mut changed_o);
    compact(other, &mut changed_o, &mut changed_b);
    let mut out = vec![None; base.len()];
    let (mut i, mut j) = (0, 0);
    while i < base.len() && j < other.len() {
        match (changed_b[i], changed_o[j]) {
            (true, _) => i += 1,
            (_, true) => j += 1,
            _ => {
                out[i] = Some(j);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// A run of changed lines `start..end` of one file (empty: a place between lines).
#[derive(Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
}

/// The changed lines of one side of a diff, as git's `xdl_change_compact` sees them.
struct Changes<'a> {
    lines: &'a [&'a str],
    changed: &'a mut [bool],
}

impl Changes<'_> {
    fn is(&self, i: usize) -> bool {
        self.changed.get(i).copied().unwrap_or(false)
    }

    fn first(&self) -> Group {
        let mut g = Group { start: 0, end: 0 };
        while self.is(g.end) {
            g.end += 1;
        }
        g
    }

    fn next(&self, g: &mut Group) -> bool {
        if g.end == self.lines.len() {
            return false;
        }
        g.start = g.end + 1;
        g.end = g.start;
        while self.is(g.end) {
            g.end += 1;
        }
        true
    }

    fn previous(&self, g: &mut Group) -> bool {
        if g.start == 0 {
            return false;
        }
        g.end = g.start - 1;
        g.start = g.end;
        while g.start > 0 && self.is(g.start - 1) {
            g.start -= 1;
        }
        true
    }

    fn slide_down(&mut self, g: &mut Group) -> bool {
        if g.end < self.lines.len() && self.lines[g.start] == self.lines[g.end] {
            self.changed[g.start] = false;
            self.changed[g.end] = true;
            g.start += 1;
            g.end += 1;
            while self.is(g.end) {
                g.end += 1;
            }
            return true;
        }
        false
    }

    fn slide_up(&mut self, g: &mut Group) -> bool {
        if g.start > 0 && self.lines[g.start - 1] == self.lines[g.end - 1] {
            g.start -= 1;
            g.end -= 1;
            self.changed[g.start] = true;
            self.changed[g.end] = false;
            while g.start > 0 && self.is(g.start - 1) {
                g.start -= 1;
            }
            return true;
        }
        false
    }
}

/// Slides each run of changed lines of `lines` as git's `xdl_change_compact` does (without
/// the indent heuristic, as `git merge-file` runs it): as far down as it goes, then back up
/// to line up with the last change of the other file it can meet. `other` is the other
/// file's changed lines; the two files' runs stay paired one to one.
fn compact(lines: &[&str], changed: &mut [bool], other: &mut [bool]) {
    let mut f = Changes { lines, changed };
    let other_lines = vec![""; other.len()];
    let o = Changes {
        lines: &other_lines,
        changed: other,
    };
    let mut g = f.first();
    let mut go = o.first();
    loop {
        if g.end != g.start {
            let mut earliest_end;
            let mut end_matching_other;
            loop {
                let size = g.end - g.start;
                end_matching_other = None;
                while f.slide_up(&mut g) {
                    o.previous(&mut go);
                }
                earliest_end = g.end;
                if go.end > go.start {
                    end_matching_other = Some(g.end);
                }
                while f.slide_down(&mut g) {
                    o.next(&mut go);
                    if go.end > go.start {
                        end_matching_other = Some(g.end);
                    }
                }
                if size == g.end - g.start {
                    break;
                }
            }
            if g.end != earliest_end && end_matching_other.is_some() {
                while go.end == go.start {
                    if !f.slide_up(&mut g) || !o.previous(&mut go) {
                        break;
                    }
                }
            }
        }
        if !f.next(&mut g) || !o.next(&mut go) {
            break;
        }
    }
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
    fn a_last_line_without_a_newline_is_the_same_line_on_both_sides() {
        let m = merge_text("a\nb\nc", "a\nB\nc", "a\nb\nc\nd", false);
        assert_eq!(m.text, "a\nB\nc\nd");
        assert!(m.lost.is_empty());
        assert_eq!(merge_text("", "x", "", true).text, "x");
        assert_eq!(merge_text("a", "", "a", true).text, "");
    }

    #[test]
    fn identical_changes_and_one_sided_changes_merge_cleanly() {
        assert_eq!(merge("a\n", "b\n", "b\n", true).text, "b\n");
        assert_eq!(merge("a\n", "a\n", "x\ny\n", true).text, "x\ny\n");
        assert_eq!(merge("", "x", "", false).text, "x");
    }
}
