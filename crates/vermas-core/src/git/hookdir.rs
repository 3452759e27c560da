//! Read-only questions the git hooks ask: where git looks for hooks (answered with gix),
//! and what a push changes (answered by the `git` program).
//!
//! The push questions (merge bases with remote-tracking refs, tree diffs, work-tree
//! cleanliness) shell out to `git`: they are asked from inside a hook that git itself is
//! running, so git is there, and git's own answers are the ones the push will act on. The
//! gix features vermas builds with do not include revision walking with exclusions or tree
//! diffs. Every command here only reads; none takes a lock (`--no-optional-locks`).

use super::{GitRepo, git_err};
use crate::error::Result;
use crate::sys::contain::absolute;
use std::path::PathBuf;

/// What a pushed tip is compared against to find the paths it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushBase {
    /// The commits where the pushed history leaves what the remote already has (their
    /// diffs to the tip are the change), and the tracking refs that were used.
    Commits {
        /// The boundary commits (at least one).
        bases: Vec<String>,
        /// `refs/remotes/<remote>/` or `refs/remotes/`.
        against: String,
    },
    /// The remote already has every pushed commit: nothing changes.
    NothingNew,
    /// Nothing is known of the remote, or the pushed history shares nothing with it: every
    /// commit is being pushed.
    Everything,
}

impl GitRepo {
    /// The folder git runs hooks from: `core.hooksPath` (a relative one is taken from the
    /// work tree root, where git runs hooks), else `hooks` in the common git folder, which
    /// every linked worktree shares.
    pub fn hooks_dir(&self) -> Result<PathBuf> {
        let configured = self
            .repo
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .map_err(git_err)?;
        let dir = match configured {
            Some(p) if !p.as_os_str().is_empty() => self.workdir.join(p),
            _ => self.repo.common_dir().join("hooks"),
        };
        Ok(absolute(&dir))
    }

    /// Runs `git` read-only on this repository and returns its stdout.
    fn git_read(&self, args: &[&str]) -> Result<String> {
        let git_dir = absolute(self.repo.git_dir());
        let mut cmd = super::cli::command(&self.workdir);
        cmd.arg("--git-dir")
            .arg(&git_dir)
            .arg("--work-tree")
            .arg(&self.workdir)
            .args(args);
        Ok(super::cli::stdout(&mut cmd, args)?)
    }

    /// True when `rev` names a commit this repository has.
    pub fn has_commit(&self, rev: &str) -> bool {
        self.git_read(&["cat-file", "-e", &format!("{rev}^{{commit}}")])
            .is_ok()
    }

    /// Paths (relative to the work tree root) that differ between commits `from` and `to`;
    /// both sides of a rename are listed.
    pub fn changed_paths(&self, from: &str, to: &str) -> Result<Vec<String>> {
        let out = self.git_read(&["diff", "--name-only", "-z", "--no-renames", from, to, "--"])?;
        Ok(split_nul(&out))
    }

    /// Every file in the tree of commit `rev`.
    pub fn tree_paths(&self, rev: &str) -> Result<Vec<String>> {
        let out = self.git_read(&["ls-tree", "-r", "-z", "--name-only", rev, "--"])?;
        Ok(split_nul(&out))
    }

    /// True when `rev` names a commit (or a tag of one), not a bare tree or blob.
    pub fn is_commit(&self, rev: &str) -> bool {
        self.git_read(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
        .is_ok()
    }

    /// The tree id of `rev` (a commit, a tag of one, or a tree).
    pub fn tree_of(&self, rev: &str) -> Result<String> {
        Ok(self
            .git_read(&["rev-parse", "--verify", &format!("{rev}^{{tree}}")])?
            .trim()
            .to_string())
    }

    /// True when tracked files match HEAD (staged or not); untracked files are ignored.
    pub fn tracked_clean(&self) -> Result<bool> {
        let out = self.git_read(&["status", "--porcelain", "--untracked-files=no"])?;
        Ok(out.trim().is_empty())
    }

    /// What pushing `tip` to `remote` is compared against when the remote's own value of
    /// the ref is unknown (a new branch): the boundary of `tip`'s history against the
    /// remote's tracking refs, else against any remote-tracking ref.
    pub fn push_base(&self, tip: &str, remote: &str) -> Result<PushBase> {
        let own = format!("refs/remotes/{remote}/");
        let exclude =
            if !remote.is_empty() && !remote.contains(['*', '?', '[']) && self.has_refs(&own)? {
                (format!("--remotes={remote}"), own)
            } else if self.has_refs("refs/remotes/")? {
                ("--remotes".to_string(), "refs/remotes/".to_string())
            } else {
                return Ok(PushBase::Everything);
            };
        let out = self.git_read(&["rev-list", "--boundary", tip, "--not", &exclude.0])?;
        let mut new = 0usize;
        let mut bases = Vec::new();
        for line in out.lines() {
            match line.strip_prefix('-') {
                Some(b) => bases.push(b.trim().to_string()),
                None if !line.trim().is_empty() => new += 1,
                None => {}
            }
        }
        Ok(match (new, bases.is_empty()) {
            (0, _) => PushBase::NothingNew,
            (_, true) => PushBase::Everything,
            (_, false) => PushBase::Commits {
                bases,
                against: exclude.1,
            },
        })
    }

    /// True when some ref starts with `prefix`.
    fn has_refs(&self, prefix: &str) -> Result<bool> {
        let out = self.git_read(&["for-each-ref", "--count=1", "--format=%(refname)", prefix])?;
        Ok(!out.trim().is_empty())
    }
}

/// NUL-separated git output as strings.
fn split_nul(out: &str) -> Vec<String> {
    out.split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}
