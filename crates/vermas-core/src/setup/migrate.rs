//! Moving the settings an older vermas kept in `.beads/config.yaml` (the name bd uses for
//! its own settings) to `.beads/vermas.yaml`: once, as they are, in one commit.

use crate::error::Result;
use crate::store::{CommitMessage, Recorded, Txn};
use crate::workspace::Workspace;

/// What moving the settings did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// The file the settings were in, as the user sees it (`.beads/config.yaml`).
    pub from: String,
    /// The file they are in now (`.beads/vermas.yaml`).
    pub to: String,
    /// What git recorded.
    pub recorded: Recorded,
}

/// Moves an older vermas's `.beads/config.yaml` to `.beads/vermas.yaml` (its text
/// unchanged, comments included) and commits the move. `None` when there is nothing to
/// move: no such file, bd's own `config.yaml`, or a `vermas.yaml` already there.
pub fn migrate_legacy_config(ws: &Workspace, actor: &str) -> Result<Option<Migration>> {
    if ws.legacy_config.is_none() {
        return Ok(None);
    }
    crate::bead::ops::check_actor(actor)?;
    let mut txn = Txn::begin(ws)?;
    // Under the lock: another vermas may have moved it meanwhile.
    let fresh = Workspace::open(ws.beads_dir.clone())?;
    let Some(from) = fresh.legacy_config.clone() else {
        return Ok(None);
    };
    let text = fresh.read_record(&from)?;
    let to = fresh.config_path();
    txn.write(&to, text.as_bytes())?;
    txn.remove(&from)?;
    let (from, to) = (fresh.display(&from), fresh.display(&to));
    let recorded = txn.commit(&CommitMessage {
        verb: "config".into(),
        ids: Vec::new(),
        title: format!("settings moved from {from} to {to}"),
        actor: actor.to_string(),
    })?;
    Ok(Some(Migration { from, to, recorded }))
}
