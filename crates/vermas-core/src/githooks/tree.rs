//! Where the pre-push gate verifies a pushed commit: in the checkout itself when it holds
//! exactly that tree, else in a temporary worktree of the commit (the refinery's
//! [`TempWorktree`]: under the temp folder, always removed, also on a signal).

use super::push::PushTarget;
use crate::error::Result;
use crate::git::Git;
use crate::git::GitRepo;
use crate::git::TempWorktree;
use std::path::{Path, PathBuf};

/// A checkout of one pushed commit, for as long as it is needed.
#[derive(Debug)]
pub struct PushedTree {
    /// The spec root inside the checkout (the repository root, or the folder of `.beads`).
    root: PathBuf,
    /// The temporary worktree, when the commit is not the checkout itself; removed on drop.
    worktree: Option<TempWorktree>,
}

impl PushedTree {
    /// The checkout of `target`: `root` itself when the target is in place, else a new
    /// temporary worktree of its commit, with the spec root at the same place under it as
    /// `root` is in `repo`'s work tree.
    pub fn open(repo: &GitRepo, root: &Path, target: &PushTarget) -> Result<PushedTree> {
        if target.in_place {
            return Ok(PushedTree {
                root: root.to_path_buf(),
                worktree: None,
            });
        }
        let tree = TempWorktree::add(&Git::new(repo.workdir(), None), &target.commit)?;
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let workdir =
            std::fs::canonicalize(repo.workdir()).unwrap_or_else(|_| repo.workdir().to_path_buf());
        let inside = root.strip_prefix(&workdir).unwrap_or(Path::new(""));
        Ok(PushedTree {
            root: tree.dir().join(inside),
            worktree: Some(tree),
        })
    }

    /// The spec root to read specs from and run checks in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The temporary worktree's folder, when there is one.
    pub fn temporary(&self) -> Option<&Path> {
        self.worktree.as_ref().map(TempWorktree::dir)
    }
}
