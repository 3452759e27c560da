//! Proof that a check ran what its link names, and what decides its outcome: a bash
//! function's own status (recorded by vermas's wrapper when the function returned, so an
//! `EXIT` trap cannot rewrite it), the named test executed (cargo), pytest's own report of
//! the test (passed, skipped, expected to fail), or a file-only target that ran something.
//! Without that proof a check is ERROR, never PASS.
//!
//! Bash records are lines `KEY KIND [STATUS]` appended to a private file; `KEY` is a
//! one-time random key that vermas's wrapper takes out of its environment before the
//! script runs, so a line the script writes itself (without the key) counts for nothing.

use super::Outcome;
use super::process::{Finished, Job};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How a finished run shows that it exercised its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The exit code is all there is (a configured runner, a compiled program).
    ExitCode,
    /// Bash records, signed with `key`, in `marker`.
    Bash {
        /// Where the records are appended.
        marker: PathBuf,
        /// The one-time key a record must carry.
        key: String,
        /// How the target is run.
        mode: BashMode,
    },
    /// `cargo test`: the output must list the named test (or, with none, any test).
    Cargo,
    /// pytest: its summary line says what happened to the test.
    Pytest,
}

/// How a bash target runs, and so what proves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BashMode {
    /// vermas sources the file and calls the function itself, in a subshell; the wrapper
    /// records the function's status (`S`).
    Sourced,
    /// The executable script is run with the function's name and calls it; the probe
    /// records entering it in the script's own process (`E`), an `EXIT` trap set by then
    /// (`T`), and, when a command follows its return, the status it returned (`S`).
    Dispatched,
    /// The file is run whole; the probe records that it ran a command outside function
    /// definitions (`R`).
    Whole,
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

/// Bash run through `BASH_ENV` before the script: it takes its settings out of the
/// environment, restores the user's own `BASH_ENV`, notes that it loaded, and traps until
/// the wanted function is entered in the script's own process (or, with no function, until
/// a command outside function definitions runs), noting an `EXIT` trap set by then; once
/// the function returns, the next command's trap records its status.
const PROBE: &str = r#"unset BASH_ENV
__vermas_key=${VERMAS_PROBE_KEY-} __vermas_proof=${VERMAS_PROBE_FILE-} __vermas_fn=${VERMAS_PROBE_FN-}
unset VERMAS_PROBE_KEY VERMAS_PROBE_FILE VERMAS_PROBE_FN
if [ -n "${VERMAS_PROBE_BASH_ENV-}" ]; then BASH_ENV=$VERMAS_PROBE_BASH_ENV; export BASH_ENV; unset VERMAS_PROBE_BASH_ENV; . "$BASH_ENV"; fi
printf '%s L\n' "$__vermas_key" >> "$__vermas_proof"
set -o functrace
__vermas_after='__vermas_s=$?; trap - DEBUG; printf "%s S %d\n" "$__vermas_key" "$__vermas_s" >> "$__vermas_proof"'
__vermas_return='if [[ "${FUNCNAME[0]-}" == "$__vermas_fn" ]]; then trap - RETURN; trap "$__vermas_after" DEBUG; fi'
trap 'if [[ -z "$__vermas_fn" ]]; then printf "%s R\n" "$__vermas_key" >> "$__vermas_proof"; trap - DEBUG; elif [[ "${FUNCNAME[0]-}" == "$__vermas_fn" && "$BASHPID" == "$$" ]]; then printf "%s E\n" "$__vermas_key" >> "$__vermas_proof"; if [[ -n "$(trap -p EXIT)" ]]; then printf "%s T\n" "$__vermas_key" >> "$__vermas_proof"; fi; trap - DEBUG; trap "$__vermas_return" RETURN; fi' DEBUG
"#;

/// Bash that sources the file, then calls the function in the same process (no subshell,
/// no fork) and records the status it returned (`S`), or, through vermas's `EXIT` trap, the
/// status it exited with (`X`); fails clearly when the function is missing. Arguments:
/// file, function.
///
/// While the file is sourced and the function runs, `trap` is a function that sets any
/// action for `EXIT` behind vermas's recorder (`__vermas_exited; ACTION`), so the script's
/// own clean-up still runs, after the status was recorded (with `errexit` off, so the
/// status handed on to it as `$?` does not end the shell first): what it does to the exit
/// code cannot change the outcome. An `EXIT` trap set past it (`builtin trap`) leaves no record
/// of an exit: an ERROR, never a pass.
pub const BASH_CALL: &str = r#"__vermas_key=${VERMAS_PROBE_KEY-} __vermas_proof=${VERMAS_PROBE_FILE-} __vermas_in=
unset VERMAS_PROBE_KEY VERMAS_PROBE_FILE
__vermas_exited() { local s=$?; if [[ -n $__vermas_in ]]; then __vermas_in=; printf '%s X %d\n' "$__vermas_key" "$s" >> "$__vermas_proof"; fi; set +e; return "$s"; }
trap() {
  local __vermas_a __vermas_e= __vermas_cmd=- __vermas_rest=()
  for __vermas_a; do case ${__vermas_a^^} in EXIT|0) __vermas_e=1;; esac; done
  if [[ -z $__vermas_e || ${1-} == -* && ${1-} != - && ${1-} != -- ]]; then builtin trap "$@"; return; fi
  if [[ $1 == -- ]]; then shift; fi
  if (( $# > 1 )); then __vermas_cmd=$1; shift; fi
  for __vermas_a; do case ${__vermas_a^^} in EXIT|0) ;; *) __vermas_rest+=("$__vermas_a");; esac; done
  if (( ${#__vermas_rest[@]} )); then builtin trap -- "$__vermas_cmd" "${__vermas_rest[@]}" || return; fi
  if [[ $__vermas_cmd == - ]]; then builtin trap __vermas_exited EXIT; else builtin trap -- "__vermas_exited; $__vermas_cmd" EXIT; fi
}
builtin trap __vermas_exited EXIT
source "$1" || exit $?
if ! declare -F "$2" >/dev/null; then echo "vermas: function not defined: $2" >&2; exit 127; fi
__vermas_in=1
"$2"; __vermas_s=$?
__vermas_in=
printf '%s S %d\n' "$__vermas_key" "$__vermas_s" >> "$__vermas_proof"
exit "$__vermas_s""#;

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

/// Arms `job` to record its proof for `function` run in `mode`; returns the proof to check
/// afterwards. Without a private folder or a random key the run proceeds on its exit code
/// alone.
pub fn arm_bash(job: &mut Job, function: Option<&str>, mode: BashMode) -> Proof {
    let (Some(dir), Some(key)) = (private_dir(), random_key()) else {
        return Proof::ExitCode;
    };
    let marker = dir.join(format!(
        "mark-{}-{}",
        std::process::id(),
        NEXT_MARKER.fetch_add(1, Ordering::Relaxed)
    ));
    // Best effort: a marker left by an earlier run (or none) is removed.
    let _ = std::fs::remove_file(&marker);
    if mode != BashMode::Sourced {
        let probe = dir.join("probe.bash");
        if std::fs::read_to_string(&probe).ok().as_deref() != Some(PROBE) {
            let tmp = dir.join(format!("probe.{}.tmp", std::process::id()));
            if std::fs::write(&tmp, PROBE).is_err() || std::fs::rename(&tmp, &probe).is_err() {
                return Proof::ExitCode;
            }
        }
        if let Some(own) = std::env::var_os("BASH_ENV").filter(|v| !v.is_empty()) {
            job.env.push((
                "VERMAS_PROBE_BASH_ENV".into(),
                own.to_string_lossy().into_owned(),
            ));
        }
        job.env.extend([
            ("BASH_ENV".into(), probe.to_string_lossy().into_owned()),
            ("VERMAS_PROBE_FN".into(), function.unwrap_or("").to_string()),
        ]);
    }
    job.env.extend([
        (
            "VERMAS_PROBE_FILE".into(),
            marker.to_string_lossy().into_owned(),
        ),
        ("VERMAS_PROBE_KEY".into(), key.clone()),
    ]);
    Proof::Bash { marker, key, mode }
}

/// 128 random bits as hex, from the kernel.
fn random_key() -> Option<String> {
    let mut bytes = [0u8; 16];
    let n = rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty()).ok()?;
    (n == bytes.len()).then(|| bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A folder only this user can write, for the probe and its markers.
fn private_dir() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let uid = rustix::process::geteuid().as_raw();
    let dir = std::env::temp_dir().join(format!("vermas-{uid}"));
    // It may exist already: what it is, is checked below.
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0).then_some(dir)
}

/// The records of a bash run that carry `key`: kind and status.
fn records(text: &str, key: &str) -> Vec<(char, Option<i32>)> {
    text.lines()
        .filter_map(|l| {
            let mut words = l.split(' ');
            (words.next()? == key).then_some(())?;
            let kind = words.next()?.chars().next()?;
            Some((kind, words.next().and_then(|s| s.parse().ok())))
        })
        .collect()
}

/// What decides the outcome of `done`, a run of `file#function` armed with `proof`.
pub fn decide(proof: &Proof, done: &Finished, file: &str, function: Option<&str>) -> Decides {
    match proof {
        Proof::ExitCode => Decides::ExitCode,
        Proof::Bash { marker, key, mode } => {
            let text = std::fs::read_to_string(marker).unwrap_or_default();
            // Best effort: a temporary file left behind is harmless.
            let _ = std::fs::remove_file(marker);
            decide_bash(&records(&text, key), *mode, file, function)
        }
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
        Proof::Pytest => decide_pytest(done),
    }
}

/// What decides a bash run, from its signed records.
fn decide_bash(
    records: &[(char, Option<i32>)],
    mode: BashMode,
    file: &str,
    function: Option<&str>,
) -> Decides {
    let has = |kind: char| records.iter().any(|(k, _)| *k == kind);
    // `X`: the status a sourced function exited with, recorded before any trap of the
    // script's ran; it decides as a returned status does.
    let failed = records
        .iter()
        .filter(|(k, _)| *k == 'S' || *k == 'X')
        .find_map(|(k, s)| {
            s.filter(|s| *s != 0).map(|code| Decides::Status {
                code,
                exited: *k == 'X',
            })
        });
    let f = function.unwrap_or("the function");
    match mode {
        BashMode::Sourced if !has('S') && !has('X') => Decides::Unproven(format!(
            "{f} never ran: {file} ended while it was being sourced (a top-level exit?) before {f} could be called; or {f} ended the shell past vermas's EXIT trap (`builtin trap`, `exec`), and its outcome cannot be told"
        )),
        // The probe did not load (bash ignored BASH_ENV): the exit code is all there is.
        BashMode::Dispatched | BashMode::Whole if !has('L') => Decides::ExitCode,
        BashMode::Dispatched if !has('E') => Decides::Unproven(format!(
            "{f} never ran: {file} exited without calling it (in its own process, not a subshell); add \"$@\" at the end of {file} so it runs the function named on its command line"
        )),
        // It ended without returning (an `exit` in it) and an EXIT trap ran after: the
        // exit code may not be the function's.
        BashMode::Dispatched if has('T') && !has('S') => Decides::Unproven(format!(
            "{f} did not return (it called exit), and {file} has an EXIT trap that may have changed the exit code: its outcome cannot be told; end {f} with return"
        )),
        BashMode::Whole if !has('R') => Decides::Unproven(format!(
            "{file} ran no command outside its function definitions; name the test to run, as {file}#FUNCTION"
        )),
        _ => failed.unwrap_or(Decides::ExitCode),
    }
}

/// What decides a pytest run: its exit code when it could not run the test, else the
/// summary it printed (a skipped test is SKIP, an expected failure FAIL, no summary ERROR).
fn decide_pytest(done: &Finished) -> Decides {
    if let Some(why) = done.exit_code.and_then(pytest_error) {
        return Decides::Unproven(why.to_string());
    }
    let text = done.text();
    let Some(counts) = text.lines().rev().find_map(pytest_summary) else {
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Decides::Unproven(format!(
            "pytest could not run the test: it printed no summary (is pytest installed for python3?){}",
            if last.is_empty() {
                String::new()
            } else {
                format!("; it said: {}", last.trim())
            }
        ));
    };
    let n = |word: &str| {
        counts
            .iter()
            .filter(|(_, w)| w == word)
            .map(|(n, _)| *n)
            .sum::<u64>()
    };
    let said = counts
        .iter()
        .map(|(n, w)| format!("{n} {w}"))
        .collect::<Vec<_>>()
        .join(", ");
    if n("failed") + n("error") + n("errors") > 0 {
        Decides::ExitCode
    } else if n("xfailed") + n("xpassed") > 0 {
        Decides::Outcome(
            Outcome::Fail,
            format!("pytest: {said}: a test marked xfail is expected not to hold"),
        )
    } else if n("skipped") > 0 {
        Decides::Outcome(Outcome::Skip, format!("pytest: {said}"))
    } else if n("passed") > 0 {
        Decides::ExitCode
    } else {
        Decides::Unproven(format!("pytest ran no test ({said})"))
    }
}

/// The counts of a pytest summary line (`1 passed, 2 skipped in 0.1s`, possibly framed by
/// `=`), as number and word; `None` for any other line.
fn pytest_summary(line: &str) -> Option<Vec<(u64, String)>> {
    const WORDS: &[&str] = &[
        "passed",
        "failed",
        "skipped",
        "xfailed",
        "xpassed",
        "error",
        "errors",
        "deselected",
        "warning",
        "warnings",
        "rerun",
    ];
    let line = line.trim().trim_matches('=').trim();
    let (counts, _) = line.rsplit_once(" in ")?;
    if counts == "no tests ran" {
        return Some(Vec::new());
    }
    counts
        .split(", ")
        .map(|part| {
            let (n, word) = part.split_once(' ')?;
            let word = word.trim();
            WORDS
                .contains(&word)
                .then(|| Some((n.parse().ok()?, word.to_string())))?
        })
        .collect()
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

    #[test]
    fn reads_pytest_summaries() {
        let counts = |l| {
            pytest_summary(l).map(|c| {
                c.into_iter()
                    .map(|(n, w)| format!("{n} {w}"))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            counts("1 passed in 0.01s"),
            Some(vec!["1 passed".to_string()])
        );
        assert_eq!(
            counts("==== 1 xfailed, 2 warnings in 0.03s ===="),
            Some(vec!["1 xfailed".to_string(), "2 warnings".to_string()])
        );
        assert_eq!(counts("no tests ran in 0.01s"), Some(vec![]));
        assert_eq!(counts("checked in 3 files"), None);
        assert_eq!(counts("/usr/bin/python3: No module named pytest"), None);
    }

    #[test]
    fn only_records_with_the_key_count() {
        let text = "k1 L\nE\nk2 S 0\nk1 E\nk1 S 3\n";
        assert_eq!(
            records(text, "k1"),
            vec![('L', None), ('E', None), ('S', Some(3))]
        );
        let forged = records("k2 S 0\n", "k1");
        assert_eq!(
            decide_bash(&forged, BashMode::Sourced, "t.sh", Some("f")),
            Decides::Unproven(
                "f never ran: t.sh ended while it was being sourced (a top-level exit?) before f could be called; or f ended the shell past vermas's EXIT trap (`builtin trap`, `exec`), and its outcome cannot be told".into()
            )
        );
        assert_eq!(
            decide_bash(
                &records(text, "k1"),
                BashMode::Dispatched,
                "t.sh",
                Some("f")
            ),
            Decides::Status {
                code: 3,
                exited: false
            }
        );
    }
}
