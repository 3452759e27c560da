//! The workflow executor: runs a handler command for each ready step of a
//! molecule, independent steps in parallel, recording each result as it arrives (one
//! commit per step for a poured molecule, so other processes can interleave), until every
//! step is complete or none can proceed. A step is taken before its handler starts (marked
//! `in_progress` under the molecule's lock, committed), so two runs of one molecule never
//! run the same step; a step taken and not recorded (Ctrl-C, an error) is given back as it
//! was.

use super::molecule::{self, Molecule, Step, StepStatus};
use super::ops::{self, StepChange};
use crate::error::{Error, Result};
use crate::proc::{self, Finished, Job};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Mutex, Once, mpsc};
use std::time::Duration;

/// Longest a handler may run for one step before its process group is killed.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(3600);

/// Most bytes of a handler's output stored as a step's output or reason.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// How `mol run` runs its handler.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Shell command run per step, the step as JSON on stdin.
    pub handler: String,
    /// Steps run at once.
    pub jobs: usize,
    /// Longest one step may run.
    pub timeout: Duration,
    /// Bytes of output kept.
    pub output_cap: usize,
}

impl RunOptions {
    /// Options for `handler` with `jobs` (default: the cores), the step timeout and the
    /// output cap (`verify.output_cap`, at most [`OUTPUT_CAP`]).
    pub fn new(ws: &Workspace, handler: &str, jobs: Option<usize>) -> RunOptions {
        RunOptions {
            handler: handler.to_string(),
            jobs: jobs.unwrap_or_else(crate::sys::par::cores).max(1),
            timeout: STEP_TIMEOUT,
            output_cap: usize::try_from(ws.config.verify.output_cap)
                .unwrap_or(OUTPUT_CAP)
                .min(OUTPUT_CAP),
        }
    }
}

/// One step the executor ran.
#[derive(Debug, Clone, Serialize)]
pub struct StepRun {
    /// Step id.
    pub step: String,
    /// `completed` or `blocked`.
    pub status: StepStatus,
    /// Its output (completed) or the reason (blocked).
    pub text: String,
    /// Wall time of the handler.
    pub duration_ms: u64,
    /// Set when the result was not recorded because another process finished the step
    /// first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A step left undone at the end, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Waiting {
    /// Step id.
    pub step: String,
    /// Its status.
    pub status: StepStatus,
    /// Why it cannot proceed.
    pub why: String,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Molecule id.
    pub molecule: String,
    /// True when every step is complete.
    pub complete: bool,
    /// Steps done at the end.
    pub steps_completed: usize,
    /// Steps in all.
    pub steps_total: usize,
    /// The steps run, in the order they finished.
    pub ran: Vec<StepRun>,
    /// Steps that cannot proceed (empty when complete).
    pub waiting: Vec<Waiting>,
}

/// A handler's result for one step.
struct Handled {
    step: String,
    started: Timestamp,
    done: Finished,
    stderr: String,
}

/// A moment of a molecule run, for the caller to show.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
    /// The handler started on this step.
    Started(&'a str),
    /// The step's result was recorded.
    Recorded(&'a StepRun),
}

/// Runs molecule `id` with `opts`, calling `on_event` as each step starts and as its result
/// is recorded. Steps blocked before the run began are tried again; a step that blocks
/// during the run is not.
pub fn run(
    ws: &Workspace,
    actor: &str,
    id: &str,
    opts: &RunOptions,
    mut on_event: impl FnMut(RunEvent<'_>),
) -> Result<RunReport> {
    let (_, mut mol) = molecule::load(ws, id)?;
    // Each blocked step as this run found it: tried again only while it stays so.
    let retry: BTreeMap<String, Option<Timestamp>> = mol
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Blocked)
        .map(|s| (s.id.clone(), s.started_at))
        .collect();
    let mut attempted: BTreeSet<String> = BTreeSet::new();
    let mut ran = Vec::new();
    let mut failure = None;
    let (tx, rx) = mpsc::channel::<Handled>();
    std::thread::scope(|scope| {
        let mut running = 0usize;
        let mut serial = 0usize;
        loop {
            if failure.is_none() {
                let next: Vec<String> = candidates(&mol, &attempted, &retry)
                    .iter()
                    .map(|s| s.id.clone())
                    .collect();
                for step_id in next {
                    if running >= opts.jobs {
                        break;
                    }
                    attempted.insert(step_id.clone());
                    match take(ws, actor, &mol.id, &step_id, &retry) {
                        Ok(Some(latest)) => mol = latest,
                        Ok(None) => {
                            // Another run took it (or finished it) first: not run here.
                            if let Ok((_, latest)) = molecule::load(ws, &mol.id) {
                                mol = latest;
                            }
                            continue;
                        }
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    }
                    let Ok(step) = mol.step(&step_id) else {
                        continue;
                    };
                    on_event(RunEvent::Started(&step_id));
                    serial += 1;
                    let input = step_input(&mol, step);
                    let (tx, step_id) = (tx.clone(), step.id.clone());
                    let job = handler_job(ws, opts, &mol.id, &step_id, serial, input);
                    scope.spawn(move || {
                        let started = Timestamp::now();
                        let (done, stderr) = execute(job);
                        // The receiver only goes when the run stopped: the result is not wanted then.
                        let _ = tx.send(Handled {
                            step: step_id,
                            started,
                            done,
                            stderr,
                        });
                    });
                    running += 1;
                }
            }
            if running == 0 {
                break;
            }
            let Ok(handled) = rx.recv() else { break };
            running -= 1;
            if failure.is_some() {
                continue;
            }
            match record(ws, actor, &mol.id, &handled, opts.output_cap) {
                Ok((latest, step_run)) => {
                    recorded(&mol.id, &handled.step);
                    mol = latest;
                    on_event(RunEvent::Recorded(&step_run));
                    ran.push(step_run);
                }
                Err(e) => failure = Some(e),
            }
        }
    });
    // Steps taken whose result was not recorded (a failure stopped the run) go back.
    give_back(|t| t.mol == mol.id);
    if let Some(e) = failure {
        return Err(e);
    }
    // Pick up changes other processes made since the last result.
    if let Ok((_, latest)) = molecule::load(ws, &mol.id) {
        mol = latest;
    }
    Ok(RunReport {
        molecule: mol.id.clone(),
        complete: mol.is_complete(),
        steps_completed: mol.progress().0,
        steps_total: mol.progress().1,
        ran,
        waiting: waiting(&mol),
    })
}

/// Steps that may start now: pending (or blocked before the run began) with every need
/// done, not yet tried in this run.
fn candidates<'m>(
    mol: &'m Molecule,
    attempted: &BTreeSet<String>,
    retry: &BTreeMap<String, Option<Timestamp>>,
) -> Vec<&'m Step> {
    mol.steps
        .iter()
        .filter(|s| {
            is_free(s, retry) && !attempted.contains(&s.id) && mol.unmet_needs(s).is_empty()
        })
        .collect()
}

/// True when no one has taken `step`: pending, or blocked as it was when this run began
/// (one in `retry`, not started again since).
fn is_free(step: &Step, retry: &BTreeMap<String, Option<Timestamp>>) -> bool {
    match step.status {
        StepStatus::Pending => true,
        StepStatus::Blocked => retry.get(&step.id) == Some(&step.started_at),
        _ => false,
    }
}

/// Takes step `step_id` of molecule `mol_id` for this run: under the molecule's lock,
/// reads it again and, when it is still free with its needs done, marks it `in_progress`
/// (one commit for a poured molecule). Returns the molecule as it now stands, or `None`
/// when another process took or settled the step first.
fn take(
    ws: &Workspace,
    actor: &str,
    mol_id: &str,
    step_id: &str,
    retry: &BTreeMap<String, Option<Timestamp>>,
) -> Result<Option<Molecule>> {
    let mut taken_elsewhere = false;
    let mut before = None;
    let changed = ops::update(ws, actor, mol_id, "mol start", |mol, now| {
        let step = mol.step(step_id)?;
        before = Some((step.status, step.started_at, step.reason.clone()));
        if !is_free(step, retry) || !mol.unmet_needs(step).is_empty() {
            taken_elsewhere = true;
            // Nothing is written: the change is rolled back.
            return Err(Error::conflict(format!(
                "step {step_id} was taken meanwhile"
            )));
        }
        ops::apply(mol, step_id, &StepChange::Start, now)?;
        Ok(step_id.to_string())
    });
    match changed {
        Ok(c) => {
            let before = before.expect("the step was read before it was taken");
            taken().push(Taken {
                ws: ws.clone(),
                actor: actor.to_string(),
                mol: mol_id.to_string(),
                step: step_id.to_string(),
                before,
            });
            static CLEANUP: Once = Once::new();
            CLEANUP.call_once(|| crate::proc::interrupt::on_signal(|| give_back(|_| true)));
            Ok(Some(c.mol))
        }
        Err(_) if taken_elsewhere => Ok(None),
        Err(e) => Err(e),
    }
}

/// A step this process took and has not recorded yet.
struct Taken {
    ws: Workspace,
    actor: String,
    mol: String,
    step: String,
    /// The step's status, start time and reason before it was taken.
    before: (StepStatus, Option<Timestamp>, Option<String>),
}

/// The steps this process took and has not recorded, to give back on Ctrl-C.
static TAKEN: Mutex<Vec<Taken>> = Mutex::new(Vec::new());

/// The list of taken steps, recovering from a poisoned lock.
fn taken() -> std::sync::MutexGuard<'static, Vec<Taken>> {
    TAKEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Forgets that step `step_id` of `mol_id` is taken: its result is recorded.
fn recorded(mol_id: &str, step_id: &str) {
    taken().retain(|t| !(t.mol == mol_id && t.step == step_id));
}

/// Puts each taken step `which` selects back as it was before it was taken (when it is
/// still `in_progress`), one commit each; best effort, as on Ctrl-C nothing can be said.
fn give_back(which: impl Fn(&Taken) -> bool) {
    let mine: Vec<Taken> = {
        let mut all = taken();
        let (mine, rest) = all.drain(..).partition(|t| which(t));
        *all = rest;
        mine
    };
    for t in mine {
        let (status, started_at, reason) = t.before.clone();
        // Best effort: a step left in progress shows in `mol show` and can be redone by hand.
        let _ = ops::update(&t.ws, &t.actor, &t.mol, "mol release", |mol, now| {
            let step = mol.step_mut(&t.step)?;
            if step.status == StepStatus::InProgress {
                step.status = status;
                step.started_at = started_at;
                step.reason = reason;
                mol.updated_at = now;
            }
            Ok(t.step.clone())
        });
    }
}

/// The JSON a handler reads on stdin for `step`.
pub fn step_input(mol: &Molecule, step: &Step) -> serde_json::Value {
    let outputs: BTreeMap<&str, Option<&str>> = step
        .needs
        .iter()
        .filter_map(|n| mol.steps.iter().find(|s| &s.id == n))
        .map(|s| (s.id.as_str(), s.output.as_deref()))
        .collect();
    serde_json::json!({
        "molecule": mol.id,
        "formula": mol.formula,
        "bead_id": mol.bead_id,
        "vars": mol.vars,
        "step": {
            "id": step.id,
            "title": step.title,
            "description": step.description,
            "needs": step.needs,
        },
        "outputs": outputs,
    })
}

/// The job running the handler for one step: `sh -c`, from the repository root, stdout
/// captured as the output and stderr sent to a file kept for a block reason.
fn handler_job(
    ws: &Workspace,
    opts: &RunOptions,
    mol_id: &str,
    step_id: &str,
    serial: usize,
    input: serde_json::Value,
) -> (Job, PathBuf) {
    let stderr_path = ws
        .cache_dir()
        .join("tmp")
        .join(format!("mol-run-{}-{serial}.stderr", std::process::id()));
    let script = format!("exec 2>\"$VERMAS_MOL_STDERR\"\n{}", opts.handler);
    let job = Job::shell(script, &ws.root, opts.timeout, opts.output_cap)
        .with_stdin(format!("{input}\n"))
        .with_env("VERMAS_MOL_ID", mol_id)
        .with_env("VERMAS_STEP_ID", step_id)
        .with_env("VERMAS_MOL_STDERR", stderr_path.to_string_lossy());
    (job, stderr_path)
}

/// Runs a handler job; returns how it ended and what it wrote on stderr.
fn execute((job, stderr_path): (Job, PathBuf)) -> (Finished, String) {
    if let Some(dir) = stderr_path.parent() {
        // A folder that cannot be made shows as the job failing to start.
        let _ = std::fs::create_dir_all(dir);
    }
    let done = proc::run(&job);
    let stderr = std::fs::read(&stderr_path)
        .map(|b| {
            let cut = &b[..b.len().min(job.output_cap)];
            String::from_utf8_lossy(cut).into_owned()
        })
        .unwrap_or_default();
    // Best effort: a temporary file left behind is harmless.
    let _ = std::fs::remove_file(&stderr_path);
    (done, stderr)
}

/// How a handler's run reads: completed with its stdout, or blocked with a reason.
fn outcome(h: &Handled) -> (bool, String) {
    let mut stdout = h.done.text().trim_end().to_string();
    if h.done.truncated() {
        stdout.push_str("\n... (output truncated)");
    }
    if h.done.exit_code == Some(0) && !h.done.timed_out {
        return (true, stdout);
    }
    let why = if let Some(e) = &h.done.spawn_error {
        e.clone()
    } else if h.done.timed_out {
        format!(
            "timed out after {:.0}s; its process group was killed",
            h.done.duration.as_secs_f64()
        )
    } else if let Some(code) = h.done.exit_code {
        format!("exit {code}")
    } else {
        format!("killed by signal {}", h.done.signal.unwrap_or(0))
    };
    let said: Vec<&str> = [stdout.trim(), h.stderr.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if said.is_empty() {
        (false, why)
    } else if h.done.exit_code.is_some() && !h.done.timed_out {
        (false, said.join("\n"))
    } else {
        (false, format!("{why}: {}", said.join("\n")))
    }
}

/// Records one handler result (one commit for a poured molecule); returns the molecule as
/// it now stands, other processes' changes included.
fn record(
    ws: &Workspace,
    actor: &str,
    mol_id: &str,
    h: &Handled,
    cap: usize,
) -> Result<(Molecule, StepRun)> {
    let (completed, text) = outcome(h);
    let text = if text.len() > cap + 64 {
        let mut end = cap;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n... (truncated)", &text[..end])
    } else {
        text
    };
    let change = if completed {
        StepChange::Done(Some(text.clone()))
    } else {
        StepChange::Block(text.clone())
    };
    let verb = if completed { "mol done" } else { "mol block" };
    let mut note = None;
    let step_id = h.step.clone();
    let started = h.started;
    let changed = ops::update(ws, actor, mol_id, verb, |mol, now| {
        let current = mol.step(&step_id)?.status;
        if current.is_done() {
            note = Some(format!(
                "not recorded: another process marked it {} meanwhile",
                current.name()
            ));
            return Ok(step_id.clone());
        }
        ops::apply(mol, &step_id, &change, now)?;
        mol.step_mut(&step_id)?.started_at = Some(started);
        Ok(step_id.clone())
    })?;
    let run = StepRun {
        step: h.step.clone(),
        status: if completed {
            StepStatus::Completed
        } else {
            StepStatus::Blocked
        },
        text,
        duration_ms: h.done.duration.as_millis() as u64,
        note,
    };
    Ok((changed.mol, run))
}

/// Every step not done, with why it cannot proceed.
fn waiting(mol: &Molecule) -> Vec<Waiting> {
    mol.steps
        .iter()
        .filter(|s| !s.status.is_done())
        .map(|s| {
            let unmet = mol.unmet_needs(s);
            let why = match s.status {
                StepStatus::Blocked => format!(
                    "blocked: {}",
                    s.reason.as_deref().unwrap_or("no reason given")
                ),
                StepStatus::InProgress => "in progress outside this run".to_string(),
                _ if !unmet.is_empty() => format!("waits for {}", unmet.join(", ")),
                _ => "not run".to_string(),
            };
            Waiting {
                step: s.id.clone(),
                status: s.status,
                why,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mol::ops;
    use crate::mol::proto::Proto;

    fn proto() -> Proto {
        crate::mol::proto::sample(&[("k", "v")], &[("a", &[]), ("b", &["a"]), ("c", &["b"])])
    }

    #[test]
    fn runs_a_wisp_until_a_step_blocks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".beads")).unwrap();
        let ws = Workspace::open(dir.path().join(".beads")).unwrap();
        let w = ops::wisp(&ws, "me", &proto(), Duration::from_secs(600), None).unwrap();
        let opts = RunOptions::new(
            &ws,
            r#"if [ "$VERMAS_STEP_ID" = b ]; then echo bad >&2; exit 2; fi; cat >/dev/null; echo "ran $VERMAS_STEP_ID""#,
            Some(2),
        );
        let mut seen = Vec::new();
        let report = run(&ws, "me", &w.mol.id, &opts, |e| {
            if let RunEvent::Recorded(r) = e {
                seen.push(r.step.clone());
            }
        })
        .unwrap();
        assert_eq!(seen, ["a", "b"]);
        assert!(!report.complete);
        assert_eq!(report.ran[0].text, "ran a");
        assert_eq!(report.ran[1].text, "bad");
        let why: Vec<&str> = report.waiting.iter().map(|w| w.why.as_str()).collect();
        assert_eq!(why, ["blocked: bad", "waits for b"]);
    }

    #[test]
    fn step_input_carries_the_outputs_of_needs() {
        let mut m = Molecule::from_proto(
            "mol-x".into(),
            &proto(),
            molecule::MolState::Liquid,
            Timestamp(0),
        );
        m.step_mut("a").unwrap().output = Some("A".into());
        let v = step_input(&m, m.step("b").unwrap());
        assert_eq!(v["outputs"]["a"], "A");
        assert_eq!(v["vars"]["k"], "v");
        assert_eq!(v["step"]["needs"][0], "a");
        assert_eq!(v["bead_id"], serde_json::Value::Null);
    }
}
