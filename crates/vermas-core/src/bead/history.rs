//! `history ID`: the commits that changed a bead, each with the fields it changed.

use super::store::{bead_path, load_one};
use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// One commit in a bead's history.
#[derive(Debug, Clone, Serialize)]
pub struct BeadChange {
    /// Commit id.
    pub commit: String,
    /// Commit author.
    pub author: String,
    /// Commit time.
    pub at: Timestamp,
    /// Commit subject.
    pub summary: String,
    /// Changed lines of the bead file: `-` old, `+` new.
    pub changes: Vec<String>,
}

/// The history of bead `id` (exact id or unique prefix), newest first.
pub fn history(ws: &Workspace, id: &str) -> Result<Vec<BeadChange>> {
    let full = match load_one(ws, id) {
        Ok(b) => b.id,
        // A deleted bead is named by its full id.
        Err(Error::NotFound(_)) if crate::store::id::is_valid(id) => id.to_string(),
        Err(e) => return Err(e),
    };
    let repo = GitRepo::open(&ws.beads_dir)
        .ok_or_else(|| Error::git("not a git repository: vermas has no history to show"))?;
    let changes = repo.file_history(&bead_path(ws, &full))?;
    if changes.is_empty() {
        return Err(Error::NotFound(id.to_string()));
    }
    Ok(changes
        .into_iter()
        .map(|c| {
            let before =
                String::from_utf8_lossy(c.before.as_deref().unwrap_or_default()).into_owned();
            let after =
                String::from_utf8_lossy(c.after.as_deref().unwrap_or_default()).into_owned();
            BeadChange {
                commit: c.commit,
                author: c.author,
                at: c.at,
                summary: c.summary,
                changes: field_diff(&before, &after),
            }
        })
        .collect())
}

/// The lines that differ between two versions of a record, as `- old` / `+ new`.
pub(crate) fn field_diff(before: &str, after: &str) -> Vec<String> {
    TextDiff::from_lines(before, after)
        .iter_all_changes()
        .filter(|c| c.tag() != ChangeTag::Equal)
        .filter(|c| c.value().trim_end() != "---")
        .map(|c| {
            let sign = if c.tag() == ChangeTag::Delete {
                '-'
            } else {
                '+'
            };
            format!("{sign} {}", c.value().trim_end_matches('\n'))
        })
        .collect()
}
