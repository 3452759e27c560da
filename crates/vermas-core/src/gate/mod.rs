//! Deterministic gates: a shell command, its exit code and a classification; never an LLM.
//!
//! `gate PHASE ID` finds the command (given, else the acceptance criterion's, else
//! config's), substitutes its `{variables}` (each value shell-quoted for where it stands),
//! runs it under `sh -c` in the repository in its own process group with a timeout and an
//! output cap, classifies the result from exit code and output patterns, and appends the
//! evidence to `.beads/results/<ID>.yaml` and a note on the bead, in one commit. A judge
//! criterion is never gated.

pub mod classify;
pub mod shell;
pub mod vars;

pub use classify::{Classification, Patterns, Phase};

use crate::bead::model::{AcceptanceCriterion, Bead, IssueType};
use crate::bead::store::{BeadSet, bead_path, load_one};
use crate::check::Outcome;
use crate::check::{VerifySettings, command_for};
use crate::error::{Error, Result};
use crate::proc::{self, Job};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::verify::results::{self, Evidence, ResultRecord, Verdict};
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// Bytes of output kept as a gate's snippet.
const SNIPPET_BYTES: usize = 1024;

/// What to gate.
#[derive(Debug, Clone)]
pub struct GateRequest {
    /// The phase.
    pub phase: Phase,
    /// The bead (or its test spec), by id or prefix.
    pub id: String,
    /// 1-based acceptance criterion of the test spec.
    pub ac: Option<usize>,
    /// A command that overrides the criterion's and config's.
    pub cmd: Option<String>,
}

/// The evidence of one gate run.
#[derive(Debug, Clone, Serialize)]
pub struct GateRun {
    /// The phase.
    pub phase: Phase,
    /// The bead gated.
    pub bead: String,
    /// The acceptance criterion id, when one was gated.
    pub criterion: Option<String>,
    /// The command after substitution.
    pub command: String,
    /// Exit code of the deciding run (`None`: killed or could not start).
    pub exit_code: Option<i32>,
    /// The decision.
    pub classification: Classification,
    /// Why, in a few words (timeouts, flaky runs, spawn failures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Up to 1 KiB of output, from the first failure line when there is one.
    pub snippet: String,
    /// Wall time of all runs.
    pub duration_ms: u64,
    /// When it ran.
    pub at: Timestamp,
    /// The how-manyth gate of this phase and criterion on this bead.
    pub attempt: u32,
    /// How many times the command ran (GREEN repeats it).
    pub runs: u32,
}

impl GateRun {
    /// True when the gate accepted.
    pub fn accepted(&self) -> bool {
        self.classification == Classification::Accept
    }
}

/// Runs a gate and records its evidence.
pub fn run_gate(ws: &Workspace, actor: &str, req: &GateRequest) -> Result<(GateRun, Recorded)> {
    let bead = load_one(ws, &req.id)?;
    let spec = test_spec_of(ws, &bead)?;
    let (ac, criterion) = pick_criterion(spec.as_ref(), req.ac, req.cmd.is_some())?;
    let settings = VerifySettings::from_config(&ws.config);
    let (template, test_file) = command_template(ws, req, criterion, &settings)?;
    let values = variables(ws, &bead, ac, criterion, test_file.as_deref());
    let command = vars::substitute(&template, &values)?;
    let patterns = Patterns {
        failure: ws.config.gates.failure_patterns.clone(),
        syntax: ws.config.gates.syntax_patterns.clone(),
    };
    let job = Job::shell(
        command.clone(),
        &ws.root,
        ws.config.gates.timeout.get(),
        settings.output_cap,
    )
    .with_env("VERMAS_GATE", req.phase.name());
    let runs = if req.phase == Phase::Green {
        ws.config.gates.green_runs.max(1)
    } else {
        1
    };
    let mut run = execute(&job, req.phase, runs, &patterns);
    run.bead = bead.id.clone();
    run.criterion = criterion.map(|c| c.id.clone());
    let recorded = record(ws, actor, &bead, &mut run)?;
    Ok((run, recorded))
}

/// The test spec that gates `bead`: itself when it is one, else the test spec whose parent
/// it is (none is fine: a command can still come from `--cmd` or config).
fn test_spec_of(ws: &Workspace, bead: &Bead) -> Result<Option<Bead>> {
    if bead.issue_type == IssueType::TestSpec {
        return Ok(Some(bead.clone()));
    }
    let mut set = BeadSet::load(ws)?;
    let spec_id = set
        .beads
        .values()
        .find(|b| b.issue_type == IssueType::TestSpec && b.parent.as_deref() == Some(&bead.id))
        .map(|b| b.id.clone());
    match spec_id {
        Some(id) => {
            set.complete(ws, [id.as_str()])?;
            Ok(set.beads.remove(&id))
        }
        None => Ok(None),
    }
}

/// The criterion gated, with its 1-based number: the `--ac N` one, else (without `--cmd`)
/// the test spec's only criterion that has a command. A judge criterion (an LLM rubric,
/// no command) is refused: a gate result would be evidence for what it cannot decide.
fn pick_criterion(
    spec: Option<&Bead>,
    ac: Option<usize>,
    has_cmd: bool,
) -> Result<(Option<usize>, Option<&AcceptanceCriterion>)> {
    let Some(n) = ac else {
        let runnable: Vec<(usize, &AcceptanceCriterion)> = spec
            .map(|s| {
                s.acceptance_criteria
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.verify_command.is_some() || c.verify.is_some())
                    .map(|(i, c)| (i + 1, c))
                    .collect()
            })
            .unwrap_or_default();
        return Ok(match runnable.as_slice() {
            [(i, only)] if !has_cmd => (Some(*i), Some(*only)),
            _ => (None, None),
        });
    };
    let spec = spec.ok_or_else(|| {
        Error::invalid_with_help(
            format!("--ac {n} needs a test spec, and this bead has none"),
            "give the command with --cmd, or set gates.<phase> in config",
        )
    })?;
    let count = spec.acceptance_criteria.len();
    let c = n
        .checked_sub(1)
        .and_then(|i| spec.acceptance_criteria.get(i))
        .ok_or_else(|| {
            Error::Invalid(format!(
                "--ac {n}: {} has {}",
                spec.id,
                crate::text::words::counted(count, "acceptance criterion", "acceptance criteria")
            ))
        })?;
    if let Some(judge) = &c.judge
        && c.verify_command.is_none()
        && c.verify.is_none()
    {
        return Err(Error::usage(format!(
            "--ac {n}: {} of {} (\"{}\") is a judge criterion ({judge}); a gate runs only \
             deterministic commands and cannot decide it",
            c.id, spec.id, c.description
        ))
        .with_help(
            "judge criteria are decided by `vermas status --judge` (the inspector), not by gates; \
             nothing was run or recorded",
        ));
    }
    Ok((Some(n), Some(c)))
}

/// The command before substitution, and the test file it is about (if a verify target).
fn command_template(
    ws: &Workspace,
    req: &GateRequest,
    criterion: Option<&AcceptanceCriterion>,
    settings: &VerifySettings,
) -> Result<(String, Option<String>)> {
    if let Some(cmd) = &req.cmd {
        return Ok((cmd.clone(), criterion.and_then(target_file)));
    }
    let from_criterion = |c: &AcceptanceCriterion| -> Result<Option<(String, Option<String>)>> {
        if let Some(cmd) = &c.verify_command {
            return Ok(Some((cmd.clone(), None)));
        }
        if let Some(target) = &c.verify {
            let t = crate::spec::target::resolve(target, "").map_err(Error::Invalid)?;
            let job = command_for(&ws.root, &t.file, t.function.as_deref(), settings)
                .map_err(Error::Invalid)?;
            return Ok(Some((crate::check::describe(&job), Some(t.file))));
        }
        Ok(None)
    };
    if let Some(c) = criterion
        && let Some(found) = from_criterion(c)?
    {
        return Ok(found);
    }
    let configured = match req.phase {
        Phase::Red => &ws.config.gates.red,
        Phase::Green => &ws.config.gates.green,
        Phase::Refactor => &ws.config.gates.refactor,
        Phase::Implement => &ws.config.gates.implement,
    };
    if let Some(cmd) = configured {
        return Ok((cmd.clone(), criterion.and_then(target_file)));
    }
    Err(Error::invalid_with_help(
        format!("no command for the {} gate of {}", req.phase.name(), req.id),
        format!(
            "give one with --cmd, pick an acceptance criterion with --ac N, or `vermas config set gates.{} \"...\"`",
            req.phase.name()
        ),
    ))
}

/// The file of a criterion's verify target.
fn target_file(c: &AcceptanceCriterion) -> Option<String> {
    c.verify
        .as_deref()
        .and_then(|t| crate::spec::target::resolve(t, "").ok())
        .map(|t| t.file)
}

/// The values of the `{variables}`.
fn variables(
    ws: &Workspace,
    bead: &Bead,
    ac: Option<usize>,
    criterion: Option<&AcceptanceCriterion>,
    test_file: Option<&str>,
) -> BTreeMap<&'static str, String> {
    let root = ws.root.to_string_lossy();
    let root = match root.trim_end_matches('/') {
        "" => "/".to_string(),
        trimmed => trimmed.to_string(),
    };
    let test_file = test_file
        .map(str::to_string)
        .or_else(|| criterion.and_then(target_file));
    let test_dir = test_file
        .as_deref()
        .and_then(|f| f.rsplit_once('/').map(|(d, _)| d.to_string()))
        .unwrap_or_else(|| ".".to_string());
    let surface: Vec<&str> = bead
        .labels
        .iter()
        .filter_map(|l| l.strip_prefix("surface:"))
        .collect();
    BTreeMap::from([
        ("mission_id", bead.id.clone()),
        ("worktree_dir", root.clone()),
        ("test_file", test_file.unwrap_or_default()),
        ("test_dir", test_dir),
        // The criterion as smart-ralph names it (`AC-2`); `ac_number` is the bare number.
        (
            "ac_index",
            ac.map(|n| format!("AC-{n}")).unwrap_or_default(),
        ),
        ("ac_number", ac.map(|n| n.to_string()).unwrap_or_default()),
        (
            "ac_title",
            criterion
                .map(|c| vars::slug(&c.description))
                .unwrap_or_default(),
        ),
        ("surface_area", surface.join(",")),
        // The original project's root: the main worktree's, where the work is done in a
        // linked one (`worktree_dir`).
        (
            "project_root",
            crate::git::linked_checkout(&ws.root)
                .ok()
                .flatten()
                .map_or(root, |l| l.main.to_string_lossy().into_owned()),
        ),
    ])
}

/// Runs the command `runs` times (GREEN) and decides; disagreeing runs are flaky.
fn execute(job: &Job, phase: Phase, runs: u32, patterns: &Patterns) -> GateRun {
    let mut outcomes = Vec::new();
    let mut total = Duration::ZERO;
    let mut deciding: Option<(Option<i32>, String, Option<String>, Classification)> = None;
    for _ in 0..runs {
        let done = proc::run(job);
        total += done.duration;
        let text = done.text();
        let class = classify::classify(phase, done.exit_code, &text, patterns);
        let reason = if let Some(e) = &done.spawn_error {
            Some(e.clone())
        } else if done.timed_out {
            Some(format!(
                "timed out after {:.1}s; its process group was killed",
                done.duration.as_secs_f64()
            ))
        } else if done.exit_code == Some(127) {
            Some("command not found".to_string())
        } else {
            done.signal.map(|s| format!("killed by signal {s}"))
        };
        outcomes.push(class);
        // The evidence shown is the first run, or the first run that did not accept.
        let replace = match &deciding {
            None => true,
            Some((.., c)) => *c == Classification::Accept && class != Classification::Accept,
        };
        if replace {
            deciding = Some((done.exit_code, snippet(&text, patterns), reason, class));
        }
        // Repeating cannot change a syntax error, and a hang would only hang again.
        if class == Classification::RejectSyntax || done.timed_out {
            break;
        }
    }
    let (exit_code, snippet, mut reason, first) =
        deciding.unwrap_or((None, String::new(), None, Classification::RejectFailure));
    let classification = if outcomes.iter().all(|c| *c == first) {
        first
    } else {
        let accepted = outcomes
            .iter()
            .filter(|c| **c == Classification::Accept)
            .count();
        reason = Some(format!("{accepted} of {} runs passed", outcomes.len()));
        Classification::RejectFlaky
    };
    GateRun {
        phase,
        bead: String::new(),
        criterion: None,
        command: job.args.get(1).cloned().unwrap_or_default(),
        exit_code,
        classification,
        reason,
        snippet,
        duration_ms: total.as_millis() as u64,
        at: Timestamp::now(),
        attempt: 1,
        runs: outcomes.len() as u32,
    }
}

/// Up to 1 KiB of `output`, starting at the first failure line when there is one.
fn snippet(output: &str, patterns: &Patterns) -> String {
    let start = patterns
        .first_failure_line(output)
        .and_then(|line| output.find(line))
        .unwrap_or(0);
    let rest = &output[start..];
    let mut end = rest.len().min(SNIPPET_BYTES);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    rest[..end].to_string()
}

/// Appends the evidence to the bead's result record and a note to the bead; one commit.
fn record(ws: &Workspace, actor: &str, bead: &Bead, run: &mut GateRun) -> Result<Recorded> {
    let mut txn = Txn::begin(ws)?;
    let kind = format!("gate:{}", run.phase.name());
    let criterion = run.criterion.clone().unwrap_or_else(|| "-".to_string());
    let mut record = results::load(ws, &bead.id)?.unwrap_or_else(|| ResultRecord {
        key: bead.id.clone(),
        verdict: Verdict::Fail,
        confidence: None,
        at: run.at,
        checks: Vec::new(),
        briefs: BTreeMap::new(),
        reasons: Vec::new(),
        head: None,
        tree: None,
        approval: None,
        prompt_hashes: BTreeMap::new(),
    });
    let previous = record
        .checks
        .iter()
        .filter(|e| e.kind == kind && e.criterion == criterion)
        .count();
    run.attempt = previous as u32 + 1;
    record.checks.push(Evidence {
        criterion,
        kind,
        command: run.command.clone(),
        exit_code: run.exit_code,
        outcome: if run.accepted() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        classification: Some(run.classification.to_string()),
        duration_ms: run.duration_ms,
        attempt: run.attempt,
        at: Some(run.at),
        snippet: run.snippet.clone(),
    });
    record.verdict = if run.accepted() {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    record.at = run.at;
    txn.write(
        &results::path(ws, &bead.id),
        results::render(&record)?.as_bytes(),
    )?;
    // Re-read under the lock so a concurrent change to the bead is kept.
    let mut fresh = load_one(ws, &bead.id)?;
    let what = run
        .criterion
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    let exit = run
        .exit_code
        .map_or("no exit".to_string(), |c| format!("exit {c}"));
    let note = format!(
        "Gate {}{what}: {} ({exit}, {:.1}s, attempt {})",
        run.phase.name(),
        run.classification,
        run.duration_ms as f64 / 1000.0,
        run.attempt
    );
    crate::bead::ops::add_note(&mut fresh, actor, note, run.at);
    fresh.updated_at = Some(run.at);
    txn.write(&bead_path(ws, &fresh.id), fresh.render().as_bytes())?;
    txn.commit(&CommitMessage {
        verb: format!("gate {}", run.phase.name()),
        ids: vec![fresh.id.clone()],
        title: format!("{} {}", run.classification, fresh.title),
        actor: actor.to_string(),
    })
}
