//! The vanity check: run the selected verify checks on an earlier revision, in a
//! temporary worktree, and flag criteria that passed there already ("passed before the
//! change": a test that never failed proves nothing about the change).
//!
//! The worktree is a [`TempWorktree`] (the git CLI's `git worktree add --detach`, removed
//! when dropped and on Ctrl-C): it only reads history and touches nothing the user has,
//! and gix is kept to the features commits need.

use crate::error::{Error, Result};
use crate::git::cli;
use crate::git::{Git, TempWorktree};
use crate::spec::Spec;
use crate::verify::live::{self, RunSettings, SpecRun};
use std::path::Path;

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
/// afterwards, also on error, and on Ctrl-C by the interrupt cleanup).
pub fn run_at(
    root: &Path,
    rev: &str,
    specs: &[Spec],
    settings: &RunSettings,
) -> Result<Vec<SpecRun>> {
    let tree = TempWorktree::add(&Git::new(root, None), rev)?;
    let runs = live::run(tree.dir(), specs, settings, |_, _| {});
    drop(tree);
    Ok(runs)
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
