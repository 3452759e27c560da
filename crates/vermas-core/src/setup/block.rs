//! vermas's lines inside a file another tool shares (`.beads/.gitignore` and
//! `.beads/.gitattributes`, which bd writes too): kept between `# >>> vermas` and
//! `# <<< vermas`, so every other line of the file stays byte for byte as it was.

/// The line opening vermas's block.
pub(crate) const BEGIN: &str = "# >>> vermas";
/// The line closing vermas's block.
pub(crate) const END: &str = "# <<< vermas";

/// Lines vermas keeps in `.beads/.gitignore`.
pub(crate) const GITIGNORE_LINES: &[&str] = &[
    "# Rebuildable caches, ephemeral wisps and the write lock are never committed.",
    ".cache/",
    "wisps/",
    ".lock",
];

/// Lines vermas keeps in `.beads/.gitattributes`.
pub(crate) const GITATTRIBUTES_LINES: &[&str] = &[
    "# git and vermas must hash the same bytes: no line-ending or filter conversion.",
    "* -text -filter",
    "# Records merge by meaning: `vermas merge-file`, git's merge driver `vermas`.",
    "issues/*.md merge=vermas",
    "mail/**/*.md merge=vermas",
    "mols/*.yaml merge=vermas",
    "results/*.yaml merge=vermas",
    "mq/*.yaml merge=vermas",
];

/// The block holding `lines`, marker lines included, each line ending in `\n`.
pub(crate) fn block(lines: &[&str]) -> String {
    let mut out = format!("{BEGIN}\n");
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(END);
    out.push('\n');
    out
}

/// The byte range of the first complete block in `text` (from the start of its opening
/// line to the end of its closing line, newline included).
fn block_range(text: &str) -> Option<std::ops::Range<usize>> {
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match start {
            None if bare == BEGIN => start = Some(offset),
            Some(begin) if bare == END => return Some(begin..offset + line.len()),
            _ => {}
        }
        offset += line.len();
    }
    None
}

/// The file's new text with vermas's block holding `lines`, or `None` when it is right
/// already. No file: the block alone. A block: replaced where it stands. No block: none
/// is needed when every line of `lines` that is not a comment is in the file already (as
/// an older vermas wrote it), else the block is appended after the file's own lines.
pub(crate) fn merged(current: Option<&str>, lines: &[&str]) -> Option<String> {
    let wanted = block(lines);
    let Some(text) = current else {
        return Some(wanted);
    };
    if let Some(range) = block_range(text) {
        if text[range.clone()] == wanted {
            return None;
        }
        let mut out = String::with_capacity(text.len() + wanted.len());
        out.push_str(&text[..range.start]);
        out.push_str(&wanted);
        out.push_str(&text[range.end..]);
        return Some(out);
    }
    let present = |want: &str| text.lines().any(|l| l.trim_end_matches('\r') == want);
    if lines
        .iter()
        .filter(|l| !l.starts_with('#'))
        .all(|l| present(l))
    {
        return None;
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&wanted);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BD_IGNORE: &str =
        "# SQLite databases\n*.db\n*.db-wal\n\n# Daemon runtime files\ndaemon.log\n!issues.jsonl\n";

    #[test]
    fn a_new_file_holds_the_block_alone() {
        let text = merged(None, GITIGNORE_LINES).expect("written");
        assert_eq!(text, block(GITIGNORE_LINES));
        assert!(text.starts_with("# >>> vermas\n"));
        assert!(text.ends_with("wisps/\n.lock\n# <<< vermas\n"));
        assert_eq!(merged(Some(&text), GITIGNORE_LINES), None);
    }

    #[test]
    fn bds_lines_stay_and_the_block_follows_them_once() {
        let once = merged(Some(BD_IGNORE), GITIGNORE_LINES).expect("added");
        assert!(once.starts_with(BD_IGNORE), "{once}");
        assert_eq!(&once[BD_IGNORE.len()..], block(GITIGNORE_LINES));
        assert_eq!(merged(Some(&once), GITIGNORE_LINES), None);
        // A file without a final newline gets one before the block, nothing else.
        let bare = merged(Some("*.db"), GITIGNORE_LINES).expect("added");
        assert_eq!(bare, format!("*.db\n{}", block(GITIGNORE_LINES)));
    }

    #[test]
    fn an_outdated_block_is_replaced_in_place() {
        let old = format!("*.db\n{BEGIN}\n.cache/\n{END}\ndaemon.log\n");
        let new = merged(Some(&old), GITIGNORE_LINES).expect("replaced");
        assert_eq!(new, format!("*.db\n{}daemon.log\n", block(GITIGNORE_LINES)));
    }

    #[test]
    fn an_older_vermas_file_with_every_line_needs_no_block() {
        let old = "# Rebuildable caches, ephemeral wisps and the write lock are never committed.\n.cache/\nwisps/\n.lock\n";
        assert_eq!(merged(Some(old), GITIGNORE_LINES), None);
        // An older file without the merge driver's lines gets the block that names it.
        assert!(merged(Some("* -text -filter\n"), GITATTRIBUTES_LINES).is_some());
        // An opening marker without its closing one is no block: bd's lines are kept.
        let broken = format!("{BEGIN}\n*.db\n");
        let fixed = merged(Some(&broken), GITIGNORE_LINES).expect("appended");
        assert!(fixed.starts_with(&broken));
    }
}
