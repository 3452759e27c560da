//! The proof that a shell check called its function: records `KEY KIND [STATUS]` that
//! vermas's own bash code (the probe loaded through `BASH_ENV`, or the wrapper that sources
//! the file) appends to a private file. `KEY` is a one-time random key, and every variable
//! the probe keeps it in has a one-time random name, so a script cannot name either in a
//! line. The records must come exactly as vermas writes them: one missing, one more, or a
//! line that is not one of them (a record erased, forged or garbled) is an ERROR, never a
//! fall-back to the exit code.

use super::{Decides, Proof};
use crate::proc::Job;
use std::path::{Path, PathBuf};

/// How a shell target runs, and so what proves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BashMode {
    /// vermas sources the file and calls the function itself; the wrapper records that it
    /// loaded (`L`) and the function's status (`S`, or `X` when it exited).
    Sourced,
    /// The script is run with the function's name and calls it; the probe records that it
    /// loaded (`L`), entering the function in the script's own process (`E`), an `EXIT`
    /// trap set by then (`T`), and, when a command follows its return, its status (`S`).
    Dispatched,
    /// The file is run whole; the probe records that it loaded (`L`) and that it ran a
    /// command outside function definitions (`R`).
    Whole,
}

/// Bash run through `BASH_ENV` before the script (`@S@` stands for the run's random name
/// part): it takes its settings out of the environment, restores the user's own
/// `BASH_ENV`, records that it loaded, and traps until the wanted function is entered in
/// the script's own process (or, with no function, until a command outside function
/// definitions runs), noting an `EXIT` trap set by then; once the function returns, the
/// next command's trap records its status.
const PROBE: &str = r#"unset BASH_ENV
__vermas_@S@_k=${VERMAS_PROBE_KEY-} __vermas_@S@_p=${VERMAS_PROBE_FILE-} __vermas_@S@_f=${VERMAS_PROBE_FN-}
unset VERMAS_PROBE_KEY VERMAS_PROBE_FILE VERMAS_PROBE_FN
if [ -n "${VERMAS_PROBE_BASH_ENV-}" ]; then BASH_ENV=$VERMAS_PROBE_BASH_ENV; export BASH_ENV; unset VERMAS_PROBE_BASH_ENV; . "$BASH_ENV"; fi
printf '%s L\n' "$__vermas_@S@_k" >> "$__vermas_@S@_p"
set -o functrace
__vermas_@S@_a='__vermas_@S@_s=$?; trap - DEBUG; printf "%s S %d\n" "$__vermas_@S@_k" "$__vermas_@S@_s" >> "$__vermas_@S@_p"'
__vermas_@S@_r='if [[ "${FUNCNAME[0]-}" == "$__vermas_@S@_f" ]]; then trap - RETURN; trap "$__vermas_@S@_a" DEBUG; fi'
trap 'if [[ -z "$__vermas_@S@_f" ]]; then printf "%s R\n" "$__vermas_@S@_k" >> "$__vermas_@S@_p"; trap - DEBUG; elif [[ "${FUNCNAME[0]-}" == "$__vermas_@S@_f" && "$BASHPID" == "$$" ]]; then printf "%s E\n" "$__vermas_@S@_k" >> "$__vermas_@S@_p"; if [[ -n "$(trap -p EXIT)" ]]; then printf "%s T\n" "$__vermas_@S@_k" >> "$__vermas_@S@_p"; fi; trap - DEBUG; trap "$__vermas_@S@_r" RETURN; fi' DEBUG
"#;

/// Bash that sources the file, then calls the function in the same process and records
/// that it loaded (`L`), the status the function returned (`S`), or, through vermas's
/// `EXIT` trap, the status it exited with (`X`); fails clearly when the function is
/// missing. Arguments: file, function. `@S@` stands for the run's random name part.
///
/// How much of vermas's exit handling a sourced file needs ([`super::scan`] reads it):
/// when it may leave the shell (it names `exit`, or sets shell options such as `set -e`),
/// vermas's `EXIT` trap records the status it exits with (`X`); when it may set a trap of
/// its own, `trap` is also a function, while the file is sourced and the function runs,
/// that sets any action for `EXIT` behind vermas's recorder ([`TRAP`]), so the script's own
/// clean-up still runs, after the status was recorded (with `errexit` off, so the status
/// handed on to it as `$?` does not end the shell first): what it does to the exit code
/// cannot change the outcome. A shell ended past the recorder (`builtin trap`, `exec`, or an
/// exit or trap the scan did not see) leaves no record of the function's end: an ERROR,
/// never a pass.
const CALL: &str = r#"__vermas_@S@_k=${VERMAS_PROBE_KEY-} __vermas_@S@_p=${VERMAS_PROBE_FILE-} __vermas_@S@_i=
unset VERMAS_PROBE_KEY VERMAS_PROBE_FILE
printf '%s L\n' "$__vermas_@S@_k" >> "$__vermas_@S@_p"
@EXIT@source "$1" || exit $?
if ! declare -F "$2" >/dev/null; then echo "vermas: function not defined: $2" >&2; exit 127; fi
__vermas_@S@_i=1
"$2"; __vermas_@S@_s=$?
__vermas_@S@_i=
printf '%s S %d\n' "$__vermas_@S@_k" "$__vermas_@S@_s" >> "$__vermas_@S@_p"
exit "$__vermas_@S@_s""#;

/// [`CALL`]'s recorder of the status the shell exits with, while the function runs. A 0
/// counts (`X 0`) only when the command running as the shell began to exit was a plain
/// `exit` or `exit 0`: one that came from a trap's action (a `RETURN` trap's `exit 0` after
/// the function returned 1, an `ERR` or `DEBUG` trap's, a signal's) or from an `exit` whose
/// value vermas cannot read is recorded as untellable (`U`): an ERROR, never a pass.
const EXIT: &str = r#"__vermas_@S@_x() { local s=$?; if [[ -n $__vermas_@S@_i ]]; then __vermas_@S@_i=; if [[ $s != 0 ]]; then printf '%s X %d\n' "$__vermas_@S@_k" "$s" >> "$__vermas_@S@_p"; else case $BASH_COMMAND in exit|"exit 0"|"builtin exit"|"builtin exit 0"|"command exit"|"command exit 0") printf '%s X 0\n' "$__vermas_@S@_k" >> "$__vermas_@S@_p";; *) printf '%s U\n' "$__vermas_@S@_k" >> "$__vermas_@S@_p";; esac; fi; fi; set +e; return "$s"; }
@TRAP@builtin trap __vermas_@S@_x EXIT
"#;

/// vermas's `trap` for [`CALL`]: an action for `EXIT` goes behind vermas's recorder.
const TRAP: &str = r#"trap() {
  local __vermas_@S@_v __vermas_@S@_e= __vermas_@S@_c=- __vermas_@S@_o=()
  for __vermas_@S@_v; do case ${__vermas_@S@_v^^} in EXIT|0) __vermas_@S@_e=1;; esac; done
  if [[ -z $__vermas_@S@_e || ${1-} == -* && ${1-} != - && ${1-} != -- ]]; then builtin trap "$@"; return; fi
  if [[ $1 == -- ]]; then shift; fi
  if (( $# > 1 )); then __vermas_@S@_c=$1; shift; fi
  for __vermas_@S@_v; do case ${__vermas_@S@_v^^} in EXIT|0) ;; *) __vermas_@S@_o+=("$__vermas_@S@_v");; esac; done
  if (( ${#__vermas_@S@_o[@]} )); then builtin trap -- "$__vermas_@S@_c" "${__vermas_@S@_o[@]}" || return; fi
  if [[ $__vermas_@S@_c == - ]]; then builtin trap __vermas_@S@_x EXIT; else builtin trap -- "__vermas_@S@_x; $__vermas_@S@_c" EXIT; fi
}
"#;

/// How a sourced file may leave the shell, and so what [`CALL`] needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Leaves {
    /// Only by its function returning: no `EXIT` recorder.
    Returns,
    /// Maybe by exiting (an `exit`, `set -e`): the `EXIT` recorder.
    MayExit,
    /// Maybe through a trap of its own too: the recorder and vermas's `trap`.
    MayTrap,
}

/// The bash program (`bash -c PROGRAM vermas FILE FUNCTION`) that sources a file and calls
/// the function, with `name` as the run's random name part, for a file that `leaves` so.
pub fn call_program(name: &str, leaves: Leaves) -> String {
    let exit = match leaves {
        Leaves::Returns => String::new(),
        Leaves::MayExit => EXIT.replace("@TRAP@", ""),
        Leaves::MayTrap => EXIT.replace("@TRAP@", TRAP),
    };
    CALL.replace("@EXIT@", &exit).replace("@S@", name)
}

/// One run's secrets: the random part of the probe's variable names and the key.
pub struct Secrets {
    /// The random part of every variable name.
    pub name: String,
    /// The key every record carries.
    pub key: String,
}

impl Secrets {
    /// New ones from the kernel's random bytes (one read for both).
    pub fn new() -> Option<Secrets> {
        let both = random_hex(6 + 16)?;
        let (name, key) = both.split_at(12);
        Some(Secrets {
            name: name.to_string(),
            key: key.to_string(),
        })
    }
}

/// Arms `job` to record its proof for `function` run in `mode` with `secrets`; returns
/// the proof to check afterwards. Without a private folder the run cannot be proven: the
/// proof it returns is that of a run whose records never came (an ERROR).
pub fn arm(job: &mut Job, function: Option<&str>, mode: BashMode, secrets: &Secrets) -> Proof {
    let dir = private_dir();
    let marker = dir
        .as_ref()
        .map(|d| d.join(format!("mark-{}", secrets.key)))
        .unwrap_or_default();
    let proof = Proof::Bash {
        marker: marker.clone(),
        key: secrets.key.clone(),
        mode,
        probe: None,
    };
    let Some(dir) = dir else {
        return proof;
    };
    let mut probe = None;
    if mode != BashMode::Sourced {
        let file = dir.join(format!("probe-{}.bash", secrets.key));
        if std::fs::write(&file, PROBE.replace("@S@", &secrets.name)).is_err() {
            return proof;
        }
        if let Some(own) = std::env::var_os("BASH_ENV").filter(|v| !v.is_empty()) {
            job.env.push((
                "VERMAS_PROBE_BASH_ENV".into(),
                own.to_string_lossy().into_owned(),
            ));
        }
        job.env.extend([
            ("BASH_ENV".into(), file.to_string_lossy().into_owned()),
            ("VERMAS_PROBE_FN".into(), function.unwrap_or("").to_string()),
        ]);
        probe = Some(file);
    }
    job.env.extend([
        (
            "VERMAS_PROBE_FILE".into(),
            marker.to_string_lossy().into_owned(),
        ),
        ("VERMAS_PROBE_KEY".into(), secrets.key.clone()),
    ]);
    Proof::Bash {
        marker,
        key: secrets.key.clone(),
        mode,
        probe,
    }
}

/// `n` random bytes as hex, from the kernel.
fn random_hex(n: usize) -> Option<String> {
    let mut bytes = vec![0u8; n];
    let got = rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty()).ok()?;
    (got == n).then(|| bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A folder only this user can write, for the probe and its records: `vermas-<uid>` in
/// memory where there is a shared memory folder (`/dev/shm`: a record written and removed
/// there never waits for a disk's journal), else in the temp folder.
fn private_dir() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    use std::sync::OnceLock;
    static BASE: OnceLock<(u32, PathBuf)> = OnceLock::new();
    let (uid, base) = BASE.get_or_init(|| {
        let base = Some(Path::new("/dev/shm"))
            .filter(|shm| shm.is_dir())
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        (rustix::process::geteuid().as_raw(), base)
    });
    let dir = base.join(format!("vermas-{uid}"));
    // It may exist already: what it is, is checked below; made only when it is missing.
    let meta = std::fs::symlink_metadata(&dir).ok().or_else(|| {
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        std::fs::symlink_metadata(&dir).ok()
    })?;
    (meta.is_dir() && meta.uid() == *uid && meta.mode() & 0o077 == 0).then_some(dir)
}

/// The records of a run, read from `marker` (then removed, with the run's probe): each
/// line's kind and status; `Err` when a line is not a record with `key` (forged or
/// garbled).
pub fn read(
    marker: &Path,
    probe: Option<&Path>,
    key: &str,
) -> Result<Vec<(char, Option<i32>)>, ()> {
    let text = std::fs::read_to_string(marker).unwrap_or_default();
    // Best effort: a temporary file left behind is harmless.
    let _ = std::fs::remove_file(marker);
    if let Some(p) = probe {
        let _ = std::fs::remove_file(p);
    }
    records(&text, key)
}

/// The records in `text`, every line of which must carry `key`.
fn records(text: &str, key: &str) -> Result<Vec<(char, Option<i32>)>, ()> {
    text.lines()
        .map(|l| {
            let mut words = l.split(' ');
            if words.next() != Some(key) {
                return Err(());
            }
            let kind = words.next().ok_or(())?;
            let mut chars = kind.chars();
            let (Some(kind), None) = (chars.next(), chars.next()) else {
                return Err(());
            };
            let status = match words.next() {
                Some(s) => Some(s.parse().map_err(|_| ())?),
                None => None,
            };
            if words.next().is_some() {
                return Err(());
            }
            Ok((kind, status))
        })
        .collect()
}

/// True when `records` come exactly as vermas's code writes them in `mode`, whatever the
/// run did: nothing erased, added or out of order.
fn in_order(records: &[(char, Option<i32>)], mode: BashMode) -> bool {
    let kinds: String = records.iter().map(|(k, _)| *k).collect();
    let statuses_right = records
        .iter()
        .all(|(k, s)| matches!(k, 'S' | 'X') == s.is_some());
    statuses_right
        && match mode {
            BashMode::Sourced => matches!(kinds.as_str(), "L" | "LS" | "LX" | "LU"),
            BashMode::Dispatched => matches!(kinds.as_str(), "L" | "LE" | "LET" | "LES" | "LETS"),
            BashMode::Whole => matches!(kinds.as_str(), "L" | "LR"),
        }
}

/// What decides a shell run of `file#function` in `mode`, from its records.
pub fn decide(
    records: Result<Vec<(char, Option<i32>)>, ()>,
    mode: BashMode,
    file: &str,
    function: Option<&str>,
) -> Decides {
    const TAMPERED: &str = "its proof of the call was tampered with (a record erased, added or \
                            garbled): vermas cannot tell what ran, and never falls back to the \
                            exit code";
    let f = function.unwrap_or("the function");
    let records = match records {
        Ok(r) if r.is_empty() => {
            return Decides::Unproven(format!(
                "vermas cannot tell that {f} ran: its proof never came (bash did not load \
                 vermas's probe, as under `bash -p`, or the record was erased); run {file} \
                 with plain bash, or make it a non-executable .sh that vermas sources"
            ));
        }
        Ok(r) if in_order(&r, mode) => r,
        _ => return Decides::Unproven(format!("{file}: {TAMPERED}")),
    };
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
    match mode {
        BashMode::Sourced if has('U') => Decides::Unproven(format!(
            "{f} ended the shell with 0, but not by a plain `exit` or `exit 0` of its own: by a trap's action (RETURN, ERR, DEBUG or a signal's, which may run after {f} failed) or an `exit` with a value vermas cannot read; its outcome cannot be told: end {f} with return"
        )),
        BashMode::Sourced if !has('S') && !has('X') => Decides::Unproven(format!(
            "{f} never ran: {file} ended while it was being sourced (a top-level exit?) before {f} could be called; or {f} ended the shell past vermas's EXIT trap (`builtin trap`, `exec`), and its outcome cannot be told"
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_records_with_the_key_in_vermas_order_count() {
        assert_eq!(
            records("k1 L\nk1 E\nk1 S 3\n", "k1"),
            Ok(vec![('L', None), ('E', None), ('S', Some(3))])
        );
        assert_eq!(
            records("k1 L\nE\n", "k1"),
            Err(()),
            "a line without the key"
        );
        assert_eq!(records("k1 L\nk1 S x\n", "k1"), Err(()), "a garbled status");
        let decided = |text: &str, mode| decide(records(text, "k"), mode, "t.sh", Some("f"));
        assert_eq!(
            decided("k L\nk E\nk S 3\n", BashMode::Dispatched),
            Decides::Status {
                code: 3,
                exited: false
            }
        );
        for forged in ["k L\nk S 0\nk S 0\n", "k E\nk S 0\n", "k L\nk S 0\nk X 0\n"] {
            let d = decided(forged, BashMode::Sourced);
            assert!(
                matches!(&d, Decides::Unproven(why) if why.contains("tampered")),
                "{forged:?}: {d:?}"
            );
        }
        let erased = decided("", BashMode::Sourced);
        assert!(
            matches!(&erased, Decides::Unproven(why) if why.contains("never came")),
            "{erased:?}"
        );
        assert_eq!(
            decided("k L\nk S 0\n", BashMode::Sourced),
            Decides::ExitCode
        );
        let untellable = decided("k L\nk U\n", BashMode::Sourced);
        assert!(
            matches!(&untellable, Decides::Unproven(why) if why.contains("cannot be told")),
            "{untellable:?}"
        );
        for forged in ["k L\nk U 0\n", "k L\nk S 0\nk U\n"] {
            let d = decided(forged, BashMode::Sourced);
            assert!(
                matches!(&d, Decides::Unproven(why) if why.contains("tampered")),
                "{forged:?}: {d:?}"
            );
        }
    }
}
