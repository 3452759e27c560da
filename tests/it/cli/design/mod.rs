//! Designer and Strategist end to end: `design`, `strategize` and `plan` on real
//! repositories with the scripted role stand-in (fixtures/llm-roles), their approval loops
//! driven through a real pseudo-terminal (y, n, e with a real editor script, r with
//! feedback that reaches the model's prompt), `--yes`, no terminal, model output that never
//! parses, and a plan stopped after its design and resumed.

use crate::common::pty::Terminal;
use crate::common::*;
use std::path::Path;

mod commands;
mod plan;
mod terminal;

/// A repository whose LLM is the stand-in (no test spec made with each new bead).
fn repo() -> Repo {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.git(&["commit", "-qam", "the stand-in LLM"]);
    repo
}

/// Runs vermas with extra environment variables, asserting exit `code`; returns
/// (stdout, stderr).
fn run_env(repo: &Repo, args: &[&str], env: &[(&str, &str)], code: i32) -> (String, String) {
    let mut c = repo.cmd(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run vermas");
    assert_eq!(
        out.status.code(),
        Some(code),
        "vermas {args:?}\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    (stdout(&out), stderr(&out))
}

/// Bead files under `.beads/issues`, sorted.
fn bead_files(repo: &Repo) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo.join(".beads/issues"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Every vermas-written path that is not committed (`git status --porcelain`, all files).
fn uncommitted(repo: &Repo) -> String {
    repo.git(&["status", "--porcelain", "--untracked-files=all"])
}

/// The roles the stand-in answered, in order, from its FAKE_LOG.
fn asked(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// The prompts the stand-in received, from its FAKE_PROMPT_LOG.
fn prompts(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .split("\n=== END\n")
        .filter(|p| !p.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The one work bead (not a test spec) of the repository, as `show --json` has it.
fn the_work(repo: &Repo) -> serde_json::Value {
    let work: Vec<serde_json::Value> = repo
        .listed()
        .into_iter()
        .filter(|b| b["issue_type"] != "test-spec")
        .collect();
    assert_eq!(work.len(), 1, "{work:?}");
    work[0].clone()
}

/// `vermas ARGS` in `repo` on a new pseudo-terminal, with `env` added.
fn terminal(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Terminal {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("vermas"));
    cmd.current_dir(repo.path()).args(args);
    for var in LEAKY_ENV.iter().chain(&["VISUAL", "EDITOR"]) {
        cmd.env_remove(var);
    }
    cmd.env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    Terminal::spawn(cmd)
}

const QUESTION: &str = "Approve? [y]es / [n]o / [e]dit / [r]etry with feedback: ";
