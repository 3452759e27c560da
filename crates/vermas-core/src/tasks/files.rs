//! Writing results back: ticking passing items in the tasks file and appending learnings
//! to `.progress.md`. Both rewrite the whole file through a temporary file and a rename.

use super::parse::verify_items;
use crate::error::Error;
use std::path::Path;

/// The heading learnings are appended under.
pub(crate) const LEARNINGS: &str = "## Learnings";

/// `text` with the checkbox of every item at one of `lines` (one-based) ticked `[x]`;
/// nothing else changes. Lines that are no longer `[VERIFY]` items are left alone.
pub(crate) fn tick(text: &str, lines: &[usize]) -> (String, usize) {
    let mut bytes = text.as_bytes().to_vec();
    let mut ticked = 0;
    for item in verify_items(text) {
        if lines.contains(&item.line) && !item.checked {
            bytes[item.box_offset] = b'x';
            ticked += 1;
        }
    }
    // Only an ASCII space was replaced by an ASCII letter, so the text stays UTF-8.
    (String::from_utf8_lossy(&bytes).into_owned(), ticked)
}

/// `text` (a progress file, possibly empty) with `entries` added at the end of its
/// `## Learnings` section, which is created at the end when missing.
pub(crate) fn add_learnings(text: &str, entries: &[String]) -> String {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block: String = entries.iter().map(|e| format!("{e}{newline}")).collect();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let heading = lines
        .iter()
        .position(|l| l.trim().eq_ignore_ascii_case(LEARNINGS));
    let Some(h) = heading else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        if !out.trim().is_empty() {
            out.push_str(newline);
        }
        out.push_str(LEARNINGS);
        out.push_str(newline);
        out.push_str(newline);
        out.push_str(&block);
        return out;
    };
    // The section ends at the next heading of level 1 or 2.
    let end = lines[h + 1..]
        .iter()
        .position(|l| l.starts_with("# ") || l.starts_with("## "))
        .map_or(lines.len(), |i| h + 1 + i);
    // Insert after the section's last non-blank line (or a blank line after the heading).
    let mut at = end;
    while at > h + 1 && lines[at - 1].trim().is_empty() {
        at -= 1;
    }
    let mut out: String = lines[..at].concat();
    if !out.ends_with('\n') {
        out.push_str(newline);
    }
    if at == h + 1 {
        out.push_str(newline);
    }
    out.push_str(&block);
    let tail = lines[at..].concat();
    if tail.trim().is_empty() {
        // Only blank lines followed: drop them.
    } else if at < end {
        out.push_str(&tail);
    } else {
        out.push_str(newline);
        out.push_str(&tail);
    }
    out
}

/// Replaces `path`'s content with `bytes` atomically: through `crate::store::write_atomic`
/// when there is a workspace cache folder, else through a hidden temporary file beside it.
pub(crate) fn replace(cache_dir: Option<&Path>, path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if let Some(dir) = cache_dir {
        return crate::store::write_atomic(dir, path, bytes);
    }
    // A fifo or a device named as the file is written into: a rename would replace it.
    if let Some(written) = crate::store::write_into_special(path, bytes, false) {
        return written.map_err(|e| Error::io(path, e));
    }
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.vermas-tmp", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            // Best effort: the write error is what is reported.
            let _ = std::fs::remove_file(&tmp);
            Error::io(path, e)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_only_the_named_items() {
        let text = "- [ ] V1 [VERIFY] a: true\r\n- [ ] V2 [VERIFY] b: false\r\n- [ ] plain\r\n";
        let (out, n) = tick(text, &[1, 3]);
        assert_eq!(n, 1);
        assert_eq!(
            out,
            "- [x] V1 [VERIFY] a: true\r\n- [ ] V2 [VERIFY] b: false\r\n- [ ] plain\r\n"
        );
    }

    #[test]
    fn learnings_heading_created_once() {
        let e = |s: &str| vec![s.to_string()];
        let first = add_learnings("", &e("- one"));
        assert_eq!(first, "## Learnings\n\n- one\n");
        let second = add_learnings(&first, &e("- two"));
        assert_eq!(second, "## Learnings\n\n- one\n- two\n");
        let with_title = add_learnings("# Progress\nnotes", &e("- one"));
        assert_eq!(with_title, "# Progress\nnotes\n\n## Learnings\n\n- one\n");
    }

    #[test]
    fn learnings_go_at_the_end_of_their_section() {
        let text = "# P\n\n## Learnings\n\n- old\n\n## Next\nx\n";
        let out = add_learnings(text, &["- new".to_string()]);
        assert_eq!(out, "# P\n\n## Learnings\n\n- old\n- new\n\n## Next\nx\n");
        let bare = add_learnings("## Learnings\n## Next\n", &["- new".to_string()]);
        assert_eq!(bare, "## Learnings\n\n- new\n\n## Next\n");
    }
}
