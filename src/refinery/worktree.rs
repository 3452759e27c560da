//! The temporary worktree a merge request is verified in: `git worktree add --detach`
//! under the system's temp folder (`$TMPDIR`), named `vermas-refinery-<pid>-<n>`, and
//! always removed: when its guard is dropped (after the verification, on an error, on a
//! panic) and, on Ctrl-C or a termination signal, by the signal cleanup before vermas
//! exits (see [`crate::check::reaper::on_signal`]).

use super::git_cli::Git;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};

/// The worktrees alive now, each with the git that made it, for the signal cleanup.
static LIVE: Mutex<Vec<(Git, PathBuf)>> = Mutex::new(Vec::new());
/// Numbers the worktrees of this process.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// A temporary worktree at one commit; removed when dropped.
#[derive(Debug)]
pub struct TempWorktree {
    git: Git,
    dir: PathBuf,
}

impl TempWorktree {
    /// Checks out `commit` (detached) in a new folder under the temp folder.
    pub fn add(git: &Git, commit: &str) -> Result<TempWorktree> {
        static CLEANUP: Once = Once::new();
        CLEANUP.call_once(|| crate::check::reaper::on_signal(remove_all));
        let tmp = std::env::temp_dir();
        // Canonical, so the checks see the same path git records for the worktree.
        let tmp = std::fs::canonicalize(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let dir = tmp.join(format!(
            "vermas-refinery-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        // Known before it exists, so a signal during `worktree add` still removes it.
        lock().push((git.clone(), dir.clone()));
        let guard = TempWorktree {
            git: git.clone(),
            dir,
        };
        git.worktree_add(&guard.dir, commit)
            .map_err(|e| Error::git_with(format!("cannot make a worktree at {commit}: {e}"), e))?;
        Ok(guard)
    }

    /// The worktree's folder (canonical).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for TempWorktree {
    fn drop(&mut self) {
        self.git.worktree_remove(&self.dir);
        lock().retain(|(_, d)| *d != self.dir);
    }
}

/// Removes every worktree this process still has (the signal cleanup).
fn remove_all() {
    let live: Vec<(Git, PathBuf)> = lock().drain(..).collect();
    for (git, dir) in live {
        git.worktree_remove(&dir);
    }
}

/// The list of live worktrees, recovering from a poisoned lock.
fn lock() -> std::sync::MutexGuard<'static, Vec<(Git, PathBuf)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}
