//! Bead commands end to end: the real binary in real temporary git
//! repositories, checked with real git and by reading the bead files.

use crate::common::*;

use std::io::Read;
use std::process::{Output, Stdio};

mod bad_input;
mod create;
mod deps;
mod hand_written;
mod history;
mod list_show;
mod ready;
mod update;

/// Front matter keys of a bead file in the stable order vermas writes them.
const KEY_ORDER: &[&str] = &[
    "id",
    "title",
    "status",
    "priority",
    "issue_type",
    "labels",
    "assignee",
    "created_at",
    "created_by",
    "updated_at",
    "closed_at",
    "close_reason",
    "parent",
    "spec",
    "dependencies",
    "notes",
];

/// bd's JSON keys every single-bead object carries.
const JSON_KEYS: &[&str] = &[
    "id",
    "title",
    "status",
    "priority",
    "issue_type",
    "labels",
    "assignee",
    "created_at",
    "created_by",
    "updated_at",
    "closed_at",
    "close_reason",
    "dependencies",
    "description",
];

fn bead_path(id: &str) -> String {
    format!(".beads/issues/{id}.md")
}

fn bead_text(repo: &Repo, id: &str) -> String {
    repo.read(&bead_path(id))
}

/// Splits a bead file into (front matter, body).
fn split(text: &str) -> (String, String) {
    let rest = text
        .strip_prefix("---\n")
        .unwrap_or_else(|| panic!("no front matter:\n{text}"));
    let end = rest
        .find("\n---\n")
        .map(|i| (i, i + 5))
        .or_else(|| rest.strip_suffix("\n---").map(|r| (r.len(), rest.len())))
        .unwrap_or_else(|| panic!("front matter not closed:\n{text}"));
    (rest[..end.0].to_string(), rest[end.1..].to_string())
}

/// Top-level keys of a bead's front matter, in file order.
fn keys(text: &str) -> Vec<String> {
    let (fm, _) = split(text);
    fm.lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('-') && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_string()))
        .collect()
}

/// The text after `key:` on the key's own line.
fn field(text: &str, key: &str) -> String {
    let (fm, _) = split(text);
    let prefix = format!("{key}:");
    fm.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {key} in:\n{fm}"))
        .trim()
        .to_string()
}

fn run_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut c = repo.cmd(args);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("run vermas")
}

fn ok_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> String {
    let out = run_env(repo, args, envs);
    assert!(
        out.status.success(),
        "vermas {args:?} failed ({:?}):\n{}",
        out.status.code(),
        stderr(&out)
    );
    stdout(&out)
}

/// Runs a mutating command: it must succeed, add exactly one commit and leave `.beads`
/// clean in `git status`.
fn mutate_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> String {
    let before = repo.commit_count();
    let out = ok_env(repo, args, envs);
    assert_eq!(
        repo.commit_count(),
        before + 1,
        "vermas {args:?} should make exactly one commit"
    );
    assert_eq!(
        repo.status(".beads"),
        "",
        "vermas {args:?} left .beads dirty"
    );
    out
}

fn mutate(repo: &Repo, args: &[&str]) -> String {
    mutate_env(repo, args, &[])
}

/// A command that must fail with exit 2 and change nothing (no commit, same file).
fn refused(repo: &Repo, args: &[&str], id: Option<&str>) -> String {
    let before = repo.commit_count();
    let text = id.map(|i| bead_text(repo, i));
    let err = repo.fails(args, 2);
    assert_eq!(repo.commit_count(), before, "{args:?} must not commit");
    if let (Some(i), Some(t)) = (id, text) {
        assert_eq!(bead_text(repo, i), t, "{args:?} must not change {i}");
    }
    assert_eq!(repo.status(".beads"), "");
    err
}

/// A command that changes nothing: exit 0, "nothing changed" on stderr naming the bead,
/// nothing on stdout, no commit, the file as it was; returns stderr.
fn unchanged(repo: &Repo, args: &[&str], id: &str) -> String {
    let before = repo.commit_count();
    let text = bead_text(repo, id);
    let out = repo.run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("nothing changed") && err.contains(id),
        "{args:?}: {err}"
    );
    assert_eq!(stdout(&out), "", "{args:?}");
    assert_eq!(repo.commit_count(), before, "{args:?} must not commit");
    assert_eq!(bead_text(repo, id), text, "{args:?} must not change {id}");
    assert_eq!(repo.status(".beads"), "");
    err
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected a JSON array: {v}"))
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

fn is_rfc3339_utc(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z'
        && s.chars()
            .enumerate()
            .all(|(i, c)| [4, 7, 10, 13, 16, 19].contains(&i) || c.is_ascii_digit())
}

/// `show --json ID`: an array holding the one bead (bd's shape), returned as the bead.
fn shown(repo: &Repo, id: &str) -> serde_json::Value {
    let v = repo.json(&["show", id]);
    let all = v
        .as_array()
        .unwrap_or_else(|| panic!("show --json must print an array: {v}"));
    assert_eq!(all.len(), 1, "{v}");
    all[0].clone()
}

/// Commits a hand-written bead file with real git.
fn commit_by_hand(repo: &Repo, files: &[(&str, &str)]) {
    for (id, text) in files {
        repo.write(&bead_path(id), text);
    }
    repo.git(&["add", ".beads"]);
    repo.git(&["commit", "-q", "-m", "hand-written beads"]);
}

/// The JSON error object a `--json` command printed on stderr.
fn json_error(out: &Output) -> serde_json::Value {
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one JSON line on stderr, got:\n{err}"
    );
    let v: serde_json::Value =
        serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("not JSON ({e}): {err}"));
    assert!(v.is_object(), "{v}");
    v
}
