//! Recording and routing an inspection, in one commit: the result under
//! `.beads/results/<id>.yaml`, then by verdict — PASS labels the work `verified` and mails
//! `mayor/`; FAIL writes a `verification-result` bead with the failure report, sets the
//! work `rejected` and mails `mayor/`; NEEDS_HUMAN asks the question on the work (as
//! `clarify` does) and mails `mayor/`. ERROR is recorded only.

use super::pipeline::{Inspection, Verdict};
use crate::bead::model::{Bead, IssueType, Status};
use crate::bead::store::bead_path;
use crate::error::{Error, Result};
use crate::mail::ops::Outgoing;
use crate::mail::{MsgType, Priority};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::verify::results::{Evidence, ResultRecord};
use crate::workspace::Workspace;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

use crate::bead::model::{AWAITING_INPUT, VERIFIED};

/// What routing did, besides the record.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Routed {
    /// The `verification-result` bead written for a FAIL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_bead: Option<String>,
    /// Subjects of the messages sent.
    pub mailed: Vec<String>,
    /// The commit, if one was made.
    #[serde(skip)]
    pub recorded: Option<Recorded>,
}

/// Records `ins` and routes the work by its verdict, as `actor`, in one commit.
pub fn record_and_route(ws: &Workspace, actor: &str, ins: &Inspection) -> Result<Routed> {
    let mut txn = Txn::begin(ws)?;
    let (mut routed, ids) = route_in(&mut txn, ws, actor, ins, Timestamp::now())?;
    routed.recorded = Some(txn.commit(&CommitMessage {
        verb: "inspect".into(),
        ids,
        title: format!("{} {}", ins.verdict.as_str(), ins.title),
        actor: actor.to_string(),
    })?);
    Ok(routed)
}

/// Records `ins` and routes the work by its verdict inside the open change `txn` (which
/// the caller commits), returning what was routed and the ids of the records written.
pub fn route_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    ins: &Inspection,
    now: Timestamp,
) -> Result<(Routed, Vec<String>)> {
    let record = record_of(ins, now);
    let text = crate::text::yaml::to_string(&record).map_err(Error::Invalid)?;
    txn.write(
        &crate::verify::results::path(ws, &ins.work),
        text.as_bytes(),
    )?;
    let mut work = crate::bead::store::load_one(ws, &ins.work)?;
    let mut routed = Routed {
        result_bead: None,
        mailed: Vec::new(),
        recorded: None,
    };
    let mut ids = vec![work.id.clone()];
    let mut outgoing = Vec::new();
    let was_verified = work.has_label(VERIFIED);
    if ins.verdict != Verdict::Pass {
        // `verified` means verified now: any other verdict takes it away.
        work.labels.retain(|l| l != VERIFIED);
    }
    match ins.verdict {
        Verdict::Pass => {
            if !work.labels.iter().any(|l| l == VERIFIED) {
                work.labels.push(VERIFIED.into());
            }
            ids.extend(close_failure_reports(txn, ws, &work, ins, now)?);
            if work.status == Status::Rejected {
                work.status = Status::Open;
            }
            outgoing.push(to_mayor(
                format!("VERIFIED: {}", work.title),
                format!(
                    "{} passed inspection.\n\n{}",
                    work.id,
                    ins.reasons.join("\n")
                ),
                Priority::Normal,
            ));
        }
        Verdict::Fail => {
            let report = failure_report(ins);
            let child = result_bead(ws, &work, &report, actor, now)?;
            txn.write(&bead_path(ws, &child.id), child.render().as_bytes())?;
            ids.push(child.id.clone());
            routed.result_bead = Some(child.id);
            work.status = Status::Rejected;
            outgoing.push(to_mayor(
                format!("REJECTED: {}", work.title),
                report,
                Priority::High,
            ));
        }
        Verdict::NeedsHuman => {
            let question = ins.question.clone().unwrap_or_else(|| "Is it done?".into());
            routed.mailed.push(ask(
                txn,
                ws,
                actor,
                &mut work,
                &question,
                ins.work_state.as_deref(),
                now,
            )?);
        }
        Verdict::Error => {}
    }
    if ins.verdict != Verdict::Error || was_verified {
        work.updated_at = Some(now);
        txn.write(&bead_path(ws, &work.id), work.render().as_bytes())?;
    }
    for out in outgoing {
        routed.mailed.push(out.subject.clone());
        crate::mail::ops::send_in(txn, ws, out)?;
    }
    Ok((routed, ids))
}

/// Closes the open failure reports (`verification-result` children) of `work`, superseded
/// by the passing `ins`; returns their ids.
fn close_failure_reports(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    work: &Bead,
    ins: &Inspection,
    now: Timestamp,
) -> Result<Vec<String>> {
    let prefix = format!("{}.", work.id);
    let mut closed = Vec::new();
    for id in ws
        .bead_ids()?
        .into_iter()
        .filter(|id| id.starts_with(&prefix))
    {
        let Ok(mut report) = crate::bead::store::load_one(ws, &id) else {
            continue;
        };
        if report.issue_type != IssueType::VerificationResult
            || report.parent.as_deref() != Some(&work.id)
            || report.is_closed()
        {
            continue;
        }
        report.status = Status::Closed;
        report.closed_at = Some(now);
        report.close_reason = Some(format!(
            "superseded by the passing inspection of {}{}",
            work.id,
            ins.head
                .as_deref()
                .map(|h| format!(" at {}", &h[..h.len().min(12)]))
                .unwrap_or_default()
        ));
        report.updated_at = Some(now);
        txn.write(&bead_path(ws, &report.id), report.render().as_bytes())?;
        closed.push(report.id);
    }
    Ok(closed)
}

/// A notification from the Inspector to `mayor/`.
fn to_mayor(subject: String, body: String, priority: Priority) -> Outgoing {
    Outgoing {
        to: super::answer::ASKED_OF.into(),
        cc: Vec::new(),
        subject,
        body: Some(body),
        from: crate::mail::Address::parse("inspector/").expect("a valid address"),
        msg_type: MsgType::Notification,
        priority,
        reply_to: None,
        ephemeral: false,
    }
}

/// Asks `question` about `work` in `txn`: labels it awaiting input, mails the question to
/// `mayor/` and notes it on the bead with the message id and the state of the work asked
/// about (`head`, a [`crate::git::GitRepo::work_fingerprint`]); returns the mail's subject.
fn ask(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    work: &mut Bead,
    question: &str,
    head: Option<&str>,
    now: Timestamp,
) -> Result<String> {
    if !work.labels.iter().any(|l| l == AWAITING_INPUT) {
        work.labels.push(AWAITING_INPUT.into());
    }
    let asked = to_mayor(
        format!("NEEDS_CLARIFICATION: {}", work.id),
        format!(
            "{}: {}\n\nQuestion: {question}\n\nAnswer with `vermas answer {} \"...\"` or by replying to this message, then run `vermas inspect run {}` again.",
            work.id, work.title, work.id, work.id
        ),
        Priority::High,
    );
    let subject = asked.subject.clone();
    let sent = crate::mail::ops::send_in(txn, ws, asked)?;
    let at = head
        .map(|h| format!(", work {}", &h[..h.len().min(12)]))
        .unwrap_or_default();
    let via = sent
        .first()
        .map(|m| format!(" (asked in {}{at})", m.id))
        .unwrap_or_default();
    crate::bead::ops::add_note(work, actor, format!("Question: {question}{via}"), now);
    Ok(subject)
}

/// The result record of an inspection.
fn record_of(ins: &Inspection, at: Timestamp) -> ResultRecord {
    let checks = ins
        .checks
        .iter()
        .map(|c| Evidence {
            criterion: c.id.clone(),
            kind: c.kind.clone(),
            command: if c.result.command.is_empty() {
                c.target.clone()
            } else {
                c.result.command.clone()
            },
            exit_code: c.result.exit_code,
            outcome: c.result.outcome,
            classification: None,
            duration_ms: c.result.duration_ms,
            attempt: 1,
            at: Some(at),
            snippet: {
                let (s, _) = c.result.snippet(12);
                if s.is_empty() {
                    c.result.reason.clone().unwrap_or_default()
                } else {
                    s
                }
            },
        })
        .collect();
    ResultRecord {
        key: ins.work.clone(),
        verdict: ins.verdict,
        confidence: ins
            .judgment
            .as_ref()
            .and_then(|j| j.confidence.map(|_| ins.confidence)),
        at,
        checks,
        briefs: ins.briefs.clone(),
        reasons: ins.reasons.clone(),
        head: ins.head.clone(),
        tree: ins.tree.clone(),
        approval: ins.approval.clone(),
        prompt_hashes: ins.prompt_hashes.clone(),
    }
}

/// The failure report: each failing criterion with its evidence, the critic's points and
/// the judge's reasons.
pub fn failure_report(ins: &Inspection) -> String {
    let mut r = format!("Inspection of {} ({}): FAIL\n\n", ins.work, ins.title);
    for reason in &ins.reasons {
        let _ = writeln!(r, "- {reason}");
    }
    let _ = writeln!(r, "\nFailing criteria:");
    for c in ins
        .checks
        .iter()
        .filter(|c| c.result.outcome != crate::check::Outcome::Pass)
    {
        let _ = writeln!(
            r,
            "\n{} [{}] {}\n  check ({}): {}",
            c.id, c.result.outcome, c.description, c.kind, c.target
        );
        if let Some(why) = &c.result.reason {
            let _ = writeln!(r, "  why: {why}");
        }
        let (snippet, _) = c.result.snippet(12);
        for line in snippet.lines() {
            let _ = writeln!(r, "  | {line}");
        }
    }
    for a in ins
        .audit
        .iter()
        .filter(|a| a.finding != super::roles::Finding::Met)
    {
        let _ = writeln!(
            r,
            "\nAuditor on {}: {} ({})",
            a.id,
            a.finding.as_str(),
            a.why
        );
    }
    if let Some(critic) = ins.briefs.get("critic") {
        let _ = writeln!(r, "\nCritic:\n{critic}");
    }
    if let Some(j) = &ins.judgment
        && !j.reasons.is_empty()
    {
        let _ = writeln!(r, "\nJudge:\n- {}", j.reasons.join("\n- "));
    }
    r
}

/// The `verification-result` bead for a FAIL: a child of the work holding the report.
fn result_bead(
    ws: &Workspace,
    work: &Bead,
    report: &str,
    actor: &str,
    now: Timestamp,
) -> Result<Bead> {
    let ids = ws.bead_ids()?;
    let id = crate::bead::ops::next_child_id(&ids, &work.id);
    let mut b = Bead::new(id, format!("Verification failed: {}", work.title));
    b.issue_type = IssueType::VerificationResult;
    b.parent = Some(work.id.clone());
    b.priority = work.priority;
    b.created_at = Some(now);
    b.updated_at = Some(now);
    b.created_by = Some(actor.to_string());
    b.description = report.to_string();
    Ok(b)
}
