//! One bead file: where it lives and how it is read (the shape vermas writes without the
//! YAML parser, see [`super::canonical`]; anything else with it).

use super::model::Bead;
use crate::error::Result;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// The file of bead `id`.
pub(crate) fn bead_path(ws: &Workspace, id: &str) -> PathBuf {
    ws.issues_dir().join(format!("{id}.md"))
}

/// Loads every bead, parsing only the files the index does not already hold.
pub(super) fn load_all(ws: &Workspace) -> Result<crate::store::index::Loaded<Bead>> {
    crate::store::index::load::<Bead>(
        &ws.issues_dir(),
        &super::cache::index_path(ws),
        &ws.cache_dir(),
        |path| read_bead(ws, path),
    )
}

/// Reads and parses one bead file (a symlink only when it stays inside the repository).
pub(crate) fn read_bead(ws: &Workspace, path: &Path) -> Result<Bead> {
    parse_bead(ws, path, &ws.read_record(path)?)
}

/// Parses the text of a bead file (`shown` names it in errors): the shape vermas writes
/// without the YAML parser, anything else with it. Approval is not settled here (see
/// [`parse_bead`]): the record is read as written.
pub(crate) fn parse_text(text: &str, shown: &str) -> Result<Bead> {
    match super::canonical::parse(text) {
        Some(bead) => Ok(bead),
        None => Bead::parse(text, shown),
    }
}

/// Parses `text`, the content of the bead file `path`.
pub(super) fn parse_bead(ws: &Workspace, path: &Path, text: &str) -> Result<Bead> {
    let mut bead = parse_text(text, &ws.display(path))?;
    // A closed test spec counts as approved only while its criteria match the stamp.
    super::approval::settle(&mut bead);
    if path.file_stem().and_then(|s| s.to_str()) != Some(bead.id.as_str()) {
        crate::store::frontmatter::check_file_name(&ws.display(path), text, path, &bead.id)?;
    }
    Ok(bead)
}
