//! The vanity check: run the selected verify checks on an earlier revision, in a
//! temporary worktree, and flag criteria that passed there already ("passed before the
//! change": a test that never failed proves nothing about the change).
//!
//! The worktree is made and removed with the git CLI (`git worktree add --detach`,
//! `git worktree remove --force`): it only reads history and touches nothing the user has,
//! and gix is kept to the features commits need.

use crate::error::{Error, Result};
use crate::git::cli;
use crate::spec::Spec;
use crate::verify::live::{self, RunSettings, SpecRun};
use std::path::{Path, PathBuf};

/// Resolves `rev` to a commit id; an empty `rev` means the merge-base of HEAD with its
/// upstream branch.
pub fn resolve(root: &Path, rev: &str) -> Result<String> {
    if rev.is_empty() {
        let upstream = cli::run(
            root,
            &[
                "rev-parse",
                "--abbrev-ref",
                "--symbolic-full-name",
                "@{upstream}",
            ],
        )
        .map_err(|_| {
            Error::invalid_with_help(
                "the current branch has no upstream, so there is no default baseline",
                "name one: `vermas status --verify --baseline main` (any commit, branch or tag)",
            )
        })?;
        return cli::run(root, &["merge-base", "HEAD", upstream.trim()])
            .map(|s| s.trim().to_string())
            .map_err(|e| {
                Error::git_with(format!("no merge-base with {}: {e}", upstream.trim()), e)
            });
    }
    cli::run(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map(|s| s.trim().to_string())
    .map_err(|_| {
        Error::invalid_with_help(
            format!("baseline revision '{rev}' does not exist"),
            "give a commit, branch or tag that `git rev-parse` knows",
        )
    })
}

/// Runs the verify checks of `specs` on commit `rev` in a temporary worktree (removed
/// afterwards, also on error).
pub fn run_at(
    root: &Path,
    rev: &str,
    specs: &[Spec],
    settings: &RunSettings,
) -> Result<Vec<SpecRun>> {
    let dir = std::env::temp_dir().join(format!(
        "vermas-baseline-{}-{}",
        std::process::id(),
        &rev[..rev.len().min(12)]
    ));
    // A worktree left by an earlier run may be there (or none): best effort.
    let _ = std::fs::remove_dir_all(&dir);
    cli::run(
        root,
        &[
            "worktree",
            "add",
            "--detach",
            "--quiet",
            &dir.to_string_lossy(),
            rev,
        ],
    )
    .map_err(|e| Error::git_with(format!("cannot make a worktree at {rev}: {e}"), e))?;
    let guard = Worktree {
        root: root.to_path_buf(),
        dir: dir.clone(),
    };
    let runs = live::run(&guard.dir, specs, settings, |_, _| {});
    drop(guard);
    Ok(runs)
}

/// Removes the temporary worktree when dropped.
struct Worktree {
    root: PathBuf,
    dir: PathBuf,
}

impl Drop for Worktree {
    fn drop(&mut self) {
        // Cleanup on drop: best effort, `worktree prune` below forgets what is left.
        let _ = cli::run(
            &self.root,
            &["worktree", "remove", "--force", &self.dir.to_string_lossy()],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = cli::run(&self.root, &["worktree", "prune"]);
    }
}

/// Marks each criterion of `now` that passed both now and in `before`.
pub fn flag(now: &mut [SpecRun], before: &[SpecRun]) {
    for run in now.iter_mut() {
        let Some(old) = before.iter().find(|b| b.path == run.path) else {
            continue;
        };
        for c in &mut run.criteria {
            let passed_before = old
                .criteria
                .iter()
                .find(|o| o.line == c.line && o.text == c.text)
                .is_some_and(|o| o.outcome == crate::check::Outcome::Pass);
            c.passed_before = Some(passed_before && c.outcome == crate::check::Outcome::Pass);
        }
    }
}
