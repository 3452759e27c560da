//! Handlers of the Inspector's pipeline commands: `inspect verify|audit|review|run`,
//! `inspect feedback` and `inspect verdicts`; the test-spec side in `spec.rs`, the
//! Inspector's mail loop (`inspect loop`) in `mail_loop.rs`. They call
//! `vermas_core::inspect` and render.

pub(super) mod args;
pub(super) mod loop_args;
pub(super) mod mail_loop;
pub(super) mod spec;

use super::inspect::args::{InspectCmd, StepArgs};
use super::output::{recorded_note, versioned};
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use std::time::Duration;
use vermas_core::error::Error;
use vermas_core::inspect::pipeline::{self, Inspection, Upto, Verdict};
use vermas_core::inspect::{self, route};
use vermas_core::time::Timestamp;

/// `inspect ...`: dispatches to the handlers below.
pub fn inspect(ctx: &Ctx, ui: &mut Ui, cmd: InspectCmd) -> CmdResult {
    let step = |s: StepArgs, upto: Upto, wait: Option<Duration>| inspect::Request {
        base: s.base,
        use_cache: !s.no_cache,
        wait,
        ..inspect::Request::new(s.id, upto)
    };
    match cmd {
        InspectCmd::Verify(s) => pipeline(ctx, ui, &step(s, Upto::Verify, None)),
        InspectCmd::Audit(s) => pipeline(ctx, ui, &step(s, Upto::Audit, None)),
        InspectCmd::Review(s) => pipeline(ctx, ui, &step(s, Upto::Review, None)),
        InspectCmd::Run { step: s, wait } => pipeline(ctx, ui, &step(s, Upto::Run, wait)),
        InspectCmd::Feedback { id } => feedback(ctx, ui, &id),
        InspectCmd::Pending { watch } => super::inspect::spec::pending(ctx, ui, watch),
        InspectCmd::Show { id } => super::inspect::spec::show(ctx, ui, &id),
        InspectCmd::CreateSpec { id } => super::inspect::spec::create_spec(ctx, ui, &id),
        InspectCmd::AddCriteria {
            spec,
            description,
            cmd,
            verify,
            judge,
        } => {
            use vermas_core::inspect::testspec::Check;
            let check = match (cmd, verify, judge) {
                (Some(c), _, _) => Check::Command(c),
                (_, Some(v), _) => Check::Verify(v),
                (_, _, Some(j)) => Check::Judge(j),
                _ => return Err(Error::usage("give --cmd, --verify or --judge")),
            };
            super::inspect::spec::add_criteria(ctx, ui, &spec, &description, check)
        }
        InspectCmd::Approve { spec, freeze } => {
            super::inspect::spec::approve(ctx, ui, &spec, &freeze)
        }
        InspectCmd::Verdicts { id } => status(ctx, ui, id.as_deref()),
        InspectCmd::Loop(args) => mail_loop::run(ctx, ui, args),
    }
}

/// Exit code of a verdict: 0 PASS, 1 FAIL, 3 ERROR, 4 NEEDS_HUMAN.
fn exit_code(v: Verdict) -> i32 {
    match v {
        Verdict::Pass => 0,
        Verdict::Fail => 1,
        Verdict::Error => 3,
        Verdict::NeedsHuman => 4,
    }
}

/// The terminal's part in an inspection: the first report while it waits for an answer.
struct Terminal<'a> {
    /// Where it renders.
    ui: &'a mut Ui,
}

impl inspect::Observer for Terminal<'_> {
    fn waiting(&mut self, ins: &Inspection, routed: &route::Routed) {
        render(self.ui, ins, Some(routed));
    }
}

/// `inspect verify|audit|review|run ID`.
pub fn pipeline(ctx: &Ctx, ui: &mut Ui, req: &inspect::Request) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = if req.upto == Upto::Run {
        Some(ctx.actor(&ws)?)
    } else {
        None
    };
    let out = inspect::run(&ws, actor.as_deref(), req, &mut Terminal { ui })?;
    let mut ins = out.inspection;
    ins.warnings.extend(out.hook_warnings);
    render(ui, &ins, out.routed.as_ref());
    if let Some(r) = &out.recorded {
        recorded_note(r);
    }
    Ok(exit_code(ins.verdict))
}

/// Prints an inspection: JSON, or a report per criterion with the verdict last. Text an
/// agent, a model or the project wrote is shown with its control characters escaped.
fn render(ui: &mut Ui, ins: &Inspection, routed: Option<&route::Routed>) {
    use vermas_core::text::words::printable as p;
    if ui.json {
        let mut v = serde_json::to_value(ins).unwrap_or_default();
        if let Some(r) = routed {
            v["routed"] = serde_json::to_value(r).unwrap_or_default();
        }
        ui.json(&versioned(v));
        return;
    }
    outln!(ui, "Inspect: {} {}", ins.work, p(&ins.title));
    if let Some(head) = &ins.head {
        outln!(ui, "  judged: commit {}", &head[..head.len().min(12)]);
    }
    if let Some(a) = &ins.approval {
        outln!(ui, "  approval: {}", p(a));
    }
    if ins
        .briefs
        .values()
        .any(|b| b.starts_with(vermas_core::inspect::stand_in::MARK))
    {
        outln!(
            ui,
            "  roles: vermas's stand-in, not a model (`vermas stand-in`)"
        );
    }
    for c in &ins.checks {
        outln!(
            ui,
            "  [{}] {} {}",
            c.result.outcome,
            c.id,
            p(&c.description)
        );
        outln!(ui, "         {} ({})", p(&c.target), c.kind);
        if let Some(why) = &c.result.reason
            && c.result.outcome != vermas_core::check::Outcome::Pass
        {
            outln!(ui, "           {}", p(why));
        }
    }
    for a in &ins.audit {
        let why = if a.why.is_empty() {
            String::new()
        } else {
            format!(" ({})", p(&a.why))
        };
        outln!(ui, "  auditor: {} {}{why}", a.id, a.finding.as_str());
    }
    for w in &ins.warnings {
        eprintln!("warning: {}", p(w));
    }
    let confidence = match &ins.judgment {
        Some(j) if j.confidence.is_some() => format!(" (confidence {:.2})", ins.confidence),
        Some(_) => " (no confidence stated)".to_string(),
        None => String::new(),
    };
    outln!(
        ui,
        "{}{confidence}: {}",
        ins.verdict.as_str(),
        p(&ins.reasons.join("; "))
    );
    if let Some(q) = &ins.question {
        outln!(ui, "question: {}", p(q));
    }
    if let Some(r) = routed {
        if let Some(b) = &r.result_bead {
            outln!(
                ui,
                "failure report: {b} (`vermas inspect feedback {}`)",
                ins.work
            );
        }
        for m in &r.mailed {
            outln!(ui, "mailed mayor/: {}", p(m));
        }
    }
}

/// `inspect feedback ID`: the latest failure report of the work.
pub fn feedback(ctx: &Ctx, ui: &mut Ui, id: &str) -> CmdResult {
    let ws = ctx.workspace()?;
    let (work, _) = pipeline::work_and_spec(&ws, id)?;
    let set = vermas_core::bead::store::BeadSet::load(&ws)?;
    let latest = set
        .beads
        .values()
        .filter(|b| {
            b.issue_type == vermas_core::bead::model::IssueType::VerificationResult
                && b.parent.as_deref() == Some(&work.id)
        })
        .max_by_key(|b| b.created_at);
    let Some(latest) = latest else {
        return Err(Error::Missing {
            message: format!("{} has no failure report", work.id),
            help: format!("`vermas inspect run {}` inspects it", work.id),
        });
    };
    let report = vermas_core::bead::store::load_one(&ws, &latest.id)?;
    if ui.json {
        ui.json(&versioned(serde_json::json!({
            "work": work.id, "report": report.id, "text": report.description,
        })));
    } else {
        outln!(
            ui,
            "{}",
            vermas_core::text::words::printable(report.description.trim_end())
        );
    }
    Ok(0)
}

/// `inspect status [ID]`: beads with their latest verdict and its age.
pub fn status(ctx: &Ctx, ui: &mut Ui, id: Option<&str>) -> CmdResult {
    let ws = ctx.workspace()?;
    let wanted = id
        .map(|i| pipeline::work_and_spec(&ws, i).map(|(w, _)| w.id))
        .transpose()?;
    let records: Vec<_> = vermas_core::verify::results::load_all(&ws)
        .into_iter()
        .filter(|r| !r.key.starts_with("spec:"))
        .filter(|r| wanted.as_deref().is_none_or(|w| r.key == w))
        .collect();
    if ui.json {
        // Each record names its bead as `id`, as every other listing does (`key` stays).
        let rows: Vec<serde_json::Value> = records
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or_default();
                if let Some(map) = v.as_object_mut() {
                    map.insert("id".into(), serde_json::json!(r.key));
                }
                v
            })
            .collect();
        ui.json(&rows);
        return Ok(0);
    }
    if records.is_empty() {
        outln!(ui, "No inspections yet");
    }
    let now = Timestamp::now();
    for r in &records {
        outln!(
            ui,
            "{:<14} {:<12} {} ago",
            r.key,
            r.verdict,
            vermas_core::time::short_age(r.at.seconds_until(now))
        );
    }
    Ok(0)
}
