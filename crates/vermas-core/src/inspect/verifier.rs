//! The Inspector's verifier: every criterion of the approved test spec (a shell command, a
//! verify target or a judge rubric) and of the live spec the work links, run in parallel
//! through the check runner. No LLM decides here.

use crate::bead::model::{AcceptanceCriterion, Bead};
use crate::check::{self, CheckResult, Outcome};
use crate::verify::{self, Kinds, Project, RunSettings};
use crate::workspace::Workspace;
use serde::Serialize;

/// One criterion as the verifier ran it.
#[derive(Debug, Clone, Serialize)]
pub struct CriterionCheck {
    /// `ac-1`, or `specs/x.md:12` for a live-spec criterion.
    pub id: String,
    /// What must hold.
    pub description: String,
    /// `cmd`, `verify` or `judge`.
    pub kind: String,
    /// The command or `file#function`.
    pub target: String,
    /// What happened.
    #[serde(flatten)]
    pub result: CheckResult,
}

/// The verifier: every criterion of the approved test spec and of the live spec the work
/// links, run in parallel through the check runner.
pub fn verify(
    ws: &Workspace,
    work: &Bead,
    spec: Option<&Bead>,
    use_cache: bool,
) -> Vec<CriterionCheck> {
    let project = Project::of(ws);
    let kinds = Kinds {
        verify: true,
        judge: true,
    };
    let settings = project.settings(kinds, None, use_cache);
    let criteria: Vec<&AcceptanceCriterion> = spec
        .map(|s| s.acceptance_criteria.iter().collect())
        .unwrap_or_default();
    let mut out: Vec<CriterionCheck> = check::run_parallel(
        &criteria,
        settings.jobs,
        |c| run_criterion(ws, c, &settings),
        |_| {},
    );
    if let Some(path) = &work.spec {
        let s = match crate::spec::load(&ws.root, &ws.root.join(path)) {
            Ok(s) => s,
            Err(e) => {
                // A linked spec that cannot be read decides nothing, so nothing passes.
                out.push(unreadable(
                    path,
                    format!("the linked spec {path} cannot be read: {e}"),
                ));
                return out;
            }
        };
        let request = verify::Request {
            use_cache,
            ..verify::Request::new(verify::Selection::Given(vec![s]), kinds)
        };
        let runs = match verify::run(&project, request, &mut ()) {
            Ok(done) => done.runs,
            Err(e) => {
                out.push(unreadable(
                    path,
                    format!("the linked spec {path} cannot be verified: {e}"),
                ));
                return out;
            }
        };
        for run in runs {
            for c in run.criteria {
                for a in c.checks {
                    out.push(CriterionCheck {
                        id: format!("{}:{}", run.path, c.line),
                        description: c.text.clone(),
                        kind: a.kind.to_string(),
                        target: a.target,
                        result: a.result,
                    });
                }
            }
        }
    }
    out
}

/// The ERROR that stands for the linked live spec `path` when it decides nothing.
fn unreadable(path: &str, why: String) -> CriterionCheck {
    CriterionCheck {
        id: path.to_string(),
        description: format!("the live spec {path} the work links"),
        kind: "spec".into(),
        target: path.to_string(),
        result: CheckResult::without_run(Outcome::Error, why),
    }
}

/// Runs one acceptance criterion: a shell command, a verify target or a judge rubric.
fn run_criterion(ws: &Workspace, c: &AcceptanceCriterion, s: &RunSettings) -> CriterionCheck {
    let (kind, target, result) = if let Some(cmd) = &c.verify_command {
        let job =
            crate::proc::Job::shell(cmd.clone(), &ws.root, s.verify.timeout, s.verify.output_cap);
        (
            "cmd",
            cmd.clone(),
            command_result(cmd, &crate::proc::run(&job)),
        )
    } else if let Some(t) = &c.verify {
        let result = match crate::spec::target::resolve(t, "") {
            Ok(t) => check::run_verify(&ws.root, &t.file, t.function.as_deref(), None, &s.verify),
            Err(e) => CheckResult::without_run(Outcome::Error, e),
        };
        ("verify", t.clone(), result)
    } else if let Some(t) = &c.judge {
        let result = match crate::spec::target::resolve(t, "") {
            Ok(t) => crate::judge::run_judge(
                &ws.root,
                &t.file,
                t.function.as_deref(),
                &c.description,
                &s.judge,
            ),
            Err(e) => CheckResult::without_run(Outcome::Error, e),
        };
        ("judge", t.clone(), result)
    } else {
        let r = CheckResult::without_run(
            Outcome::Error,
            "the criterion names no check (cmd, verify or judge)",
        );
        ("none", String::new(), r)
    };
    CriterionCheck {
        id: c.id.clone(),
        description: c.description.clone(),
        kind: kind.to_string(),
        target,
        result,
    }
}

/// The outcome of a criterion's shell command: exit 0 PASS, any other exit FAIL; a
/// command that could not run (not found, timed out, killed) ERROR.
fn command_result(cmd: &str, done: &crate::proc::Finished) -> CheckResult {
    let (outcome, reason) = if let Some(e) = &done.spawn_error {
        (Outcome::Error, Some(e.clone()))
    } else if done.timed_out {
        (
            Outcome::Error,
            Some(format!(
                "timed out after {:.1}s",
                done.duration.as_secs_f64()
            )),
        )
    } else {
        match done.exit_code {
            Some(0) => (Outcome::Pass, None),
            Some(c @ (126 | 127)) => (Outcome::Error, Some(format!("could not run (exit {c})"))),
            Some(c) => (Outcome::Fail, Some(format!("exit {c}"))),
            None => (
                Outcome::Error,
                Some(format!("killed by signal {}", done.signal.unwrap_or(0))),
            ),
        }
    };
    CheckResult {
        outcome,
        reason,
        command: cmd.to_string(),
        exit_code: done.exit_code,
        duration_ms: done.duration.as_millis() as u64,
        output: done.text(),
        truncated: done.truncated(),
    }
}
