//! Refusing a check that reaches for its own proof: a checked shell script, or a file it
//! sources by a literal path, that names vermas's probe (its variables, `__vermas…`, or its
//! settings, `VERMAS_PROBE…`) is never run; the line is named.

use std::path::Path;

/// The words that name vermas's probe.
const PROBE_NAMES: &[&str] = &["__vermas", "VERMAS_PROBE"];

/// The deepest chain of literal `source`/`.` lines followed.
const MAX_DEPTH: usize = 4;

/// Why the shell script `file` (relative to `root`) may not run as a check: the first line
/// of it, or of a file it sources by a literal path, that names the probe.
pub fn refusal(root: &Path, file: &str) -> Option<String> {
    let mut seen = Vec::new();
    scan(root, file, 0, &mut seen)
}

/// Scans `file` and what it sources, `depth` deep, each file once.
fn scan(root: &Path, file: &str, depth: usize, seen: &mut Vec<String>) -> Option<String> {
    if depth > MAX_DEPTH || seen.iter().any(|s| s == file) {
        return None;
    }
    seen.push(file.to_string());
    let text = std::fs::read(root.join(file)).ok()?;
    let text = String::from_utf8_lossy(&text);
    for (i, line) in text.lines().enumerate() {
        if let Some(name) = PROBE_NAMES.iter().find(|n| line.contains(**n)) {
            return Some(format!(
                "{file}:{} names vermas's probe (`{name}…`): a check may not touch the proof \
                 that it ran; it is not run",
                i + 1
            ));
        }
    }
    for sourced in text.lines().filter_map(sourced_path) {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        let candidates = [dir.join(&sourced), Path::new(&sourced).to_path_buf()];
        for c in candidates {
            let c = c.to_string_lossy().into_owned();
            if root.join(&c).is_file()
                && let Some(why) = scan(root, &c, depth + 1, seen)
            {
                return Some(why);
            }
        }
    }
    None
}

/// The literal path a line sources (`source PATH`, `. PATH`), when it is one.
fn sourced_path(line: &str) -> Option<String> {
    let line = line.trim_start();
    let rest = line
        .strip_prefix("source ")
        .or_else(|| line.strip_prefix(". "))?;
    let word = rest.split_whitespace().next()?;
    let word = word.trim_matches(['"', '\'']);
    (!word.is_empty() && !word.contains('$') && !word.contains('`'))
        .then(|| word.trim_start_matches("./").to_string())
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
}
