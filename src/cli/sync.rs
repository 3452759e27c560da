//! `sync [REMOTE]`: the ledger shared with other machines through git, in one line.

use super::output;
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use vermas_core::error::Error;

/// `sync [REMOTE]`: fetch, merge and push; exit 0 once the local and remote branches are
/// equal. A merge that cannot be made here is refused with exit 1, nothing changed. With
/// `--json` an error is one object on stderr carrying the help the human message has.
pub fn sync(ctx: &Ctx, ui: &mut Ui, remote: Option<&str>) -> CmdResult {
    let ws = ctx.workspace()?;
    let exe = std::env::current_exe().ok();
    let exe_dir = exe.as_deref().and_then(std::path::Path::parent);
    let synced = match vermas_core::sync::sync(&ws, remote, exe_dir) {
        Ok(s) => s,
        Err(e) if ui.json => {
            json_error(&e);
            return Ok(if matches!(e, Error::Conflict { .. }) {
                1
            } else {
                e.exit_code()
            });
        }
        Err(e @ Error::Conflict { .. }) => {
            // A refused merge is a failure of the moment, not bad input: exit 1.
            output::error(&e, false);
            return Ok(1);
        }
        Err(e) => return Err(e),
    };
    let upstream = format!("{}/{}", synced.remote, synced.remote_branch);
    if ui.json {
        ui.json(&serde_json::json!({
            "schema_version": 1,
            "remote": synced.remote,
            "branch": synced.branch,
            "remote_branch": synced.remote_branch,
            "pulled": synced.pulled,
            "pushed": synced.pushed,
            "tries": synced.tries,
            "created": synced.created,
            "upstream_chosen": synced.chosen,
            "kept_deleted": synced.kept_deleted,
        }));
        return Ok(0);
    }
    outln!(
        ui,
        "Synced with {upstream}: pulled {}, pushed {}",
        vermas_core::text::words::plural(synced.pulled, "record"),
        vermas_core::text::words::plural(synced.pushed, "commit"),
    );
    if synced.created {
        outln!(
            ui,
            "Created the branch {upstream} (it was not on {})",
            synced.remote
        );
    }
    if synced.chosen {
        outln!(
            ui,
            "'{}' has no upstream: synced with {upstream} (set it with `git branch \
             --set-upstream-to={upstream}`)",
            synced.branch
        );
    }
    for k in &synced.kept_deleted {
        let short = &k.changed_in[..k.changed_in.len().min(10)];
        outln!(
            ui,
            "Kept deleted: {} (deleted on one side, changed on the other; the change: `git \
             show {short}:{}`)",
            k.path,
            k.path
        );
    }
    Ok(0)
}

/// An error as one JSON object on stderr: message, code and the help a person would read.
fn json_error(e: &Error) {
    use miette::Diagnostic;
    let mut obj =
        serde_json::json!({"schema_version": 1, "error": e.to_string(), "code": e.code()});
    if let Some(help) = e.help() {
        obj["help"] = serde_json::json!(help.to_string());
    }
    eprintln!("{obj}");
}
