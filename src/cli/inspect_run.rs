//! Handlers of the Inspector's pipeline commands: `inspect verify|audit|review|run`,
//! `inspect feedback` and `inspect status`. They call `crate::inspect` and render.

use super::inspect_args::{InspectCmd, StepArgs};
use super::output::{outln, print_json, recorded_note, versioned};
use super::{CmdResult, Ctx};
use crate::error::Error;
use crate::inspect::pipeline::{self, Inspection, Options, Upto, Verdict};
use crate::inspect::{hooks, route};
use crate::time::Timestamp;
use std::time::{Duration, Instant};

/// `inspect ...`: dispatches to the handlers below.
pub fn inspect(ctx: &Ctx, cmd: InspectCmd) -> CmdResult {
    let step = |s: StepArgs, upto: Upto, wait: Option<Duration>| Request {
        id: s.id,
        upto,
        base: s.base,
        no_cache: s.no_cache,
        wait,
    };
    match cmd {
        InspectCmd::Verify(s) => pipeline(ctx, &step(s, Upto::Verify, None)),
        InspectCmd::Audit(s) => pipeline(ctx, &step(s, Upto::Audit, None)),
        InspectCmd::Review(s) => pipeline(ctx, &step(s, Upto::Review, None)),
        InspectCmd::Run { step: s, wait } => pipeline(ctx, &step(s, Upto::Run, wait)),
        InspectCmd::Feedback { id } => feedback(ctx, &id),
        InspectCmd::Pending { watch } => super::inspect_spec::pending(ctx, watch),
        InspectCmd::Show { id } => super::inspect_spec::show(ctx, &id),
        InspectCmd::CreateSpec { id } => super::inspect_spec::create_spec(ctx, &id),
        InspectCmd::AddCriteria {
            spec,
            description,
            cmd,
            verify,
            judge,
        } => {
            use crate::inspect::testspec::Check;
            let check = match (cmd, verify, judge) {
                (Some(c), _, _) => Check::Command(c),
                (_, Some(v), _) => Check::Verify(v),
                (_, _, Some(j)) => Check::Judge(j),
                _ => return Err(Error::usage("give --cmd, --verify or --judge")),
            };
            super::inspect_spec::add_criteria(ctx, &spec, &description, check)
        }
        InspectCmd::Approve { spec } => super::inspect_spec::approve(ctx, &spec),
        InspectCmd::Status { id } => status(ctx, id.as_deref()),
    }
}

/// What a pipeline command asks for.
pub struct Request {
    /// The work (or its test spec).
    pub id: String,
    /// The last step.
    pub upto: Upto,
    /// The diff's base.
    pub base: Option<String>,
    /// Ask the LLM again even for unchanged prompts.
    pub no_cache: bool,
    /// With `run`: how long to wait for a person's answer to NEEDS_HUMAN.
    pub wait: Option<Duration>,
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

/// `inspect verify|audit|review|run ID`.
pub fn pipeline(ctx: &Ctx, req: &Request) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = if req.upto == Upto::Run {
        Some(ctx.actor(&ws)?)
    } else {
        None
    };
    let (work, _) = pipeline::work_and_spec(&ws, &req.id)?;
    let mut opts = Options {
        upto: req.upto,
        base: req.base.clone(),
        use_cache: !req.no_cache,
        answer: route::latest_answer(&ws, &work),
    };
    let mut ins = pipeline::inspect(&ws, &req.id, &opts)?;
    let Some(actor) = actor else {
        render(ctx, &ins, None);
        return Ok(exit_code(ins.verdict));
    };
    let mut routed = route::record_and_route(&ws, &actor, &ins)?;
    on_verdict_hooks(&ws, &mut ins);
    if ins.verdict == Verdict::NeedsHuman
        && let Some(wait) = req.wait
    {
        render(ctx, &ins, Some(&routed));
        let until = Instant::now() + wait;
        let answer = loop {
            let work = crate::bead::store::load_one(&ws, &work.id)?;
            if let Some(a) = route::latest_answer(&ws, &work) {
                break Some(a);
            }
            if Instant::now() >= until {
                break None;
            }
            std::thread::sleep(Duration::from_millis(500));
        };
        let Some(answer) = answer else {
            return Err(Error::Invalid(format!(
                "no answer to the question on {} within {}s",
                work.id,
                wait.as_secs()
            )));
        };
        opts.answer = Some(answer);
        ins = pipeline::inspect(&ws, &req.id, &opts)?;
        routed = route::record_and_route(&ws, &actor, &ins)?;
        on_verdict_hooks(&ws, &mut ins);
    }
    render(ctx, &ins, Some(&routed));
    if let Some(r) = &routed.recorded {
        recorded_note(r);
    }
    Ok(exit_code(ins.verdict))
}

/// Runs OnVerifyPass, OnVerifyFail or OnVerifyEscalate after routing.
fn on_verdict_hooks(ws: &crate::workspace::Workspace, ins: &mut Inspection) {
    let point = match ins.verdict {
        Verdict::Pass => hooks::HookPoint::OnVerifyPass,
        Verdict::Fail => hooks::HookPoint::OnVerifyFail,
        Verdict::NeedsHuman => hooks::HookPoint::OnVerifyEscalate,
        Verdict::Error => return,
    };
    let payload = serde_json::to_value(&*ins).unwrap_or_default();
    let report = hooks::run(ws, point, &payload);
    ins.warnings.extend(report.warnings);
}

/// Prints an inspection: JSON, or a report per criterion with the verdict last.
fn render(ctx: &Ctx, ins: &Inspection, routed: Option<&route::Routed>) {
    if ctx.json {
        let mut v = serde_json::to_value(ins).unwrap_or_default();
        if let Some(r) = routed {
            v["routed"] = serde_json::to_value(r).unwrap_or_default();
        }
        print_json(&versioned(v));
        return;
    }
    outln!("Inspect: {} {}", ins.work, ins.title);
    for c in &ins.checks {
        outln!("  [{}] {} {}", c.result.outcome, c.id, c.description);
        outln!("         {} ({})", c.target, c.kind);
        if let Some(why) = &c.result.reason
            && c.result.outcome != crate::check::Outcome::Pass
        {
            outln!("           {why}");
        }
    }
    for a in &ins.audit {
        outln!("  auditor: {} {}: {}", a.id, a.finding.as_str(), a.why);
    }
    for w in &ins.warnings {
        eprintln!("warning: {w}");
    }
    let confidence = if ins.judgment.is_some() {
        format!(" (confidence {:.2})", ins.confidence)
    } else {
        String::new()
    };
    outln!(
        "{}{confidence}: {}",
        ins.verdict.as_str(),
        ins.reasons.join("; ")
    );
    if let Some(q) = &ins.question {
        outln!("question: {q}");
    }
    if let Some(r) = routed {
        if let Some(b) = &r.result_bead {
            outln!(
                "failure report: {b} (`vermas inspect feedback {}`)",
                ins.work
            );
        }
        for m in &r.mailed {
            outln!("mailed mayor/: {m}");
        }
    }
}

/// `inspect feedback ID`: the latest failure report of the work.
pub fn feedback(ctx: &Ctx, id: &str) -> CmdResult {
    let ws = ctx.workspace()?;
    let (work, _) = pipeline::work_and_spec(&ws, id)?;
    let set = crate::bead::store::BeadSet::load(&ws)?;
    let latest = set
        .beads
        .values()
        .filter(|b| {
            b.issue_type == crate::bead::model::IssueType::VerificationResult
                && b.parent.as_deref() == Some(&work.id)
        })
        .max_by_key(|b| b.created_at);
    let Some(latest) = latest else {
        return Err(Error::Missing {
            message: format!("{} has no failure report", work.id),
            help: format!("`vermas inspect run {}` inspects it", work.id),
        });
    };
    let report = crate::bead::store::load_one(&ws, &latest.id)?;
    if ctx.json {
        print_json(&versioned(serde_json::json!({
            "work": work.id, "report": report.id, "text": report.description,
        })));
    } else {
        outln!("{}", report.description.trim_end());
    }
    Ok(0)
}

/// `inspect status [ID]`: beads with their latest verdict and its age.
pub fn status(ctx: &Ctx, id: Option<&str>) -> CmdResult {
    let ws = ctx.workspace()?;
    let wanted = id
        .map(|i| pipeline::work_and_spec(&ws, i).map(|(w, _)| w.id))
        .transpose()?;
    let records: Vec<_> = crate::results::load_all(&ws)
        .into_iter()
        .filter(|r| !r.key.starts_with("spec:"))
        .filter(|r| wanted.as_deref().is_none_or(|w| r.key == w))
        .collect();
    if ctx.json {
        print_json(&records);
        return Ok(0);
    }
    if records.is_empty() {
        outln!("No inspections yet");
    }
    let now = Timestamp::now();
    for r in &records {
        outln!(
            "{:<14} {:<12} {} ago",
            r.key,
            r.verdict,
            crate::time::short_age(r.at.seconds_until(now))
        );
    }
    Ok(0)
}
