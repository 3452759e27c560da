//! `export bd`: every bead as one line of bd's JSONL, sorted by id, as `bd export` writes.

use super::{gojson, sections, to_bd};
use crate::bead::Bead;
use crate::bead::catalog::{Catalog, IndexedBead};
use crate::bead::store::{bead_path, read_bead};
use crate::error::{Error, Result};
use crate::sys::par::par_map;
use crate::workspace::Workspace;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// An export: the beads as the index lists them, each read in full only for its line.
pub struct Exported {
    /// Every bead's index line (the same beads `BeadSet::load` finds).
    catalog: Catalog,
    /// How many beads it holds.
    pub count: usize,
    /// Bead files that could not be read, so are not in it.
    pub broken: Vec<Error>,
}

impl Exported {
    /// Writes one line per bead in id order, each ending in a newline (nothing for an
    /// empty store). Beads are made into lines a batch at a time (on the idle cores), each
    /// from its index line, or from its file when the line leaves out its body or notes,
    /// and the batch written before the next is made: neither the whole text nor every
    /// bead is held. A bead that cannot be read fails the export after the lines before
    /// it are written (the outer error); the inner one is a failed write.
    pub fn write_to(
        &self,
        ws: &Workspace,
        out: &mut (impl Write + ?Sized),
    ) -> Result<std::io::Result<()>> {
        let mut beads: Vec<IndexedBead<'_>> = self.catalog.iter().collect();
        beads.sort_unstable_by_key(|b| b.key());
        for batch in beads.chunks(BATCH) {
            for made in par_map(batch, |_, indexed| Some(bead_line(ws, indexed))) {
                let written = out.write_all(made?.as_bytes());
                if written.is_err() {
                    return Ok(written);
                }
            }
        }
        Ok(Ok(()))
    }
}

/// How many beads are made into lines before they are written: enough to share out
/// among the cores, few enough that their lines take a few megabytes.
const BATCH: usize = 4096;

/// The line of `indexed`, with its newline: from its index line when that holds the whole
/// bead, else from its file.
fn bead_line(ws: &Workspace, indexed: &IndexedBead<'_>) -> Result<String> {
    let whole = match indexed.is_partial() {
        false => indexed.to_bead().filter(|b| !b.partial),
        true => None,
    };
    let bead = match whole {
        Some(bead) => bead,
        None => read_bead(ws, &bead_path(ws, indexed.key()))?,
    };
    let mut text = line(&bead);
    text.push('\n');
    Ok(text)
}

/// Every bead of `ws`, listed for a bd JSONL export: their index lines, not the beads.
pub fn export(ws: &Workspace) -> Result<Exported> {
    let mut catalog = Catalog::load(ws)?;
    let broken = std::mem::take(&mut catalog.broken);
    Ok(Exported {
        count: catalog.len(),
        catalog,
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
