//! The git commands the refinery and the Inspector run, through the `git` program: branch tips, the merge
//! built in git's object store (`merge-tree --write-tree`, `commit-tree`) without touching
//! any work tree, the compare-and-swap move of the target (`update-ref REF NEW OLD`),
//! temporary worktrees, and bringing a checkout of the target along (`read-tree -m -u`).
//!
//! gix, as vermas builds it, has no three-way tree merge; git's own is the one a user
//! would get from `git merge`, so its result is the one verified.

use crate::error::{Error, Result};
use crate::git::cli;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `git` program pointed at one repository.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    /// A folder inside the repository's main work tree; commands run there.
    root: PathBuf,
    /// `Name <email>` for the commits the refinery makes (config `git.author`), if set.
    author: Option<(String, String)>,
}

/// What `merge-tree` made of two commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Merged {
    /// The merged tree's id.
    Clean(String),
    /// The paths both sides changed in ways git could not merge.
    Conflict(Vec<String>),
}

impl Git {
    /// Git in the repository around `root`; the refinery's commits carry `author`
    /// (`Name <email>`) when given, else git's own identity.
    pub(crate) fn new(root: &Path, author: Option<&str>) -> Git {
        let author = author.and_then(|a| {
            let (name, rest) = a.split_once('<')?;
            let email = rest.strip_suffix('>')?;
            Some((name.trim().to_string(), email.trim().to_string()))
        });
        Git {
            root: root.to_path_buf(),
            author,
        }
    }

    /// `git ARGS` ready to run in `dir` (default: the root) with `env` added.
    fn command(&self, dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = cli::command(dir.unwrap_or(&self.root));
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `git ARGS` in `dir` (default: the root) and returns its output as it is.
    fn output(&self, dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Result<Output> {
        self.command(dir, args, env)
            .output()
            .map_err(|e| Error::git_with(format!("cannot run git: {e}"), e))
    }

    /// Runs `git ARGS` in `dir` and returns its stdout; a non-zero exit is an error
    /// carrying git's message.
    fn run_in(&self, dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Result<String> {
        // The failure names the subcommand only: its arguments are object ids.
        Ok(cli::stdout(&mut self.command(dir, args, env), &args[..1])?)
    }

    /// Runs `git ARGS` in the root and returns its stdout.
    fn run(&self, args: &[&str]) -> Result<String> {
        self.run_in(None, args, &[])
    }

    /// True when `name` is a valid branch name (`git check-ref-format --branch`).
    pub(crate) fn is_branch_name(&self, name: &str) -> bool {
        !name.starts_with('-')
            && self
                .output(None, &["check-ref-format", "--branch", name], &[])
                .is_ok_and(|o| o.status.success())
    }

    /// The commit branch `name` points at, `None` when there is no such local branch.
    pub(crate) fn branch_tip(&self, name: &str) -> Result<Option<String>> {
        let rev = format!("refs/heads/{name}^{{commit}}");
        let out = self.output(None, &["rev-parse", "--verify", "--quiet", &rev], &[])?;
        let tip = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok((out.status.success() && !tip.is_empty()).then_some(tip))
    }

    /// The branch checked out in the root's work tree, `None` on a detached HEAD.
    pub(crate) fn current_branch(&self) -> Option<String> {
        let out = self
            .output(None, &["symbolic-ref", "--quiet", "--short", "HEAD"], &[])
            .ok()?;
        let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !name.is_empty()).then_some(name)
    }

    /// True when commit `a` is an ancestor of commit `b` (or the same commit).
    pub(crate) fn is_ancestor(&self, a: &str, b: &str) -> Result<bool> {
        let out = self.output(None, &["merge-base", "--is-ancestor", a, b], &[])?;
        match out.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(Error::git(format!(
                "git merge-base failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    }

    /// Merges commit `theirs` into `ours` in the object store (no work tree, no index).
    pub(crate) fn merge_tree(&self, ours: &str, theirs: &str) -> Result<Merged> {
        let out = self.output(
            None,
            &[
                "merge-tree",
                "--write-tree",
                "-z",
                "--name-only",
                "--no-messages",
                ours,
                theirs,
            ],
            &[],
        )?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut parts = text.split('\0').filter(|p| !p.is_empty());
        let tree = parts.next().unwrap_or("").trim().to_string();
        match out.status.code() {
            Some(0) if !tree.is_empty() => Ok(Merged::Clean(tree)),
            Some(1) => {
                let mut paths: Vec<String> = parts.map(str::to_string).collect();
                paths.dedup();
                Ok(Merged::Conflict(paths))
            }
            _ => Err(Error::git(format!(
                "git merge-tree failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    }

    /// Makes a commit of `tree` with `parents` and `message` (nothing else changes) and
    /// returns its id.
    pub(crate) fn commit_tree(
        &self,
        tree: &str,
        parents: &[&str],
        message: &str,
    ) -> Result<String> {
        let mut args = vec!["commit-tree", tree];
        for p in parents {
            args.push("-p");
            args.push(p);
        }
        args.push("-m");
        args.push(message);
        let mut env = Vec::new();
        if let Some((name, email)) = &self.author {
            env.push(("GIT_AUTHOR_NAME", name.as_str()));
            env.push(("GIT_AUTHOR_EMAIL", email.as_str()));
            if self.run(&["var", "GIT_COMMITTER_IDENT"]).is_err() {
                env.push(("GIT_COMMITTER_NAME", name.as_str()));
                env.push(("GIT_COMMITTER_EMAIL", email.as_str()));
            }
        }
        Ok(self.run_in(None, &args, &env)?.trim().to_string())
    }

    /// The repository's own git folder (shared by its worktrees), absolute.
    pub(crate) fn common_dir(&self) -> Option<PathBuf> {
        let out = self
            .run(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .ok()?;
        Some(PathBuf::from(out.trim()))
    }

    /// The paths the commits of `head` change since it left `tip` (`git diff
    /// tip...head`).
    pub(crate) fn changed_paths(&self, tip: &str, head: &str) -> Result<Vec<String>> {
        let range = format!("{tip}...{head}");
        let out = self.run(&["diff", "--name-only", "-z", "--no-renames", &range, "--"])?;
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect())
    }

    /// The paths the commits of `head` add or change as symlinks since it left `tip`
    /// (`git diff --raw tip...head`, new mode 120000).
    pub(crate) fn symlinks_added(&self, tip: &str, head: &str) -> Result<Vec<String>> {
        let range = format!("{tip}...{head}");
        let out = self.run(&["diff", "--raw", "-z", "--no-renames", &range, "--"])?;
        let mut fields = out.split('\0').filter(|f| !f.is_empty());
        let mut found = Vec::new();
        while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
            // `:OLDMODE NEWMODE OLDSHA NEWSHA STATUS`
            if meta.split(' ').nth(1) == Some("120000") {
                found.push(path.to_string());
            }
        }
        Ok(found)
    }

    /// The file `path` at commit `rev`, if it is there.
    pub(crate) fn show_file(&self, rev: &str, path: &str) -> Option<String> {
        self.run(&["show", &format!("{rev}:{path}")]).ok()
    }

    /// The subjects of the commits in `to` that are not in `from`, oldest first.
    pub(crate) fn subjects(&self, from: &str, to: &str) -> Result<Vec<String>> {
        let range = format!("{from}..{to}");
        let out = self.run(&["log", "--reverse", "--format=%s", &range, "--"])?;
        Ok(out.lines().map(str::to_string).collect())
    }

    /// Moves branch `name` from `old` to `new` only if it still points at `old`; `false`
    /// when it had moved (nothing changed).
    pub(crate) fn move_branch(&self, name: &str, new: &str, old: &str, why: &str) -> Result<bool> {
        let reference = format!("refs/heads/{name}");
        let out = self.output(None, &["update-ref", "-m", why, &reference, new, old], &[])?;
        if out.status.success() {
            return Ok(true);
        }
        match self.branch_tip(name)? {
            Some(now) if now != old => Ok(false),
            None => Ok(false),
            _ => Err(Error::git(format!(
                "git update-ref failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    }

    /// The work trees (the main one and linked ones) that have branch `name` checked out.
    pub(crate) fn checkouts_of(&self, name: &str) -> Result<Vec<PathBuf>> {
        let out = self.run(&["worktree", "list", "--porcelain", "-z"])?;
        let wanted = format!("branch refs/heads/{name}");
        let mut found = Vec::new();
        let mut dir: Option<&str> = None;
        for field in out.split('\0') {
            if let Some(d) = field.strip_prefix("worktree ") {
                dir = Some(d);
            } else if field == wanted
                && let Some(d) = dir
            {
                found.push(PathBuf::from(d));
            }
        }
        Ok(found)
    }

    /// Checks that the checkout at `dir` can move from commit `old` to `new` as
    /// `git merge --ff-only` would move it: no local change in a path the move touches.
    pub(crate) fn can_bring_along(&self, dir: &Path, old: &str, new: &str) -> Result<()> {
        // Fresh stat data, so an untouched file is never taken for a local change.
        let _ = self.output(Some(dir), &["update-index", "-q", "--refresh"], &[]);
        self.run_in(Some(dir), &["read-tree", "-m", "-u", "-n", old, new], &[])
            .map(|_| ())
    }

    /// Moves the index and files of the checkout at `dir` from commit `old` to `new`
    /// (only the paths that differ; local changes elsewhere stay).
    pub(crate) fn bring_along(&self, dir: &Path, old: &str, new: &str) -> Result<()> {
        self.run_in(Some(dir), &["read-tree", "-m", "-u", old, new], &[])
            .map(|_| ())
    }

    /// A worker's worktree at `dir` on `branch`: a new branch from `start`, or the branch
    /// as it is when it exists already (`git worktree add [-b BRANCH] DIR ...`).
    pub(crate) fn worker_worktree(&self, dir: &Path, branch: &str, start: &str) -> Result<()> {
        let d = dir.to_string_lossy();
        if self.branch_tip(branch)?.is_some() {
            self.run(&["worktree", "add", "--quiet", &d, branch])
        } else {
            self.run(&["worktree", "add", "--quiet", "-b", branch, &d, start])
        }
        .map(|_| ())
    }

    /// `git worktree add --detach DIR COMMIT`.
    pub(crate) fn worktree_add(&self, dir: &Path, commit: &str) -> Result<()> {
        let d = dir.to_string_lossy();
        self.run(&["worktree", "add", "--detach", "--quiet", &d, commit])
            .map(|_| ())
    }

    /// Removes the worktree at `dir` (its files and git's record of it), whatever state
    /// it is in; never fails.
    pub(crate) fn worktree_remove(&self, dir: &Path) {
        let d = dir.to_string_lossy();
        let removed = self
            .output(None, &["worktree", "remove", "--force", "--force", &d], &[])
            .is_ok_and(|o| o.status.success());
        if !removed || dir.exists() {
            // Half made or half removed: the folder goes, then git forgets it.
            let _ = std::fs::remove_dir_all(dir);
            let _ = self.output(None, &["worktree", "prune"], &[]);
        }
    }
}
