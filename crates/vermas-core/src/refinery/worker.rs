//! A worker's worktree (made by `sling --worktree`) once the refinery has merged or
//! rejected its work for good: removed, unless it holds changes nobody committed (then kept,
//! with a warning); and the worktrees `doctor` lists, whose work is closed.

use super::request::{MergeRequest, State};
use crate::bead::model::Bead;
use crate::git::Git;
use crate::workspace::Workspace;
use std::path::Path;

/// Removes the worktree of `req`'s work when the request ended for good (merged or
/// rejected) and the worktree is the work's own, on the request's branch; a warning when
/// it is kept.
pub(crate) fn remove_after(ws: &Workspace, git: &Git, req: &MergeRequest) -> Option<String> {
    if !matches!(req.state, State::Merged | State::Rejected) {
        return None;
    }
    let work = crate::bead::store::load_one(ws, &req.bead).ok()?;
    let dir = work.worktree.as_deref()?;
    if work.branch.as_deref() != Some(req.branch.as_str()) || !Path::new(dir).exists() {
        return None;
    }
    let dirty = crate::git::cli::run(Path::new(dir), &["status", "--porcelain"])
        .map_or(true, |out| !out.trim().is_empty());
    if dirty {
        return Some(format!(
            "kept the worktree {dir} of {}: it has changes nobody committed",
            work.id
        ));
    }
    git.worktree_remove(Path::new(dir));
    None
}

/// The worker worktrees that still exist although their work is closed: each bead's
/// worktree and the bead.
pub(crate) fn left_over(ws: &Workspace) -> Vec<(String, Bead)> {
    let Ok(entries) = std::fs::read_dir(ws.issues_dir()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        if !text.contains("\nworktree: ") {
            continue;
        }
        let Ok(bead) = crate::bead::store::load_one(
            ws,
            e.path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
                .as_str(),
        ) else {
            continue;
        };
        if let Some(dir) = bead.worktree.clone()
            && bead.is_closed()
            && Path::new(&dir).exists()
        {
            out.push((dir, bead));
        }
    }
    out
}
