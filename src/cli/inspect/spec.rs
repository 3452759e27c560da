//! Handlers of the test-spec side of the Inspector: `inspect pending|show|create-spec|
//! add-criteria|approve`. They call `vermas_core::inspect` and render.

use crate::cli::output::{recorded_note, versioned};
use crate::cli::ui::{Ui, out, outln};
use crate::cli::{CmdResult, Ctx};
use serde_json::json;
use vermas_core::bead::model::Status;
use vermas_core::inspect::testspec::{self, Check};
use vermas_core::trusted::Approval;

/// `inspect pending [--watch]`.
pub fn pending(ctx: &Ctx, ui: &mut Ui, watch: bool) -> CmdResult {
    let ws = ctx.workspace()?;
    if watch {
        crate::cli::redraw::refuse_json(ctx, "vermas inspect pending")?;
        let folders = crate::session::changes::pending_folders(&ws);
        return crate::cli::redraw::on_change(ui, "vermas inspect pending", &folders, || {
            Ok(pending_view(&testspec::pending(&ws)?))
        });
    }
    let specs = testspec::pending(&ws)?;
    if ui.json {
        let rows: Vec<_> = specs
            .iter()
            .map(|s| json!({"id": s.id, "work": s.parent, "title": s.title, "criteria": s.acceptance_criteria.len(), "created_at": s.created_at}))
            .collect();
        ui.json(&rows);
        return Ok(0);
    }
    out!(ui, "{}", pending_view(&specs));
    Ok(0)
}

/// The open test specs, one line each: id, work, criteria, title.
fn pending_view(specs: &[vermas_core::bead::model::Bead]) -> String {
    if specs.is_empty() {
        return "No test specs waiting\n".to_string();
    }
    let mut view = String::new();
    for s in specs {
        view.push_str(&format!(
            "{:<16} {:<14} {}  {}\n",
            s.id,
            s.parent.as_deref().unwrap_or("-"),
            vermas_core::text::words::counted(s.acceptance_criteria.len(), "criterion", "criteria"),
            s.title
        ));
    }
    let empty = specs.iter().find(|s| s.acceptance_criteria.is_empty());
    let full = specs.iter().find(|s| !s.acceptance_criteria.is_empty());
    if let Some(s) = empty {
        view.push_str(&format!(
            "Next: give a spec criteria (`vermas inspect add-criteria {} -d \"...\" --cmd \
             \"...\"`, or let the strategist propose them: `vermas strategize {}`)\n",
            s.id,
            s.parent.as_deref().unwrap_or("WORK")
        ));
    }
    if let Some(s) = full {
        view.push_str(&format!(
            "Next: review and approve one (`vermas inspect show {}`, then `vermas inspect \
             approve {}`)\n",
            s.id, s.id
        ));
    }
    view
}

/// `inspect show ID`.
pub fn show(ctx: &Ctx, ui: &mut Ui, id: &str) -> CmdResult {
    let ws = ctx.workspace()?;
    let (work, spec) = vermas_core::inspect::pipeline::work_and_spec(&ws, id)?;
    let latest = vermas_core::verify::results::load(&ws, &work.id)?;
    let trusted = vermas_core::trusted::Trusted::of(&ws)?;
    let head = vermas_core::git::GitRepo::open(&ws.root).and_then(|r| r.head_commit());
    let frozen = spec
        .as_ref()
        .map(|s| vermas_core::inspect::frozen::compare(s, &ws.root, head.as_deref()))
        .unwrap_or_default();
    let approval = match spec.as_ref().filter(|s| s.status == Status::Closed) {
        Some(s) => match trusted.approval(s)? {
            Approval::Unauthenticated => trusted.note(),
            Approval::Signed { by, commit } => format!(
                "approved by {by} in {} (signed)",
                &commit[..commit.len().min(12)]
            ),
            Approval::NotSigned(why) => format!("pending approval: approvers are set, and {why}"),
        },
        None => trusted.note(),
    };
    if ui.json {
        ui.json(&versioned(json!({
            "work": {"id": work.id, "title": work.title, "status": work.status, "branch": work.branch},
            "approval": approval,
            "frozen": frozen.iter().map(|f| json!({
                "path": f.path, "approved": f.approved, "now": f.now, "holds": f.holds(),
            })).collect::<Vec<_>>(),
            "spec": spec.as_ref().map(|s| json!({
                "id": s.id,
                "approved": s.status == Status::Closed,
                "criteria": s.acceptance_criteria.iter().map(|c| {
                    let (kind, target) = testspec::kind_of(c);
                    let mut v = serde_json::to_value(c).unwrap_or_default();
                    v["kind"] = json!(kind);
                    v["target"] = json!(target);
                    v
                }).collect::<Vec<_>>(),
            })),
            "latest": latest.as_ref().map(|r| json!({"verdict": r.verdict, "at": r.at})),
        })));
        return Ok(0);
    }
    outln!(ui, "{}  {}  ({})", work.id, work.title, work.status);
    match &spec {
        None => outln!(
            ui,
            "  no test spec (`vermas inspect create-spec {}`)",
            work.id
        ),
        Some(s) => {
            let state = if s.status == Status::Closed {
                "approved".to_string()
            } else {
                let (why, next) = testspec::not_approved(s);
                format!("pending approval ({why}; next: {next})")
            };
            outln!(ui, "  test spec {}: {state}", s.id);
            for c in &s.acceptance_criteria {
                let (kind, target) = testspec::kind_of(c);
                outln!(ui, "  {} {}\n      {kind}: {target}", c.id, c.description);
            }
            for f in &frozen {
                let how = match (&f.now, f.holds()) {
                    (_, true) => "as approved".to_string(),
                    (Some(_), false) => format!(
                        "CHANGED since approval: an inspection is an ERROR until a person \
                         approves it again (vermas inspect approve {})",
                        s.id
                    ),
                    (None, false) => "MISSING".to_string(),
                };
                outln!(ui, "  frozen {}: {how}", f.path);
            }
        }
    }
    if let Some(r) = latest {
        outln!(ui, "  latest verdict: {} at {}", r.verdict, r.at);
    }
    outln!(ui, "  approval: {approval}");
    Ok(0)
}

/// `inspect create-spec ID`.
pub fn create_spec(ctx: &Ctx, ui: &mut Ui, id: &str) -> CmdResult {
    let ws = ctx.workspace()?;
    let (spec, recorded) = testspec::create_for(&ws, &ctx.actor(&ws)?, id)?;
    recorded_note(&recorded);
    if ui.json {
        ui.json(&versioned(json!({"id": spec.id, "work": spec.parent})));
    } else {
        outln!(ui, "Created {}: {}", spec.id, spec.title);
    }
    Ok(0)
}

/// `inspect add-criteria SPEC -d TEXT --cmd|--verify|--judge`.
pub fn add_criteria(
    ctx: &Ctx,
    ui: &mut Ui,
    spec: &str,
    description: &str,
    check: Check,
) -> CmdResult {
    let ws = ctx.workspace()?;
    let (spec, id, recorded) =
        testspec::add_criterion(&ws, &ctx.actor(&ws)?, spec, description, check)?;
    recorded_note(&recorded);
    if ui.json {
        ui.json(&versioned(json!({"spec": spec.id, "criterion": id})));
    } else {
        outln!(ui, "Added {id} to {}", spec.id);
    }
    Ok(0)
}

/// `inspect approve SPEC`.
pub fn approve(ctx: &Ctx, ui: &mut Ui, spec: &str, freeze: &[String]) -> CmdResult {
    let ws = ctx.workspace()?;
    let (spec, recorded) = testspec::approve(&ws, &ctx.actor(&ws)?, spec, freeze)?;
    recorded_note(&recorded);
    if ui.json {
        ui.json(&versioned(json!({"id": spec.id, "approved": true})));
    } else {
        outln!(ui, "Approved {}: {}", spec.id, spec.title);
    }
    Ok(0)
}
