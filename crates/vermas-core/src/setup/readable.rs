//! Whether a record file under `.beads/` is one vermas can read, before `doctor --fix`
//! commits it: a leftover temporary file, a file with git's conflict markers or a record
//! that does not parse is named and never committed.

use crate::bead::Bead;
use crate::error::Result;
use crate::workspace::Workspace;
use std::path::Path;

/// Why the record file `path` (under `ws`'s `.beads/`) must not be committed as it is, or
/// `None` when it can be: it reads and parses as what its folder holds, or it is gone (a
/// removal is always recordable).
pub fn unreadable(ws: &Workspace, path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    match path.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(e.to_string()),
        Ok(_) => {}
    }
    if name.starts_with('.') || name.ends_with(".tmp") || name.ends_with(".partial") {
        return Some("a temporary file an interrupted write left, not a record".into());
    }
    let text = match ws.read_record(path) {
        Ok(text) => text,
        Err(e) => return Some(e.to_string()),
    };
    let shown = ws.display(path);
    if let Some(line) = conflict_markers(&text) {
        return Some(format!(
            "{shown}:{line}: git's conflict markers (<<<<<<<, =======, >>>>>>>): an unfinished merge"
        ));
    }
    parses(ws, path, &name, &text, &shown)
        .err()
        .map(|e| e.to_string())
}

/// Parses `text` as what the folder of `path` holds; a file whose name vermas does not
/// read there (a note, a hook script, a role) is not parsed.
fn parses(ws: &Workspace, path: &Path, name: &str, text: &str, shown: &str) -> Result<()> {
    let rel = path.strip_prefix(&ws.beads_dir).unwrap_or(path);
    let folder = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    let layout = |dir: &str| folder == dir;
    use crate::workspace::layout;
    if rel == Path::new(crate::config::SETTINGS_FILE) {
        crate::config::Config::parse(text, shown)?;
    } else if layout(layout::ISSUES) && name.ends_with(".md") {
        let bead = Bead::parse(text, shown)?;
        if path.file_stem().and_then(|s| s.to_str()) != Some(bead.id.as_str()) {
            crate::store::frontmatter::check_file_name(shown, text, path, &bead.id)?;
        }
    } else if layout(layout::MAIL) && name.ends_with(".md") {
        crate::mail::Message::parse(text, shown)?;
    } else if layout(layout::MOLS) && name.ends_with(".yaml") {
        crate::mol::molecule::read(ws, path)?;
    } else if layout(layout::RESULTS) && name.ends_with(".yaml") {
        crate::text::yaml::parse::<crate::verify::results::ResultRecord>(text, shown, text, 1)?;
    } else if layout(layout::FORMULAS) && name.ends_with(crate::mol::cook::FORMULA_SUFFIX) {
        crate::mol::formula::parse(std::sync::Arc::new(crate::mol::formula::Source {
            name: shown.to_string(),
            text: text.to_string(),
        }))?;
    }
    Ok(())
}

/// The line (from 1) where git's conflict markers start in `text`: a `<<<<<<<` line, then
/// a `=======` line, then a `>>>>>>>` line.
fn conflict_markers(text: &str) -> Option<usize> {
    let mut start = None;
    let mut middle = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line == "<<<<<<<" || line.starts_with("<<<<<<< ") {
            start = Some(i + 1);
            middle = false;
        } else if start.is_some() && line == "=======" {
            middle = true;
        } else if middle && (line == ">>>>>>>" || line.starts_with(">>>>>>> ")) {
            return start;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::conflict_markers;

    #[test]
    fn conflict_markers_need_all_three_lines_in_order() {
        assert_eq!(
            conflict_markers("a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n"),
            Some(2)
        );
        // A markdown heading underline alone is no conflict.
        assert_eq!(conflict_markers("Title\n=======\ntext\n"), None);
        assert_eq!(conflict_markers(">>>>>>> x\n=======\n<<<<<<< y\n"), None);
    }
}
