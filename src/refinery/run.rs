//! `refinery run`: takes waiting requests oldest first; for each, builds the commit that
//! would land (the branch onto the target's current tip), checks it out in a temporary
//! worktree, runs the Inspector's pipeline there, and only on PASS moves the target with a
//! compare-and-swap. A target that moved meanwhile means verifying again (at most
//! `refinery.max_retries` more times). Every state change is one commit (see
//! [`super::settle`]).

use super::candidate::{self, Candidate};
use super::git_cli::Git;
use super::request::{self, MergeRequest, State};
use super::settle::{self, End, Taken};
use super::worktree::TempWorktree;
use crate::error::{Error, Result};
use crate::inspect::pipeline::{self, Inspection, Options, Upto, Verdict};
use crate::store::{CommitMessage, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::path::Path;

/// What `refinery run` is asked.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Take only the oldest waiting request.
    pub once: bool,
    /// Use cached LLM replies.
    pub use_cache: bool,
}

/// Takes waiting requests oldest first (one with `once`, else until none waits), as
/// `actor`; `seen` hears of each as it is settled. One run at a time: a second waits.
pub fn run(
    ws: &Workspace,
    actor: &str,
    opts: RunOptions,
    mut seen: impl FnMut(&Taken),
) -> Result<Vec<Taken>> {
    crate::bead::ops::check_actor(actor)?;
    let git = super::queue::repository(ws)?;
    let _lock = super::queue::lock_runs(ws)?;
    let mut taken = Vec::new();
    loop {
        let (all, _) = request::load_all(ws)?;
        // A request left `verifying` was being verified by a run that was interrupted
        // (this run holds the lock, so no other is at it): it is taken again.
        let Some(next) = all.into_iter().find(|r| r.state.is_waiting()) else {
            break;
        };
        let t = take(ws, &git, actor, next, opts)?;
        seen(&t);
        taken.push(t);
        if opts.once {
            break;
        }
    }
    Ok(taken)
}

/// Verifies and settles one request: marks it `verifying` (one commit), then records how
/// it ended (one commit). Whatever goes wrong in between ends it as `error`.
fn take(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    mut req: MergeRequest,
    opts: RunOptions,
) -> Result<Taken> {
    req.state = State::Verifying;
    req.attempts += 1;
    req.reason = None;
    req.conflicts.clear();
    req.updated_at = Timestamp::now();
    let mut txn = Txn::begin(ws)?;
    txn.write(
        &request::path(ws, &req.id),
        request::render(&req)?.as_bytes(),
    )?;
    txn.commit(&CommitMessage {
        verb: "refinery verify".into(),
        ids: vec![req.id.clone(), req.bead.clone()],
        title: format!("{} -> {}", req.branch, req.target),
        actor: actor.to_string(),
    })?;
    let end = verify_and_land(ws, git, actor, &mut req, opts)
        .unwrap_or_else(|e| End::error(e.to_string()));
    settle::record(ws, actor, req, end)
}

/// How one verification went.
enum Tried {
    /// It ended the request.
    Ended(Box<End>),
    /// PASS: the candidate may land if the target is still at `tip`.
    Passed {
        ins: Box<Inspection>,
        tip: String,
        candidate: String,
    },
}

/// Verifies the request, again while the target keeps moving (bounded), and lands it
/// on PASS.
fn verify_and_land(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    req: &mut MergeRequest,
    opts: RunOptions,
) -> Result<End> {
    let most = 1 + ws.config.refinery.max_retries;
    let mut tries = 1;
    loop {
        let (ins, tip, candidate) = match verify_once(ws, git, actor, req, opts)? {
            Tried::Ended(end) => return Ok(*end),
            Tried::Passed {
                ins,
                tip,
                candidate,
            } => (ins, tip, candidate),
        };
        match land(ws, git, req, &tip, &candidate)? {
            Landing::Landed { warnings } => {
                let mut end = End::merged(*ins, tip, candidate);
                end.warnings = warnings;
                return Ok(end);
            }
            Landing::Blocked(why) => {
                let mut end = End::error(why);
                end.verdict = Some(Verdict::Pass);
                end.record_tip(tip, candidate);
                return Ok(end);
            }
            Landing::TargetMoved if tries >= most => {
                let mut end = End::error(format!(
                    "{} moved during each of {tries} verifications (refinery.max_retries is \
                     {}): submit again when it is quieter",
                    req.target, ws.config.refinery.max_retries
                ));
                end.verdict = Some(Verdict::Pass);
                end.record_tip(tip, candidate);
                return Ok(end);
            }
            Landing::TargetMoved => {
                tries += 1;
                req.attempts += 1;
            }
        }
    }
}

/// Builds the candidate on the target's tip now and inspects it in a temporary worktree.
fn verify_once(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    req: &MergeRequest,
    opts: RunOptions,
) -> Result<Tried> {
    let tip = git.branch_tip(&req.target)?.ok_or_else(|| {
        Error::Invalid(format!(
            "the target branch '{}' no longer exists",
            req.target
        ))
    })?;
    let head = git
        .branch_tip(&req.branch)?
        .ok_or_else(|| Error::Invalid(format!("the branch '{}' no longer exists", req.branch)))?;
    let strategy = ws.config.refinery.strategy;
    let candidate = match candidate::build(git, req, strategy, &tip, &head, actor)? {
        Candidate::Ready(c) => c,
        Candidate::Conflict(paths) => return Ok(Tried::Ended(Box::new(End::conflict(paths, tip)))),
        Candidate::Refused(why) => return Ok(Tried::Ended(Box::new(End::refused(why, tip)))),
    };
    let tree = TempWorktree::add(git, &candidate)?;
    let ins = inspect_in(ws, tree.dir(), req, &tip, opts)?;
    drop(tree);
    if ins.verdict != Verdict::Pass {
        return Ok(Tried::Ended(Box::new(End::inspected(ins, tip, candidate))));
    }
    Ok(Tried::Passed {
        ins: Box::new(ins),
        tip,
        candidate,
    })
}

/// The whole Inspector pipeline on the work tree at `dir`: the records (the bead, its
/// approved test spec, hooks, roles, the LLM cache) are the workspace's own, so a branch
/// cannot change the criteria it is judged by; the checks run in `dir`.
fn inspect_in(
    ws: &Workspace,
    dir: &Path,
    req: &MergeRequest,
    tip: &str,
    opts: RunOptions,
) -> Result<Inspection> {
    // Fixed before the copy: records stay contained in the user's repository.
    let _ = ws.repo_root();
    let mut in_tree = ws.clone();
    in_tree.root = dir.to_path_buf();
    let (work, _) = pipeline::work_and_spec(ws, &req.bead)?;
    let options = Options {
        upto: Upto::Run,
        base: Some(tip.to_string()),
        use_cache: opts.use_cache,
        answer: crate::inspect::route::latest_answer(ws, &work),
    };
    pipeline::inspect(&in_tree, &work.id, &options)
}

/// What moving the target came to.
enum Landing {
    /// The target moved to the candidate; checkouts of it came along (or say why not).
    Landed {
        /// Checkouts that could not be brought along.
        warnings: Vec<String>,
    },
    /// The target is no longer at the tip the candidate was built on.
    TargetMoved,
    /// A checkout of the target has local changes the move would overwrite.
    Blocked(String),
}

/// Moves the target from `tip` to `candidate` only if it is still at `tip`, bringing any
/// checkout of the target along as `git merge --ff-only` would. Holds the workspace's
/// write lock meanwhile, so no vermas commit of this workspace runs in between.
fn land(
    ws: &Workspace,
    git: &Git,
    req: &MergeRequest,
    tip: &str,
    candidate: &str,
) -> Result<Landing> {
    let _writers = Txn::begin(ws)?;
    if git.branch_tip(&req.target)?.as_deref() != Some(tip) {
        return Ok(Landing::TargetMoved);
    }
    let checkouts = git.checkouts_of(&req.target)?;
    for dir in &checkouts {
        if let Err(e) = git.can_bring_along(dir, tip, candidate) {
            return Ok(Landing::Blocked(format!(
                "{} is checked out at {} with local changes the merge would overwrite ({e}); \
                 commit or stash them and submit again",
                req.target,
                dir.display()
            )));
        }
    }
    let why = format!("vermas refinery: land {} ({})", req.id, req.branch);
    if !git.move_branch(&req.target, candidate, tip, &why)? {
        return Ok(Landing::TargetMoved);
    }
    let mut warnings = Vec::new();
    for dir in &checkouts {
        if let Err(e) = git.bring_along(dir, tip, candidate) {
            warnings.push(format!(
                "{} moved, but its checkout at {} could not follow ({e}): run `git read-tree \
                 -m -u {tip} {candidate}` there",
                req.target,
                dir.display()
            ));
        }
    }
    Ok(Landing::Landed { warnings })
}
