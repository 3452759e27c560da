//! How a merge request ended, recorded in one commit: the inspection (recorded and routed
//! as `inspect run` routes it), the bead closed and `mayor/` mailed "MERGED: <title>" when
//! the branch landed, "CONFLICT: <title>" with the paths, "NOT MERGED: <title>" with the
//! reason for a refusal or an error, and the request's new state.

use super::request::{self, BatchPlace, MergeRequest, State};
use crate::bead::model::Status;
use crate::error::Result;
use crate::inspect::pipeline::{Inspection, Verdict};
use crate::inspect::route::Routed;
use crate::mail::ops::Outgoing;
use crate::mail::{Address, MsgType, Priority};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;

/// How a request ended, before it is recorded.
#[derive(Debug, Clone)]
pub struct End {
    /// The request's new state.
    pub state: State,
    /// Why.
    pub reason: String,
    /// With `conflict`: the paths.
    pub conflicts: Vec<String>,
    /// True when an inspection decided it (routing that inspection told `mayor/`).
    pub inspected: bool,
    /// The last verdict, when there was one.
    pub verdict: Option<Verdict>,
    /// The target's tip the candidate was built on.
    pub target_tip: Option<String>,
    /// The commit verified.
    pub candidate: Option<String>,
    /// With `merged`: the commit that brought the branch in.
    pub merged_commit: Option<String>,
    /// Its place in the batch it was verified in, when others were verified with it.
    pub batch: Option<BatchPlace>,
    /// Things that went wrong without changing the outcome.
    pub warnings: Vec<String>,
}

impl End {
    /// An end in `state` for `reason`, nothing else known.
    fn new(state: State, reason: String) -> End {
        End {
            state,
            reason,
            conflicts: Vec::new(),
            inspected: false,
            verdict: None,
            target_tip: None,
            candidate: None,
            merged_commit: None,
            batch: None,
            warnings: Vec::new(),
        }
    }

    /// Could not be decided or landed.
    pub fn error(reason: String) -> End {
        End::new(State::Error, reason)
    }

    /// The branch does not merge cleanly onto `tip`.
    pub fn conflict(paths: Vec<String>, tip: String) -> End {
        let mut end = End::new(
            State::Conflict,
            format!(
                "the merge conflicts in {}: {}",
                crate::text::words::plural(paths.len(), "file"),
                paths.join(", ")
            ),
        );
        end.conflicts = paths;
        end.target_tip = Some(tip);
        end
    }

    /// Nothing can land onto `tip`, for `reason`.
    pub fn refused(reason: String, tip: String) -> End {
        let mut end = End::new(State::Rejected, reason);
        end.target_tip = Some(tip);
        end
    }

    /// Decided by an inspection that did not pass.
    pub fn inspected(ins: &Inspection, tip: String, candidate: String) -> End {
        let state = match ins.verdict {
            Verdict::Pass => State::Merged,
            Verdict::Fail => State::Rejected,
            Verdict::NeedsHuman => State::NeedsHuman,
            Verdict::Error => State::Error,
        };
        let mut end = End::new(state, ins.reasons.join("; "));
        end.verdict = Some(ins.verdict);
        end.inspected = true;
        end.record_tip(tip, candidate);
        end
    }

    /// Verified and landed: the target moved from `tip` to `candidate`.
    pub fn merged(ins: &Inspection, tip: String, candidate: String) -> End {
        let mut end = End::inspected(ins, tip, candidate.clone());
        end.state = State::Merged;
        end.merged_commit = Some(candidate);
        end
    }

    /// Notes the tip and the candidate built on it.
    pub fn record_tip(&mut self, tip: String, candidate: String) {
        self.target_tip = Some(tip);
        self.candidate = Some(candidate);
    }
}

/// One request as a run left it.
#[derive(Debug, Clone, Serialize)]
pub struct Taken {
    /// The request, as recorded.
    pub request: MergeRequest,
    /// The inspection that decided it, if one ran to the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inspection: Option<Inspection>,
    /// What routing the inspection did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routed: Option<Routed>,
    /// Subjects of every message sent.
    pub mailed: Vec<String>,
    /// Things that went wrong without changing the outcome.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The commit that recorded it.
    #[serde(skip)]
    pub recorded: Option<Recorded>,
}

/// Records how `req` ended, as `actor`, in one commit, when no inspection decided it (a
/// conflict, a refusal, an error); an inspected end is recorded by the inspection's own
/// run through [`write_in`].
pub fn record(ws: &Workspace, actor: &str, mut req: MergeRequest, end: End) -> Result<Taken> {
    let now = Timestamp::now();
    let mut txn = Txn::begin(ws)?;
    let (ids, mailed) = write_in(&mut txn, ws, &mut req, &end, now)?;
    let recorded = txn.commit(&commit_message(&req, ids, actor))?;
    Ok(Taken {
        request: req,
        inspection: None,
        routed: None,
        mailed,
        warnings: end.warnings,
        recorded: Some(recorded),
    })
}

/// The message of the commit that records how `req` ended.
pub fn commit_message(req: &MergeRequest, ids: Vec<String>, actor: &str) -> CommitMessage {
    CommitMessage {
        verb: "refinery".into(),
        ids,
        title: format!("{} {} -> {}", req.state.name(), req.branch, req.target),
        actor: actor.to_string(),
    }
}

/// Writes how `req` ended into `txn`: the bead closed when it merged, the refinery's own
/// notice to `mayor/`, and the request in its new state. Returns the ids written and the
/// subjects mailed.
pub fn write_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    req: &mut MergeRequest,
    end: &End,
    now: Timestamp,
) -> Result<(Vec<String>, Vec<String>)> {
    let mut ids = vec![req.id.clone()];
    let mut mailed = Vec::new();
    let work = crate::bead::store::load_one(ws, &req.bead).ok();
    let title = work
        .as_ref()
        .map_or_else(|| req.branch.clone(), |w| w.title.clone());
    if end.state == State::Merged
        && let Some(mut work) = work
    {
        let landed = short(end.merged_commit.as_deref().unwrap_or(""));
        if !work.is_closed() {
            work.closed_at = Some(now);
        }
        work.status = Status::Closed;
        work.close_reason = Some(format!(
            "merged into {} as {landed} by the refinery ({})",
            req.target, req.id
        ));
        work.updated_at = Some(now);
        txn.write(
            &crate::bead::store::bead_path(ws, &work.id),
            work.render().as_bytes(),
        )?;
        ids.push(work.id.clone());
    }
    if let Some(out) = notice(ws, req, end, &title) {
        mailed.push(out.subject.clone());
        crate::mail::ops::send_in(txn, ws, out)?;
    }
    if let Some(out) = verification_complete(ws, req, end, &title) {
        mailed.push(out.subject.clone());
        crate::mail::ops::send_in(txn, ws, out)?;
    }
    req.state = end.state;
    req.last_verdict = end.verdict.map(|v| v.as_str().to_string());
    req.reason = Some(end.reason.clone()).filter(|r| !r.is_empty());
    req.conflicts = end.conflicts.clone();
    req.target_tip = end.target_tip.clone();
    req.candidate = end.candidate.clone();
    req.merged_commit = end.merged_commit.clone();
    req.batch = end.batch.clone();
    req.updated_at = now;
    txn.write(
        &request::path(ws, &req.id),
        request::render(req)?.as_bytes(),
    )?;
    Ok((ids, mailed))
}

/// The Inspector's word to the refinery, `<rig>/refinery` (the rig being the bead
/// prefix): "VERIFICATION COMPLETE" with the verdict and the result's record, for a request
/// an inspection decided.
fn verification_complete(
    ws: &Workspace,
    req: &MergeRequest,
    end: &End,
    title: &str,
) -> Option<Outgoing> {
    let verdict = end.verdict?;
    let to = format!("{}/refinery", ws.config.prefix);
    crate::mail::Address::parse(&to).ok()?;
    let result = ws.display(&crate::verify::results::path(ws, &req.bead));
    Some(Outgoing {
        to,
        cc: Vec::new(),
        subject: format!("VERIFICATION COMPLETE: {title}"),
        body: Some(format!(
            "{}: {} (result {result}, recorded in this commit).\nRequest: {} ({} -> {}), now \
             {}.",
            req.bead,
            verdict.as_str(),
            req.id,
            req.branch,
            req.target,
            end.state.name()
        )),
        from: crate::mail::Address::parse("inspector/").ok()?,
        msg_type: crate::mail::MsgType::Notification,
        priority: crate::mail::Priority::Normal,
        reply_to: None,
        ephemeral: false,
    })
}

/// The refinery's own message to `mayor/` about `end`, when routing the inspection did
/// not say it already.
fn notice(ws: &Workspace, req: &MergeRequest, end: &End, title: &str) -> Option<Outgoing> {
    let strategy = ws.config.refinery.strategy.name();
    let resubmit = format!(
        "`vermas refinery submit {} --bead {} --into {}`",
        req.branch, req.bead, req.target
    );
    let (subject, body, priority) = match end.state {
        State::Merged => (
            format!("MERGED: {title}"),
            format!(
                "{} landed on {} as {} ({strategy}), verified on exactly {}.\n\n\
                 Request: {}\nBead: {} (closed)\n\n{}",
                req.branch,
                req.target,
                short(end.merged_commit.as_deref().unwrap_or("")),
                match &end.batch {
                    Some(b) => format!(
                        "the commit holding it and the {} other requests of its batch ({})",
                        b.requests.len() - 1,
                        short(end.candidate.as_deref().unwrap_or(""))
                    ),
                    None => "that commit".into(),
                },
                req.id,
                req.bead,
                end.reason
            ),
            Priority::Normal,
        ),
        State::Conflict => (
            format!("CONFLICT: {title}"),
            format!(
                "{} does not merge cleanly onto {} ({}). Conflicting paths:\n\n{}\n\nMerge {} \
                 into {} (or rebase), resolve them, then {resubmit}.\n\nRequest: {}",
                req.branch,
                req.target,
                short(end.target_tip.as_deref().unwrap_or("")),
                end.conflicts
                    .iter()
                    .map(|p| format!("- {p}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
                req.target,
                req.branch,
                req.id
            ),
            Priority::High,
        ),
        State::Error => not_merged(req, title, &end.reason, &resubmit),
        State::Rejected if !end.inspected => not_merged(req, title, &end.reason, &resubmit),
        _ => return None,
    };
    Some(Outgoing {
        to: "mayor/".into(),
        cc: Vec::new(),
        subject,
        body: Some(body),
        from: Address::parse("refinery/").ok()?,
        msg_type: MsgType::Notification,
        priority,
        reply_to: None,
        ephemeral: false,
    })
}

/// The subject, body and priority of "NOT MERGED: <title>" for `reason`.
fn not_merged(
    req: &MergeRequest,
    title: &str,
    reason: &str,
    resubmit: &str,
) -> (String, String, Priority) {
    (
        format!("NOT MERGED: {title}"),
        format!(
            "{} was not merged into {}: {reason}\n\nWhen it is fixed: {resubmit}.\n\nRequest: {}",
            req.branch, req.target, req.id
        ),
        Priority::High,
    )
}

/// The first 12 characters of a commit id.
pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}
