//! `refinery run`: takes waiting requests oldest first; for each, builds the commit that
//! would land (the branch onto the target's current tip), checks it out in a temporary
//! worktree, runs the Inspector's pipeline there, and only on PASS moves the target with a
//! compare-and-swap. A target that moved meanwhile means verifying again (at most
//! `refinery.max_retries` more times). Every state change is one commit (see
//! [`super::settle`]).

use super::candidate::{self, Candidate};
use super::request::{self, MergeRequest, State};
use super::settle::{self, End, Taken};
use crate::error::{Error, Result};
use crate::git::Git;
use crate::git::TempWorktree;
use crate::inspect;
use crate::inspect::pipeline::{Inspection, Upto, Verdict};
use crate::inspect::route::Routed;
use crate::inspect::sequence::Proceed;
use crate::store::{CommitMessage, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;

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
    // The refinery's own settings (strategy, retries, the approvers file it protects) as
    // committed (with approvers, as signed), like every verdict setting.
    let mut trusted_ws = ws.clone();
    trusted_ws.config = crate::trusted::Trusted::of(ws)?.config;
    let ws = &trusted_ws;
    let git = super::queue::repository(ws)?;
    let _lock = super::queue::lock_runs(ws)?;
    // This run holds the lock: worktrees of runs that died are provably left over.
    TempWorktree::prune_leftovers(&git);
    let mut taken = Vec::new();
    loop {
        let (all, _) = request::load_all(ws)?;
        // A request left `verifying` or `merging` was being settled by a run that was
        // interrupted (this run holds the lock, so no other is at it): it is taken again;
        // a NEEDS_HUMAN one once its question is answered.
        let Some(next) = all
            .into_iter()
            .find(|r| r.state.is_waiting() || answered(ws, &git, r))
        else {
            break;
        };
        let mut t = take(ws, &git, actor, next, opts)?;
        t.warnings
            .extend(super::worker::remove_after(ws, &git, &t.request));
        seen(&t);
        taken.push(t);
        if opts.once {
            break;
        }
    }
    Ok(taken)
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

/// Verifies and settles one request: marks it `verifying` (one commit), then records how
/// it ended (one commit). Whatever goes wrong in between ends it as `error`. A request a
/// killed run left `merging` whose target already holds its candidate is finished.
fn take(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    mut req: MergeRequest,
    opts: RunOptions,
) -> Result<Taken> {
    if req.state == State::Merging
        && let Some(done) = finish_landed(ws, git, actor, &mut req, opts)?
    {
        return Ok(done);
    }
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
    match verify_and_land(ws, git, actor, &mut req, opts) {
        Ok(Settled::Inspected(taken)) => Ok(*taken),
        Ok(Settled::Ended(end)) => settle::record(ws, actor, req, *end),
        Err(e) => settle::record(ws, actor, req, End::error(e.to_string())),
    }
}

/// How verifying a request came out.
enum Settled {
    /// An inspection decided it, and its run recorded it.
    Inspected(Box<Taken>),
    /// It ended before an inspection could decide (a conflict, a refusal); not recorded yet.
    Ended(Box<End>),
}

/// Verifies the request (again while the target keeps moving, bounded) through the
/// inspection's run, which lands it on PASS and records how it ended.
fn verify_and_land(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    req: &mut MergeRequest,
    opts: RunOptions,
) -> Result<Settled> {
    let most = 1 + ws.config.refinery.max_retries;
    let mut tries = 1;
    loop {
        let tip = git.branch_tip(&req.target)?.ok_or_else(|| {
            Error::Invalid(format!(
                "the target branch '{}' no longer exists",
                req.target
            ))
        })?;
        let head = git.branch_tip(&req.branch)?.ok_or_else(|| {
            Error::Invalid(format!("the branch '{}' no longer exists", req.branch))
        })?;
        let strategy = ws.config.refinery.strategy;
        let records = records_prefix(ws);
        let mut frozen = crate::inspect::frozen::all_frozen(ws)?;
        if let Some(crate::config::Approvers::File(path)) = &ws.config.approvers {
            frozen.insert(path.clone(), "the approvers setting".into());
        }
        let candidate =
            match candidate::build(git, req, strategy, (&tip, &head), &records, &frozen, actor)? {
                Candidate::Ready(c) => c,
                Candidate::Conflict(paths) => {
                    return Ok(Settled::Ended(Box::new(End::conflict(paths, tip))));
                }
                Candidate::Refused(why) => {
                    return Ok(Settled::Ended(Box::new(End::refused(why, tip))));
                }
            };
        let tree = TempWorktree::add(git, &candidate)?;
        let inspection = inspect::Request {
            base: Some(tip.clone()),
            use_cache: opts.use_cache,
            tree: Some(tree.dir().to_path_buf()),
            work_head: Some(head.clone()),
            ..inspect::Request::new(req.bead.clone(), Upto::Run)
        };
        let mut lander = Lander {
            ws,
            landing: Some(LandWith {
                git,
                last_try: tries >= most,
                tries,
            }),
            req,
            tip,
            candidate,
            tree: Some(tree),
            end: None,
            mailed: Vec::new(),
        };
        let out = inspect::run(ws, Some(actor), &inspection, &mut lander)?;
        if out.discarded {
            tries += 1;
            req.attempts += 1;
            continue;
        }
        let end = lander
            .end
            .take()
            .unwrap_or_else(|| End::error(String::new()));
        let mailed = std::mem::take(&mut lander.mailed);
        drop(lander);
        return Ok(Settled::Inspected(Box::new(taken_of(
            req, out, end, mailed,
        ))));
    }
}

/// The refinery's part in an inspection of a candidate: it lands the candidate on PASS
/// before anything is recorded (or, finishing a landing a killed run made, records it as
/// merged), and it records the request's end in the routing commit.
struct Lander<'a> {
    /// The workspace.
    ws: &'a Workspace,
    /// How to land; `None` when the candidate landed already (a killed run's landing).
    landing: Option<LandWith<'a>>,
    /// The request.
    req: &'a mut MergeRequest,
    /// The target's tip the candidate was built on.
    tip: String,
    /// The commit verified.
    candidate: String,
    /// The worktree the checks run in, removed once they ran.
    tree: Option<TempWorktree>,
    /// How the request ended, once known.
    end: Option<End>,
    /// The subjects the refinery mailed itself.
    mailed: Vec<String>,
}

/// What landing a candidate takes.
struct LandWith<'a> {
    /// The repository.
    git: &'a Git,
    /// True when a moved target may not be tried again.
    last_try: bool,
    /// How many verifications this was.
    tries: u32,
}

impl inspect::Observer for Lander<'_> {
    fn inspected(&mut self, ins: &Inspection) -> Result<Proceed> {
        drop(self.tree.take());
        let (tip, candidate) = (self.tip.clone(), self.candidate.clone());
        let Some(landing) = &self.landing else {
            // It is on the target already, whatever this inspection says.
            let mut end = End::merged(ins, tip, candidate);
            end.reason = format!(
                "landed by a run that was interrupted before recording it; verified again \
                 where it landed: {}",
                ins.verdict.as_str()
            );
            self.end = Some(end);
            return Ok(Proceed::Route);
        };
        if ins.verdict != Verdict::Pass {
            self.end = Some(End::inspected(ins, tip, candidate));
            return Ok(Proceed::Route);
        }
        let unlanded = |why: String| {
            let mut end = End::error(why);
            end.verdict = Some(Verdict::Pass);
            end.record_tip(tip.clone(), candidate.clone());
            end
        };
        let (end, proceed) = match land(self.ws, landing.git, self.req, &tip, &candidate)? {
            Landing::Landed { warnings } => {
                let mut end = End::merged(ins, tip.clone(), candidate.clone());
                end.warnings = warnings;
                (end, Proceed::Route)
            }
            Landing::Blocked(why) => (unlanded(why), Proceed::RecordOnly),
            Landing::TargetMoved if landing.last_try => (
                unlanded(format!(
                    "{} moved during each of {} verifications (refinery.max_retries is \
                     {}): submit again when it is quieter",
                    self.req.target, landing.tries, self.ws.config.refinery.max_retries
                )),
                Proceed::RecordOnly,
            ),
            Landing::TargetMoved => return Ok(Proceed::Discard),
        };
        self.end = Some(end);
        Ok(proceed)
    }

    fn record_in(
        &mut self,
        txn: &mut Txn<'_>,
        _ins: &Inspection,
        _routed: Option<&Routed>,
        now: Timestamp,
    ) -> Result<Vec<String>> {
        let end = self.end.get_or_insert_with(|| End::error(String::new()));
        let (ids, mailed) = settle::write_in(txn, self.ws, self.req, end, now)?;
        self.mailed = mailed;
        Ok(ids)
    }

    fn commit_title(&self, _ins: &Inspection) -> Option<(String, String)> {
        let m = settle::commit_message(self.req, Vec::new(), "");
        Some((m.verb, m.title))
    }
}

/// Finishes a request a killed run left `merging`: when the target holds its candidate,
/// the candidate is inspected again where it landed and recorded as merged (routed by
/// what that inspection says); `None` when the target never moved, so it is verified
/// again as usual.
fn finish_landed(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    req: &mut MergeRequest,
    opts: RunOptions,
) -> Result<Option<Taken>> {
    let (Some(candidate), Some(tip)) = (req.candidate.clone(), req.target_tip.clone()) else {
        return Ok(None);
    };
    let landed = match git.branch_tip(&req.target)? {
        Some(now) => now == candidate || git.is_ancestor(&candidate, &now)?,
        None => false,
    };
    if !landed {
        return Ok(None);
    }
    let tree = TempWorktree::add(git, &candidate)?;
    let inspection = inspect::Request {
        base: Some(tip.clone()),
        use_cache: opts.use_cache,
        tree: Some(tree.dir().to_path_buf()),
        work_head: git.branch_tip(&req.branch)?,
        ..inspect::Request::new(req.bead.clone(), Upto::Run)
    };
    let mut finisher = Lander {
        ws,
        landing: None,
        req,
        tip,
        candidate,
        tree: Some(tree),
        end: None,
        mailed: Vec::new(),
    };
    let out = inspect::run(ws, Some(actor), &inspection, &mut finisher)?;
    let end = finisher
        .end
        .take()
        .unwrap_or_else(|| End::error(String::new()));
    let mailed = std::mem::take(&mut finisher.mailed);
    drop(finisher);
    Ok(Some(taken_of(req, out, end, mailed)))
}

/// A request's end as an inspection's run recorded it.
fn taken_of(req: &MergeRequest, out: inspect::Outcome, end: End, mailed: Vec<String>) -> Taken {
    let mut all = out
        .routed
        .as_ref()
        .map(|r| r.mailed.clone())
        .unwrap_or_default();
    all.extend(mailed);
    let mut warnings = end.warnings;
    warnings.extend(out.hook_warnings);
    Taken {
        request: req.clone(),
        inspection: Some(out.inspection),
        routed: out.routed,
        mailed: all,
        warnings,
        recorded: out.recorded,
    }
}

/// The ledger folder relative to the repository's root, with a trailing `/`.
fn records_prefix(ws: &Workspace) -> String {
    let root = ws.repo_root();
    let rel = ws.beads_dir.strip_prefix(root).unwrap_or(&ws.beads_dir);
    format!("{}/", rel.to_string_lossy().trim_end_matches('/'))
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
    // The intent first: a run killed once the target moved finds it and finishes.
    let mut intent = req.clone();
    intent.state = State::Merging;
    intent.target_tip = Some(tip.to_string());
    intent.candidate = Some(candidate.to_string());
    request::write_intent(ws, &intent)?;
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
