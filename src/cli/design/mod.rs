//! Handlers of `design`, `strategize` and `plan`: they ask the library for proposals,
//! settle them with a person (`approve`), have the library record them, and render.

pub(super) mod args;
pub(super) mod review;

use super::design::args::{DesignArgs, PlanArgs, StrategizeArgs};
use super::design::review::{Approver, Proposal};
use super::output::{recorded_note, versioned};
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use serde_json::json;
use vermas_core::bead::model::AcceptanceCriterion;
use vermas_core::bead::model::Bead;
use vermas_core::error::Result;
use vermas_core::planning::design::{self, DesignInput, Requirements};
use vermas_core::planning::strategy::{self, Strategized, StrategyInput};
use vermas_core::planning::{self, Next, Plan, PlanEnd, Planner};
use vermas_core::store::Recorded;
use vermas_core::workspace::Workspace;

/// Exit code when a person declines a proposal: nothing was written.
const DECLINED: i32 = 1;

/// `design REQUEST [--bead ID] [--yes]`.
pub fn design(ctx: &Ctx, ui: &mut Ui, a: DesignArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let input = DesignInput::new(&ws, &a.request, a.bead.as_deref())?;
    let approver = Approver::new(a.yes, "requirements")?;
    let Some(reqs) = settle_design(&ws, approver, &input)? else {
        return declined(ui, "requirements");
    };
    let done = design::record(&ws, &actor, &input, &reqs)?;
    recorded_note(&done.recorded);
    if ui.json {
        ui.json(&versioned(json!({
            "id": done.work.id,
            "title": done.work.title,
            "created": input.creates(),
            "spec": done.spec.as_ref().map(|s| &s.id),
            "requirements": reqs,
        })));
        return Ok(0);
    }
    if approver.accepts_all() {
        outln!(ui, "{}\n", design::to_text(&reqs).trim_end());
    }
    if input.creates() {
        outln!(ui, "Created {}: {}", done.work.id, done.work.title);
        if let Some(spec) = &done.spec {
            outln!(
                ui,
                "  test spec {} waits for criteria: vermas strategize {}",
                spec.id,
                done.work.id
            );
        }
    } else {
        outln!(
            ui,
            "Wrote the requirements into {}: {}",
            done.work.id,
            done.work.title
        );
    }
    Ok(0)
}

/// `strategize ID [--yes] [--approve]`.
pub fn strategize(ctx: &Ctx, ui: &mut Ui, a: StrategizeArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let input = StrategyInput::new(&ws, &a.id)?;
    let approver = Approver::new(a.yes, "criteria")?;
    let Some(criteria) = settle_strategy(&ws, approver, &input)? else {
        return declined(ui, "criteria");
    };
    let (done, recorded) = strategy::record(&ws, &actor, &input.work.id, &criteria, a.approve)?;
    recorded_note(&recorded);
    if ui.json {
        ui.json(&versioned(strategized_json(&done)));
        return Ok(0);
    }
    if approver.accepts_all() {
        outln!(ui, "{}\n", strategy::to_text(&criteria).trim_end());
    }
    report_strategy(ui, &done);
    Ok(0)
}

/// `plan REQUEST | --resume MOL | --list [--yes] [--approve]`.
pub fn plan(ctx: &Ctx, ui: &mut Ui, a: PlanArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    if a.list {
        return list_plans(ui, &ws);
    }
    let actor = ctx.actor(&ws)?;
    let mut plan = Plan::open(&ws, a.request.as_deref(), a.resume.as_deref())?;
    let approver = Approver::new(a.yes, "proposals")?;
    if let (true, Some(id)) = (plan.resumed, plan.mol_id()) {
        eprintln!("Resuming plan {id} at its {} step", step_name(plan.next()));
    }
    let mut person = Person { ws: &ws, approver };
    let (created, strategized) =
        match planning::run(&ws, &actor, &mut plan, a.approve, &mut person)? {
            PlanEnd::Done {
                created,
                strategized,
            } => (created, strategized),
            PlanEnd::Declined(what) => {
                if let (Next::Strategize, Some(id)) = (plan.next(), plan.mol_id()) {
                    eprintln!(
                        "Criteria declined; the plan stops. Resume: vermas plan --resume {id}"
                    );
                }
                return declined(ui, what);
            }
        };
    let mol = plan.mol_id().unwrap_or("?").to_string();
    if ui.json {
        ui.json(&versioned(json!({
            "molecule": mol,
            "request": plan.request,
            "resumed": plan.resumed,
            "bead": plan.bead_id(),
            "created": created,
            "strategy": strategized.as_deref().map(strategized_json),
            "complete": true,
        })));
        return Ok(0);
    }
    if let Some(done) = &strategized {
        report_strategy(ui, done);
    }
    outln!(
        ui,
        "Plan {mol} complete: {} is planned",
        plan.bead_id().unwrap_or("?")
    );
    Ok(0)
}

/// The terminal's part in a plan: a person (or `--yes`) settles each proposal, and each
/// recorded step is told on stderr.
struct Person<'a> {
    /// The workspace.
    ws: &'a Workspace,
    /// How proposals are settled.
    approver: Approver,
}

impl Planner for Person<'_> {
    fn settle_design(&mut self, input: &DesignInput) -> Result<Option<Requirements>> {
        settle_design(self.ws, self.approver, input)
    }

    fn settle_criteria(
        &mut self,
        input: &StrategyInput,
    ) -> Result<Option<Vec<AcceptanceCriterion>>> {
        settle_strategy(self.ws, self.approver, input)
    }

    fn recorded(&mut self, plan: &Plan, step: Next, commit: &Recorded, created: Option<&Bead>) {
        recorded_note(commit);
        let id = plan.mol_id().unwrap_or("?");
        match (step, created) {
            (Next::Design, _) => eprintln!(
                "Plan {id}: requirements recorded (resume with `vermas plan --resume {id}`)"
            ),
            (Next::Create, Some(work)) => {
                eprintln!("Plan {id}: created {}: {}", work.id, work.title);
            }
            _ => {}
        }
    }
}

/// The designer's proposal settled with a person (or `--yes`).
fn settle_design(
    ws: &Workspace,
    approver: Approver,
    input: &DesignInput,
) -> Result<Option<Requirements>> {
    let with_title = input.creates();
    approver.settle(&Proposal {
        what: "requirements",
        extension: "md",
        ask: &|revision| design::propose(ws, input, revision),
        to_text: &design::to_text,
        from_text: &|text| design::parse_text(text, with_title),
    })
}

/// The strategist's proposal settled with a person (or `--yes`).
fn settle_strategy(
    ws: &Workspace,
    approver: Approver,
    input: &StrategyInput,
) -> Result<Option<Vec<AcceptanceCriterion>>> {
    let taken = input.taken();
    let first = input.first_number();
    approver.settle(&Proposal {
        what: "criteria",
        extension: "yaml",
        ask: &|revision| strategy::propose(ws, input, revision),
        to_text: &|c: &Vec<AcceptanceCriterion>| strategy::to_text(c),
        from_text: &|text| strategy::parse_text(text, &taken, first),
    })
}

/// A declined proposal: nothing written, exit 1.
fn declined(ui: &mut Ui, what: &str) -> CmdResult {
    if ui.json {
        ui.json(&versioned(json!({"declined": what})));
    } else {
        eprintln!("The {what} were declined: nothing was written.");
    }
    Ok(DECLINED)
}

/// The JSON of what `strategize` wrote.
fn strategized_json(done: &Strategized) -> serde_json::Value {
    let added: Vec<&AcceptanceCriterion> = done
        .spec
        .acceptance_criteria
        .iter()
        .filter(|c| done.added.contains(&c.id))
        .collect();
    json!({
        "work": done.work.id,
        "spec": done.spec.id,
        "created_spec": done.created_spec,
        "approved": done.approved,
        "added": added,
    })
}

/// The human lines of what `strategize` wrote.
fn report_strategy(ui: &mut Ui, done: &Strategized) {
    if done.created_spec {
        outln!(
            ui,
            "Created test spec {} for {}",
            done.spec.id,
            done.work.id
        );
    }
    outln!(
        ui,
        "Added {} to {}: {}",
        vermas_core::text::words::counted(done.added.len(), "criterion", "criteria"),
        done.spec.id,
        done.added.join(", ")
    );
    if done.approved {
        outln!(
            ui,
            "Approved {}: {} may be slung",
            done.spec.id,
            done.work.id
        );
    } else {
        outln!(
            ui,
            "Approve it when ready: vermas inspect approve {}",
            done.spec.id
        );
    }
}

/// `plan --list`.
fn list_plans(ui: &mut Ui, ws: &Workspace) -> CmdResult {
    let plans = planning::unfinished(ws)?;
    let next = |m: &vermas_core::mol::molecule::Molecule| {
        planning::STEPS
            .iter()
            .find(|s| m.step(s).is_ok_and(|st| !st.status.is_done()))
            .copied()
            .unwrap_or("done")
    };
    if ui.json {
        let rows: Vec<_> = plans
            .iter()
            .map(|m| json!({"molecule": m.id, "next": next(m), "bead": m.bead_id, "request": m.vars.get("request"), "created_at": m.created_at}))
            .collect();
        ui.json(&rows);
        return Ok(0);
    }
    if plans.is_empty() {
        outln!(ui, "No unfinished plans");
    }
    for m in &plans {
        outln!(
            ui,
            "{:<14} next: {:<11} {}",
            m.id,
            next(m),
            m.vars.get("request").map(String::as_str).unwrap_or("")
        );
    }
    Ok(0)
}

/// How a step is named in messages.
fn step_name(next: Next) -> &'static str {
    match next {
        Next::Design => "design",
        Next::Create => "create",
        Next::Strategize => "strategize",
        Next::Done => "last",
    }
}
