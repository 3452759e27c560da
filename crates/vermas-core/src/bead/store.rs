//! Reading beads from `.beads/issues/` and resolving ids or their prefixes.

use super::fields::{BeadFields, display_order};
use super::model::Bead;
use crate::error::{Error, Result};
use crate::workspace::Workspace;
use std::collections::BTreeMap;

pub(crate) use super::file::{bead_path, parse_text, read_bead};

/// Every bead of a workspace, plus the files that did not parse.
#[derive(Debug, Default)]
pub struct BeadSet {
    /// Beads by id.
    pub beads: BTreeMap<String, Bead>,
    /// Files that could not be read as beads.
    pub broken: Vec<Error>,
}

impl BeadSet {
    /// Loads every `*.md` under `.beads/issues/` (through the index cache).
    pub fn load(ws: &Workspace) -> Result<BeadSet> {
        let loaded = super::file::load_all(ws)?;
        Ok(BeadSet {
            beads: loaded
                .records
                .into_iter()
                .map(|b| (b.id.clone(), b))
                .collect(),
            broken: loaded.broken,
        })
    }

    /// Loads the full description and notes of the beads `ids` that came from the cache
    /// without them.
    pub fn complete<'a>(
        &mut self,
        ws: &Workspace,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        for id in ids {
            if self.beads.get(id).is_some_and(|b| b.partial) {
                let full = read_bead(ws, &bead_path(ws, id))?;
                self.beads.insert(id.to_string(), full);
            }
        }
        Ok(())
    }

    /// The bead `id` names exactly or by unique prefix.
    pub fn resolve(&self, id: &str) -> Result<&Bead> {
        let full = resolve_in(self.beads.keys().map(String::as_str), id, &self.broken)?;
        Ok(&self.beads[&full])
    }

    /// Beads in the order `ready` and `list` show them: priority, then oldest first, then id.
    pub fn sorted<'a, B: BeadFields + 'a>(beads: impl IntoIterator<Item = &'a B>) -> Vec<&'a B> {
        let mut v: Vec<&B> = beads.into_iter().collect();
        v.sort_by(display_order);
        v
    }
}

/// Loads one bead by exact id or unique prefix without reading the others when the
/// exact file exists.
pub fn load_one(ws: &Workspace, id: &str) -> Result<Bead> {
    if crate::store::id::is_valid(id) {
        let path = bead_path(ws, id);
        // Not `is_file`: a symlink is read (and refused if it leads outside) as it is.
        if path.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            return read_bead(ws, &path);
        }
    }
    let set = BeadSet::load(ws)?;
    let full = resolve_in(set.beads.keys().map(String::as_str), id, &set.broken)?;
    Ok(set.beads[&full].clone())
}

/// Resolves `id` among `ids`: exact, else exactly the hash part after `<prefix>-` (so
/// `k3f9` names `vm-k3f9`, not its children `vm-k3f9.1`), else unique prefix of the id,
/// else unique prefix of the hash part.
fn resolve_in<'a>(
    ids: impl Iterator<Item = &'a str> + Clone,
    id: &str,
    broken: &[Error],
) -> Result<String> {
    if let Some(exact) = ids.clone().find(|i| *i == id) {
        return Ok(exact.to_string());
    }
    let mut found: Vec<&str> = ids
        .clone()
        .filter(|i| i.split_once('-').is_some_and(|(_, h)| h == id))
        .collect();
    if found.is_empty() {
        found = ids.clone().filter(|i| i.starts_with(id)).collect();
    }
    if found.is_empty() {
        found = ids
            .filter(|i| i.split_once('-').is_some_and(|(_, h)| h.starts_with(id)))
            .collect();
    }
    match found.as_slice() {
        [one] => Ok(one.to_string()),
        [] => {
            // The bead may exist but fail to parse: say so rather than "not found".
            if let Some(e) = broken.iter().find(|e| match e {
                Error::Parse(p) => p.file.ends_with(&format!("/{id}.md")),
                _ => false,
            }) {
                return Err(Error::Invalid(format!("bead '{id}' cannot be read: {e}")));
            }
            Err(Error::NotFound(id.to_string()))
        }
        many => Err(Error::Ambiguous {
            prefix: id.to_string(),
            candidates: many.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// The bead whose work `sling` recorded on `branch`, if one did (every bead file is read
/// as text, and parsed only when it names a branch).
pub(crate) fn owner_of_branch(ws: &Workspace, branch: &str) -> Result<Option<Bead>> {
    let Ok(entries) = std::fs::read_dir(ws.issues_dir()) else {
        return Ok(None);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !text.contains("\nbranch: ") {
            continue;
        }
        if let Ok(bead) = read_bead(ws, &path)
            && bead.branch.as_deref() == Some(branch)
        {
            return Ok(Some(bead));
        }
    }
    Ok(None)
}
