//! A batch's candidate: the merges of its requests stacked onto the target's tip in queue
//! order, each built by the configured strategy onto the one before it (see
//! [`crate::refinery::candidate`], which refuses a branch that changes what judges it
//! before anything runs). A request that cannot be built onto the tip itself ends on its
//! own (a conflict, a refusal); one that can, but not onto the requests stacked before it,
//! is re-queued: it is taken again once they are settled.

use crate::config::Strategy;
use crate::error::Result;
use crate::git::Git;
use crate::refinery::candidate::{self, Candidate};
use crate::refinery::request::{BatchPlace, MergeRequest};
use crate::refinery::settle::End;
use std::collections::BTreeMap;

/// One request in a stack.
#[derive(Debug, Clone)]
pub struct Part {
    /// The request.
    pub req: MergeRequest,
    /// The commit its merge was built on: the tip, or the merge of the request before it.
    pub base: String,
    /// The branch's tip its merge holds.
    pub head: String,
    /// Its own merge (with `ff-only`, the branch itself).
    pub commit: String,
}

/// The requests of a batch put onto the target's tip.
#[derive(Debug)]
pub struct Stack {
    /// The target's tip it was built on.
    pub tip: String,
    /// The requests stacked, in queue order; the last one's commit is the candidate.
    pub parts: Vec<Part>,
    /// Requests that cannot land onto the tip at all, with how they ended.
    pub ended: Vec<(MergeRequest, End)>,
    /// Requests that land onto the tip but not onto the ones stacked before them, with why.
    pub requeued: Vec<(MergeRequest, String)>,
}

impl Stack {
    /// The candidate: the top of the stack, holding every request stacked.
    pub fn top(&self) -> Option<&str> {
        self.parts.last().map(|p| p.commit.as_str())
    }

    /// The place of the `i`th part in the batch, when others were stacked with it.
    pub fn place(&self, i: usize) -> Option<BatchPlace> {
        (self.parts.len() > 1).then(|| BatchPlace {
            requests: self.parts.iter().map(|p| p.req.id.clone()).collect(),
            base: self.parts[i].base.clone(),
            commit: self.parts[i].commit.clone(),
        })
    }
}

/// What a stack is built with.
pub struct Builder<'a> {
    /// The repository.
    pub git: &'a Git,
    /// How each branch is put onto the commit below it.
    pub strategy: Strategy,
    /// The ledger folder relative to the repository, with a trailing `/`.
    pub records: &'a str,
    /// The check files approvals froze (and the approvers file), with what froze each.
    pub frozen: &'a BTreeMap<String, String>,
    /// Who builds it (the merges' trailer).
    pub actor: &'a str,
}

impl Builder<'_> {
    /// Stacks `group` (in queue order) onto `tip`.
    pub fn build(&self, group: Vec<MergeRequest>, tip: &str) -> Stack {
        let mut stack = Stack {
            tip: tip.to_string(),
            parts: Vec::new(),
            ended: Vec::new(),
            requeued: Vec::new(),
        };
        for req in group {
            let head = match self.git.branch_tip(&req.branch) {
                Ok(Some(head)) => head,
                Ok(None) => {
                    let why = format!("the branch '{}' no longer exists", req.branch);
                    stack.ended.push((req, End::error(why)));
                    continue;
                }
                Err(e) => {
                    stack.ended.push((req, End::error(e.to_string())));
                    continue;
                }
            };
            let base = stack.top().unwrap_or(tip).to_string();
            let built = match self.one(&req, &base, &head) {
                Ok(built) => built,
                Err(e) => {
                    stack.ended.push((req, End::error(e.to_string())));
                    continue;
                }
            };
            match built {
                Candidate::Ready(commit) => stack.parts.push(Part {
                    req,
                    base,
                    head,
                    commit,
                }),
                other if base == tip => stack.ended.push((req, end_of(other, tip))),
                other => match self.one(&req, tip, &head) {
                    Ok(Candidate::Ready(_)) => {
                        let why = requeue_reason(&stack, &req, other);
                        stack.requeued.push((req, why));
                    }
                    Ok(alone) => stack.ended.push((req, end_of(alone, tip))),
                    Err(e) => stack.ended.push((req, End::error(e.to_string()))),
                },
            }
        }
        stack
    }

    /// `req`'s branch at `head` put onto `base`.
    fn one(&self, req: &MergeRequest, base: &str, head: &str) -> Result<Candidate> {
        candidate::build(
            self.git,
            req,
            self.strategy,
            (base, head),
            self.records,
            self.frozen,
            self.actor,
        )
    }
}

/// How a request that cannot be put onto the tip ends.
fn end_of(built: Candidate, tip: &str) -> End {
    match built {
        Candidate::Conflict(paths) => End::conflict(paths, tip.to_string()),
        Candidate::Refused(why) => End::refused(why, tip.to_string()),
        Candidate::Ready(c) => End::error(format!("{c} was built and then dropped")),
    }
}

/// Why `req`, which lands onto the tip alone, was re-queued: what stacking it on the
/// requests before it gave.
fn requeue_reason(stack: &Stack, req: &MergeRequest, built: Candidate) -> String {
    let before: Vec<&str> = stack.parts.iter().map(|p| p.req.id.as_str()).collect();
    let what = match built {
        Candidate::Conflict(paths) => format!("it conflicts with them in {}", paths.join(", ")),
        Candidate::Refused(why) => why,
        Candidate::Ready(_) => String::new(),
    };
    format!(
        "re-queued: it merges onto {} but not onto the requests stacked before it in its \
         batch ({}): {what}; it is verified again on its own once they are settled",
        req.target,
        before.join(", ")
    )
}
