//! Which checkout a folder is in: the main worktree or a linked one (`git worktree add`),
//! and for a linked one, where the repository's main worktree is (the one ledger every
//! checkout shares lives there).

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A linked worktree and the main worktree of its repository, both canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedCheckout {
    /// The root of the linked worktree holding the folder asked about.
    pub workdir: PathBuf,
    /// The root of the repository's main worktree.
    pub main: PathBuf,
}

impl LinkedCheckout {
    /// `path` (inside the main worktree) at the same place in this linked worktree.
    pub fn here(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.main) {
            Ok(rel) => self.workdir.join(rel),
            Err(_) => path.to_path_buf(),
        }
    }

    /// `path` (inside this linked worktree) at the same place in the main worktree.
    pub fn in_main(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.workdir) {
            Ok(rel) => self.main.join(rel),
            Err(_) => path.to_path_buf(),
        }
    }
}

/// The linked worktree holding `dir` and its repository's main worktree; `None` when
/// `dir` is in a main worktree, in no repository, or in a submodule. Refused when the
/// repository has no main worktree (bare, with linked worktrees only).
pub fn linked_checkout(dir: &Path) -> Result<Option<LinkedCheckout>> {
    // Cheap first: a linked worktree's `.git` is a file (so is a submodule's); a main
    // worktree's is a folder. Only then is git asked.
    if std::env::var_os("GIT_DIR").is_none() && !dot_git_is_file(dir) {
        return Ok(None);
    }
    let Some(repo) = super::discover(dir) else {
        return Ok(None);
    };
    if repo.kind() != gix::repository::Kind::LinkedWorkTree {
        return Ok(None);
    }
    let Some(workdir) = repo.workdir().map(canonical) else {
        return Ok(None);
    };
    let main = repo
        .main_repo()
        .ok()
        .and_then(|m| m.workdir().map(canonical))
        .filter(|m| m.is_dir());
    match main {
        Some(main) => Ok(Some(LinkedCheckout { workdir, main })),
        None => Err(Error::config(format!(
            "{} is a linked worktree of a repository with no main worktree (a bare \
             repository): there is no main checkout to keep the shared ledger in",
            workdir.display()
        ))
        .with_help(
            "name the ledger every checkout shares with BEADS_DIR, e.g. `export \
             BEADS_DIR=/path/to/ledger/.beads` (then `vermas init` there once)",
        )),
    }
}

/// True when the nearest `.git` at or above `dir` is a file (a linked worktree or a
/// submodule points at its git folder that way).
fn dot_git_is_file(dir: &Path) -> bool {
    let dir = crate::sys::contain::absolute(dir);
    dir.ancestors()
        .find_map(|d| std::fs::symlink_metadata(d.join(".git")).ok())
        .is_some_and(|md| md.is_file())
}

/// `path` with symlinks resolved, else as it is.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
