//! Proof that a check ran what its link names: an exit code of 0 counts only when the named
//! function was entered (bash), the named test was executed (cargo, pytest), or a file-only
//! target ran something. Without that proof a check is ERROR, never PASS.

use super::process::{Finished, Job};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How a finished run shows that it exercised its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The exit code is all there is (a configured runner, a compiled program).
    ExitCode,
    /// Bash loads vermas's probe, which marks entering the function (or, with no function,
    /// running any command outside function definitions) in `marker`.
    Bash {
        /// Where the probe writes `L` (loaded), `E` (entered) or `R` (ran).
        marker: PathBuf,
        /// True when vermas sources the file and calls the function itself.
        sourced: bool,
    },
    /// `cargo test`: the output must list the named test (or, with none, any test).
    Cargo,
    /// pytest: exit 5 (nothing collected) and 4 (no such node) are not failures but errors.
    Pytest,
}

/// Bash run through `BASH_ENV` before the script: it restores the user's own `BASH_ENV`,
/// notes that it loaded, and traps until the wanted function is entered.
const PROBE: &str = r#"unset BASH_ENV
if [ -n "${VERMAS_PROBE_BASH_ENV-}" ]; then BASH_ENV=$VERMAS_PROBE_BASH_ENV; export BASH_ENV; . "$BASH_ENV"; fi
printf L >> "$VERMAS_PROBE_FILE"
set -o functrace
trap 'if [[ -z "$VERMAS_PROBE_FN" ]]; then printf R >> "$VERMAS_PROBE_FILE"; trap - DEBUG; elif [[ "${FUNCNAME[0]-}" == "$VERMAS_PROBE_FN" ]]; then printf E >> "$VERMAS_PROBE_FILE"; trap - DEBUG; fi' DEBUG
"#;

/// Numbers the markers of this process.
static NEXT_MARKER: AtomicU64 = AtomicU64::new(1);

/// True when the file is a bash script by its first line (`#!/bin/bash`, `#!/usr/bin/env bash`).
pub fn is_bash_script(path: &Path) -> bool {
    let Ok(text) = read_head(path) else {
        return false;
    };
    text.lines()
        .next()
        .is_some_and(|l| l.starts_with("#!") && l.split(['/', ' ']).any(|w| w == "bash"))
}

/// The first 64 KiB of a file, as text.
fn read_head(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(64 * 1024)
        .read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Arms `job` with the bash probe for `function`; returns the proof to check afterwards.
/// Without a private folder for the probe the run proceeds on its exit code alone.
pub fn arm_bash(job: &mut Job, function: Option<&str>, sourced: bool) -> Proof {
    let Some(dir) = private_dir() else {
        return Proof::ExitCode;
    };
    let probe = dir.join("probe.bash");
    if std::fs::read_to_string(&probe).ok().as_deref() != Some(PROBE) {
        let tmp = dir.join(format!("probe.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, PROBE).is_err() || std::fs::rename(&tmp, &probe).is_err() {
            return Proof::ExitCode;
        }
    }
    let marker = dir.join(format!(
        "mark-{}-{}",
        std::process::id(),
        NEXT_MARKER.fetch_add(1, Ordering::Relaxed)
    ));
    // Best effort: a marker left by an earlier run (or none) is removed.
    let _ = std::fs::remove_file(&marker);
    if let Some(own) = std::env::var_os("BASH_ENV").filter(|v| !v.is_empty()) {
        job.env.push((
            "VERMAS_PROBE_BASH_ENV".into(),
            own.to_string_lossy().into_owned(),
        ));
    }
    job.env.extend([
        ("BASH_ENV".into(), probe.to_string_lossy().into_owned()),
        (
            "VERMAS_PROBE_FILE".into(),
            marker.to_string_lossy().into_owned(),
        ),
        ("VERMAS_PROBE_FN".into(), function.unwrap_or("").to_string()),
    ]);
    Proof::Bash { marker, sourced }
}

/// A folder only this user can write, for the probe and its markers.
fn private_dir() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let dir = std::env::temp_dir().join(format!("vermas-{uid}"));
    // It may exist already: what it is, is checked below.
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0).then_some(dir)
}

/// When a run that exited 0 lacks its proof, why it is an ERROR; `None` when the proof holds
/// (or the run is judged on its exit code alone).
pub fn missing(
    proof: &Proof,
    done: &Finished,
    file: &str,
    function: Option<&str>,
) -> Option<String> {
    match proof {
        Proof::ExitCode => None,
        Proof::Bash { marker, sourced } => {
            let marks = std::fs::read_to_string(marker).unwrap_or_default();
            // Best effort: a temporary file left behind is harmless.
            let _ = std::fs::remove_file(marker);
            if !marks.contains('L') {
                return None;
            }
            match function {
                Some(f) if !marks.contains('E') => Some(if *sourced {
                    format!(
                        "{f} never ran: {file} ended while it was being sourced (a top-level exit?) before {f} could be called"
                    )
                } else {
                    format!(
                        "{f} never ran: {file} exited without calling it; add \"$@\" at the end of {file} so it runs the function named on its command line"
                    )
                }),
                None if !marks.contains('R') => Some(format!(
                    "{file} ran no command outside its function definitions; name the test to run, as {file}#FUNCTION"
                )),
                _ => None,
            }
        }
        Proof::Cargo => {
            let text = done.text();
            let ran = cargo_tests_run(&text, function);
            (ran == 0).then(|| match function {
                Some(f) => {
                    format!("no test named {f} ran (cargo test found none by that exact name)")
                }
                None => "cargo test ran no test".to_string(),
            })
        }
        Proof::Pytest => None,
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

/// Why a pytest exit code means the test could not be run, if it does.
pub fn pytest_error(code: i32) -> Option<&'static str> {
    match code {
        2 => Some("pytest was interrupted"),
        3 => Some("pytest hit an internal error"),
        4 => Some("pytest could not find the test (usage error: no such file or node id)"),
        5 => Some("pytest collected no test"),
        _ => None,
    }
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
