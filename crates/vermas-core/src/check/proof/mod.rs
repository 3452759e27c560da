//! Proof that a check ran what its link names, and what decides its outcome: a shell
//! function's own status (recorded by vermas's bash code, see [`bash`]), the named test
//! executed (cargo), pytest's own report of the test (passed, skipped, expected to fail),
//! or a file-only target that ran something. Without that proof a check is ERROR, never
//! PASS: whatever interpreter a script names, a linked function that was not called, or
//! whose own status was not 0, never passes; where vermas cannot tell, it says why.

mod bash;
mod pytest;
mod scan;
mod shadow;
mod shebang;

pub use bash::{BashMode, Leaves, Secrets, call_program};
pub use scan::{refusal, scan_script};
pub use shebang::{Interpreter, of_file as interpreter};

use super::Outcome;
use crate::proc::{Finished, Job};
use std::path::{Path, PathBuf};

/// How a finished run shows that it exercised its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The exit code is all there is (a configured runner, a program run whole).
    ExitCode,
    /// Records of vermas's bash code, carrying `key`, in `marker`.
    Bash {
        /// Where the records are appended.
        marker: PathBuf,
        /// The one-time key a record must carry.
        key: String,
        /// How the target is run.
        mode: BashMode,
        /// The run's own probe file, removed with the records.
        probe: Option<PathBuf>,
    },
    /// `cargo test`: the output must list the named test (or, with none, any test).
    Cargo,
    /// pytest: its summary line says what happened to the test.
    Pytest,
}

/// What decides a finished run's outcome, per its proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decides {
    /// The exit code, as the command ended.
    ExitCode,
    /// The function's own status, recorded when it returned, or (`exited`) when it called
    /// `exit`.
    Status {
        /// The status.
        code: i32,
        /// True when it exited rather than returned.
        exited: bool,
    },
    /// This outcome, for this reason (pytest's skip, xfail).
    Outcome(Outcome, String),
    /// Nothing: the target was not shown to have run, for this reason (an ERROR).
    Unproven(String),
}

/// Arms `job` to record its proof for `function` run in `mode`; returns the proof to check
/// afterwards (one that cannot come, an ERROR, when no random secrets can be had).
pub fn arm_bash(job: &mut Job, function: Option<&str>, mode: BashMode) -> (Proof, Option<String>) {
    match Secrets::new() {
        Some(secrets) => (bash::arm(job, function, mode, &secrets), Some(secrets.name)),
        None => (
            Proof::Bash {
                marker: PathBuf::new(),
                key: String::new(),
                mode,
                probe: None,
            },
            None,
        ),
    }
}

/// What decides the outcome of `done`, a run of `file#function` armed with `proof`.
pub fn decide(proof: &Proof, done: &Finished, file: &str, function: Option<&str>) -> Decides {
    match proof {
        Proof::ExitCode => Decides::ExitCode,
        Proof::Bash {
            marker,
            key,
            mode,
            probe,
        } => bash::decide(
            bash::read(marker, probe.as_deref(), key),
            *mode,
            file,
            function,
        ),
        Proof::Cargo => {
            let text = done.text();
            if cargo_tests_run(&text, function) > 0 {
                return Decides::ExitCode;
            }
            Decides::Unproven(match function {
                Some(f) => {
                    format!("no test named {f} ran (cargo test found none by that exact name)")
                }
                None => "cargo test ran no test".to_string(),
            })
        }
        Proof::Pytest => pytest::decide(done),
    }
}

/// Tests `cargo test` reports as run: those named exactly `function` (as `name` or
/// `path::name`), or all of them when no function is named.
fn cargo_tests_run(output: &str, function: Option<&str>) -> usize {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.split_once(" ... "))
        .filter(|(name, status)| {
            !status.starts_with("ignored")
                && function.is_none_or(|f| *name == f || name.ends_with(&format!("::{f}")))
        })
        .count()
}

/// Checks that `function` is defined in the linked file where vermas can read its
/// definitions (shell, Python, Rust), so a run that cannot reach it is refused up front.
pub fn defined_in_file(path: &Path, file: &str, function: &str) -> Result<(), String> {
    let Ok(text) = std::fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned()) else {
        return Ok(());
    };
    match super::functions::defined_functions(file, &text) {
        Some(defined) if !super::functions::is_defined(function, &defined) => Err(format!(
            "{function} is not defined in {file}, so it cannot run"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_cargo_tests_by_exact_name() {
        let out = "running 2 tests\ntest a::test_x ... ok\ntest test_xy ... ok\ntest test_z ... ignored\n";
        assert_eq!(cargo_tests_run(out, Some("test_x")), 1);
        assert_eq!(cargo_tests_run(out, Some("test_y")), 0);
        assert_eq!(cargo_tests_run(out, Some("test_z")), 0);
        assert_eq!(cargo_tests_run(out, None), 2);
        assert_eq!(cargo_tests_run("running 0 tests\n", None), 0);
    }
}
