//! Batches: up to `refinery.batch` waiting requests for one target, their merges stacked
//! onto the target's tip in queue order into one candidate ([`stack`]) and verified once
//! ([`verify`]: every request's checks in the combined tree, its LLM roles on its own
//! diff). When all pass, the target moves once to the top ([`land`]) and every request is
//! recorded in one commit ([`record`]). When any does not, the batch is split in halves,
//! each verified on the tip as it is then (the first half lands before the second is
//! built), recursing into what fails, until a culprit stands alone and ends by its own
//! inspection (rejected with its failure report). A target that moved during a
//! verification means building the batch on the new tip and verifying again, at most
//! `refinery.max_retries` more times. A batch of one is the single request of old.

pub mod land;
pub mod record;
pub mod stack;
pub mod verify;

use self::land::Landing;
use self::record::Ended;
use self::stack::{Builder, Part, Stack};
use super::request::{MergeRequest, State};
use super::settle::{End, Taken};
use crate::error::{Error, Result};
use crate::git::Git;
use crate::inspect::Outcome;
use crate::inspect::pipeline::Verdict;
use crate::inspect::run::Proceed;
use crate::workspace::Workspace;
use serde::Serialize;

/// What one verification of a stack found.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// The target.
    pub target: String,
    /// The target's tip the stack was built on.
    pub tip: String,
    /// The commit verified: the top of the stack.
    pub candidate: String,
    /// The requests verified together, in the order they were stacked.
    pub requests: Vec<String>,
    /// True when every request's inspection passed.
    pub passed: bool,
    /// The requests that did not pass, each as `<id> (<verdict>)`.
    pub failed: Vec<String>,
}

/// What a run tells as it goes.
pub enum Event<'a> {
    /// A stack was verified.
    Verified(&'a Verification),
    /// A request was settled (or re-queued).
    Taken(&'a Taken),
}

/// Verifies, lands, halves and records the batches of one run.
pub struct Settler<'a> {
    /// The workspace, with the committed settings.
    pub ws: &'a Workspace,
    /// The repository.
    pub git: &'a Git,
    /// Who acts.
    pub actor: &'a str,
    /// Use cached LLM replies.
    pub use_cache: bool,
    /// Hears each verification and each request settled.
    pub seen: &'a mut dyn FnMut(Event<'_>),
    /// Every request settled so far, in order.
    pub taken: Vec<Taken>,
    /// Every verification so far, in order.
    pub verifications: Vec<Verification>,
}

impl Settler<'_> {
    /// Settles `group` (waiting requests for one target, in queue order); `counted` when its
    /// first verification is counted in its attempts already.
    pub fn settle(&mut self, mut group: Vec<MergeRequest>, mut counted: bool) -> Result<()> {
        let most = 1 + self.ws.config.refinery.max_retries;
        let mut tries = 1;
        loop {
            if !counted {
                group.iter_mut().for_each(|r| r.attempts += 1);
            }
            counted = false;
            let Some(first) = group.first() else {
                return Ok(());
            };
            let target = first.target.clone();
            let tip = match self.git.branch_tip(&target) {
                Ok(Some(tip)) => tip,
                Ok(None) => {
                    let why = format!("the target branch '{target}' no longer exists");
                    return self.end_each(group, &why);
                }
                Err(e) => return self.end_each(group, &e.to_string()),
            };
            let mut stack = self.build(group, &tip)?;
            let ended: Vec<Ended> = std::mem::take(&mut stack.ended)
                .into_iter()
                .map(|(req, end)| Ended {
                    req,
                    out: None,
                    end,
                    proceed: Proceed::RecordOnly,
                })
                .collect();
            if !ended.is_empty() {
                self.record(ended, Vec::new())?;
            }
            let Some(top) = stack.top().map(str::to_string) else {
                return self.record(Vec::new(), std::mem::take(&mut stack.requeued));
            };
            let outs = self.inspect(&stack.parts, &top);
            let passed = self.tell(&stack, &top, &outs);
            if passed {
                let why = match self::land::land(self.ws, self.git, &stack)? {
                    Landing::Landed { warnings } => return self.landed(stack, outs, warnings),
                    Landing::TargetMoved if tries < most => {
                        tries += 1;
                        group = regroup(stack);
                        continue;
                    }
                    Landing::TargetMoved => format!(
                        "{target} moved during each of {tries} verifications \
                         (refinery.max_retries is {}): submit again when it is quieter",
                        self.ws.config.refinery.max_retries
                    ),
                    Landing::Blocked(why) => why,
                };
                return self.unlanded(stack, outs, &why);
            }
            if stack.parts.len() == 1 {
                return self.alone(stack, outs);
            }
            let mut halves = regroup(stack);
            let second = halves.split_off(halves.len().div_ceil(2));
            self.settle(halves, false)?;
            return self.settle(second, false);
        }
    }

    /// Finishes `group`, requests a killed run left `merging` whose candidate the target
    /// holds: each is inspected again where it landed (in the candidate) and recorded as
    /// merged, routed by what that inspection says, in one commit.
    pub fn finish(&mut self, mut group: Vec<MergeRequest>) -> Result<()> {
        group.sort_by_key(|r| r.seq);
        let Some(first) = group.first() else {
            return Ok(());
        };
        let top = first.candidate.clone().unwrap_or_default();
        let tip = first.target_tip.clone().unwrap_or_default();
        let parts: Vec<Part> = group
            .into_iter()
            .map(|req| {
                let (base, commit) = match &req.batch {
                    Some(b) => (b.base.clone(), b.commit.clone()),
                    None => (tip.clone(), top.clone()),
                };
                let head = self.git.branch_tip(&req.branch).ok().flatten();
                Part {
                    head: head.unwrap_or_else(|| commit.clone()),
                    req,
                    base,
                    commit,
                }
            })
            .collect();
        let stack = Stack {
            tip: tip.clone(),
            parts,
            ended: Vec::new(),
            requeued: Vec::new(),
        };
        let outs = self.inspect(&stack.parts, &top);
        self.tell(&stack, &top, &outs);
        let ended = ends(stack, outs, |i, stack, out| {
            let commit = stack.parts[i].commit.clone();
            let again = |said: String| {
                format!(
                    "landed by a run that was interrupted before recording it; verified \
                     again where it landed: {said}"
                )
            };
            match out {
                Ok(o) => {
                    let mut end = End::merged(&o.inspection, tip.clone(), top.clone());
                    end.reason = again(o.inspection.verdict.as_str().to_string());
                    end.merged_commit = Some(commit);
                    (end, Proceed::Route)
                }
                Err(e) => {
                    let mut end = End::error(again(format!("no verdict ({e})")));
                    end.state = State::Merged;
                    end.record_tip(tip.clone(), top.clone());
                    end.merged_commit = Some(commit);
                    (end, Proceed::RecordOnly)
                }
            }
        });
        self.record(ended, Vec::new())
    }

    /// Stacks `group` onto `tip`, with the check files frozen now.
    fn build(&self, group: Vec<MergeRequest>, tip: &str) -> Result<Stack> {
        let records = records_prefix(self.ws);
        let mut frozen = crate::inspect::frozen::all_frozen(self.ws)?;
        if let Some(crate::config::Approvers::File(path)) = &self.ws.config.approvers {
            frozen.insert(path.clone(), "the approvers setting".into());
        }
        let builder = Builder {
            git: self.git,
            strategy: self.ws.config.refinery.strategy,
            records: &records,
            frozen: &frozen,
            actor: self.actor,
        };
        Ok(builder.build(group, tip))
    }

    /// Each part inspected in a worktree of `top`; all errors when none can be made.
    fn inspect(&self, parts: &[Part], top: &str) -> Vec<Result<Outcome>> {
        verify::inspect_all(self.ws, self.git, self.actor, parts, top, self.use_cache)
            .unwrap_or_else(|e| {
                let why = e.to_string();
                parts
                    .iter()
                    .map(|_| Err(Error::Invalid(why.clone())))
                    .collect()
            })
    }

    /// Notes and tells the verification of `stack` at `top`; true when all passed.
    fn tell(&mut self, stack: &Stack, top: &str, outs: &[Result<Outcome>]) -> bool {
        let failed: Vec<String> = stack
            .parts
            .iter()
            .zip(outs)
            .filter(|(_, o)| !verify::passed(o))
            .map(|(p, o)| {
                let said = match o {
                    Ok(o) => o.inspection.verdict.as_str().to_string(),
                    Err(_) => Verdict::Error.as_str().to_string(),
                };
                format!("{} ({said})", p.req.id)
            })
            .collect();
        let v = Verification {
            target: stack.parts[0].req.target.clone(),
            tip: stack.tip.clone(),
            candidate: top.to_string(),
            requests: stack.parts.iter().map(|p| p.req.id.clone()).collect(),
            passed: failed.is_empty(),
            failed,
        };
        (self.seen)(Event::Verified(&v));
        self.verifications.push(v);
        self.verifications.last().is_some_and(|v| v.passed)
    }

    /// Records a stack that landed: every request merged, in one commit.
    fn landed(
        &mut self,
        stack: Stack,
        outs: Vec<Result<Outcome>>,
        warnings: Vec<String>,
    ) -> Result<()> {
        let (tip, top) = (stack.tip.clone(), stack.top().unwrap_or("").to_string());
        let requeued = stack.requeued.clone();
        let mut warnings = Some(warnings);
        let ended = ends(stack, outs, |i, stack, out| {
            let mut end = match out {
                Ok(o) => End::merged(&o.inspection, tip.clone(), top.clone()),
                Err(e) => End::error(e.to_string()),
            };
            end.merged_commit = Some(stack.parts[i].commit.clone());
            end.warnings = warnings.take().unwrap_or_default();
            (end, Proceed::Route)
        });
        self.record(ended, requeued)
    }

    /// Records a stack that passed but could not land, for `why`: the verdicts are recorded
    /// and routed nowhere.
    fn unlanded(&mut self, stack: Stack, outs: Vec<Result<Outcome>>, why: &str) -> Result<()> {
        let (tip, top) = (stack.tip.clone(), stack.top().unwrap_or("").to_string());
        let requeued = stack.requeued.clone();
        let ended = ends(stack, outs, |_, _, _| {
            let mut end = End::error(why.to_string());
            end.verdict = Some(Verdict::Pass);
            end.record_tip(tip.clone(), top.clone());
            (end, Proceed::RecordOnly)
        });
        self.record(ended, requeued)
    }

    /// Records the one request of a stack that did not pass, by its own inspection.
    fn alone(&mut self, stack: Stack, outs: Vec<Result<Outcome>>) -> Result<()> {
        let (tip, top) = (stack.tip.clone(), stack.top().unwrap_or("").to_string());
        let requeued = stack.requeued.clone();
        let ended = ends(stack, outs, |_, _, out| match out {
            Ok(o) => (
                End::inspected(&o.inspection, tip.clone(), top.clone()),
                Proceed::Route,
            ),
            Err(e) => (End::error(e.to_string()), Proceed::RecordOnly),
        });
        self.record(ended, requeued)
    }

    /// Ends every request of `group` in error for `why`, in one commit.
    fn end_each(&mut self, group: Vec<MergeRequest>, why: &str) -> Result<()> {
        let ended = group
            .into_iter()
            .map(|req| Ended {
                req,
                out: None,
                end: End::error(why.to_string()),
                proceed: Proceed::RecordOnly,
            })
            .collect();
        self.record(ended, Vec::new())
    }

    /// Records `ended` and `requeued` in one commit and tells each.
    fn record(&mut self, ended: Vec<Ended>, requeued: Vec<(MergeRequest, String)>) -> Result<()> {
        if ended.is_empty() && requeued.is_empty() {
            return Ok(());
        }
        for mut t in record::record(self.ws, self.actor, ended, requeued)? {
            t.warnings.extend(crate::refinery::worker::remove_after(
                self.ws, self.git, &t.request,
            ));
            (self.seen)(Event::Taken(&t));
            self.taken.push(t);
        }
        Ok(())
    }
}

/// Each part of `stack` with its outcome, ended by `end_of` (given the part's place, the
/// stack and the outcome); an outcome that is an inspection is kept for recording.
fn ends(
    stack: Stack,
    outs: Vec<Result<Outcome>>,
    mut end_of: impl FnMut(usize, &Stack, &Result<Outcome>) -> (End, Proceed),
) -> Vec<Ended> {
    let mut ended = Vec::new();
    for (i, out) in outs.into_iter().enumerate() {
        let (mut end, proceed) = end_of(i, &stack, &out);
        end.batch = stack.place(i);
        ended.push(Ended {
            req: stack.parts[i].req.clone(),
            out: out.ok(),
            end,
            proceed,
        });
    }
    ended
}

/// The requests of `stack` again (those stacked and those re-queued), in queue order.
fn regroup(stack: Stack) -> Vec<MergeRequest> {
    let mut group: Vec<MergeRequest> = stack
        .parts
        .into_iter()
        .map(|p| p.req)
        .chain(stack.requeued.into_iter().map(|(r, _)| r))
        .collect();
    group.sort_by(|a, b| (a.seq, a.created_at, &a.id).cmp(&(b.seq, b.created_at, &b.id)));
    group
}

/// The ledger folder relative to the repository's root, with a trailing `/`.
fn records_prefix(ws: &Workspace) -> String {
    let root = ws.repo_root();
    let rel = ws.beads_dir.strip_prefix(root).unwrap_or(&ws.beads_dir);
    format!("{}/", rel.to_string_lossy().trim_end_matches('/'))
}
