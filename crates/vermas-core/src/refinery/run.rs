//! `refinery run`: takes waiting requests oldest first, up to `refinery.batch` (or
//! `--batch`) for the target of the oldest at a time; marks them `verifying` (one commit)
//! and settles them as a batch (see [`super::batch`]: stacked onto the target's tip,
//! verified once in a temporary worktree through the Inspector's pipeline, landed by one
//! compare-and-swap, halved on a failure). A batch a killed run left `merging` whose
//! candidate the target holds is finished first.

use super::batch::{Event, Settler, Verification};
use super::request::{self, MergeRequest, State};
use super::settle::Taken;
use crate::error::Result;
use crate::git::Git;
use crate::git::TempWorktree;
use crate::store::{CommitMessage, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;

/// What `refinery run` is asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Take only the oldest waiting batch.
    pub once: bool,
    /// Use cached LLM replies.
    pub use_cache: bool,
    /// How many requests to verify together, else `refinery.batch`.
    pub batch: Option<usize>,
}

/// What a run did.
#[derive(Debug, Serialize)]
pub struct Ran {
    /// Every request settled (or re-queued), in order.
    pub taken: Vec<Taken>,
    /// Every verification made, in order.
    pub verifications: Vec<Verification>,
}

/// Takes waiting requests oldest first (one batch with `once`, else until none waits), as
/// `actor`; `seen` hears of each as it is settled. One run at a time: a second waits.
pub fn run(
    ws: &Workspace,
    actor: &str,
    opts: RunOptions,
    mut seen: impl FnMut(&Taken),
) -> Result<Vec<Taken>> {
    let ran = run_batches(ws, actor, opts, |e| {
        if let Event::Taken(t) = e {
            seen(t);
        }
    })?;
    Ok(ran.taken)
}

/// [`run`], telling `seen` of each verification too.
pub fn run_batches(
    ws: &Workspace,
    actor: &str,
    opts: RunOptions,
    mut seen: impl FnMut(Event<'_>),
) -> Result<Ran> {
    crate::bead::ops::check_actor(actor)?;
    // The refinery's own settings (strategy, retries, batch, the approvers file it
    // protects) as committed (with approvers, as signed), like every verdict setting.
    let mut trusted_ws = ws.clone();
    trusted_ws.config = crate::trusted::Trusted::of(ws)?.config;
    let ws = &trusted_ws;
    let git = super::queue::repository(ws)?;
    let _lock = super::queue::lock_runs(ws)?;
    // This run holds the lock: worktrees of runs that died are provably left over.
    TempWorktree::prune_leftovers(&git);
    let size = opts.batch.unwrap_or(ws.config.refinery.batch).max(1);
    let mut settler = Settler {
        ws,
        git: &git,
        actor,
        use_cache: opts.use_cache,
        seen: &mut seen,
        taken: Vec::new(),
        verifications: Vec::new(),
    };
    loop {
        let (all, _) = request::load_all(ws)?;
        // A request left `verifying` or `merging` was being settled by a run that was
        // interrupted (this run holds the lock, so no other is at it): it is taken again;
        // a NEEDS_HUMAN one once its question is answered.
        let waiting: Vec<MergeRequest> = all
            .into_iter()
            .filter(|r| r.state.is_waiting() || answered(ws, &git, r))
            .collect();
        let Some(first) = waiting.first() else {
            break;
        };
        if let Some(landed) = landed_batch(&git, &waiting)? {
            settler.finish(landed)?;
        } else {
            let target = first.target.clone();
            let group: Vec<MergeRequest> = waiting
                .into_iter()
                .filter(|r| r.target == target)
                .take(size)
                .collect();
            let group = mark_verifying(ws, actor, group)?;
            settler.settle(group, true)?;
        }
        if opts.once {
            break;
        }
    }
    Ok(Ran {
        taken: settler.taken,
        verifications: settler.verifications,
    })
}

/// True for a NEEDS_HUMAN request whose question a person has answered about the
/// branch as it is now.
fn answered(ws: &Workspace, git: &Git, req: &MergeRequest) -> bool {
    if req.state != State::NeedsHuman {
        return false;
    }
    let Ok(work) = crate::bead::store::load_one(ws, &req.bead) else {
        return false;
    };
    let state = git.branch_tip(&req.branch).ok().flatten().and_then(|tip| {
        crate::git::GitRepo::open(&ws.root)
            .and_then(|r| r.work_fingerprint(&tip, crate::workspace::BEADS_DIR))
    });
    crate::inspect::answer::latest(ws, &work, state.as_deref()).is_some()
}

/// The requests of a batch a killed run left `merging` after the target moved to their
/// candidate: the first such request's batch, if any.
fn landed_batch(git: &Git, waiting: &[MergeRequest]) -> Result<Option<Vec<MergeRequest>>> {
    for r in waiting.iter().filter(|r| r.state == State::Merging) {
        let Some(candidate) = &r.candidate else {
            continue;
        };
        let landed = match git.branch_tip(&r.target)? {
            Some(now) => &now == candidate || git.is_ancestor(candidate, &now)?,
            None => false,
        };
        if landed && r.target_tip.is_some() {
            let same = |o: &&MergeRequest| {
                o.state == State::Merging && o.candidate == r.candidate && o.target == r.target
            };
            return Ok(Some(waiting.iter().filter(same).cloned().collect()));
        }
    }
    Ok(None)
}

/// Marks `group` `verifying`, each one more attempt, in one commit; returns the requests as
/// marked.
fn mark_verifying(
    ws: &Workspace,
    actor: &str,
    mut group: Vec<MergeRequest>,
) -> Result<Vec<MergeRequest>> {
    let now = Timestamp::now();
    let mut txn = Txn::begin(ws)?;
    let mut ids = Vec::new();
    for req in &mut group {
        req.state = State::Verifying;
        req.attempts += 1;
        req.reason = None;
        req.conflicts.clear();
        req.updated_at = now;
        txn.write(
            &request::path(ws, &req.id),
            request::render(req)?.as_bytes(),
        )?;
        ids.push(req.id.clone());
        ids.push(req.bead.clone());
    }
    let title = match group.as_slice() {
        [one] => format!("{} -> {}", one.branch, one.target),
        all => format!(
            "batch of {} -> {}",
            all.len(),
            all.first().map_or("", |r| r.target.as_str())
        ),
    };
    txn.commit(&CommitMessage {
        verb: "refinery verify".into(),
        ids,
        title,
        actor: actor.to_string(),
    })?;
    Ok(group)
}
