//! Deterministic gates end to end (issue 4, part 1):
//! `vermas gate red|green|refactor|implement ID [--ac N] [--cmd CMD] [--json]`.
//!
//! Every test builds a real repository, writes test-spec beads by hand where it needs
//! them, runs the real binary with commands that print what go test, cargo test, pytest,
//! jest, vitest, node --test, bats and plain shell really print, and checks the
//! classification, the exit code, the evidence in `.beads/results/<ID>.yaml`, the note on
//! the bead and the one commit per gate run. No LLM is ever asked: `llm.command` points at
//! a script that leaves a marker file, and every test ends by checking it is absent.

use crate::common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

mod classification;
mod command;
mod evidence;
mod refusals;
mod running;

/// Where the fake LLM would leave its trace.
const LLM_MARKER: &str = "llm-was-called";

/// A repository with `gates.timeout 1s`, an LLM command that would leave a marker, and a
/// work bead labelled `surface:api` and `surface:cli`; returns the bead's id.
fn setup() -> (Repo, String) {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "gates.timeout", "1s"]);
    let llm = repo.join("fake-llm.sh");
    repo.write(
        "fake-llm.sh",
        &format!(
            "#!/bin/sh\ntouch '{}'\necho PASS\n",
            repo.join(LLM_MARKER).display()
        ),
    );
    chmod_x(&llm);
    repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("'{}'", llm.display()),
    ]);
    let id = repo.create(
        "Fizzbuzz prints FizzBuzz",
        &["-l", "surface:api", "-l", "surface:cli"],
    );
    (repo, id)
}

fn chmod_x(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(path).expect("stat").permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(path, perm).expect("chmod");
}

/// Writes a test-spec bead `spec_id` gating `parent` with the given criteria (YAML flow
/// mappings, one per element) and commits it with real git.
fn write_spec(repo: &Repo, spec_id: &str, parent: &str, criteria: &[&str]) {
    let mut text = format!(
        "---\nid: {spec_id}\ntitle: Tests for {parent}\nstatus: open\npriority: 2\n\
         issue_type: test-spec\nparent: {parent}\n\
         dependencies:\n  - {{depends_on_id: {parent}, type: blocks}}\n\
         acceptance_criteria:\n"
    );
    for c in criteria {
        text.push_str("  - ");
        text.push_str(c);
        text.push('\n');
    }
    text.push_str("---\nThe acceptance criteria of the work item.\n");
    let path = format!(".beads/issues/{spec_id}.md");
    repo.write(&path, &text);
    repo.git(&["add", "--", &path]);
    repo.git(&["commit", "-q", "-m", "test spec by hand"]);
}

/// How one `vermas gate ... --json` ended.
struct Gate {
    code: Option<i32>,
    json: Value,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Gate {
    fn class(&self) -> &str {
        self.json["classification"].as_str().unwrap_or("<none>")
    }
}

/// Runs `vermas gate ARGS --json`; stdout must be exactly one JSON object.
fn gate(repo: &Repo, args: &[&str]) -> Gate {
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    all.push("--json");
    let start = Instant::now();
    let out = repo.run(&all);
    let elapsed = start.elapsed();
    let text = stdout(&out);
    let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "vermas {all:?}: stdout is not one JSON object ({e}):\n{text}\nstderr: {}",
            stderr(&out)
        )
    });
    Gate {
        code: out.status.code(),
        json,
        stdout: text,
        stderr: stderr(&out),
        elapsed,
    }
}

/// Runs a gate and asserts its classification and the exit code that goes with it.
fn expect(repo: &Repo, args: &[&str], class: &str) -> Gate {
    let g = gate(repo, args);
    assert_eq!(
        g.class(),
        class,
        "vermas gate {args:?}: classification\n{}\nstderr: {}",
        g.stdout,
        g.stderr
    );
    let code = if class == "accept" { 0 } else { 1 };
    assert_eq!(
        g.code,
        Some(code),
        "vermas gate {args:?}: exit code for {class}\n{}\nstderr: {}",
        g.stdout,
        g.stderr
    );
    g
}

/// The result record of `id`, parsed as YAML (it must be valid YAML).
fn record(repo: &Repo, id: &str) -> Value {
    let text = repo.read(&format!(".beads/results/{id}.yaml"));
    serde_saphyr::from_str::<Value>(&text)
        .unwrap_or_else(|e| panic!("results/{id}.yaml is not valid YAML ({e}):\n{text}"))
}

/// The `checks:` list of `id`'s result record.
fn checks(repo: &Repo, id: &str) -> Vec<Value> {
    record(repo, id)["checks"]
        .as_array()
        .expect("checks: is a list")
        .clone()
}

/// The notes on bead `id`, as text.
fn notes(repo: &Repo, id: &str) -> Vec<String> {
    let v = repo.json(&["show", id]);
    let bead = if v.is_array() { v[0].clone() } else { v };
    bead["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `.beads` is committed, git is sound, and no LLM was ever asked.
fn finish(repo: &Repo) {
    assert_eq!(
        repo.status(".beads"),
        "",
        "every gate leaves .beads/ committed"
    );
    repo.assert_fsck();
    assert!(
        !repo.join(LLM_MARKER).exists(),
        "a deterministic gate asked the LLM"
    );
}

/// Asserts a gate run that failed on bad input changed nothing: exit 2, no commit, no
/// result file; returns stderr.
fn refused(repo: &Repo, args: &[&str], id: &str) -> String {
    let before = repo.commit_count();
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let err = repo.fails(&all, 2);
    assert_eq!(
        repo.commit_count(),
        before,
        "{args:?}: no commit on bad input"
    );
    assert!(
        !repo.join(&format!(".beads/results/{id}.yaml")).exists(),
        "{args:?}: no evidence on bad input"
    );
    err
}

/// Like [`refused`] for a bead that already has evidence: exit 2 and no commit.
fn refused_keep(repo: &Repo, args: &[&str]) -> String {
    let before = repo.commit_count();
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let err = repo.fails(&all, 2);
    assert_eq!(
        repo.commit_count(),
        before,
        "{args:?}: no commit on bad input"
    );
    err
}
