//! `plan`: design → create → strategize as the `mol-spec-planning` molecule, so a plan that
//! stopped (a model failed, a person said no, the process was killed) resumes at its first
//! step not done. Nothing is stored until the requirements are approved: the molecule is
//! poured together with its completed `design` step, and each later step is recorded in the
//! same commit as what it wrote, so a step is never done twice.

pub mod design;
pub mod strategy;

use crate::bead::model::{AcceptanceCriterion, Bead};
use crate::error::{Error, Result};
use crate::mol::molecule::{self, MolState, Molecule};
use crate::mol::ops::{StepChange, apply};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use design::{DesignInput, Requirements};
use std::collections::BTreeMap;
use strategy::{Strategized, StrategyInput};

/// The formula a plan runs (a `.beads/formulas/` file of that name takes its place).
pub(crate) const FORMULA: &str = "mol-spec-planning";

/// The steps a plan runs, in order.
pub const STEPS: [&str; 3] = ["design", "create", "strategize"];

/// A plan: its request and, once the requirements are approved, its molecule.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The request as the person put it.
    pub request: String,
    /// The molecule (none before the design is approved).
    pub mol: Option<Molecule>,
    /// True when an earlier plan was picked up.
    pub resumed: bool,
}

/// The step a plan runs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Ask the designer and a person.
    Design,
    /// Create the work.
    Create,
    /// Ask the strategist and a person.
    Strategize,
    /// Every step is done.
    Done,
}

impl Plan {
    /// The plan for `request`: the unfinished one poured for the same request (or the
    /// molecule `resume` names), else a new one. Refused when the request is empty, when
    /// `resume` is not an unfinished plan, or when it was made for another request.
    pub fn open(ws: &Workspace, request: Option<&str>, resume: Option<&str>) -> Result<Plan> {
        let request = request.map(str::trim).filter(|r| !r.is_empty());
        if let Some(id) = resume {
            let (_, mol) = molecule::load(ws, id)?;
            let wanted = plan_request(&mol)?;
            if let Some(r) = request
                && r != wanted
            {
                return Err(
                    Error::usage(format!("{} plans another request: {wanted:?}", mol.id))
                        .with_help("give only --resume MOL, or the request alone"),
                );
            }
            if mol.is_complete() {
                return Err(Error::wrong_state(format!(
                    "{} is complete: nothing to resume (its work is {})",
                    mol.id,
                    mol.bead_id.as_deref().unwrap_or("?")
                )));
            }
            return Ok(Plan {
                request: wanted,
                mol: Some(mol),
                resumed: true,
            });
        }
        let request = request.ok_or_else(|| {
            Error::invalid_with_help(
                "the request is empty: say what you want built",
                "or resume a plan: vermas plan --resume MOL (`vermas plan --list` shows them)",
            )
        })?;
        let mut open = unfinished(ws)?
            .into_iter()
            .filter(|m| m.vars.get("request").map(|r| r.trim()) == Some(request));
        match (open.next(), open.next()) {
            (Some(one), None) => Ok(Plan {
                request: request.to_string(),
                mol: Some(one),
                resumed: true,
            }),
            (Some(a), Some(b)) => Err(Error::invalid_with_help(
                format!(
                    "more than one unfinished plan has this request: {}, {}",
                    a.id, b.id
                ),
                "pick one: vermas plan --resume MOL",
            )),
            (None, _) => Ok(Plan {
                request: request.to_string(),
                mol: None,
                resumed: false,
            }),
        }
    }

    /// The first step not done.
    pub fn next(&self) -> Next {
        let Some(mol) = &self.mol else {
            return Next::Design;
        };
        let done = |id: &str| mol.step(id).is_ok_and(|s| s.status.is_done());
        if !done("design") {
            Next::Design
        } else if !done("create") {
            Next::Create
        } else if !done("strategize") {
            Next::Strategize
        } else {
            Next::Done
        }
    }

    /// The molecule's id, once there is one.
    pub fn mol_id(&self) -> Option<&str> {
        self.mol.as_ref().map(|m| m.id.as_str())
    }

    /// The work the plan created, once it did.
    pub fn bead_id(&self) -> Option<&str> {
        self.mol.as_ref().and_then(|m| m.bead_id.as_deref())
    }

    /// What the designer is asked (a plan always creates new work).
    pub fn design_input(&self) -> DesignInput {
        DesignInput {
            request: self.request.clone(),
            work: None,
        }
    }

    /// The approved requirements, from the `design` step's output.
    pub fn requirements(&self) -> Result<Requirements> {
        let mol = self
            .mol
            .as_ref()
            .ok_or_else(|| Error::wrong_state("the plan has no approved requirements yet"))?;
        let out = mol.step("design")?.output.as_deref().unwrap_or("");
        serde_json::from_str(out).map_err(|e| {
            Error::Invalid(format!(
                "{}: the design step's output is not the requirements' JSON ({e}); \
                 `vermas mol show {}` shows it",
                mol.id, mol.id
            ))
        })
    }
}

/// Unfinished plans (poured `mol-spec-planning` molecules with a step not done), oldest
/// first.
pub fn unfinished(ws: &Workspace) -> Result<Vec<Molecule>> {
    let (mols, _) = molecule::load_all(ws);
    Ok(mols
        .into_iter()
        .filter(|m| m.formula == FORMULA && m.state == MolState::Liquid && !m.is_complete())
        .collect())
}

/// The request molecule `mol` plans, or why it is not a plan.
fn plan_request(mol: &Molecule) -> Result<String> {
    if mol.formula != FORMULA {
        return Err(Error::Invalid(format!(
            "{} is a {} molecule, not a plan ({FORMULA})",
            mol.id, mol.formula
        )));
    }
    Ok(mol.vars.get("request").cloned().unwrap_or_default())
}

/// A person's part in a plan: settles each proposal (`None`: declined) and hears of each
/// step once it is recorded. The terminal, or `--yes`, supplies it.
pub trait Planner {
    /// The designer's proposal for `input`, settled.
    fn settle_design(&mut self, input: &DesignInput) -> Result<Option<Requirements>>;
    /// The strategist's proposal for `input`, settled.
    fn settle_criteria(
        &mut self,
        input: &StrategyInput,
    ) -> Result<Option<Vec<AcceptanceCriterion>>>;
    /// `step` of `plan` was recorded in `commit`; with `create`, the work it made.
    fn recorded(&mut self, plan: &Plan, step: Next, commit: &Recorded, created: Option<&Bead>);
}

/// How a plan's run ended.
#[derive(Debug)]
pub enum PlanEnd {
    /// Every step is done.
    Done {
        /// The work the create step made in this run.
        created: Option<String>,
        /// What the strategize step wrote in this run.
        strategized: Option<Box<Strategized>>,
    },
    /// A person declined a proposal (`requirements` or `criteria`): the plan stops there
    /// and can be resumed.
    Declined(&'static str),
}

/// Runs `plan` from its first step not done to the end, as `actor`; `approve` approves
/// the test spec the strategize step writes. An error after the design step says how to
/// resume.
pub fn run(
    ws: &Workspace,
    actor: &str,
    plan: &mut Plan,
    approve: bool,
    planner: &mut impl Planner,
) -> Result<PlanEnd> {
    if plan.mol.is_none() {
        // A `.beads/formulas/` file in the built-in's place that plan cannot run is
        // refused before anyone is asked anything.
        let vars = BTreeMap::from([("request".to_string(), plan.request.clone())]);
        crate::mol::cook(Some(&ws.beads_dir), FORMULA, &vars)?;
    }
    let mut created = None;
    let mut strategized = None;
    loop {
        let step = plan.next();
        match step {
            Next::Design => {
                let Some(reqs) = planner.settle_design(&plan.design_input())? else {
                    return Ok(PlanEnd::Declined("requirements"));
                };
                let commit = record_design(ws, actor, plan, &reqs)?;
                planner.recorded(plan, step, &commit, None);
            }
            Next::Create => {
                let (beads, commit) =
                    record_create(ws, actor, plan).map_err(|e| resumable(plan, "create", e))?;
                planner.recorded(plan, step, &commit, beads.first());
                created = beads.first().map(|b| b.id.clone());
            }
            Next::Strategize => {
                let work = plan.bead_id().unwrap_or_default().to_string();
                let settled = StrategyInput::new(ws, &work)
                    .and_then(|input| planner.settle_criteria(&input))
                    .map_err(|e| resumable(plan, "strategize", e))?;
                let Some(criteria) = settled else {
                    return Ok(PlanEnd::Declined("criteria"));
                };
                let (done, commit) = record_strategy(ws, actor, plan, &criteria, approve)
                    .map_err(|e| resumable(plan, "strategize", e))?;
                planner.recorded(plan, step, &commit, None);
                strategized = Some(Box::new(done));
            }
            Next::Done => {
                return Ok(PlanEnd::Done {
                    created,
                    strategized,
                });
            }
        }
    }
}

/// `e` with the way back into the plan (stopped at `step`) added to its help.
fn resumable(plan: &Plan, step: &str, e: Error) -> Error {
    let Some(id) = plan.mol_id() else { return e };
    let how = format!(
        "the plan stopped at its {step} step; resume it with `vermas plan --resume {id}` \
         (or the same `vermas plan` request)"
    );
    match e {
        Error::Llm { message, help } => Error::Llm {
            message,
            help: format!("{}; {how}", help.replacen("nothing was written; ", "", 1)),
        },
        e @ (Error::Invalid(_)
        | Error::InvalidWithHelp { .. }
        | Error::Usage { .. }
        | Error::WrongState { .. }
        | Error::Conflict { .. }
        | Error::Setting { .. }) => {
            let help = match miette::Diagnostic::help(&e) {
                Some(h) => format!("{h}; {how}"),
                None => how,
            };
            e.with_help(help)
        }
        other => other,
    }
}

/// Records the approved requirements: pours the molecule with its `design` step done, in
/// one commit.
pub(crate) fn record_design(
    ws: &Workspace,
    actor: &str,
    plan: &mut Plan,
    reqs: &Requirements,
) -> Result<Recorded> {
    if plan.mol.is_some() {
        return Err(Error::wrong_state("the plan's design is recorded already"));
    }
    let vars = BTreeMap::from([("request".to_string(), plan.request.clone())]);
    let proto = crate::mol::cook(Some(&ws.beads_dir), FORMULA, &vars)?;
    if let Some(missing) = STEPS
        .iter()
        .find(|s| !proto.steps.iter().any(|p| p.id == **s))
    {
        return Err(Error::invalid_with_help(
            format!(
                "formula {FORMULA} has no step '{missing}': plan runs design, create, strategize"
            ),
            "a .beads/formulas/ file of that name replaces the built-in: keep those step ids",
        ));
    }
    let output = serde_json::to_string_pretty(reqs).map_err(|e| Error::Invalid(e.to_string()))?;
    let now = Timestamp::now();
    let mut txn = Txn::begin(ws)?;
    let id = molecule::new_id(ws, FORMULA, actor);
    let mut mol = Molecule::from_proto(id, &proto, MolState::Liquid, now);
    apply(&mut mol, "design", &StepChange::Done(Some(output)), now)?;
    txn.write(
        &molecule::path_of(ws, &mol),
        molecule::render(&mol)?.as_bytes(),
    )?;
    let recorded = txn.commit(&message(&mol, "design", &plan.request, Vec::new(), actor))?;
    plan.mol = Some(mol);
    Ok(recorded)
}

/// Creates the work with the approved requirements (and its test spec) and marks `create`
/// done, in one commit; returns the beads written, the work first.
pub(crate) fn record_create(
    ws: &Workspace,
    actor: &str,
    plan: &mut Plan,
) -> Result<(Vec<Bead>, Recorded)> {
    let reqs = plan.requirements()?;
    let mut txn = Txn::begin(ws)?;
    let mut mol = reread(ws, plan)?;
    let (beads, _) = design::create_new_in(&mut txn, ws, actor, &plan.design_input(), &reqs)?;
    let work = beads
        .first()
        .ok_or_else(|| Error::Invalid("no bead was written".into()))?;
    let output = match beads.get(1) {
        Some(spec) => format!("{} (test spec {})", work.id, spec.id),
        None => work.id.clone(),
    };
    let now = Timestamp::now();
    apply(&mut mol, "create", &StepChange::Done(Some(output)), now)?;
    mol.bead_id = Some(work.id.clone());
    txn.write(
        &molecule::path_of(ws, &mol),
        molecule::render(&mol)?.as_bytes(),
    )?;
    let ids = beads.iter().map(|b| b.id.clone()).collect();
    let title = format!("{} {}", work.id, work.title);
    let recorded = txn.commit(&message(&mol, "create", &title, ids, actor))?;
    plan.mol = Some(mol);
    Ok((beads, recorded))
}

/// Adds the approved criteria to the work's test spec (approving it with `approve`) and
/// marks `strategize` done, in one commit.
pub(crate) fn record_strategy(
    ws: &Workspace,
    actor: &str,
    plan: &mut Plan,
    criteria: &[AcceptanceCriterion],
    approve: bool,
) -> Result<(Strategized, Recorded)> {
    let work_id = plan
        .bead_id()
        .ok_or_else(|| Error::wrong_state("the plan has created no work yet"))?
        .to_string();
    let mut txn = Txn::begin(ws)?;
    let mut mol = reread(ws, plan)?;
    let (done, spec_msg) = strategy::add_in(&mut txn, ws, actor, &work_id, criteria, approve)?;
    let mut output = format!("{} added to {}", done.added.join(", "), done.spec.id);
    if done.approved {
        output.push_str(" (approved)");
    }
    apply(
        &mut mol,
        "strategize",
        &StepChange::Done(Some(output)),
        Timestamp::now(),
    )?;
    txn.write(
        &molecule::path_of(ws, &mol),
        molecule::render(&mol)?.as_bytes(),
    )?;
    let title = format!("{} {}", done.spec.id, done.work.title);
    let recorded = txn.commit(&message(&mol, "strategize", &title, spec_msg.ids, actor))?;
    plan.mol = Some(mol);
    Ok((done, recorded))
}

/// The plan's molecule as it is now on disk (read under the caller's lock).
fn reread(ws: &Workspace, plan: &Plan) -> Result<Molecule> {
    let id = plan
        .mol_id()
        .ok_or_else(|| Error::wrong_state("the plan's design is not recorded yet"))?;
    let (_, mol) = molecule::load(ws, id)?;
    Ok(mol)
}

/// The commit message of a plan step: `vermas plan: <mol> <step> <title>`.
fn message(
    mol: &Molecule,
    step: &str,
    title: &str,
    more: Vec<String>,
    actor: &str,
) -> CommitMessage {
    let mut ids = vec![mol.id.clone()];
    ids.extend(more);
    CommitMessage {
        verb: "plan".into(),
        ids,
        title: format!("{step}: {title}"),
        actor: actor.to_string(),
    }
}
