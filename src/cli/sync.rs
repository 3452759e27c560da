//! `sync [REMOTE]`: the ledger shared with other machines through git, in one line.

use super::output;
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use vermas_core::error::Error;

/// `sync [REMOTE]`: fetch, merge and push; exit 0 once the local and remote branches are
/// equal. A merge git cannot make cleanly is refused with exit 1, nothing changed.
pub fn sync(ctx: &Ctx, ui: &mut Ui, remote: Option<&str>) -> CmdResult {
    let ws = ctx.workspace()?;
    let exe = std::env::current_exe().ok();
    let exe_dir = exe.as_deref().and_then(std::path::Path::parent);
    let synced = match vermas_core::sync::sync(&ws, remote, exe_dir) {
        Ok(s) => s,
        Err(e @ Error::Conflict { .. }) => {
            // A refused merge is a failure of the moment, not bad input: exit 1.
            output::error(&e, ui.json);
            return Ok(1);
        }
        Err(e) => return Err(e),
    };
    if ui.json {
        ui.json(&serde_json::json!({
            "schema_version": 1,
            "remote": synced.remote,
            "branch": synced.branch,
            "remote_branch": synced.remote_branch,
            "pulled": synced.pulled,
            "pushed": synced.pushed,
            "tries": synced.tries,
        }));
    } else {
        outln!(
            ui,
            "Synced with {}/{}: pulled {}, pushed {}",
            synced.remote,
            synced.remote_branch,
            vermas_core::words::plural(synced.pulled, "record"),
            vermas_core::words::plural(synced.pushed, "commit"),
        );
    }
    Ok(0)
}
