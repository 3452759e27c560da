//! What the session's status line counts: the mayor's and the inspector's unread mail,
//! the test specs waiting for approval, and the merge requests queued for the refinery.

use vermas_core::error::Result;
use vermas_core::mail::query;
use vermas_core::refinery::request::{self, State};
use vermas_core::workspace::Workspace;

/// The figures of one status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Figures {
    /// Unread messages in `mayor/`.
    pub mayor_unread: usize,
    /// Unread messages in `inspector/`.
    pub inspector_unread: usize,
    /// Test specs not yet approved.
    pub pending_test_specs: usize,
    /// Merge requests in `.beads/mq/` whose state is `queued` (no folder: none).
    pub refinery_queued: usize,
}

/// Counts the figures of `ws` now.
pub fn figures(ws: &Workspace) -> Result<Figures> {
    Ok(Figures {
        mayor_unread: unread(ws, "mayor/")?,
        inspector_unread: unread(ws, "inspector/")?,
        pending_test_specs: vermas_core::inspect::testspec::pending(ws)?.len(),
        refinery_queued: queued(ws)?,
    })
}

/// Unread messages addressed to `addr` (files that do not parse are not counted).
fn unread(ws: &Workspace, addr: &str) -> Result<usize> {
    let inbox = query::inbox(ws, addr)?;
    let (entries, _) = inbox.entries(ws, true);
    Ok(entries.len())
}

/// Merge requests waiting in state `queued` (files that do not parse are not counted).
fn queued(ws: &Workspace) -> Result<usize> {
    if !request::dir(ws).is_dir() {
        return Ok(0);
    }
    let (all, _) = request::load_all(ws)?;
    Ok(all.iter().filter(|r| r.state == State::Queued).count())
}
