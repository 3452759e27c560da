//! Refusing a check that reaches for its own proof: a checked shell script, or a file it
//! sources by a literal path, that names vermas's probe (its variables, `__vermas…`, or its
//! settings, `VERMAS_PROBE…`) or redefines a command the probe runs (see [`super::shadow`])
//! is never run; the line is named. The same reading tells how
//! the script may leave the shell (see [`Leaves`]): by exiting (it names `exit` or sets
//! shell options) or through a trap of its own (it names `trap` or `eval`, or sources a
//! file whose path is not written out), so vermas's exit recorder and its wrapper of `trap`
//! are loaded only when they may be needed.

use super::bash::Leaves;
use std::path::Path;

/// The words that name vermas's probe.
const PROBE_NAMES: &[&str] = &["__vermas", "VERMAS_PROBE"];

/// The deepest chain of literal `source`/`.` lines followed.
const MAX_DEPTH: usize = 4;

/// What reading a shell script and the files it sources by a literal path found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scanned {
    /// Why it may not run as a check: the first line that names the probe.
    pub refusal: Option<String>,
    /// How it may leave the shell: [`Leaves::MayTrap`] unless every file was read and
    /// none names `trap` or `eval` or sources a file by a path that is not written out (nor
    /// one that was not found); else [`Leaves::MayExit`] when one names `exit` or sets shell
    /// options (`set -e`, `set -o ...`).
    pub leaves: Leaves,
}

impl Default for Scanned {
    fn default() -> Scanned {
        Scanned {
            refusal: None,
            leaves: Leaves::Returns,
        }
    }
}

/// Why the shell script `file` (relative to `root`) may not run as a check: the first line
/// of it, or of a file it sources by a literal path, that names the probe.
pub fn refusal(root: &Path, file: &str) -> Option<String> {
    scan_script(root, file).refusal
}

/// Reads the shell script `file` (relative to `root`) and what it sources (see
/// [`Scanned`]).
pub fn scan_script(root: &Path, file: &str) -> Scanned {
    let mut found = Scanned::default();
    let mut seen = Vec::new();
    scan(root, file, 0, &mut seen, &mut found);
    found
}

/// Scans `file` and what it sources, `depth` deep, each file once, into `found`; stops at
/// the first refusal.
fn scan(root: &Path, file: &str, depth: usize, seen: &mut Vec<String>, found: &mut Scanned) {
    if seen.iter().any(|s| s == file) {
        return;
    }
    let Some(text) = (depth <= MAX_DEPTH)
        .then(|| std::fs::read(root.join(file)).ok())
        .flatten()
    else {
        found.leaves = Leaves::MayTrap;
        return;
    };
    seen.push(file.to_string());
    let text = String::from_utf8_lossy(&text);
    for (i, line) in text.lines().enumerate() {
        if let Some(name) = PROBE_NAMES.iter().find(|n| line.contains(**n)) {
            found.refusal = Some(format!(
                "{file}:{} names vermas's probe (`{name}…`): a check may not touch the proof \
                 that it ran; it is not run",
                i + 1
            ));
            return;
        }
        if let Some(what) = super::shadow::shadowed(line) {
            found.refusal = Some(format!(
                "{file}:{} {what}, which vermas's own code runs to record how the check \
                 ended: a check may not change how its proof is written; it is not run",
                i + 1
            ));
            return;
        }
        let leaves = if line.contains("trap") || line.contains("eval") {
            Leaves::MayTrap
        } else if line.contains("exit") || sets_options(line) {
            Leaves::MayExit
        } else {
            Leaves::Returns
        };
        found.leaves = found.leaves.max(leaves);
    }
    for sourced in text.lines().filter_map(sources) {
        let Some(sourced) = sourced else {
            found.leaves = Leaves::MayTrap;
            continue;
        };
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        let candidates = [dir.join(&sourced), Path::new(&sourced).to_path_buf()];
        let mut any = false;
        for c in candidates {
            let c = c.to_string_lossy().into_owned();
            if root.join(&c).is_file() {
                any = true;
                scan(root, &c, depth + 1, seen, found);
                if found.refusal.is_some() {
                    return;
                }
            }
        }
        if !any {
            found.leaves = Leaves::MayTrap;
        }
    }
}

/// True when `line` may run `set` with options (`set -e`, `set -o errexit`, `set +u`).
fn sets_options(line: &str) -> bool {
    line.match_indices("set").any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + 3..].trim_start();
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            && line[at + 3..].starts_with(char::is_whitespace)
            && (after.starts_with('-') || after.starts_with('+'))
    })
}

/// What a line sources (`source PATH`, `. PATH`): `Some(Some(path))` for a literal path,
/// `Some(None)` for one that is not written out, `None` when the line sources nothing.
fn sources(line: &str) -> Option<Option<String>> {
    let line = line.trim_start();
    let rest = line
        .strip_prefix("source ")
        .or_else(|| line.strip_prefix(". "))?;
    let Some(word) = rest.split_whitespace().next() else {
        return Some(None);
    };
    let word = word.trim_matches(['"', '\'']);
    Some(
        (!word.is_empty() && !word.contains('$') && !word.contains('`'))
            .then(|| word.trim_start_matches("./").to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_line_that_reaches_for_the_probe_here_or_in_what_it_sources() {
        let root = std::env::temp_dir().join(format!("vermas-scan-{}", std::process::id()));
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("tests/ok.sh"), "f() { true; }\n").unwrap();
        std::fs::write(root.join("tests/lib.sh"), "x=1\n: > \"$__vermas_p\"\n").unwrap();
        std::fs::write(root.join("tests/uses.sh"), ". ./lib.sh\nf() { true; }\n").unwrap();
        assert_eq!(refusal(&root, "tests/ok.sh"), None);
        let why = refusal(&root, "tests/uses.sh").unwrap();
        assert!(
            why.starts_with("tests/lib.sh:2 names vermas's probe"),
            "{why}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn how_a_script_may_leave_the_shell_is_read_from_it_and_what_it_sources() {
        let root = std::env::temp_dir().join(format!("vermas-scan-trap-{}", std::process::id()));
        std::fs::create_dir_all(root.join("tests")).unwrap();
        let write = |name: &str, text: &str| std::fs::write(root.join(name), text).unwrap();
        write("tests/plain.sh", "f() { true; }\n");
        write("tests/lib.sh", "cleanup() { :; }\ntrap cleanup EXIT\n");
        write("tests/via.sh", "source lib.sh\nf() { true; }\n");
        write("tests/dynamic.sh", "source \"$HOME/x.sh\"\nf() { true; }\n");
        write("tests/missing.sh", ". ./nowhere.sh\nf() { true; }\n");
        write("tests/evals.sh", "f() { eval \"$1\"; }\n");
        write("tests/exits.sh", "f() { [ -e x ] || exit 1; }\n");
        write("tests/strict.sh", "set -euo pipefail\nf() { true; }\n");
        write("tests/offset.sh", "f() { offset=1; reset -x; }\n");
        let leaves = |f: &str| scan_script(&root, f).leaves;
        assert_eq!(leaves("tests/plain.sh"), Leaves::Returns);
        assert_eq!(leaves("tests/offset.sh"), Leaves::Returns);
        assert_eq!(leaves("tests/exits.sh"), Leaves::MayExit);
        assert_eq!(leaves("tests/strict.sh"), Leaves::MayExit);
        for f in [
            "tests/lib.sh",
            "tests/via.sh",
            "tests/dynamic.sh",
            "tests/missing.sh",
            "tests/evals.sh",
            "tests/absent.sh",
        ] {
            assert_eq!(leaves(f), Leaves::MayTrap, "{f}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
