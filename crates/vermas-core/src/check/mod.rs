//! Verify checks: how a `[verify]` target is run, how its exit decides the outcome, and
//! running many in parallel with results kept in order.

pub mod functions;
mod proof;
mod runner;

pub use runner::{command_for, contained, describe};

use crate::config::Config;
use crate::proc;
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// The verdict of one check, spelled the same in every format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    /// It held.
    Pass,
    /// It did not hold.
    Fail,
    /// Not checked, with a reason.
    Skip,
    /// Could not be checked, with a reason; never a pass.
    Error,
    /// Repeated judgements disagreed.
    Unstable,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Skip => "SKIP",
            Outcome::Error => "ERROR",
            Outcome::Unstable => "UNSTABLE",
        })
    }
}

/// The evidence of one check run.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The verdict.
    pub outcome: Outcome,
    /// Why it was skipped or could not run (or the judge's reasoning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The command as run.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// Exit code, if it exited (a bash function's own status, when that decided).
    pub exit_code: Option<i32>,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Output (stdout and stderr merged), capped.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// True when the output was cut at the cap.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl CheckResult {
    /// A result that ran nothing.
    pub fn without_run(outcome: Outcome, reason: impl Into<String>) -> CheckResult {
        CheckResult {
            outcome,
            reason: Some(reason.into()),
            command: String::new(),
            exit_code: None,
            duration_ms: 0,
            output: String::new(),
            truncated: false,
        }
    }

    /// The part of the output worth showing for a failure: up to `max_lines` lines around
    /// the first line that looks like a failure, else the last lines; with how many lines
    /// of the output were left out.
    pub fn snippet(&self, max_lines: usize) -> (String, usize) {
        let lines: Vec<&str> = self.output.lines().collect();
        if lines.len() <= max_lines {
            return (lines.join("\n"), 0);
        }
        let start = lines
            .iter()
            .position(|l| looks_like_failure(l))
            .map_or(lines.len() - max_lines, |i| {
                i.saturating_sub(2).min(lines.len() - max_lines)
            });
        (
            lines[start..start + max_lines].join("\n"),
            lines.len() - max_lines,
        )
    }
}

/// A line that reads as the reason for a failure.
fn looks_like_failure(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    ["fail", "error", "panicked", "assert", "expected", "not ok"]
        .iter()
        .any(|w| l.contains(w))
}

/// How verify checks run, from config and command-line overrides.
#[derive(Debug, Clone)]
pub struct VerifySettings {
    /// Default timeout per check.
    pub timeout: Duration,
    /// Output bytes kept.
    pub output_cap: usize,
    /// Exit codes meaning SKIP.
    pub skip_codes: Vec<i32>,
    /// Interpreter per file pattern.
    pub runners: std::collections::BTreeMap<String, String>,
}

impl VerifySettings {
    /// Settings from config (its durations were validated when it was loaded).
    pub fn from_config(c: &Config) -> VerifySettings {
        VerifySettings {
            timeout: c.verify.timeout.get(),
            output_cap: usize::try_from(c.verify.output_cap).unwrap_or(usize::MAX),
            skip_codes: c.verify.skip_codes.clone(),
            runners: c.verify.runners.clone(),
        }
    }
}

/// Runs the verify target `file#function` from the repository `root`. `timeout` overrides
/// the default (from a link's `timeout=` option).
pub fn run_verify(
    root: &Path,
    file: &str,
    function: Option<&str>,
    timeout: Option<Duration>,
    settings: &VerifySettings,
) -> CheckResult {
    let (job, proof) = match runner::plan(root, file, function, settings) {
        Ok((mut job, proof)) => {
            job.timeout = timeout.unwrap_or(settings.timeout);
            job.output_cap = settings.output_cap;
            (job, proof)
        }
        Err(reason) => return CheckResult::without_run(Outcome::Error, reason),
    };
    let command = runner::describe(&job);
    let done = proc::run(&job);
    let mut result = CheckResult {
        outcome: Outcome::Error,
        reason: None,
        command,
        exit_code: done.exit_code,
        duration_ms: done.duration.as_millis() as u64,
        output: done.text(),
        truncated: done.truncated(),
    };
    (result.outcome, result.reason) = classify(&done, done.exit_code, function, settings);
    if result.outcome != Outcome::Error {
        match proof::decide(&proof, &done, file, function) {
            proof::Decides::ExitCode => {}
            proof::Decides::Status { code, exited } => {
                (result.outcome, result.reason) = classify(&done, Some(code), function, settings);
                result.exit_code = Some(code);
                if result.outcome == Outcome::Fail && done.exit_code != Some(code) {
                    let exit = done.exit_code.map_or("?".into(), |c| c.to_string());
                    result.reason = Some(format!(
                        "{} {} {code} (the script then exited {exit}: its own status decides)",
                        function.unwrap_or("the function"),
                        if exited { "exited with" } else { "returned" }
                    ));
                }
            }
            proof::Decides::Outcome(outcome, why) => {
                (result.outcome, result.reason) = (outcome, Some(why));
            }
            proof::Decides::Unproven(why) => {
                (result.outcome, result.reason) = (Outcome::Error, Some(why));
            }
        }
    }
    result
}

/// The outcome of a finished verify run, `code` deciding when it ended (its exit code, or
/// the function's own status).
fn classify(
    done: &proc::Finished,
    code: Option<i32>,
    function: Option<&str>,
    settings: &VerifySettings,
) -> (Outcome, Option<String>) {
    if let Some(e) = &done.spawn_error {
        return (Outcome::Error, Some(e.clone()));
    }
    if done.timed_out {
        return (
            Outcome::Error,
            Some(format!(
                "timed out after {:.1}s; its process group was killed",
                done.duration.as_secs_f64()
            )),
        );
    }
    match code {
        Some(0) => (Outcome::Pass, None),
        Some(code) if runner::missing_function(done, code) => (
            Outcome::Error,
            Some(format!(
                "function {} is not defined in the target file",
                function.unwrap_or("?")
            )),
        ),
        Some(code) if settings.skip_codes.contains(&code) => (
            Outcome::Skip,
            Some(format!("the test asked to be skipped (exit {code})")),
        ),
        Some(code) => (Outcome::Fail, Some(format!("exit {code}"))),
        None => (
            Outcome::Error,
            Some(match done.signal {
                Some(sig) => format!("killed by signal {sig}"),
                None => "its end could not be seen (the process that ran it was killed): its outcome cannot be told".to_string(),
            }),
        ),
    }
}

/// A moment in a parallel run, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Task `index` of `total` started.
    Started {
        /// Its position in the task list.
        index: usize,
        /// Tasks in all.
        total: usize,
    },
    /// Task `index` ended; `done` of `total` have ended now.
    Finished {
        /// Its position in the task list.
        index: usize,
        /// Tasks ended so far.
        done: usize,
        /// Tasks in all.
        total: usize,
    },
}

/// Runs `tasks` on up to `jobs` threads, calling `progress` as each starts and ends;
/// results come back in task order.
pub fn run_parallel<T: Sync, R: Send>(
    tasks: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
    progress: impl Fn(Progress) + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let finished = AtomicUsize::new(0);
    crate::sys::par::pool(tasks.len(), jobs, |i| {
        let total = tasks.len();
        progress(Progress::Started { index: i, total });
        let r = work(&tasks[i]);
        let done = finished.fetch_add(1, Ordering::SeqCst) + 1;
        progress(Progress::Finished {
            index: i,
            done,
            total,
        });
        r
    })
}
