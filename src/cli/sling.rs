//! `sling ID [AGENT]`: assign work and mail the agent, past the test-spec gate only with
//! `--force --reason`.

use crate::cli::output::{recorded_note, versioned};
use crate::cli::ui::{Ui, outln};
use crate::cli::{CmdResult, Ctx};
use serde_json::json;

/// `sling ID [AGENT] [--branch NAME] [--worktree] [--force --reason R]`.
pub fn sling(
    ctx: &Ctx,
    ui: &mut Ui,
    id: &str,
    (agent, branch, worktree): (Option<&str>, Option<&str>, bool),
    force: bool,
    reason: Option<&str>,
) -> CmdResult {
    let ws = ctx.workspace()?;
    let forced = if force { reason } else { None };
    let slung = vermas_core::inspect::assign::sling(
        &ws,
        &ctx.actor(&ws)?,
        id,
        &vermas_core::inspect::assign::SlingRequest {
            agent,
            branch,
            worktree,
            force: forced,
        },
    )?;
    if slung.forced {
        eprintln!(
            "warning: {} slung past its test-spec gate (noted on the bead, labelled {})",
            slung.work.id,
            vermas_core::inspect::assign::GATE_BYPASSED
        );
    }
    recorded_note(&slung.recorded);
    if ui.json {
        ui.json(&versioned(
            json!({"id": slung.work.id, "assignee": slung.work.assignee, "branch": slung.work.branch, "worktree": slung.work.worktree, "mailed": slung.mailed, "forced": slung.forced}),
        ));
    } else {
        outln!(
            ui,
            "Slung {} to {} on branch {} (mailed {})",
            slung.work.id,
            slung.work.assignee.as_deref().unwrap_or("?"),
            slung.work.branch.as_deref().unwrap_or("?"),
            slung.mailed
        );
        if let Some(dir) = &slung.work.worktree {
            outln!(ui, "Worktree: {dir}");
        }
    }
    Ok(0)
}
