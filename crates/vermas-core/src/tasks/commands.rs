//! The commands of a `[VERIFY]` item: run in order, stop at the first that fails.
//!
//! By default smart-ralph's failure table decides: exit 0 is PASS; a program that is not
//! there (sh's 127 "not found") is SKIP and the item goes on with its next command; any
//! other end (another exit, a timeout, a signal, not executable, failed to start) is FAIL.
//! An item with a FAIL is FAIL, else one with a PASS is PASS, else (every command missing,
//! or none written) SKIP. With `--strict` a command that could not run or finish is ERROR
//! and stops the item, and the item passes only when every command ran and passed.

use super::parse::VerifyItem;
use super::{ItemResult, Settings};
use crate::check::{CheckResult, Outcome};
use crate::proc::{self, Job};
use std::time::Duration;

/// Runs an item's commands in order until one fails (or, strict, does not pass); the rest
/// are SKIP, not run.
pub fn run_item(item: &VerifyItem, s: &Settings, strict: bool) -> ItemResult {
    let mut commands: Vec<CheckResult> = Vec::new();
    let mut stopped: Option<(String, Outcome)> = None;
    for command in &item.commands {
        let r = match &stopped {
            Some((first, why)) => {
                let what = if *why == Outcome::Fail {
                    "failed first"
                } else {
                    "could not run"
                };
                let mut r =
                    CheckResult::without_run(Outcome::Skip, format!("not run: `{first}` {what}"));
                r.command = command.clone();
                r
            }
            None if strict => run_command(command, s),
            None => as_written(run_command(command, s)),
        };
        let stops = match r.outcome {
            Outcome::Pass => false,
            Outcome::Skip => strict,
            _ => true,
        };
        if stopped.is_none() && stops {
            stopped = Some((command.clone(), r.outcome));
        }
        commands.push(r);
    }
    let (outcome, reason) = if strict {
        strict_outcome(&commands)
    } else {
        item_outcome(&commands)
    };
    ItemResult {
        id: item.id.clone(),
        line: item.line,
        title: item.title.clone(),
        outcome,
        reason,
        verify_line: item.verify_line,
        commands,
        acs: Vec::new(),
        marked: false,
    }
}

/// What the command would be under smart-ralph's table: a program not found is SKIP, any
/// other ERROR (timed out, killed, not executable, failed to start) FAIL.
fn as_written(mut r: CheckResult) -> CheckResult {
    if r.outcome == Outcome::Error {
        r.outcome = if r.exit_code == Some(127)
            && r.reason
                .as_deref()
                .is_some_and(|w| w.starts_with(NOT_FOUND))
        {
            Outcome::Skip
        } else {
            Outcome::Fail
        };
    }
    r
}

/// The table's item: a FAIL fails it; else a PASS passes it; else (every command was
/// missing, or there were none) it is SKIP: nothing was verified, and nothing failed.
fn item_outcome(commands: &[CheckResult]) -> (Outcome, Option<String>) {
    if let Some(r) = commands.iter().find(|r| r.outcome == Outcome::Fail) {
        let why = match (r.exit_code, r.reason.as_deref()) {
            (_, Some(reason)) => reason.to_string(),
            (Some(code), None) => format!("exit {code}"),
            (None, None) => "failed".to_string(),
        };
        return (Outcome::Fail, Some(format!("`{}` {why}", r.command)));
    }
    if commands.iter().any(|r| r.outcome == Outcome::Pass) {
        return (Outcome::Pass, None);
    }
    if commands.is_empty() {
        return (Outcome::Skip, Some(NO_COMMANDS.to_string()));
    }
    let missing: Vec<&str> = commands.iter().map(|r| r.command.as_str()).collect();
    (
        Outcome::Skip,
        Some(format!("every command was missing: {}", missing.join(", "))),
    )
}

/// Why an item without commands verified nothing.
const NO_COMMANDS: &str = "no commands: nothing was verified; write them after a colon, joined by &&, or in backticks on its **Verify**: line";

/// How a command the shell could not find is reasoned.
const NOT_FOUND: &str = "command not found";

/// `--strict`: PASS only when there were commands and each ran and passed; a failing
/// command makes FAIL, one that could not run ERROR, and no commands at all ERROR too.
fn strict_outcome(commands: &[CheckResult]) -> (Outcome, Option<String>) {
    if commands.is_empty() {
        return (Outcome::Error, Some(NO_COMMANDS.to_string()));
    }
    match commands.iter().find(|r| r.outcome != Outcome::Pass) {
        None => (Outcome::Pass, None),
        Some(r) if r.outcome == Outcome::Fail => {
            let why = r.reason.as_deref().unwrap_or("failed");
            (Outcome::Fail, Some(format!("`{}` {why}", r.command)))
        }
        Some(r) => {
            let why = r.reason.as_deref().unwrap_or("could not run");
            (
                Outcome::Error,
                Some(format!("`{}` could not run: {why}", r.command)),
            )
        }
    }
}

/// Runs one command with `sh -c` in the root: exit 0 PASS, another exit FAIL; a program
/// not found (127) or not executable (126), a failure to start, a timeout or a signal
/// ERROR.
pub fn run_command(command: &str, s: &Settings) -> CheckResult {
    let f = proc::run(&Job::shell(command, &s.root, s.timeout, s.output_cap));
    let text = f.text();
    // What the shell said about a command it could not run, after `what`.
    let shell_says = |words: &[&str], what: &str| match text
        .lines()
        .find(|l| words.iter().any(|w| l.contains(w)))
    {
        Some(line) => format!("{what}: {}", line.trim()),
        None => what.to_string(),
    };
    let (outcome, reason) = if let Some(e) = &f.spawn_error {
        (Outcome::Error, Some(e.clone()))
    } else if f.timed_out {
        (
            Outcome::Error,
            Some(format!("timed out after {}", seconds(s.timeout))),
        )
    } else if f.exit_code == Some(0) {
        (Outcome::Pass, None)
    } else if f.exit_code == Some(127) && text.contains("not found") {
        let why = shell_says(&["not found"], NOT_FOUND);
        (Outcome::Error, Some(why))
    } else if f.exit_code == Some(126) {
        let why = shell_says(
            &["denied", "cannot execute", "Is a directory"],
            "cannot execute",
        );
        (Outcome::Error, Some(why))
    } else if let Some(code) = f.exit_code {
        (Outcome::Fail, Some(format!("exit {code}")))
    } else {
        let sig = f
            .signal
            .map_or("a signal".to_string(), |n| format!("signal {n}"));
        (Outcome::Error, Some(format!("killed by {sig}")))
    };
    CheckResult {
        outcome,
        reason,
        command: command.to_string(),
        exit_code: f.exit_code,
        duration_ms: f.duration.as_millis() as u64,
        truncated: f.truncated(),
        output: text,
    }
}

/// `1s`, `1.5s`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}
