//! Handler of `mol`: cook, pour, wisp, list, show, ready, start, done, block, skip,
//! squash, burn and run.

pub(super) mod args;

use super::mol::args::MolCmd;
use super::output::{recorded_note, versioned};
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use serde_json::json;
use vermas_core::error::{Error, Result};
use vermas_core::mol::Proto;
use vermas_core::mol::molecule::{self, Molecule, Step, StepStatus};
use vermas_core::mol::ops::{self, Changed, StepChange};
use vermas_core::mol::run::{self, RunEvent, RunOptions, StepRun};
use vermas_core::time::Timestamp;
use vermas_core::workspace::Workspace;

/// `mol ...`.
pub fn mol(ctx: &Ctx, ui: &mut Ui, cmd: MolCmd) -> CmdResult {
    if let MolCmd::Cook { name, vars } = &cmd {
        let ws = ctx.workspace().ok();
        if let Some(ws) = &ws {
            ops::purge_expired(ws, Timestamp::now());
        }
        let proto = cook(ws.as_ref(), name, vars)?;
        if ui.json {
            ui.json(&versioned(&proto));
        } else {
            outln!(ui, "{}", super::formula::render_proto(&proto).trim_end());
        }
        return Ok(0);
    }
    let ws = ctx.workspace()?;
    ops::purge_expired(&ws, Timestamp::now());
    // Only the commands that record a change need (and check) the actor.
    let reads = matches!(
        cmd,
        MolCmd::List | MolCmd::Show { .. } | MolCmd::Ready { .. }
    );
    let actor = if reads {
        String::new()
    } else {
        ctx.actor(&ws)?
    };
    match cmd {
        MolCmd::Cook { .. } => unreachable!("handled above"),
        MolCmd::Pour { name, bead, vars } => {
            let vars = vermas_core::mol::parse_vars(&vars)?;
            let changed = ops::pour(&ws, &actor, &name, &vars, &bead)?;
            created(ui, &ws, &changed, "Poured")
        }
        MolCmd::Wisp { name, ttl, vars } => {
            let ttl = ops::parse_ttl(&ttl)?;
            let proto = cook(Some(&ws), &name, &vars)?;
            let changed = ops::wisp(&ws, &actor, &proto, ttl, None)?;
            created(ui, &ws, &changed, "Wisp")
        }
        MolCmd::List => list(ui, &ws),
        MolCmd::Show { id } => show(ui, &ws, &id),
        MolCmd::Ready { id } => ready(ui, &ws, &id),
        MolCmd::Start { id, step } => step_change(ui, &ws, &actor, &id, &step, StepChange::Start),
        MolCmd::Done { id, step, output } => {
            step_change(ui, &ws, &actor, &id, &step, StepChange::Done(output))
        }
        MolCmd::Block { id, step, reason } => {
            step_change(ui, &ws, &actor, &id, &step, StepChange::Block(reason))
        }
        MolCmd::Skip { id, step, reason } => {
            step_change(ui, &ws, &actor, &id, &step, StepChange::Skip(reason))
        }
        MolCmd::Squash { id, summary } => {
            let digest = ops::squash(&ws, &actor, &id, summary)?;
            if ui.json {
                ui.json(&versioned(&digest));
            } else {
                let path = molecule::archive_dir(&ws).join(format!("{}.yaml", digest.id));
                let skipped = digest
                    .steps
                    .iter()
                    .filter(|s| s.status == StepStatus::Skipped)
                    .count();
                let skipped = if skipped > 0 {
                    format!(", {skipped} skipped")
                } else {
                    String::new()
                };
                outln!(
                    ui,
                    "Squashed {} ({}, {}{skipped}) into {}",
                    digest.id,
                    digest.formula,
                    progress(&digest.progress),
                    ws.display(&path)
                );
            }
            Ok(0)
        }
        MolCmd::Burn { id, force } => {
            let changed = ops::burn(&ws, &actor, &id, force)?;
            if let Some(r) = &changed.recorded {
                recorded_note(r);
            }
            if ui.json {
                ui.json(&versioned(json!({"id": changed.mol.id, "burned": true})));
            } else {
                outln!(ui, "Burned {} ({})", changed.mol.id, changed.mol.formula);
            }
            Ok(0)
        }
        MolCmd::Run {
            id,
            handler: None,
            jobs: _,
        } => run_inspect(ui, &ws, &actor, &id),
        MolCmd::Run {
            id,
            handler: Some(handler),
            jobs,
        } => run_mol(ui, &ws, &actor, &id, &handler, jobs),
    }
}

/// Cooks formula `name` with `--var` values (the workspace's formulas first, when there is
/// one).
fn cook(ws: Option<&Workspace>, name: &str, vars: &[String]) -> Result<Proto> {
    let vars = vermas_core::mol::parse_vars(vars)?;
    vermas_core::mol::cook::cook_as_written(ws.map(|w| w.beads_dir.as_path()), name, &vars)
}

/// Reports a new molecule (pour or wisp).
fn created(ui: &mut Ui, ws: &Workspace, changed: &Changed, verb: &str) -> CmdResult {
    if let Some(r) = &changed.recorded {
        recorded_note(r);
    }
    let m = &changed.mol;
    if ui.json {
        ui.json(&versioned(m));
        return Ok(0);
    }
    let mut line = format!(
        "{verb} {}: {} ({})",
        m.id,
        m.formula,
        vermas_core::text::words::plural(m.steps.len(), "step")
    );
    if let Some(bead) = &m.bead_id {
        line.push_str(&format!(" for {bead}"));
    }
    if let Some(at) = m.expires_at {
        line.push_str(&format!(", expires {at}"));
    }
    outln!(ui, "{line}");
    outln!(ui, "  {}", ws.display(&molecule::path_of(ws, m)));
    Ok(0)
}

/// `mol list`.
fn list(ui: &mut Ui, ws: &Workspace) -> CmdResult {
    let (mols, broken) = molecule::load_all(ws);
    for e in &broken {
        super::output::diagnostic("warning", e);
    }
    if ui.json {
        let rows: Vec<_> = mols.iter().map(summary).collect();
        ui.json(&rows);
        return Ok(0);
    }
    if mols.is_empty() {
        outln!(ui, "No molecules.");
        return Ok(0);
    }
    let width = mols.iter().map(|m| m.formula.len()).max().unwrap_or(0);
    for m in &mols {
        let (done, total) = m.progress();
        let mut line = format!(
            "{}  {:<6}  {:<width$}  {}",
            m.id,
            m.state.name(),
            m.formula,
            steps(done, total)
        );
        if let Some(bead) = &m.bead_id {
            line.push_str(&format!("  {bead}"));
        }
        if let Some(at) = m.expires_at {
            line.push_str(&format!("  expires {at}"));
        }
        outln!(ui, "{line}");
    }
    Ok(0)
}

/// The JSON row of `mol list`.
fn summary(m: &Molecule) -> serde_json::Value {
    let (done, total) = m.progress();
    json!({
        "id": m.id,
        "formula": m.formula,
        "version": m.version,
        "bead_id": m.bead_id,
        "state": m.state,
        "created_at": m.created_at,
        "updated_at": m.updated_at,
        "expires_at": m.expires_at,
        "steps_completed": done,
        "steps_total": total,
    })
}

/// `mol show`.
fn show(ui: &mut Ui, ws: &Workspace, id: &str) -> CmdResult {
    let (path, m) = molecule::load(ws, id)?;
    if ui.json {
        let mut v = versioned(&m);
        let (done, total) = m.progress();
        v["steps_completed"] = json!(done);
        v["steps_total"] = json!(total);
        ui.json(&v);
        return Ok(0);
    }
    let (done, total) = m.progress();
    let mut head = format!("{}: {}", m.id, m.formula);
    if let Some(v) = &m.version {
        head.push_str(&format!(" v{v}"));
    }
    head.push_str(&format!(" ({})", m.state.name()));
    if let Some(bead) = &m.bead_id {
        head.push_str(&format!(" for {bead}"));
    }
    outln!(ui, "{head}");
    outln!(ui, "{} complete  {}", steps(done, total), ws.display(&path));
    if let Some(at) = m.expires_at {
        outln!(ui, "expires {at}");
    }
    if !m.vars.is_empty() {
        let vars: Vec<String> = m.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        outln!(ui, "vars: {}", vars.join(" "));
    }
    for s in &m.steps {
        outln!(ui, "{}", step_line(&m, s));
    }
    Ok(0)
}

/// One step as `mol show` prints it, with what matters for its status.
fn step_line(m: &Molecule, s: &Step) -> String {
    let mark = match s.status {
        StepStatus::Pending => "[ ]",
        StepStatus::InProgress => "[>]",
        StepStatus::Completed => "[x]",
        StepStatus::Blocked => "[!]",
        StepStatus::Skipped => "[-]",
    };
    let mut line = format!("  {mark} {}  {}  ({})", s.id, s.title, s.status.name());
    let unmet = m.unmet_needs(s);
    match s.status {
        StepStatus::Pending if !unmet.is_empty() => {
            line.push_str(&format!("\n        needs {}", unmet.join(", ")));
        }
        StepStatus::Pending => line.push_str("\n        ready"),
        StepStatus::Blocked | StepStatus::Skipped => {
            let reason = s.reason.as_deref().unwrap_or("no reason given");
            line.push_str(&format!("\n        reason: {}", first_line(reason)));
        }
        StepStatus::Completed => {
            if let Some(out) = s.output.as_deref().filter(|o| !o.trim().is_empty()) {
                line.push_str(&format!("\n        output: {}", first_line(out)));
            }
        }
        _ => {}
    }
    line
}

/// `2/5 steps`, `0/1 step`: progress with the noun in the number of the total.
fn steps(done: usize, total: usize) -> String {
    format!("{done}/{}", vermas_core::text::words::plural(total, "step"))
}

/// A digest's `done/total` progress with its noun (`1/1 step`).
fn progress(done_total: &str) -> String {
    match done_total
        .split_once('/')
        .map(|(d, t)| (d.parse(), t.parse()))
    {
        Some((Ok(done), Ok(total))) => steps(done, total),
        _ => format!("{done_total} steps"),
    }
}

/// The first line of `text`, marking that there is more.
fn first_line(text: &str) -> String {
    let mut lines = text.trim().lines();
    let first = lines.next().unwrap_or("").to_string();
    if lines.next().is_some() {
        format!("{first} ...")
    } else {
        first
    }
}

/// `mol ready`.
fn ready(ui: &mut Ui, ws: &Workspace, id: &str) -> CmdResult {
    let (_, m) = molecule::load(ws, id)?;
    let steps = m.ready();
    if ui.json {
        ui.json(&steps);
        return Ok(0);
    }
    if steps.is_empty() {
        let (done, total) = m.progress();
        if m.is_complete() {
            outln!(
                ui,
                "No steps ready: all {} of {} complete.",
                vermas_core::text::words::plural(total, "step"),
                m.id
            );
        } else {
            outln!(
                ui,
                "No steps ready ({done}/{total} complete); `vermas mol show {}` says why.",
                m.id
            );
        }
        return Ok(0);
    }
    for s in steps {
        outln!(ui, "{}  {}", s.id, s.title);
    }
    Ok(0)
}

/// `mol start`, `mol done` and `mol block`.
fn step_change(
    ui: &mut Ui,
    ws: &Workspace,
    actor: &str,
    id: &str,
    step: &str,
    change: StepChange,
) -> CmdResult {
    let verb = match &change {
        StepChange::Start => "Started",
        StepChange::Done(_) => "Completed",
        StepChange::Block(_) => "Blocked",
        StepChange::Skip(_) => "Skipped",
    };
    let changed = ops::change_step(ws, actor, id, step, change)?;
    if let Some(r) = &changed.recorded {
        recorded_note(r);
    }
    let m = &changed.mol;
    let s = m.step(step)?;
    let (done, total) = m.progress();
    if ui.json {
        ui.json(&versioned(json!({
            "molecule": m.id,
            "step": s,
            "steps_completed": done,
            "steps_total": total,
        })));
        return Ok(0);
    }
    let mut line = format!("{verb} step {} of {} ({})", s.id, m.id, steps(done, total));
    if let (StepStatus::Blocked | StepStatus::Skipped, Some(reason)) = (s.status, &s.reason) {
        line.push_str(&format!(": {}", first_line(reason)));
    }
    outln!(ui, "{line}");
    if s.status.is_done() {
        let next: Vec<&str> = m.ready().iter().map(|r| r.id.as_str()).collect();
        if !next.is_empty() {
            outln!(ui, "Ready now: {}", next.join(", "));
        } else if m.is_complete() {
            outln!(ui, "All steps complete.");
        }
    }
    Ok(0)
}

/// `mol run`: exit 0 when every step is complete, 1 when some cannot proceed.
fn run_mol(
    ui: &mut Ui,
    ws: &Workspace,
    actor: &str,
    id: &str,
    handler: &str,
    jobs: Option<usize>,
) -> CmdResult {
    if jobs == Some(0) {
        return Err(Error::Invalid("--jobs must be at least 1".into()));
    }
    let opts = RunOptions::new(ws, handler, jobs);
    let json = ui.json;
    let board = super::progress::Board::new("steps", !json);
    let mut done = 0;
    let report = run::run(ws, actor, id, &opts, |event| {
        if json {
            return;
        }
        let r: &StepRun = match event {
            RunEvent::Started(step) => {
                board.started(step.to_string(), step, None);
                board.println(ui, &format!("[start] {step}"));
                return;
            }
            RunEvent::Recorded(r) => r,
        };
        done += 1;
        board.finished(&r.step, done, None);
        match r.status {
            StepStatus::Completed => board.println(
                ui,
                &format!("[done] {} ({:.1}s)", r.step, secs(r.duration_ms)),
            ),
            _ => board.println(
                ui,
                &format!(
                    "[blocked] {}: {} ({:.1}s)",
                    r.step,
                    first_line(&r.text),
                    secs(r.duration_ms)
                ),
            ),
        }
        if let Some(note) = &r.note {
            board.println(ui, &format!("         {note}"));
        }
    })?;
    drop(board);
    if json {
        ui.json(&versioned(&report));
    } else {
        let (done, total) = (report.steps_completed, report.steps_total);
        if report.complete {
            outln!(
                ui,
                "{}: all {} complete",
                report.molecule,
                vermas_core::text::words::plural(total, "step")
            );
        } else {
            let why: Vec<String> = report
                .waiting
                .iter()
                .map(|w| format!("{} ({})", w.step, first_line(&w.why)))
                .collect();
            outln!(
                ui,
                "{}: {} complete; cannot proceed: {}",
                report.molecule,
                steps(done, total),
                why.join(", ")
            );
        }
    }
    Ok(if report.complete { 0 } else { 1 })
}

/// `mol run` of a mol-inspect molecule without a handler: the Inspector's own inspection,
/// each step recorded; exits as `inspect run` does for its verdict (0 PASS, 1 FAIL, 3
/// ERROR, 4 NEEDS_HUMAN).
fn run_inspect(ui: &mut Ui, ws: &Workspace, actor: &str, id: &str) -> CmdResult {
    let r = vermas_core::mol::inspect_run::run(ws, actor, id)?;
    if ui.json {
        ui.json(&versioned(&r));
    } else {
        for s in &r.steps {
            outln!(
                ui,
                "[{}] {}: {}",
                s.status.name(),
                s.step,
                first_line(&s.text)
            );
        }
        outln!(ui, "{}: {} for {}", r.molecule, r.verdict, r.bead_id);
    }
    Ok(match r.verdict.as_str() {
        "PASS" => 0,
        "FAIL" => 1,
        "NEEDS_HUMAN" => 4,
        _ => 3,
    })
}

/// Milliseconds as seconds.
fn secs(ms: u64) -> f64 {
    ms as f64 / 1000.0
}
