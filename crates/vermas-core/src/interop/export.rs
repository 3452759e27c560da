//! `export bd`: every bead as one line of bd's JSONL, sorted by id, as `bd export` writes.

use super::{gojson, sections, to_bd};
use crate::bead::store::{bead_path, read_bead};
use crate::bead::{Bead, BeadSet};
use crate::error::{Error, Result};
use crate::workspace::Workspace;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// An export: the beads, read, to be written as bd JSONL a line at a time.
#[derive(Debug)]
pub struct Exported {
    /// The beads, in full, by id.
    set: BeadSet,
    /// How many beads it holds.
    pub count: usize,
    /// Bead files that could not be read, so are not in it.
    pub broken: Vec<Error>,
}

impl Exported {
    /// Writes one line per bead, each ending in a newline (nothing for an empty store),
    /// each line as it is made and each bead's body read just for its line: neither the
    /// whole text nor every body is held. A bead that cannot be read fails the export (the
    /// outer error); the inner one is a failed write.
    pub fn write_to(
        &self,
        ws: &Workspace,
        out: &mut (impl Write + ?Sized),
    ) -> Result<std::io::Result<()>> {
        for bead in self.set.beads.values() {
            // The index holds beads without their bodies and notes: read those in full.
            let full;
            let bead = if bead.partial {
                full = read_bead(ws, &bead_path(ws, &bead.id))?;
                &full
            } else {
                bead
            };
            let written = out
                .write_all(line(bead).as_bytes())
                .and_then(|()| out.write_all(b"\n"));
            if written.is_err() {
                return Ok(written);
            }
        }
        Ok(Ok(()))
    }
}

/// Every bead of `ws`, listed for a bd JSONL export.
pub fn export(ws: &Workspace) -> Result<Exported> {
    let mut set = BeadSet::load(ws)?;
    let broken = std::mem::take(&mut set.broken);
    Ok(Exported {
        count: set.beads.len(),
        set,
        broken,
    })
}

/// One bead as a bd issue line (without the newline).
pub fn line(bead: &Bead) -> String {
    let (texts, kept) = sections::split(&bead.description);
    let base = to_bd::base(bead, &texts);
    let issue = to_bd::overlay(base, &kept, &bead.id);
    gojson::to_line(&Value::Object(issue))
}

/// Writes what `fill` writes to `path` through a temporary file beside it and a rename,
/// so a reader (bd among them) sees the old file or the new one, never half of one. A
/// fifo or a device named as `path` (or a symlink's target) is written into instead: a
/// rename would replace it with a regular file.
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    if is_special(path) {
        let result = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| buffered(f, fill).map(drop));
        return result.map_err(|e| Error::io(path, e));
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
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        buffered(f, fill)?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        // Best effort: a temporary file may be left; the error that matters is returned.
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// True when `path` (or a symlink's target) is there and is not a regular file (a fifo,
/// a device): written into, as a shell's `>` would.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// `file` after `fill` wrote into it through a buffer, flushed.
fn buffered(
    file: std::fs::File,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<std::fs::File> {
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, file);
    fill(&mut out)?;
    out.into_inner()
        .map_err(std::io::IntoInnerError::into_error)
}
