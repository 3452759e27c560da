//! Registering `vermas merge-file` as git's merge driver `vermas`: the repository's git
//! config names the command (`merge.vermas.driver`, `merge.vermas.name`), and
//! `.beads/.gitattributes` (vermas's block, see [`super::block`]) names the driver for
//! record files, so a plain `git pull` or `git merge` merges records by meaning.

use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::workspace::Workspace;

/// The command git runs: base, ours (the result goes there), theirs, the path.
pub(crate) const DRIVER: &str = "vermas merge-file %O %A %B %P";
/// The driver's name as git shows it.
pub(crate) const NAME: &str = "vermas records merged by meaning";
/// The attribute naming the driver, as `.beads/.gitattributes` holds it.
pub(crate) const ATTRIBUTE: &str = "merge=vermas";

/// True when the git config of the ledger's repository names the driver (also true
/// outside git: there is nothing to register then).
pub(crate) fn registered(ws: &Workspace) -> bool {
    GitRepo::open(&ws.beads_dir).is_none_or(|r| r.config_value("merge.vermas.driver").is_some())
}

/// [`register`] for every command that opens a workspace where `.beads/.gitattributes`
/// names the driver, so a clone gets the driver with its first vermas command: a glance at
/// the repository's `.git/config` first (one small read), the git config proper only when
/// that does not show the driver. Best effort:
/// `doctor` reports a driver that could not be registered.
pub fn ensure(ws: &Workspace) {
    if let Some(root) = ws.beads_dir.parent()
        && std::fs::read_to_string(root.join(".git/config"))
            .is_ok_and(|text| text.contains("[merge \"vermas\"]"))
    {
        return;
    }
    // Only where the records name the driver (the repository's vermas was set up): a
    // folder of bd's alone gets nothing written. Best effort, as above.
    if attributed(ws) {
        let _ = register(ws);
    }
}

/// Names the driver in the git config of the ledger's repository when it does not yet;
/// returns whether it wrote it.
pub(crate) fn register(ws: &Workspace) -> Result<bool> {
    let Some(repo) = GitRepo::open(&ws.beads_dir) else {
        return Ok(false);
    };
    if repo.config_value("merge.vermas.driver").is_some() {
        return Ok(false);
    }
    for (key, value) in [("merge.vermas.name", NAME), ("merge.vermas.driver", DRIVER)] {
        crate::git::cli::run(repo.workdir(), &["config", key, value]).map_err(|e| {
            Error::git(format!(
                "cannot register the merge driver: {e}; register it by hand: \
                 `git config {key} \"{value}\"`"
            ))
        })?;
    }
    Ok(true)
}

/// True when `.beads/.gitattributes` names the driver for record files.
pub(crate) fn attributed(ws: &Workspace) -> bool {
    ws.read_record(&ws.beads_dir.join(".gitattributes"))
        .is_ok_and(|text| text.lines().any(|l| l.contains(ATTRIBUTE)))
}
