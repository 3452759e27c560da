//! The temporary worktree a commit is judged in (a merge request's candidate, a work's
//! commit when its checkout has uncommitted changes, a pushed tree): `git worktree add --detach`
//! under the system's temp folder (`$TMPDIR`), named `vermas-worktree-<pid>-<n>`, and
//! always removed: when its guard is dropped (after the verification, on an error, on a
//! panic) and, on Ctrl-C or a termination signal, by the signal cleanup before vermas
//! exits (see [`crate::proc::interrupt::on_signal`]).

use super::commands::Git;
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
        CLEANUP.call_once(|| crate::proc::interrupt::on_signal(remove_all));
        let tmp = std::env::temp_dir();
        // Canonical, so the checks see the same path git records for the worktree.
        let tmp = std::fs::canonicalize(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let dir = tmp.join(format!(
            "vermas-worktree-{}-{}",
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

impl TempWorktree {
    /// The temporary worktrees of this repository that a run which died left in the temp
    /// folder: named `vermas-worktree-<pid>-<n>`, no process `<pid>` alive, and git's link
    /// file there pointing into this repository.
    pub fn leftovers(git: &Git) -> Vec<PathBuf> {
        let Some(common) = git.common_dir() else {
            return Vec::new();
        };
        let ours = format!("gitdir: {}/worktrees/", common.display());
        let tmp = std::env::temp_dir();
        let tmp = std::fs::canonicalize(&tmp).unwrap_or(tmp);
        std::fs::read_dir(&tmp)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let pid = name.strip_prefix("vermas-worktree-")?.split_once('-')?.0;
                pid.parse::<u32>().ok()?;
                let alive = Path::new("/proc").join(pid).exists();
                let link = std::fs::read_to_string(e.path().join(".git")).ok()?;
                (!alive && link.starts_with(&ours)).then(|| e.path())
            })
            .collect()
    }

    /// Removes the [`leftovers`] and the entries git keeps for them (called by a run holding
    /// the run lock).
    pub fn prune_leftovers(git: &Git) {
        for dir in TempWorktree::leftovers(git) {
            git.worktree_remove(&dir);
        }
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
