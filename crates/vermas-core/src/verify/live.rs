//! Verifying live specs: every annotation of the selected specs run (in parallel), and
//! each criterion's outcome derived from its annotations.

use crate::check::{self, CheckResult, Outcome, VerifySettings};
use crate::config::parse_duration;
use crate::judge::{self, JudgeSettings};
use crate::spec::{Annotation, AnnotationKind, Spec};
use serde::Serialize;
use std::path::Path;

/// Which kinds of checks a run includes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds {
    /// `[verify]` links (and `verify:NAME` ones with a runner).
    pub verify: bool,
    /// `[judge]` links.
    pub judge: bool,
}

impl Kinds {
    /// The report heading: `Verify`, `Judge` or `Verify + Judge`.
    pub fn heading(self) -> &'static str {
        match (self.verify, self.judge) {
            (true, true) => "Verify + Judge",
            (false, true) => "Judge",
            _ => "Verify",
        }
    }
}

/// One annotation's result.
#[derive(Debug, Clone, Serialize)]
pub struct AnnotationRun {
    /// `verify`, `judge` or `verify:NAME`.
    pub kind: AnnotationKind,
    /// `file#function`.
    pub target: String,
    /// One-based line of the link.
    pub line: usize,
    /// `file:line` of the function the link names (`tests/x.sh:7`), where vermas can read
    /// the file's functions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_location: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub result: CheckResult,
}

/// One criterion's result.
#[derive(Debug, Clone, Serialize)]
pub struct CriterionRun {
    /// The criterion text.
    pub text: String,
    /// One-based line in the spec.
    pub line: usize,
    /// Ticked in the spec.
    pub checked: bool,
    /// Derived from its annotations.
    pub outcome: Outcome,
    /// Why it was skipped or errored (or a judge's reasoning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Each annotation that was considered.
    pub checks: Vec<AnnotationRun>,
    /// With `--baseline`: true when it passed on the baseline revision too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed_before: Option<bool>,
}

/// Counts of outcomes.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    /// PASS.
    pub passed: usize,
    /// FAIL.
    pub failed: usize,
    /// SKIP.
    pub skipped: usize,
    /// ERROR.
    pub errors: usize,
    /// UNSTABLE.
    pub unstable: usize,
}

impl Counts {
    /// Adds one outcome.
    pub fn add(&mut self, o: Outcome) {
        match o {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail => self.failed += 1,
            Outcome::Skip => self.skipped += 1,
            Outcome::Error => self.errors += 1,
            Outcome::Unstable => self.unstable += 1,
        }
    }

    /// Sums two counts.
    pub fn plus(self, o: Counts) -> Counts {
        Counts {
            passed: self.passed + o.passed,
            failed: self.failed + o.failed,
            skipped: self.skipped + o.skipped,
            errors: self.errors + o.errors,
            unstable: self.unstable + o.unstable,
        }
    }

    /// The exit code: 1 if anything failed or was unstable, else 3 if anything errored, else 0.
    pub fn exit_code(self) -> i32 {
        if self.failed > 0 || self.unstable > 0 {
            1
        } else if self.errors > 0 {
            3
        } else {
            0
        }
    }

    /// True when no criterion passed or failed: nothing was verified.
    pub fn nothing_verified(self) -> bool {
        self.passed + self.failed + self.unstable == 0
    }

    /// `N passed, N failed, N skipped`, then `, N errors` / `, N unstable` when any.
    pub fn line(self) -> String {
        let mut s = format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        );
        if self.errors > 0 {
            s.push_str(&format!(
                ", {}",
                crate::text::words::plural(self.errors, "error")
            ));
        }
        if self.unstable > 0 {
            s.push_str(&format!(", {} unstable", self.unstable));
        }
        s
    }
}

/// One spec's results.
#[derive(Debug, Clone, Serialize)]
pub struct SpecRun {
    /// Repository-relative path.
    pub path: String,
    /// File name without `.md`.
    pub name: String,
    /// Title.
    pub title: String,
    /// Linked bead.
    pub bead: Option<String>,
    /// Criteria in file order.
    pub criteria: Vec<CriterionRun>,
    /// Outcome counts over the criteria.
    pub counts: Counts,
    /// Problems with the spec file itself (each also counted as an ERROR).
    pub problems: Vec<String>,
}

/// Everything needed to run checks.
pub struct RunSettings {
    /// Which kinds run.
    pub kinds: Kinds,
    /// Parallel jobs.
    pub jobs: usize,
    /// Verify settings.
    pub verify: VerifySettings,
    /// Judge settings.
    pub judge: JudgeSettings,
}

/// What to do with one annotation.
enum Plan {
    /// Run it.
    Run,
    /// Do not run it: outcome and reason.
    Settle(Outcome, String),
}

/// Runs the checks of `specs` from repository `root`; `progress` hears each check start
/// and end, with the check's target (`file#function`) as its label.
pub fn run(
    root: &Path,
    specs: &[Spec],
    s: &RunSettings,
    progress: impl Fn(check::Progress, &str) + Sync,
) -> Vec<SpecRun> {
    // Every annotation to run, across all specs, so they share the job pool.
    let mut tasks: Vec<(&Annotation, &str)> = Vec::new();
    for spec in specs {
        for c in &spec.criteria {
            for a in &c.annotations {
                if matches!(plan(a, s), Plan::Run) {
                    tasks.push((a, &c.text));
                }
            }
        }
    }
    let labels: Vec<String> = tasks.iter().map(|(a, _)| a.target()).collect();
    let results = check::run_parallel(
        &tasks,
        s.jobs,
        |(a, text)| run_one(root, a, text, s),
        |p| {
            let index = match p {
                check::Progress::Started { index, .. }
                | check::Progress::Finished { index, .. } => index,
            };
            progress(p, &labels[index]);
        },
    );
    let mut results = results.into_iter();
    specs
        .iter()
        .map(|spec| spec_run(root, spec, s, &mut results))
        .collect()
}

/// The run of one spec: each criterion's checks with their results (the next ones of
/// `results` for the annotations that ran, in order), its outcome and the counts.
fn spec_run(
    root: &Path,
    spec: &Spec,
    s: &RunSettings,
    results: &mut impl Iterator<Item = CheckResult>,
) -> SpecRun {
    let mut counts = Counts::default();
    let problems: Vec<String> = spec
        .problems
        .iter()
        .filter(|p| p.error)
        .map(|p| format!("{}:{}:{}: {}", spec.path, p.line, p.column, p.message))
        .collect();
    let criteria = spec
        .criteria
        .iter()
        .map(|c| {
            let checks: Vec<AnnotationRun> = c
                .annotations
                .iter()
                .map(|a| AnnotationRun {
                    kind: a.kind.clone(),
                    target: a.target(),
                    line: a.line,
                    check_location: check_location(root, a),
                    result: match plan(a, s) {
                        Plan::Run => results.next().expect("one result per task"),
                        Plan::Settle(o, why) => CheckResult::without_run(o, why),
                    },
                })
                .collect();
            let (outcome, reason) = combine(&checks, s.kinds);
            counts.add(outcome);
            CriterionRun {
                text: c.text.clone(),
                line: c.line,
                checked: c.checked,
                outcome,
                reason,
                checks,
                passed_before: None,
            }
        })
        .collect();
    counts.errors += problems.len();
    SpecRun {
        path: spec.path.clone(),
        name: spec.name.clone(),
        title: spec.title.clone(),
        bead: spec.bead.clone(),
        criteria,
        counts,
        problems,
    }
}

/// Where the function an annotation names is defined, for a valid target.
fn check_location(root: &Path, a: &Annotation) -> Option<String> {
    let function = a.function.as_deref().filter(|_| a.error.is_none())?;
    crate::check::functions::function_location(root, &a.file, function)
}

/// Whether an annotation runs in this mode, or its settled outcome.
fn plan(a: &Annotation, s: &RunSettings) -> Plan {
    let wanted = if a.is_verify() {
        s.kinds.verify
    } else {
        s.kinds.judge
    };
    if !wanted {
        let only = if a.is_verify() {
            "verify only"
        } else {
            "judge only"
        };
        return Plan::Settle(Outcome::Skip, only.to_string());
    }
    if let Some(e) = &a.error {
        return Plan::Settle(Outcome::Error, format!("invalid target: {e}"));
    }
    if let Some(key) = a.kind.runner_key()
        && !s.verify.runners.contains_key(&key)
    {
        return Plan::Settle(
            Outcome::Skip,
            format!(
                "no runner for {} (add verify.runners.\"{}\" to config)",
                a.kind, a.kind
            ),
        );
    }
    if let Some(t) = a.options.get("timeout")
        && let Err(e) = parse_duration(t)
    {
        return Plan::Settle(Outcome::Error, format!("invalid option timeout={t}: {e}"));
    }
    Plan::Run
}

/// Runs one annotation.
fn run_one(root: &Path, a: &Annotation, criterion: &str, s: &RunSettings) -> CheckResult {
    let timeout = a
        .options
        .get("timeout")
        .and_then(|t| parse_duration(t).ok());
    if a.is_verify() {
        let mut verify = s.verify.clone();
        if let Some(runner) = a.kind.runner_key().and_then(|k| s.verify.runners.get(&k)) {
            // A named kind runs with its own runner whatever the file's type.
            verify.runners = [("*".to_string(), runner.clone())].into();
        }
        check::run_verify(root, &a.file, a.function.as_deref(), timeout, &verify)
    } else {
        let mut judge = s.judge.clone();
        if let Some(t) = timeout {
            judge.timeout = t;
        }
        judge::run_judge(root, &a.file, a.function.as_deref(), criterion, &judge)
    }
}

/// A criterion's outcome over the links of the kinds this run includes: any FAIL fails it,
/// then UNSTABLE, then ERROR, then SKIP; it is PASS only when every such link passed.
/// With no link of those kinds it is skipped with the first reason.
fn combine(checks: &[AnnotationRun], kinds: Kinds) -> (Outcome, Option<String>) {
    if checks.is_empty() {
        return (Outcome::Skip, Some("no check defined".into()));
    }
    let considered: Vec<&AnnotationRun> = checks
        .iter()
        .filter(|c| {
            if c.kind.is_verify() {
                kinds.verify
            } else {
                kinds.judge
            }
        })
        .collect();
    if considered.is_empty() {
        return (Outcome::Skip, checks[0].result.reason.clone());
    }
    for o in [
        Outcome::Fail,
        Outcome::Unstable,
        Outcome::Error,
        Outcome::Skip,
    ] {
        if let Some(c) = considered.iter().find(|c| c.result.outcome == o) {
            return (o, c.result.reason.clone());
        }
    }
    (Outcome::Pass, considered[0].result.reason.clone())
}
