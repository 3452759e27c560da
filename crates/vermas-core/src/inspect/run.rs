//! One inspection from start to end, written once: inspect as far as asked; with an actor,
//! record and route the verdict in one commit (a person's answer and the caller's own
//! records joining it), run the OnVerify hook the verdict calls for, and, for NEEDS_HUMAN
//! with a wait, wait for a person's answer and inspect again. `inspect run`, the
//! Inspector's loop and the refinery all go through [`run`]; they hear what happens through
//! their [`Observer`] and only render it.

use super::basis::Basis;
use super::lifecycle::{self, HookPoint};
use super::pipeline::{self, Inspection, Options, Upto, Verdict};
use super::route::{self, Routed};
use crate::bead::model::{AWAITING_INPUT, Bead};
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where the answer to a NEEDS_HUMAN question comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The latest one recorded on the work (`vermas answer`, or a reply in the question's
    /// mail thread), if any.
    Recorded,
    /// A reply that arrived by other means: the run records it on the work (an `Answer:`
    /// note, `awaiting:input` removed) in the routing commit, as `vermas answer` would.
    Given(String),
}

/// What an inspection is asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    /// The work (or its test spec).
    pub id: String,
    /// The last step.
    pub upto: Upto,
    /// The diff's base, else the merge-base with the default branch.
    pub base: Option<String>,
    /// The diff's other end, else HEAD where the checks run (a refinery batch: the
    /// request's own merge, below the others stacked on it).
    pub diff_head: Option<String>,
    /// Use cached LLM replies.
    pub use_cache: bool,
    /// The answer the roles read.
    pub answer: Answer,
    /// With NEEDS_HUMAN: how long to wait for a person's answer before giving up.
    pub wait: Option<Duration>,
    /// Where the checks run (the refinery's temporary worktree), else the workspace's root.
    pub tree: Option<PathBuf>,
    /// The commit of the work that questions and answers are about, when it is not HEAD
    /// where the checks run (the refinery: the branch's tip, not the merge candidate).
    pub work_head: Option<String>,
}

impl Request {
    /// A request to inspect `id` as far as `upto`, with every other choice at its default.
    pub fn new(id: impl Into<String>, upto: Upto) -> Request {
        Request {
            id: id.into(),
            upto,
            base: None,
            diff_head: None,
            use_cache: true,
            answer: Answer::Recorded,
            wait: None,
            tree: None,
            work_head: None,
        }
    }
}

/// What the run does with an inspection that ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proceed {
    /// Record and route it by its verdict, then run its OnVerify hook.
    Route,
    /// Record only the caller's own records (the verdict routes nothing).
    RecordOnly,
    /// Record nothing: the caller will inspect again.
    Discard,
}

/// A front end's part in a run: each method is heard at its step; the defaults do nothing.
pub trait Observer {
    /// An inspection ended, before anything is recorded; says what happens to it. An error
    /// ends the run with nothing recorded.
    fn inspected(&mut self, _ins: &Inspection) -> Result<Proceed> {
        Ok(Proceed::Route)
    }

    /// Writes the caller's own records into the routing change, after the routing; returns
    /// the ids of what it wrote.
    fn record_in(
        &mut self,
        _txn: &mut Txn<'_>,
        _ins: &Inspection,
        _routed: Option<&Routed>,
        _now: Timestamp,
    ) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// The routing commit's verb and title, when the caller names them.
    fn commit_title(&self, _ins: &Inspection) -> Option<(String, String)> {
        None
    }

    /// The question was routed and the run now waits for a person's answer.
    fn waiting(&mut self, _ins: &Inspection, _routed: &Routed) {}
}

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    /// The last inspection.
    pub inspection: Inspection,
    /// What routing did, when the verdict was routed.
    pub routed: Option<Routed>,
    /// The commit that recorded it, when one was made.
    pub recorded: Option<Recorded>,
    /// True when the observer discarded the inspection.
    pub discarded: bool,
    /// Warnings of the OnVerify hook.
    pub hook_warnings: Vec<String>,
}

/// Inspects `req.id`; with `actor`, records and routes the verdict (waiting for and acting
/// on a person's answer when asked to), telling `observer` at each step.
pub fn run(
    ws: &Workspace,
    actor: Option<&str>,
    req: &Request,
    observer: &mut impl Observer,
) -> Result<Outcome> {
    let (work, spec) = pipeline::work_and_spec(ws, &req.id)?;
    let judged = super::judged::judged(ws, req.tree.as_deref())?;
    let head = head_of(ws, req);
    let (answer, given) = match &req.answer {
        Answer::Recorded => (super::answer::latest(ws, &work, head.as_deref()), false),
        Answer::Given(a) => (Some(a.clone()), true),
    };
    let step = Step {
        actor,
        req,
        judged: &judged,
        answer,
        record_answer: given,
        work_state: head.clone(),
    };
    let basis = super::basis::settle(ws, spec)?;
    let first = step.once(&basis, &work, observer)?;
    let (Some(wait), Some(routed)) = (req.wait, &first.routed) else {
        return Ok(first);
    };
    if first.inspection.verdict != Verdict::NeedsHuman {
        return Ok(first);
    }
    observer.waiting(&first.inspection, routed);
    let answer = wait_for_answer(ws, &work.id, head.as_deref(), wait)?;
    let (work, spec) = pipeline::work_and_spec(ws, &work.id)?;
    let basis = super::basis::settle(ws, spec)?;
    let again = Step {
        answer: Some(answer),
        record_answer: false,
        ..step
    };
    again.once(&basis, &work, observer)
}

/// The state of the work `req` inspects, which a question and its answer are about: the
/// fingerprint of its `work_head`, else of HEAD where its checks run (vermas's own record
/// commits leave it unchanged; a change to the work does not).
fn head_of(ws: &Workspace, req: &Request) -> Option<String> {
    let dir = req.tree.as_deref().unwrap_or(&ws.root);
    let repo = crate::git::GitRepo::open(dir)?;
    let commit = req.work_head.clone().or_else(|| repo.head_commit())?;
    repo.work_fingerprint(&commit, crate::workspace::BEADS_DIR)
}

/// A person's answer on `work` about `head`, polled until one is recorded or `wait` has
/// passed.
fn wait_for_answer(
    ws: &Workspace,
    work: &str,
    head: Option<&str>,
    wait: Duration,
) -> Result<String> {
    let until = Instant::now() + wait;
    loop {
        let bead = crate::bead::store::load_one(ws, work)?;
        if let Some(a) = super::answer::latest(ws, &bead, head) {
            return Ok(a);
        }
        if Instant::now() >= until {
            return Err(Error::Invalid(format!(
                "no answer to the question on {work} within {}s",
                wait.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// One inspection of a run and what it records.
struct Step<'a> {
    /// Who records, if anyone.
    actor: Option<&'a str>,
    /// The run's request.
    req: &'a Request,
    /// Where the checks run, and the commit judged.
    judged: &'a super::judged::Judged,
    /// The answer the roles read.
    answer: Option<String>,
    /// True when the answer must be recorded on the work.
    record_answer: bool,
    /// The state of the work (its fingerprint).
    work_state: Option<String>,
}

impl Step<'_> {
    /// Inspects `work` on `basis`, then (with an actor) records and routes it as
    /// `observer` says.
    fn once(&self, basis: &Basis, work: &Bead, observer: &mut impl Observer) -> Result<Outcome> {
        let ws = &basis.ws;
        let spec = basis.spec.as_ref();
        let opts = Options {
            upto: self.req.upto,
            base: self.req.base.clone(),
            diff_head: self.req.diff_head.clone(),
            use_cache: self.req.use_cache,
            answer: self.answer.clone(),
            refused: basis.refused.clone(),
        };
        let mut inspection = if self.judged.dir == ws.root {
            pipeline::inspect(ws, work, spec, &opts)
        } else {
            // Fixed before the copy: records stay contained in the user's repository.
            let _ = ws.repo_root();
            let mut in_tree = ws.clone();
            in_tree.root = self.judged.dir.clone();
            pipeline::inspect(&in_tree, work, spec, &opts)
        };
        inspection.warnings.extend(self.judged.warning.clone());
        inspection.warnings.extend(basis.warnings.iter().cloned());
        inspection.approval = Some(basis.approval.clone());
        inspection.work_state.clone_from(&self.work_state);
        let mut out = Outcome {
            inspection,
            routed: None,
            recorded: None,
            discarded: false,
            hook_warnings: Vec::new(),
        };
        let Some(actor) = self.actor else {
            return Ok(out);
        };
        let proceed = observer.inspected(&out.inspection)?;
        if proceed == Proceed::Discard {
            out.discarded = true;
            return Ok(out);
        }
        let ins = &out.inspection;
        let now = Timestamp::now();
        let mut txn = Txn::begin(ws)?;
        let mut ids = Vec::new();
        if self.record_answer
            && let Some(answer) = &self.answer
        {
            ids.push(record_answer(&mut txn, ws, actor, &work.id, answer, now)?);
        }
        if proceed == Proceed::Route {
            let (routed, written) = route::route_in(&mut txn, ws, actor, ins, now)?;
            ids.extend(written);
            out.routed = Some(routed);
        }
        let mut own = observer.record_in(&mut txn, ins, out.routed.as_ref(), now)?;
        own.extend(ids);
        let (verb, title) = observer
            .commit_title(ins)
            .unwrap_or_else(|| ("inspect".into(), format!("{} {}", ins.verdict, ins.title)));
        let recorded = txn.commit(&CommitMessage {
            verb,
            ids: unique(own),
            title,
            actor: actor.to_string(),
        })?;
        if let Some(r) = out.routed.as_mut() {
            r.recorded = Some(recorded.clone());
        }
        out.recorded = Some(recorded);
        if proceed == Proceed::Route {
            after_hook(ws, &mut out);
        }
        Ok(out)
    }
}

/// Runs the OnVerify hook the verdict of `out` calls for, keeping its warnings.
fn after_hook(ws: &Workspace, out: &mut Outcome) {
    if let Some(point) = HookPoint::after(out.inspection.verdict) {
        let mut payload = serde_json::to_value(&out.inspection).unwrap_or_default();
        payload["bead_id"] = serde_json::json!(out.inspection.work);
        let report = lifecycle::run_locked(ws, point, &payload);
        out.hook_warnings = report.warnings;
        out.hook_warnings.extend(report.stopped);
    }
}

/// Records inspections whose runs the caller discarded to decide on them together (the
/// refinery's batch): each recorded and routed as its [`Proceed`] says, then the caller's
/// own records written by `own`, all in one commit named `verb` and `title`; then the
/// OnVerify hook of each one routed. `ws` holds the settings a verdict reads.
pub fn record_together(
    ws: &Workspace,
    actor: &str,
    outs: &mut [(Outcome, Proceed)],
    own: impl FnOnce(&mut Txn<'_>, Timestamp) -> Result<Vec<String>>,
    (verb, title): (String, String),
) -> Result<Recorded> {
    let now = Timestamp::now();
    let mut txn = Txn::begin(ws)?;
    let mut ids = Vec::new();
    for (out, proceed) in outs.iter_mut() {
        if *proceed == Proceed::Route {
            let (routed, written) = route::route_in(&mut txn, ws, actor, &out.inspection, now)?;
            ids.extend(written);
            out.routed = Some(routed);
        }
    }
    let mut all = own(&mut txn, now)?;
    all.extend(ids);
    let recorded = txn.commit(&CommitMessage {
        verb,
        ids: unique(all),
        title,
        actor: actor.to_string(),
    })?;
    for (out, proceed) in outs.iter_mut() {
        out.discarded = false;
        if let Some(r) = out.routed.as_mut() {
            r.recorded = Some(recorded.clone());
        }
        out.recorded = Some(recorded.clone());
        if *proceed == Proceed::Route {
            after_hook(ws, out);
        }
    }
    Ok(recorded)
}

/// Records a person's `answer` on `work` in `txn`, as `vermas answer` does: an `Answer:`
/// note, and `awaiting:input` removed. Returns the work's id.
fn record_answer(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    work: &str,
    answer: &str,
    now: Timestamp,
) -> Result<String> {
    let mut bead = crate::bead::store::load_one(ws, work)?;
    if bead.has_label(AWAITING_INPUT) {
        bead.labels.retain(|l| l != AWAITING_INPUT);
        crate::bead::ops::add_note(&mut bead, actor, format!("Answer: {answer}"), now);
        bead.updated_at = Some(now);
        txn.write(
            &crate::bead::store::bead_path(ws, &bead.id),
            bead.render().as_bytes(),
        )?;
    }
    Ok(bead.id)
}

/// `ids` in their first order, each once.
fn unique(ids: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter()
        .filter(|id| seen.insert(id.clone()))
        .collect()
}
