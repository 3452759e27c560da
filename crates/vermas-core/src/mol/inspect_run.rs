//! `mol run` of a `mol-inspect` molecule without a handler: vermas drives the Inspector
//! itself. The inspection is [`crate::inspect::run`], the one that `inspect run` makes, so
//! the verdict is the same; each of the formula's steps (verify, audit, advocate ∥ critic,
//! judge, route) is then recorded with what that part of the inspection produced, in the
//! verdict's own routing commit. A part the inspection never reached (it stopped earlier:
//! an unapproved test spec, a role that failed) is `skipped` with the reason, so the steps
//! after it go on and the molecule ends complete with the verdict routed.

use super::molecule::{self, Molecule, StepStatus};
use super::ops::{self, StepChange, apply};
use crate::error::{Error, Result};
use crate::inspect::inspection::{Inspection, Upto};
use crate::inspect::route::Routed;
use crate::inspect::{self, Observer, Request};
use crate::store::Txn;
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;

/// The formula this driver runs.
pub const FORMULA: &str = "mol-inspect";

/// The steps it records, in order (advocate and critic both need audit; judge needs both).
pub const STEPS: [&str; 6] = ["verify", "audit", "advocate", "critic", "judge", "route"];

/// What a driven run did.
#[derive(Debug, Clone, Serialize)]
pub struct InspectRun {
    /// The molecule.
    pub molecule: String,
    /// The work inspected.
    pub bead_id: String,
    /// The verdict, as `inspect run` gives it.
    pub verdict: String,
    /// Each step as recorded.
    pub steps: Vec<StepResult>,
    /// True when every step of the molecule is done.
    pub complete: bool,
}

/// One step as a driven run left it.
#[derive(Debug, Clone, Serialize)]
pub struct StepResult {
    /// Step id.
    pub step: String,
    /// `completed` or `skipped` (or as it was, when it was done before).
    pub status: StepStatus,
    /// Its output, or why it was skipped.
    pub text: String,
}

/// True when molecule `mol` is one this driver runs: of formula `mol-inspect` (the built-in
/// or a `.beads/formulas/` file of that name) with every step of [`STEPS`].
pub fn drives(mol: &Molecule) -> bool {
    mol.formula == FORMULA && STEPS.iter().all(|s| mol.step(s).is_ok())
}

/// Runs the inspection of molecule `id`'s bead and records its steps, as `actor`.
pub fn run(ws: &Workspace, actor: &str, id: &str) -> Result<InspectRun> {
    let (path, mol) = molecule::load(ws, id)?;
    if !drives(&mol) {
        return Err(Error::invalid_with_help(
            format!(
                "{} is a {} molecule: only a {FORMULA} molecule with the steps {} runs without \
                 a handler",
                mol.id,
                mol.formula,
                STEPS.join(", ")
            ),
            "give the command that runs each step: `vermas mol run MOL --handler CMD`",
        ));
    }
    let bead = mol
        .bead_id
        .clone()
        .or_else(|| mol.vars.get("bead_id").cloned())
        .ok_or_else(|| {
            Error::invalid_with_help(
                format!("{} names no bead to inspect", mol.id),
                "pour it for one: `vermas mol pour mol-inspect --bead ID`",
            )
        })?;
    if mol.is_complete() {
        return Err(Error::wrong_state(format!(
            "{} is complete: its inspection ran already",
            mol.id
        ))
        .with_help(format!(
            "`vermas mol show {}` shows it; pour another to inspect again",
            mol.id
        )));
    }
    let wisp = path.starts_with(molecule::wisps_dir(ws));
    let mut recorder = Recorder {
        ws,
        mol_id: mol.id.clone(),
        wisp,
        written: None,
    };
    let req = Request::new(bead.clone(), Upto::Run);
    let out = inspect::run(ws, Some(actor), &req, &mut recorder)?;
    let mol = match recorder.written {
        Some(m) => m,
        // A wisp is never committed: its steps are written beside the routing commit.
        None => {
            let ins = out.inspection.clone();
            let routed = out.routed.clone();
            ops::update(ws, actor, id, "mol run", |m, now| {
                fill(m, &ins, routed.as_ref(), now)?;
                Ok(ins.verdict.to_string())
            })?
            .mol
        }
    };
    Ok(InspectRun {
        molecule: mol.id.clone(),
        bead_id: bead,
        verdict: out.inspection.verdict.to_string(),
        steps: STEPS
            .iter()
            .filter_map(|s| mol.step(s).ok())
            .map(|s| StepResult {
                step: s.id.clone(),
                status: s.status,
                text: s
                    .output
                    .clone()
                    .or_else(|| s.reason.clone())
                    .unwrap_or_default(),
            })
            .collect(),
        complete: mol.is_complete(),
    })
}

/// Writes the molecule's steps into the inspection's routing commit.
struct Recorder<'a> {
    ws: &'a Workspace,
    mol_id: String,
    wisp: bool,
    written: Option<Molecule>,
}

impl Observer for Recorder<'_> {
    fn record_in(
        &mut self,
        txn: &mut Txn<'_>,
        ins: &Inspection,
        routed: Option<&Routed>,
        now: Timestamp,
    ) -> Result<Vec<String>> {
        if self.wisp {
            return Ok(Vec::new());
        }
        // Read again under the lock the routing holds.
        let (path, mut mol) = molecule::load(self.ws, &self.mol_id)?;
        fill(&mut mol, ins, routed, now)?;
        txn.write(&path, molecule::render(&mol)?.as_bytes())?;
        let id = mol.id.clone();
        self.written = Some(mol);
        Ok(vec![id])
    }

    fn commit_title(&self, ins: &Inspection) -> Option<(String, String)> {
        // The molecule's id comes first among the commit's ids.
        Some(("mol run".into(), format!("{} {}", ins.verdict, ins.title)))
    }
}

/// Settles every step of [`STEPS`] not done yet from what `ins` found, in order.
fn fill(
    mol: &mut Molecule,
    ins: &Inspection,
    routed: Option<&Routed>,
    now: Timestamp,
) -> Result<()> {
    let stopped = ins
        .reasons
        .first()
        .map_or("the inspection stopped before it", String::as_str);
    let not_run = |what: &str| format!("not run: {what}: {stopped}");
    for step in STEPS {
        if mol.step(step)?.status.is_done() {
            continue;
        }
        let change = match step {
            "verify" if !ins.checks.is_empty() => StepChange::Done(Some(checks_line(ins))),
            "audit" if !ins.audit.is_empty() => StepChange::Done(Some(audit_text(ins))),
            "advocate" | "critic" => match ins.briefs.get(step) {
                Some(brief) => StepChange::Done(Some(brief.clone())),
                None => StepChange::Skip(not_run(&format!("no {step}'s brief"))),
            },
            "judge" => match (&ins.judgment, ins.briefs.get("judge")) {
                (Some(j), reply) => {
                    let mut out = match j.confidence {
                        Some(c) => format!("{} (confidence {c})", j.decision),
                        None => j.decision.to_string(),
                    };
                    if let Some(reply) = reply {
                        out.push('\n');
                        out.push_str(reply);
                    }
                    StepChange::Done(Some(out))
                }
                (None, _) => StepChange::Skip(not_run("the judge gave no verdict")),
            },
            "route" => StepChange::Done(Some(route_text(ins, routed))),
            "verify" => StepChange::Skip(not_run("no criterion was run")),
            _ => StepChange::Skip(not_run("no audit")),
        };
        // A step another process left in progress or blocked is settled here too.
        let s = mol.step_mut(step)?;
        if matches!(s.status, StepStatus::InProgress | StepStatus::Blocked) {
            s.status = StepStatus::Pending;
        }
        apply(mol, step, &change, now)?;
    }
    Ok(())
}

/// `3 criteria: 2 PASS, 1 FAIL`.
fn checks_line(ins: &Inspection) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for c in &ins.checks {
        let o = c.result.outcome.to_string();
        match counts.iter_mut().find(|(k, _)| *k == o) {
            Some((_, n)) => *n += 1,
            None => counts.push((o, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(o, n)| format!("{n} {o}")).collect();
    let mut out = format!(
        "{}: {}",
        crate::text::words::counted(ins.checks.len(), "criterion", "criteria"),
        parts.join(", ")
    );
    for c in &ins.checks {
        out.push_str(&format!(
            "\n{} {}: {}",
            c.result.outcome, c.id, c.description
        ));
    }
    out
}

/// The auditor's finding per criterion.
fn audit_text(ins: &Inspection) -> String {
    let lines: Vec<String> = ins
        .audit
        .iter()
        .map(|a| format!("{}: {} ({})", a.id, a.finding.as_str(), a.why))
        .collect();
    lines.join("\n")
}

/// The verdict and what routing did with it.
fn route_text(ins: &Inspection, routed: Option<&Routed>) -> String {
    let mut out = ins.verdict.to_string();
    if let Some(r) = routed {
        if let Some(bead) = &r.result_bead {
            out.push_str(&format!("; result {bead}"));
        }
        if !r.mailed.is_empty() {
            out.push_str(&format!("; mailed {}", r.mailed.join(", ")));
        }
    }
    for reason in &ins.reasons {
        out.push('\n');
        out.push_str(reason);
    }
    out
}
