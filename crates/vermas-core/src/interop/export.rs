//! `export bd`: every bead as one line of bd's JSONL, sorted by id, as `bd export` writes.

use super::{gojson, sections, to_bd};
use crate::bead::{Bead, BeadSet};
use crate::error::{Error, Result};
use crate::workspace::Workspace;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// The JSONL text of an export.
#[derive(Debug)]
pub struct Exported {
    /// One line per bead, each ending in a newline; empty for an empty store.
    pub text: String,
    /// How many beads it holds.
    pub count: usize,
    /// Bead files that could not be read, so are not in it.
    pub broken: Vec<Error>,
}

/// Every bead of `ws` as bd JSONL.
pub fn export(ws: &Workspace) -> Result<Exported> {
    let mut set = BeadSet::load(ws)?;
    let ids: Vec<String> = set.beads.keys().cloned().collect();
    // The index holds beads without their bodies and notes: read those in full.
    set.complete(ws, ids.iter().map(String::as_str))?;
    let mut text = String::new();
    for bead in set.beads.values() {
        text.push_str(&line(bead));
        text.push('\n');
    }
    Ok(Exported {
        text,
        count: set.beads.len(),
        broken: set.broken,
    })
}

/// One bead as a bd issue line (without the newline).
pub fn line(bead: &Bead) -> String {
    let (texts, kept) = sections::split(&bead.description);
    let base = to_bd::base(bead, &texts);
    let issue = to_bd::overlay(base, &kept, &bead.id);
    gojson::to_line(&Value::Object(issue))
}

/// Writes `text` to `path` through a temporary file beside it and a rename, so a reader
/// (bd among them) sees the old file or the new one, never half of one. A fifo or a device
/// named as `path` (or a symlink's target) is written into instead: a rename would
/// replace it with a regular file.
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(written) = crate::store::write_into_special(path, text.as_bytes(), true) {
        return written.map_err(|e| Error::io(path, e));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        std::fs::create_dir_all(&dir)?;
        // Best effort: a temporary file may be left; the error that matters is returned.
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        // Best effort: a temporary file may be left; the error that matters is returned.
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}
