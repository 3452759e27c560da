//! Commands run by CI: `run:` steps of `.github/workflows/*.yml` and `script:` lines of
//! `.gitlab-ci.yml`, each line classified by its words (`cargo clippy` is lint, `pytest` is
//! test, `npm ci` is an install and skipped).

use super::{Collector, Kind, Rank};
use crate::text::yaml::{Spanned, spanned_line};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A GitHub Actions workflow, reduced to what is read.
#[derive(Deserialize)]
struct Workflow {
    #[serde(default)]
    jobs: Option<BTreeMap<String, Job>>,
}

/// A workflow job.
#[derive(Deserialize)]
struct Job {
    #[serde(default)]
    steps: Option<Vec<Step>>,
}

/// A workflow step.
#[derive(Deserialize)]
struct Step {
    #[serde(default)]
    run: Option<Spanned<String>>,
}

/// Scans the GitHub workflows, then `.gitlab-ci.yml`.
pub(super) fn scan(c: &mut Collector) {
    let dir = c.root().join(".github/workflows");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".yml") || n.ends_with(".yaml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for name in files {
        let rel = format!(".github/workflows/{name}");
        let Some(text) = c.read(&rel) else { continue };
        match crate::text::yaml::parse::<Option<Workflow>>(&text, &rel, &text, 1) {
            Ok(wf) => {
                c.read_ok(&rel);
                let mut rows = Vec::new();
                let jobs = wf.and_then(|w| w.jobs).unwrap_or_default();
                for job in jobs.into_values() {
                    let steps = job.steps.unwrap_or_default();
                    for run in steps.into_iter().filter_map(|s| s.run) {
                        let start = spanned_line(&run);
                        rows.extend(commands(&text, start, &run.value));
                    }
                }
                add_rows(c, &rel, rows);
            }
            Err(e) => c.warn(*e),
        }
    }
    scan_gitlab(c);
}

/// Scans the jobs of `.gitlab-ci.yml` (every top-level mapping with a `script`).
fn scan_gitlab(c: &mut Collector) {
    let rel = ".gitlab-ci.yml";
    let Some(text) = c.read(rel) else { return };
    match crate::text::yaml::parse::<Option<BTreeMap<String, Spanned<Value>>>>(&text, rel, &text, 1)
    {
        Ok(doc) => {
            c.read_ok(rel);
            let mut rows = Vec::new();
            for job in doc.unwrap_or_default().into_values() {
                let Some(script) = job.value.get("script") else {
                    continue;
                };
                let mut lines = Vec::new();
                flatten(script, &mut lines);
                let mut start = spanned_line(&job);
                for line in lines {
                    let found = commands(&text, start, &line);
                    if let Some((last, _, _)) = found.last() {
                        start = last + 1;
                    }
                    rows.extend(found);
                }
            }
            add_rows(c, rel, rows);
        }
        Err(e) => c.warn(*e),
    }
}

/// The strings of a GitLab `script` (a string or nested lists of strings).
fn flatten(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| flatten(i, out)),
        _ => {}
    }
}

/// Adds rows sorted by line.
fn add_rows(c: &mut Collector, rel: &str, mut rows: Vec<(usize, Kind, String)>) {
    rows.sort();
    for (line, kind, command) in rows {
        c.add(kind, command, rel, line, false, Rank::Ci);
    }
}

/// The classified command lines of one script (`\` continuations joined), each with its
/// line in `text`: found searching forward from `start`, else `start` itself.
fn commands(text: &str, start: usize, script: &str) -> Vec<(usize, Kind, String)> {
    let file_lines: Vec<&str> = text.lines().collect();
    let mut cursor = start.max(1);
    let mut out = Vec::new();
    let mut pending: Option<(String, String)> = None; // (first physical line, joined)
    for raw in script.lines() {
        let piece = raw.trim();
        let (first, mut joined) = pending
            .take()
            .unwrap_or_else(|| (piece.to_string(), String::new()));
        if let Some(head) = piece.strip_suffix('\\') {
            joined.push_str(head.trim_end());
            joined.push(' ');
            pending = Some((first, joined));
            continue;
        }
        joined.push_str(piece);
        let command = joined.trim().to_string();
        if command.is_empty() || command.starts_with('#') {
            continue;
        }
        let needle = first.trim_end_matches('\\').trim();
        let at = file_lines
            .iter()
            .enumerate()
            .skip(cursor - 1)
            .find(|(_, l)| l.contains(needle))
            .map(|(i, _)| i + 1);
        if let Some(n) = at {
            cursor = n + 1;
        }
        if let Some(kind) = classify(&command) {
            out.push((at.unwrap_or(start.max(1)), kind, command));
        }
    }
    out
}

/// First tokens of a command that never run a quality check (setup, shell plumbing).
const NOT_CHECKS: &[&str] = &[
    "echo",
    "printf",
    "cd",
    "pushd",
    "popd",
    "export",
    "set",
    "source",
    ".",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "cat",
    "ls",
    "curl",
    "wget",
    "git",
    "rustup",
    "apt",
    "apt-get",
    "brew",
    "pip",
    "pip3",
    "choco",
    "chmod",
    "tee",
    "test",
    "[",
    "[[",
    "if",
    "fi",
    "for",
    "done",
    "exit",
    "true",
    "false",
    "sleep",
    "touch",
    "ln",
    "tar",
    "unzip",
    "docker-compose",
];

/// Words that only prefix the real command.
const PREFIXES: &[&str] = &["then", "do", "else", "time", "sudo", "exec", "env"];

/// The kind of check a shell command line runs, by the words of its first segment that
/// runs one (segments are split at `&&`, `||`, `;` and `|`).
pub(super) fn classify(line: &str) -> Option<Kind> {
    let segments = line
        .split("&&")
        .flat_map(|s| s.split("||"))
        .flat_map(|s| s.split(';'))
        .flat_map(|s| s.split('|'));
    segments.filter_map(classify_segment).next()
}

/// The kind of one simple command, or `None`.
fn classify_segment(segment: &str) -> Option<Kind> {
    let tokens: Vec<&str> = segment
        .split_whitespace()
        .skip_while(|t| PREFIXES.contains(t) || is_assignment(t))
        .collect();
    let first = *tokens.first()?;
    if NOT_CHECKS.contains(&first) {
        return None;
    }
    let second = tokens.get(1).copied().unwrap_or("");
    let manager = ["npm", "pnpm", "yarn", "bun"].contains(&first);
    if manager && ["ci", "i", "add", "install"].contains(&second) {
        return None;
    }
    let words: Vec<String> = tokens
        .iter()
        .filter(|t| !t.starts_with('-') && !t.contains("${{") && !t.contains('>'))
        .flat_map(|t| {
            t.to_ascii_lowercase()
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let squashed: String = tokens
        .concat()
        .to_ascii_lowercase()
        .replace(['-', '_', ':'], "");
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(&["install", "setup"]) {
        None
    } else if has(&["typecheck", "tsc", "mypy", "pyright"])
        || squashed.contains("typecheck")
        || squashed.contains("checktypes")
    {
        Some(Kind::Typecheck)
    } else if has(&["fmt", "format", "prettier", "black", "gofmt", "rustfmt"]) {
        Some(Kind::Format)
    } else if words.iter().any(|w| w.ends_with("lint"))
        || has(&["clippy", "vet", "flake8", "ruff", "shellcheck"])
    {
        Some(Kind::Lint)
    } else if words.iter().any(|w| w.starts_with("test"))
        || has(&[
            "pytest", "jest", "vitest", "mocha", "ctest", "nextest", "tox", "rspec",
        ])
    {
        Some(Kind::Test)
    } else if has(&["build", "compile"]) {
        Some(Kind::Build)
    } else if has(&["ci"]) {
        Some(Kind::Ci)
    } else {
        None
    }
}

/// `NAME=value` prefix of a command.
fn is_assignment(token: &str) -> bool {
    token.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_common_commands() {
        let cases = [
            ("cargo fmt --all -- --check", Some(Kind::Format)),
            (
                "cargo clippy --all-targets -- -D warnings",
                Some(Kind::Lint),
            ),
            ("cargo test --workspace", Some(Kind::Test)),
            ("cargo build --release", Some(Kind::Build)),
            ("npx tsc --noEmit", Some(Kind::Typecheck)),
            ("pnpm run check-types", Some(Kind::Typecheck)),
            ("pnpm run lint", Some(Kind::Lint)),
            ("go vet ./...", Some(Kind::Lint)),
            ("golangci-lint run", Some(Kind::Lint)),
            ("python -m pytest -q", Some(Kind::Test)),
            ("CI=true npm test", Some(Kind::Test)),
            (".ci/run", Some(Kind::Ci)),
            ("make ci", Some(Kind::Ci)),
            ("npm ci", None),
            ("pnpm install --frozen-lockfile", None),
            ("pip install pytest", None),
            ("rustup component add clippy", None),
            ("echo \"running tests\"", None),
            ("cd web && npm test", Some(Kind::Test)),
            ("jest --ci", Some(Kind::Test)),
            ("docker compose up -d", None),
            ("git fetch --depth=1 latest", None),
        ];
        for (line, want) in cases {
            assert_eq!(classify(line), want, "{line}");
        }
    }

    #[test]
    fn lines_are_found_forward_and_continuations_joined() {
        let text = "jobs:\n  t:\n    steps:\n      - run: |\n          npm ci\n          cargo test \\\n            --all\n          npm test\n";
        let got = commands(text, 4, "npm ci\ncargo test \\\n  --all\nnpm test\n");
        assert_eq!(
            got,
            vec![
                (6, Kind::Test, "cargo test --all".to_string()),
                (8, Kind::Test, "npm test".to_string())
            ]
        );
    }
}
