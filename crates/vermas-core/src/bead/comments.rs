//! Comments, bd's name for a bead's notes: the notes in the shape `bd comments --json`
//! prints them, and adding one (as `update --notes` does).

use super::model::Bead;
use super::ops::{self, Changed, Changes};
use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;

/// One note, under bd's key names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comment {
    /// Its place among the bead's notes, from 1.
    pub id: usize,
    /// The bead.
    pub issue_id: String,
    /// Who wrote it.
    pub author: String,
    /// What it says.
    pub text: String,
    /// When.
    pub created_at: Timestamp,
}

/// The notes of `bead`, oldest first. The bead must be complete (loaded from its file).
pub fn comments(bead: &Bead) -> Vec<Comment> {
    bead.notes
        .iter()
        .enumerate()
        .map(|(i, n)| Comment {
            id: i + 1,
            issue_id: bead.id.clone(),
            author: n.by.clone(),
            text: n.text.clone(),
            created_at: n.at,
        })
        .collect()
}

/// Adds a note saying `text` to bead `id` (exact or unique prefix) in one commit;
/// returns the change and the new comment. Empty text is refused.
pub fn add(ws: &Workspace, actor: &str, id: &str, text: &str) -> Result<(Changed, Comment)> {
    if text.trim().is_empty() {
        return Err(Error::Invalid("the comment is empty".into()));
    }
    let changes = Changes {
        note: Some(text.to_string()),
        ..Changes::default()
    };
    let changed = ops::update(ws, actor, &[id.to_string()], &changes)?;
    let comment = changed
        .beads
        .first()
        .and_then(|b| comments(b).pop())
        .ok_or_else(|| Error::NotFound(id.to_string()))?;
    Ok((changed, comment))
}
