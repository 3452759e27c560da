//! Every change vermas makes under `.beads/` is one commit made by vermas itself, touching
//! only the paths it wrote, leaving the user's other work alone, and refusing to commit in
//! the middle of a merge or rebase. Checked with real git in real temporary repositories.

use crate::common::{Repo, stderr, stdout};
use std::collections::BTreeSet;
use std::process::Output;

mod commits;
mod conflicts;
mod identity;
mod location;

/// Runs git without asserting success (for merges and rebases that stop on a conflict).
fn git_raw(repo: &Repo, args: &[&str]) -> Output {
    std::process::Command::new("git")
        .current_dir(repo.path())
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env("GIT_EDITOR", "true")
        .output()
        .expect("run git")
}

/// The commit HEAD points to.
fn head(repo: &Repo) -> String {
    repo.git(&["rev-parse", "HEAD"]).trim().to_string()
}

/// Relative path of a bead file.
fn bead_path(id: &str) -> String {
    format!(".beads/issues/{id}.md")
}

/// The file names under `.beads/issues`.
fn issue_files(repo: &Repo) -> BTreeSet<String> {
    std::fs::read_dir(repo.join(".beads/issues"))
        .expect("read issues")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// Ids listed by `vermas list --all --limit 0 --json`, asserting it succeeds and warns about nothing.
fn listed_ids(repo: &Repo) -> BTreeSet<String> {
    repo.listed()
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}
