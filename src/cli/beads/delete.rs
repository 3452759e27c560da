//! `delete ID... [--force]`: without --force a preview of what would go (the beads and the
//! dependency links to them), as `bd delete` shows it; with it, one commit.

use crate::cli::output::{recorded_note, short_commit, versioned};
use crate::cli::ui::{Ui, out, outln};
use crate::cli::{CmdResult, Ctx};
use serde_json::json;
use vermas_core::bead::delete as deletion;
use vermas_core::error::Error;

/// `delete ID... [--force]`: without --force, shows what would go and exits 2.
pub fn delete(ctx: &Ctx, ui: &mut Ui, ids: &[String], force: bool) -> CmdResult {
    let ws = ctx.workspace()?;
    if !force {
        let plan = deletion::plan(&ws, ids)?;
        if ui.json {
            ui.json(&versioned(&plan));
        } else {
            out!(ui, "{}", preview(&plan));
        }
        let named: Vec<&str> = plan.delete.iter().map(|d| d.id.as_str()).collect();
        return Err(Error::usage(format!(
            "nothing deleted: deleting {} needs --force",
            named.join(", ")
        ))
        .with_help(format!("run `vermas delete {} --force`", named.join(" "))));
    }
    let (plan, recorded) = deletion::delete(&ws, &ctx.actor(&ws)?, ids)?;
    recorded_note(&recorded);
    let deleted: Vec<&str> = plan.delete.iter().map(|d| d.id.as_str()).collect();
    if ui.json {
        ui.json(&versioned(json!({
            "deleted": deleted,
            "deleted_count": deleted.len(),
            "dependencies_removed": plan.references.len(),
            "updated": plan.updated(),
            "commit": short_commit(&recorded),
        })));
    } else {
        let commit = short_commit(&recorded)
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        for d in &plan.delete {
            outln!(ui, "Deleted {}: {}{commit}", d.id, d.title);
        }
        outln!(
            ui,
            "  Removed {} from {}",
            vermas_core::text::words::plural(plan.references.len(), "dependency link"),
            vermas_core::text::words::plural(plan.updated().len(), "other bead")
        );
    }
    Ok(0)
}

/// What `delete` without --force prints.
fn preview(plan: &deletion::Plan) -> String {
    let mut s = format!(
        "DELETE PREVIEW\n\n{} to delete:\n",
        vermas_core::text::words::plural(plan.delete.len(), "bead")
    );
    for d in &plan.delete {
        s.push_str(&format!("  {}: {}\n", d.id, d.title));
    }
    if plan.references.is_empty() {
        s.push_str("\nNo other bead depends on them.\n");
    } else {
        s.push_str(&format!(
            "\nDependency links to remove ({}):\n",
            plan.references.len()
        ));
        for r in &plan.references {
            s.push_str(&format!(
                "  {} -> {} ({}): {}\n",
                r.id, r.depends_on_id, r.kind, r.title
            ));
        }
    }
    s.push_str("\nThis cannot be undone except from git history.\n");
    s
}
