//! The merge queue: submitting a branch (one request record, one commit), listing the
//! requests, and the lock that lets one `refinery run` at a time take them.

use super::request::{self, MergeRequest, State};
use crate::error::{Error, Result};
use crate::git::Git;
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::fs::File;

/// What `refinery submit` is asked.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The branch to land; none: the branch checked out here (a worker's worktree).
    pub branch: Option<String>,
    /// The work bead (id or unique prefix); none: the bead named by the branch's last
    /// `/` part.
    pub bead: Option<String>,
    /// The target; none: config `refinery.target`, else the branch checked out.
    pub into: Option<String>,
}

/// What a submission did.
#[derive(Debug, Clone)]
pub struct Submitted {
    /// The request (an existing waiting one when the same branch and target were queued
    /// already).
    pub request: MergeRequest,
    /// False when an equal request was waiting already: nothing was written.
    pub queued: bool,
    /// Its place among the requests waiting now (1: taken next).
    pub position: usize,
    /// The commit, when one was made.
    pub recorded: Option<Recorded>,
}

/// Queues `sub` as `actor`: checks the branch, target and bead, writes
/// `.beads/mq/<id>.yaml` and commits it. A branch already waiting for the same target is
/// left as it is.
pub fn submit(ws: &Workspace, actor: &str, sub: &Submission) -> Result<Submitted> {
    crate::bead::ops::check_actor(actor)?;
    let git = repository(ws)?;
    let here = git.current_branch();
    let branch = match &sub.branch {
        Some(b) => b.trim().to_string(),
        None => here
            .clone()
            .ok_or_else(|| Error::usage("HEAD is detached: name the branch to submit"))?,
    };
    let branch = branch.as_str();
    if sub.branch.is_none()
        && sub.bead.is_none()
        && crate::bead::store::owner_of_branch(ws, branch)?.is_none()
    {
        return Err(Error::usage(format!(
            "no bead's work is on branch '{branch}', the one checked out here"
        ))
        .with_help(
            "name the branch and its bead: `vermas refinery submit BRANCH --bead ID` (in a \
             worker's worktree made by `sling --worktree`, no arguments are needed)",
        ));
    }
    if !git.is_branch_name(branch) || git.branch_tip(branch)?.is_none() {
        return Err(Error::invalid_with_help(
            format!("branch '{branch}' does not exist"),
            "submit a local branch: `git branch` lists them",
        ));
    }
    let target = target_of(ws, &git, sub.into.as_deref())?;
    if target == branch {
        return Err(Error::Invalid(format!(
            "branch '{branch}' cannot be merged into itself: name another target with --into"
        )));
    }
    let bead = bead_of(ws, branch, sub.bead.as_deref())?;
    let mut txn = Txn::begin(ws)?;
    let (all, _) = request::load_all(ws)?;
    let waiting: Vec<&MergeRequest> = all.iter().filter(|r| r.state.is_waiting()).collect();
    if let Some(i) = waiting
        .iter()
        .position(|r| r.branch == branch && r.target == target)
    {
        return Ok(Submitted {
            request: waiting[i].clone(),
            queued: false,
            position: i + 1,
            recorded: None,
        });
    }
    let position = waiting.len() + 1;
    let now = Timestamp::now();
    let req = MergeRequest {
        id: request::new_id(ws, branch, actor, all.len()),
        seq: all.iter().map(|r| r.seq).max().unwrap_or(0) + 1,
        branch: branch.to_string(),
        bead: bead.clone(),
        target: target.clone(),
        state: State::Queued,
        attempts: 0,
        last_verdict: None,
        reason: None,
        conflicts: Vec::new(),
        target_tip: None,
        candidate: None,
        merged_commit: None,
        batch: None,
        submitted_by: actor.to_string(),
        created_at: now,
        updated_at: now,
    };
    txn.write(
        &request::path(ws, &req.id),
        request::render(&req)?.as_bytes(),
    )?;
    let recorded = txn.commit(&CommitMessage {
        verb: "refinery submit".into(),
        ids: vec![req.id.clone(), bead],
        title: format!("{branch} -> {target}"),
        actor: actor.to_string(),
    })?;
    Ok(Submitted {
        request: req,
        queued: true,
        position,
        recorded: Some(recorded),
    })
}

/// Git in the workspace's repository; the refinery has nothing to do outside one.
pub fn repository(ws: &Workspace) -> Result<Git> {
    let repo = crate::git::GitRepo::open(&ws.root).ok_or_else(|| {
        Error::Invalid(format!(
            "{} is not in a git work tree: the refinery merges git branches",
            ws.root.display()
        ))
    })?;
    Ok(Git::new(repo.workdir(), ws.config.git.author.as_deref()))
}

/// The target: `into`, else config `refinery.target`, else the branch checked out; it
/// must be an existing local branch.
fn target_of(ws: &Workspace, git: &Git, into: Option<&str>) -> Result<String> {
    let (target, from) = match (into, ws.config.refinery.target.as_deref()) {
        (Some(t), _) => (t.trim().to_string(), "--into"),
        (None, Some(t)) => (t.trim().to_string(), "config refinery.target"),
        (None, None) => (
            main_branch(ws)
                .or_else(|| git.current_branch())
                .ok_or_else(|| {
                    Error::invalid_with_help(
                        "HEAD is detached, so there is no current branch to merge into",
                        "name the target with --into BRANCH, or set `refinery.target`",
                    )
                })?,
            "the current branch",
        ),
    };
    if !git.is_branch_name(&target) || git.branch_tip(&target)?.is_none() {
        return Err(Error::invalid_with_help(
            format!("target branch '{target}' ({from}) does not exist"),
            "merge requests land on a local branch: `git branch` lists them",
        ));
    }
    Ok(target)
}

/// The branch checked out in the repository's main worktree, when this is a linked one
/// (a worker's worktree submits into the branch the main worktree holds).
fn main_branch(ws: &Workspace) -> Option<String> {
    let linked = crate::git::linked_checkout(&ws.root).ok()??;
    crate::git::GitRepo::open(&linked.main)?.head_branch()
}

/// The work bead the branch is judged as: the one `sling` recorded the branch on; else
/// `given` (a test spec stands for its work), else the bead whose id is the branch's last
/// `/` part (`polecat/vm-k3f9`). Refused when `given` is another bead than the branch's,
/// or when the bead is recorded with another branch: a branch is judged as the work it is.
fn bead_of(ws: &Workspace, branch: &str, given: Option<&str>) -> Result<String> {
    let owner = crate::bead::store::owner_of_branch(ws, branch)?;
    let named = match given {
        Some(id) => Some(crate::inspect::pipeline::work_and_spec(ws, id)?.0),
        None if owner.is_some() => None,
        None => {
            let last = branch.rsplit('/').next().unwrap_or(branch);
            match ws.bead_ids()?.into_iter().find(|id| id == last) {
                Some(id) => Some(crate::inspect::pipeline::work_and_spec(ws, &id)?.0),
                None => {
                    return Err(
                        Error::usage(format!("no bead to judge branch '{branch}' by")).with_help(
                            "give --bead ID: the work whose approved test spec decides whether \
                         the branch lands (or name the branch after it, e.g. \
                         `polecat/vm-k3f9`)",
                        ),
                    );
                }
            }
        }
    };
    match (owner, named) {
        (Some(o), Some(n)) if o.id != n.id => Err(Error::invalid_with_help(
            format!(
                "branch '{branch}' is the work of {} (sling recorded it), not of {}",
                o.id, n.id
            ),
            format!(
                "a branch is judged as the work it is: submit it for {} (or leave --bead out)",
                o.id
            ),
        )),
        (Some(o), _) => Ok(o.id),
        (None, Some(n)) => match &n.branch {
            Some(other) if other != branch => Err(Error::invalid_with_help(
                format!("{} is recorded with branch '{other}', not '{branch}'", n.id),
                format!(
                    "submit '{other}' for {}, or sling it again to move its work",
                    n.id
                ),
            )),
            _ => Ok(n.id),
        },
        (None, None) => Err(Error::usage(format!(
            "no bead to judge branch '{branch}' by"
        ))),
    }
}

/// Every request in queue order, plus the files that did not read.
pub fn list(ws: &Workspace) -> Result<(Vec<MergeRequest>, Vec<Error>)> {
    request::load_all(ws)
}

/// Takes the queue's run lock (`.beads/.cache/refinery.lock`), waiting for another
/// `refinery run` to finish; released when the file is dropped.
pub fn lock_runs(ws: &Workspace) -> Result<File> {
    ws.lock_file(&ws.cache_dir(), "refinery.lock")
}
