//! Annotations written as plain text: `[verify](...)` that CommonMark does not read as a
//! link because its target holds spaces, as ralph writes a subtest named in words
//! (`[verify](tests/city.nix::Wait for worker worktree)`).

/// A link-like `[LABEL](TARGET "TITLE")` found in plain text.
pub(super) struct Found {
    /// Index of the criterion it belongs to.
    pub criterion: usize,
    /// The text between the brackets.
    pub label: String,
    /// The target, trimmed.
    pub dest: String,
    /// The quoted title after the target, if any (without its quotes).
    pub title: String,
    /// Byte range from `[` to the closing `)`.
    pub span: (usize, usize),
}

/// Every `[LABEL](TARGET)` of `text` that lies inside a criterion's item (`items[i]` is the
/// byte range of criterion `i`'s item; the innermost item owns it), overlaps none of
/// `shields` (code, HTML, links CommonMark read), and is not escaped with `\`. The label
/// and the target stay on one line; the target ends at the `)` that balances its `(`.
pub(super) fn scan(text: &str, items: &[(usize, usize)], shields: &[(usize, usize)]) -> Vec<Found> {
    let shields = merged(shields);
    let mut out = Vec::new();
    for (start, _) in text.match_indices('[') {
        let Some((label, inner, end)) = link_at(text, start) else {
            continue;
        };
        if text[..start].ends_with('\\') || overlaps(&shields, start, end) {
            continue;
        }
        let Some(criterion) = owner(items, start) else {
            continue;
        };
        let (dest, title) = split_title(inner);
        out.push(Found {
            criterion,
            label: label.trim().to_string(),
            dest: dest.to_string(),
            title: title.to_string(),
            span: (start, end),
        });
    }
    out
}

/// `ranges` sorted and merged where they overlap, so both starts and ends rise.
fn merged(ranges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(sorted.len());
    for (s, e) in sorted {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// True when `start..end` overlaps one of `merged` (sorted, disjoint ranges).
fn overlaps(merged: &[(usize, usize)], start: usize, end: usize) -> bool {
    // The last range starting before `end` reaches furthest of all that do.
    let before = merged.partition_point(|(s, _)| *s < end);
    before > 0 && merged[before - 1].1 > start
}

/// The criterion whose item holds `offset`: the innermost, which starts last. Items are
/// in document order.
fn owner(items: &[(usize, usize)], offset: usize) -> Option<usize> {
    let started = items.partition_point(|(s, _)| *s <= offset);
    (0..started).rev().find(|&i| offset < items[i].1)
}

/// At `start` (a `[`): the label, the text inside the parentheses and the offset just past
/// the closing `)`, when a whole `[label](...)` stands there on one line.
fn link_at(text: &str, start: usize) -> Option<(&str, &str, usize)> {
    let rest = &text[start + 1..];
    let close = rest.find([']', '\n', '['])?;
    if !rest[close..].starts_with("](") {
        return None;
    }
    let label = &rest[..close];
    let open = start + 1 + close + 2;
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '\n' => return None,
            '(' => depth += 1,
            ')' if depth == 0 => return Some((label, &text[open..open + i], open + i + 1)),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Splits `TARGET "TITLE"` into the target and the title; the whole trimmed text is the
/// target when it ends in no quoted title.
fn split_title(inner: &str) -> (&str, &str) {
    let inner = inner.trim();
    if let Some(body) = inner.strip_suffix('"')
        && let Some(q) = body.rfind(" \"")
    {
        return (body[..q].trim_end(), &body[q + 2..]);
    }
    (inner, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_with_spaces_and_balanced_parentheses() {
        let text =
            "- [ ] a [verify](t.nix::Wait for it (via x)) and [judge](j.sh#f \"timeout=5s\")\n";
        let found = scan(text, &[(0, text.len())], &[]);
        let got: Vec<(&str, &str, &str)> = found
            .iter()
            .map(|f| (f.label.as_str(), f.dest.as_str(), f.title.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("verify", "t.nix::Wait for it (via x)", ""),
                ("judge", "j.sh#f", "timeout=5s")
            ]
        );
        assert_eq!(
            &text[found[0].span.0..found[0].span.1],
            "[verify](t.nix::Wait for it (via x))"
        );
    }

    #[test]
    fn skips_shielded_escaped_unclosed_and_outside_text() {
        let text = "[verify](out side)\n- [ ] \\[verify](a b) `[verify](c d)` [verify](e (f)\n";
        let item = (19, text.len());
        let code = text.find('`').unwrap();
        let found = scan(text, &[item], &[(code, code + 16)]);
        assert!(
            found.is_empty(),
            "{:?}",
            found.iter().map(|f| &f.dest).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_innermost_item_owns_a_link() {
        let text = "- [ ] outer\n  - [ ] inner [verify](x y)\n";
        let found = scan(text, &[(0, text.len()), (14, text.len())], &[]);
        assert_eq!(found[0].criterion, 1);
    }
}
