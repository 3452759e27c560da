//! `vermas sync`: sharing the ledger with other machines through git alone. Fetch the
//! remote, merge its branch into the ledger's branch under the ledger's write lock (made in
//! the object store and landed so a kill leaves the checkout before or after it, see
//! [`merge`]), push, and on a rejected push fetch, merge and push again a bounded number of
//! times.

mod merge;

pub(crate) use merge::KeptDeleted;

use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::git::cli::{GitFailed, command, stdout};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How many times a push is tried before giving up on a remote that keeps moving.
pub(crate) const MAX_TRIES: u32 = 12;

/// What a finished sync did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Synced {
    /// The remote synced with.
    pub remote: String,
    /// The ledger's local branch.
    pub branch: String,
    /// The remote's branch merged and pushed to (e.g. `main`).
    pub remote_branch: String,
    /// Record files under `.beads/` the merges changed.
    pub pulled: usize,
    /// Commits the push brought to the remote.
    pub pushed: usize,
    /// Pushes tried (1 unless someone pushed meanwhile).
    pub tries: u32,
    /// True when the remote had no such branch and the push created it.
    pub created: bool,
    /// True when the branch has no upstream, so sync chose `remote/remote_branch`.
    pub chosen: bool,
    /// Records deleted on one side and changed on the other: they stay deleted.
    pub kept_deleted: Vec<KeptDeleted>,
}

/// Where a sync goes: the ledger's checkout, its branch and the remote's branch.
struct Target {
    /// The work tree holding `.beads`.
    dir: PathBuf,
    /// `.beads` relative to `dir`, as git names paths.
    beads: String,
    /// The local branch checked out there.
    branch: String,
    /// The remote's name.
    remote: String,
    /// The branch on the remote.
    remote_branch: String,
    /// The folder of the running vermas, put first on git's PATH for the merge driver.
    exe_dir: Option<PathBuf>,
    /// The repository, read in-process (no `git` process for what it can tell).
    repo: GitRepo,
    /// True when the branch has no upstream configured (sync chose the remote branch).
    chosen: bool,
}

impl Target {
    /// The remote-tracking ref the fetch updates.
    fn tracking(&self) -> String {
        format!("refs/remotes/{}/{}", self.remote, self.remote_branch)
    }

    /// Runs `git ARGS` in the ledger's checkout, the vermas binary's folder first on PATH.
    fn git(&self, args: &[&str]) -> std::result::Result<String, GitFailed> {
        let mut cmd = command(&self.dir);
        if let Some(bin) = &self.exe_dir {
            let mut paths = vec![bin.clone()];
            if let Some(old) = std::env::var_os("PATH") {
                paths.extend(std::env::split_paths(&old));
            }
            if let Ok(joined) = std::env::join_paths(paths) {
                cmd.env("PATH", joined);
            }
        }
        stdout(cmd.args(args), args)
    }

    /// The commit `rev` (`HEAD` or a full reference name) names, `None` when it names none.
    fn commit(&self, rev: &str) -> Option<String> {
        if rev == "HEAD" {
            return self.repo.head_commit();
        }
        self.repo.ref_commit(rev)
    }
}

/// Syncs the ledger of `ws` with `remote` (default: its branch's upstream remote, else
/// `origin`); `exe_dir` is put first on git's PATH so git finds `vermas merge-file`.
pub fn sync(ws: &Workspace, remote: Option<&str>, exe_dir: Option<&Path>) -> Result<Synced> {
    let target = locate(ws, remote, exe_dir)?;
    let mut merged = merge::Merged::default();
    let mut last = String::new();
    for tries in 1..=MAX_TRIES {
        // The first look asks the remote for its tip alone: when this clone has that
        // commit already (nothing new there), no fetch is needed.
        let theirs = if tries == 1 {
            peek(&target)?
        } else {
            fetch(&target)?
        };
        if let Some(theirs) = &theirs {
            let now = merge::merge(ws, &target, theirs)?;
            merged.pulled += now.pulled;
            merged.kept_deleted.extend(now.kept_deleted);
        }
        let ours = target
            .commit("HEAD")
            .ok_or_else(|| Error::git("the ledger's branch has no commit yet"))?;
        if theirs.as_deref() == Some(ours.as_str()) {
            return Ok(done(&target, merged, 0, tries, false));
        }
        let range = match &theirs {
            Some(t) => format!("{t}..{ours}"),
            None => ours.clone(),
        };
        let pushed: usize = target
            .git(&["rev-list", "--count", &range])?
            .trim()
            .parse()
            .unwrap_or(0);
        let refspec = format!("{ours}:refs/heads/{}", target.remote_branch);
        match target.git(&["push", "-q", "--porcelain", &target.remote, &refspec]) {
            Ok(_) => {
                // The tracking ref follows the push, so both sides read equal at once.
                let _ = target.git(&["update-ref", &target.tracking(), &ours]);
                if target.commit(&target.tracking()).as_deref() != Some(ours.as_str()) {
                    return Err(Error::git(format!(
                        "pushed, but {}/{} does not show the ledger's branch",
                        target.remote, target.remote_branch
                    )));
                }
                return Ok(done(&target, merged, pushed, tries, theirs.is_none()));
            }
            Err(e) if rejected(&e) => {
                last = e.message;
                std::thread::sleep(jitter(tries));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::git(format!(
        "{}/{} kept moving: the push was rejected {MAX_TRIES} times (last: {last})",
        target.remote, target.remote_branch
    )))
}

/// The result of a sync that ended with both branches equal.
fn done(
    target: &Target,
    merged: merge::Merged,
    pushed: usize,
    tries: u32,
    created: bool,
) -> Synced {
    Synced {
        remote: target.remote.clone(),
        branch: target.branch.clone(),
        remote_branch: target.remote_branch.clone(),
        pulled: merged.pulled,
        pushed,
        tries,
        created,
        chosen: target.chosen,
        kept_deleted: merged.kept_deleted,
    }
}

/// The ledger's checkout, branch, remote and remote branch; refused without a remote.
fn locate(ws: &Workspace, remote: Option<&str>, exe_dir: Option<&Path>) -> Result<Target> {
    let repo = GitRepo::open(&ws.beads_dir).ok_or_else(|| {
        Error::wrong_state("the ledger is not in a git repository: there is nothing to sync")
            .with_help("`git init`, then `git remote add origin URL`")
    })?;
    let dir = repo.workdir().to_path_buf();
    let beads = ws
        .beads_dir
        .strip_prefix(&dir)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| crate::workspace::BEADS_DIR.to_string());
    let branch = repo.head_branch().unwrap_or_default();
    if branch.is_empty() {
        return Err(Error::wrong_state(
            "the ledger's checkout is on no branch (detached HEAD): there is nothing to sync",
        )
        .with_help("`git switch BRANCH` in the ledger's checkout, then `vermas sync`"));
    }
    let config = |key: String| {
        repo.config_value(&key)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let upstream_remote = config(format!("branch.{branch}.remote"));
    let upstream_branch = config(format!("branch.{branch}.merge"));
    let remote = remote
        .map(str::to_string)
        .or(upstream_remote.clone())
        .unwrap_or_else(|| "origin".to_string());
    let (remote_branch, chosen) = match upstream_branch {
        Some(b) if upstream_remote.as_deref() == Some(remote.as_str()) => (
            b.strip_prefix("refs/heads/").unwrap_or(&b).to_string(),
            false,
        ),
        _ => (branch.clone(), true),
    };
    if config(format!("remote.{remote}.url")).is_none() {
        return Err(Error::wrong_state(format!(
            "no remote named '{remote}' to sync the ledger's branch '{branch}' with"
        ))
        .with_help(format!(
            "add one: `git remote add {remote} URL`, then `git push --set-upstream {remote} \
             {branch}` (or name another: `vermas sync REMOTE`)"
        )));
    }
    Ok(Target {
        dir,
        beads,
        branch,
        remote,
        remote_branch,
        exe_dir: exe_dir.map(Path::to_path_buf),
        repo,
        chosen,
    })
}

/// The remote branch's tip without fetching when this clone holds it already in the
/// ledger's branch (the tracking ref then set to it), else as [`fetch`] finds it.
fn peek(target: &Target) -> Result<Option<String>> {
    let branch = format!("refs/heads/{}", target.remote_branch);
    let listed = target.git(&["ls-remote", "-q", &target.remote, &branch])?;
    let Some(tip) = listed.lines().find_map(|l| {
        l.strip_suffix(&branch)?
            .trim_end()
            .get(..40)
            .map(str::to_string)
    }) else {
        return fetch(target);
    };
    let Some(head) = target.commit("HEAD") else {
        return fetch(target);
    };
    let known =
        tip == head || target.repo.merge_base(&head, &tip).ok().flatten() == Some(tip.clone());
    if !known {
        return fetch(target);
    }
    if target.commit(&target.tracking()).as_deref() != Some(tip.as_str()) {
        target.git(&["update-ref", &target.tracking(), &tip])?;
    }
    Ok(Some(tip))
}

/// Fetches the remote's branch into its tracking ref; its commit, `None` when the remote
/// has no such branch yet.
///
/// A tracking ref another git holds locked (the `git fetch` of a sync killed a moment ago
/// still finishing, or another clone's sync of this checkout) is waited for, up to
/// [`LOCK_WAIT`], rather than failing the sync.
fn fetch(target: &Target) -> Result<Option<String>> {
    let refspec = format!("+refs/heads/{}:{}", target.remote_branch, target.tracking());
    let started = std::time::Instant::now();
    loop {
        match target.git(&["fetch", "-q", "--no-tags", &target.remote, &refspec]) {
            Ok(_) => return Ok(target.commit(&target.tracking())),
            Err(e) if e.message.contains("couldn't find remote ref") => return Ok(None),
            Err(e) if e.message.contains("cannot lock ref") && started.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// How long a fetch waits for a tracking ref another git holds locked.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The refusal of a merge that cannot be made here, saying what to do: `conflicted`
/// files git cannot merge, or `blocked` local changes a merge would overwrite.
fn refusal(target: &Target, conflicted: &[String], blocked: Option<&[String]>) -> Error {
    let upstream = format!("{}/{}", target.remote, target.remote_branch);
    match blocked {
        Some(paths) => Error::conflict(format!(
            "sync refused: merging {upstream} into '{}' would overwrite local changes to {}; \
             nothing was changed",
            target.branch,
            paths.join(", ")
        ))
        .with_help(format!(
            "commit or stash the local changes (`vermas doctor --fix` commits a ledger file as \
             it is), then `vermas sync` again (or merge by hand: `git merge {upstream}`)"
        )),
        None => Error::conflict(format!(
            "sync refused: {upstream} conflicts with '{}' in {}; nothing was changed",
            target.branch,
            conflicted.join(", ")
        ))
        .with_help(format!(
            "merge by hand: `git merge {upstream}`, resolve the conflicts, `git commit`, \
             then `vermas sync` again"
        )),
    }
}

/// True when a push was refused because the remote moved on (someone pushed meanwhile).
fn rejected(e: &GitFailed) -> bool {
    let m = &e.message;
    [
        "rejected",
        "non-fast-forward",
        "fetch first",
        "cannot lock ref",
        "failed to update ref",
    ]
    .iter()
    .any(|w| m.contains(w))
}

/// A random pause before try `tries + 1`: exponential backoff with full jitter (up to
/// 50 ms, then 100, 200 ... capped at 2 s), so syncs that keep colliding spread out
/// instead of colliding again.
fn jitter(tries: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let ceiling = (50u64 << tries.saturating_sub(1).min(6)).min(2000);
    Duration::from_millis(10 + random % ceiling)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_told_from_other_push_failures() {
        let failed = |message: &str| GitFailed {
            command: "push".into(),
            message: message.into(),
        };
        assert!(rejected(&failed(
            " ! [rejected] main -> main (fetch first)"
        )));
        assert!(!rejected(&failed(
            "fatal: could not read from remote repository"
        )));
        assert!(jitter(1) < Duration::from_millis(111));
    }
}
