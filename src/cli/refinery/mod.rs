//! Handlers of `refinery submit|run|status`: they call `vermas_core::refinery` and render.

pub(super) mod args;

use super::output::{recorded_note, versioned};
use super::refinery::args::RefineryCmd;
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use vermas_core::refinery::batch::{Event, Verification};
use vermas_core::refinery::queue::{self, Submission};
use vermas_core::refinery::request::{MergeRequest, State};
use vermas_core::refinery::run::{self, RunOptions};
use vermas_core::refinery::settle::{Taken, short};

/// `refinery ...`: dispatches to the handlers below.
pub fn refinery(ctx: &Ctx, ui: &mut Ui, cmd: RefineryCmd) -> CmdResult {
    match cmd {
        RefineryCmd::Submit { branch, bead, into } => {
            submit(ctx, ui, &Submission { branch, bead, into })
        }
        RefineryCmd::Run {
            once,
            no_cache,
            batch,
        } => run(
            ctx,
            ui,
            RunOptions {
                once,
                use_cache: !no_cache,
                batch: batch.map(|n| n as usize),
            },
        ),
        RefineryCmd::Queue => status(ctx, ui),
    }
}

/// `refinery submit BRANCH [--bead ID] [--into TARGET]`.
fn submit(ctx: &Ctx, ui: &mut Ui, sub: &Submission) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let done = queue::submit(&ws, &actor, sub)?;
    let r = &done.request;
    if !done.queued {
        super::warn(
            ui.json,
            "unchanged",
            &format!(
                "nothing changed: {} already queues {} for {}",
                r.id, r.branch, r.target
            ),
        );
    }
    if ui.json {
        ui.json(&versioned(r));
    } else if done.queued {
        outln!(
            ui,
            "queued {}: {} -> {} (judged by {}), position {} of the requests waiting",
            r.id,
            r.branch,
            r.target,
            r.bead,
            done.position
        );
    }
    if let Some(rec) = &done.recorded {
        recorded_note(rec);
    }
    Ok(0)
}

/// `refinery run [--once] [--batch N]`: exit 0 when every request taken merged (or none
/// waited, or one was re-queued to wait for the next run), 1 when any was rejected or
/// conflicted, else 3 when any ended in error, else 4 when any waits for a person.
fn run(ctx: &Ctx, ui: &mut Ui, opts: RunOptions) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let json = ui.json;
    for e in queue::list(&ws)?.1 {
        super::warn(json, "unreadable", &format!("warning: {e} (not taken)"));
    }
    let ran = run::run_batches(&ws, &actor, opts, |e| match e {
        _ if json => {}
        Event::Verified(v) => render_verified(ui, v),
        Event::Taken(t) => render_taken(ui, t),
    })?;
    if json {
        ui.json(&versioned(&ran));
    } else if ran.taken.is_empty() {
        outln!(ui, "nothing queued");
    }
    if let Some(rec) = ran.taken.iter().find_map(|t| t.recorded.as_ref()) {
        recorded_note(rec);
    }
    // A request re-queued and taken again in the same run counts by how it ended last.
    let mut last: Vec<(&str, State)> = Vec::new();
    for t in &ran.taken {
        let r = &t.request;
        match last.iter_mut().find(|(id, _)| *id == r.id) {
            Some(seen) => seen.1 = r.state,
            None => last.push((&r.id, r.state)),
        }
    }
    Ok(exit_code(last.iter().map(|(_, s)| *s)))
}

/// The exit code of a run whose requests ended in `states`.
fn exit_code(states: impl Iterator<Item = State> + Clone) -> i32 {
    let any = |s: State| states.clone().any(|x| x == s);
    if any(State::Rejected) || any(State::Conflict) {
        1
    } else if any(State::Error) || any(State::Verifying) || any(State::Merging) {
        3
    } else if any(State::NeedsHuman) {
        4
    } else {
        0
    }
}

/// A verification of several requests together (one alone says nothing more than its
/// request's lines).
fn render_verified(ui: &mut Ui, v: &Verification) {
    if v.requests.len() < 2 {
        return;
    }
    let how = if v.passed {
        "PASS".to_string()
    } else {
        format!("not all passed: {}", v.failed.join(", "))
    };
    outln!(
        ui,
        "batch of {} onto {} ({}), verified together as {}: {how}",
        v.requests.len(),
        v.target,
        short(&v.tip),
        short(&v.candidate)
    );
    if !v.passed {
        outln!(ui, "  verifying each half on its own");
    }
}

/// One settled request: its checks, then how it ended.
fn render_taken(ui: &mut Ui, t: &Taken) {
    let r = &t.request;
    outln!(
        ui,
        "{} {} -> {} ({}), attempt {}",
        r.id,
        r.branch,
        r.target,
        r.bead,
        r.attempts
    );
    if let Some(ins) = &t.inspection {
        for c in &ins.checks {
            outln!(ui, "  [{}] {} {}", c.result.outcome, c.id, c.description);
        }
    }
    let shown = r.state.name().to_uppercase();
    let verdict = r
        .last_verdict
        .as_deref()
        .filter(|v| *v != shown)
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    let reason = r.reason.as_deref().unwrap_or("");
    match r.state {
        State::Merged if r.batch.is_some() => outln!(
            ui,
            "MERGED{verdict}: {} is now {}, with {} in as {}",
            r.target,
            short(r.candidate.as_deref().unwrap_or("")),
            r.branch,
            short(r.merged_commit.as_deref().unwrap_or(""))
        ),
        State::Merged => outln!(
            ui,
            "MERGED{verdict}: {} is now {}",
            r.target,
            short(r.merged_commit.as_deref().unwrap_or(""))
        ),
        State::Conflict => {
            outln!(
                ui,
                "CONFLICT: {} does not merge onto {}:",
                r.branch,
                r.target
            );
            for p in &r.conflicts {
                outln!(ui, "  {p}");
            }
        }
        _ => outln!(ui, "{shown}{verdict}: {reason}"),
    }
    for m in &t.mailed {
        outln!(ui, "mailed mayor/: {m}");
    }
    for w in &t.warnings {
        eprintln!("warning: {w}");
    }
}

/// `refinery status`: the queue, oldest first.
fn status(ctx: &Ctx, ui: &mut Ui) -> CmdResult {
    let ws = ctx.workspace()?;
    let (all, broken) = queue::list(&ws)?;
    for e in &broken {
        super::warn(ui.json, "unreadable", &format!("warning: {e}"));
    }
    if ui.json {
        ui.json(&all);
        return Ok(0);
    }
    if all.is_empty() {
        outln!(ui, "The merge queue is empty");
        return Ok(0);
    }
    for r in &all {
        outln!(ui, "{}", line(r));
    }
    let waiting = all.iter().filter(|r| r.state.is_waiting()).count();
    outln!(
        ui,
        "{} waiting",
        vermas_core::text::words::plural(waiting, "request")
    );
    Ok(0)
}

/// One request as a status line.
fn line(r: &MergeRequest) -> String {
    let verdict = r.last_verdict.as_deref().unwrap_or("-");
    let mut s = format!(
        "{:<9} {:<11} {:<11} {} -> {} ({})",
        r.id,
        r.state.name(),
        verdict,
        r.branch,
        r.target,
        r.bead
    );
    if let Some(why) = r.reason.as_deref().filter(|_| r.state != State::Merged) {
        s.push_str(&format!(": {why}"));
    }
    if let Some(c) = &r.merged_commit {
        s.push_str(&format!(" as {}", short(c)));
    }
    if let Some(b) = &r.batch {
        let at = b
            .requests
            .iter()
            .position(|id| *id == r.id)
            .map_or(0, |i| i + 1);
        s.push_str(&format!(
            " [batch {}: {at} of {}]",
            short(r.candidate.as_deref().unwrap_or("")),
            b.requests.len()
        ));
    }
    s
}
