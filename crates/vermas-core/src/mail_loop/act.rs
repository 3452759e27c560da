//! What the Inspector's loop does for each kind of message it knows. Each action writes its
//! records and finishes the message in one commit where it can (a strategist's proposal,
//! a re-judgement), so a message is either untouched or done; the refinery commits by
//! itself, so a resumed merge request first looks whether its request was settled.

use super::mark;
use crate::bead::store::load_one;
use crate::error::{Error, Result};
use crate::inspect;
use crate::inspect::pipeline::{Inspection, Upto, Verdict};
use crate::inspect::route::Routed;
use crate::inspect::run::{Answer, Proceed};
use crate::mail::ops::Outgoing;
use crate::mail::{Address, Message, MsgType, Priority};
use crate::planning::strategy::{self, StrategyInput};
use crate::refinery::request::{self, MergeRequest};
use crate::refinery::run::RunOptions;
use crate::store::Txn;
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// What an action did to its message.
#[derive(Debug, Clone)]
pub struct Acted {
    /// What was done, as noted in the message.
    pub note: String,
    /// True when the message was finished without acting (it named nothing to act on).
    pub refused: bool,
}

/// Finishes `msg` without acting, noting why.
fn refuse(ws: &Workspace, actor: &str, msg: &Message, why: &str) -> Result<Acted> {
    let note = format!("not done: {why}");
    mark::finish(ws, actor, msg, &note)?;
    Ok(Acted {
        note,
        refused: true,
    })
}

/// The first word of `text` that is a bead id (or a unique prefix of one) in `ws`.
fn named_bead(ws: &Workspace, text: &str) -> Option<String> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| w.contains('-') && crate::store::id::is_valid(w))
        .find_map(|w| load_one(ws, w).ok().map(|b| b.id))
}

/// The inspector's own address.
fn inspector() -> Result<Address> {
    Address::parse("inspector/")
}

/// NEW SPEC NEEDED: asks the strategist for criteria, adds them to the work's test spec
/// unapproved and mails `mayor/` the proposal, finishing `msg` in the same commit.
pub fn new_spec(ws: &Workspace, actor: &str, msg: &Message) -> Result<Acted> {
    let Some(work) = named_bead(ws, &mark::sent_body(msg)) else {
        return refuse(ws, actor, msg, "the message names no bead");
    };
    if let Ok(Some(spec)) = crate::inspect::testspec::of_work(ws, &work)
        && !spec.acceptance_criteria.is_empty()
    {
        let ids: Vec<&str> = spec
            .acceptance_criteria
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        return refuse(
            ws,
            actor,
            msg,
            &format!(
                "{} has criteria already ({}): a duplicate request; `vermas strategize {work}` \
                 asks for more",
                spec.id,
                ids.join(", ")
            ),
        );
    }
    let input = match StrategyInput::new(ws, &work) {
        Ok(input) => input,
        Err(e) => return refuse(ws, actor, msg, &e.to_string()),
    };
    let criteria = strategy::propose(ws, &input, None)?;
    let mut txn = Txn::begin(ws)?;
    let (done, mut commit) =
        strategy::add_in(&mut txn, ws, actor, &input.work.id, &criteria, false)?;
    let added: Vec<_> = done
        .spec
        .acceptance_criteria
        .iter()
        .filter(|c| done.added.contains(&c.id))
        .cloned()
        .collect();
    let subject = format!("SPEC PROPOSED: {}", done.work.title);
    let body = format!(
        "The strategist proposes these criteria for {} ({}), now on test spec {} (not approved):\n\n{}\nApprove them: vermas inspect approve {}\nOr ask again: vermas strategize {}",
        done.work.id,
        done.work.title,
        done.spec.id,
        strategy::to_text(&added),
        done.spec.id,
        done.work.id
    );
    let sent = crate::mail::ops::send_in(
        &mut txn,
        ws,
        Outgoing {
            to: "mayor/".into(),
            cc: Vec::new(),
            subject: subject.clone(),
            body: Some(body),
            from: inspector()?,
            msg_type: MsgType::Task,
            priority: Priority::Normal,
            reply_to: Some(msg.id.clone()),
            ephemeral: false,
        },
    )?;
    let note = format!(
        "proposed {} on {}; mailed mayor/ {subject} ({})",
        done.added.join(", "),
        done.spec.id,
        sent.first().map_or("", |m| m.id.as_str())
    );
    mark::finish_in(&mut txn, ws, msg, &note)?;
    commit.verb = "inspector".into();
    commit.ids.insert(0, msg.id.clone());
    commit.title.clone_from(&msg.subject);
    txn.commit(&commit)?;
    Ok(Acted {
        note,
        refused: false,
    })
}

/// The request a MERGE REQUEST names by id or branch (the newest for a branch).
fn named_request<'a>(all: &'a [MergeRequest], name: &str) -> Option<&'a MergeRequest> {
    all.iter().find(|r| r.id == name).or_else(|| {
        all.iter()
            .filter(|r| r.branch == name)
            .max_by_key(|r| r.seq)
    })
}

/// MERGE REQUEST: runs the refinery once (`refinery run --once`), again while the named
/// request still waits behind older ones; a request settled already (a resumed message)
/// is only noted.
pub fn merge_request(ws: &Workspace, actor: &str, msg: &Message) -> Result<Acted> {
    let name = subject_rest(&msg.subject, MERGE_REQUEST)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    let (all, _) = request::load_all(ws)?;
    let named = named_request(&all, &name).map(|r| r.id.clone());
    if let Some(r) = named
        .as_deref()
        .and_then(|id| all.iter().find(|r| r.id == id))
        && !r.state.is_waiting()
    {
        let note = format!("{} was settled already: {}", r.id, r.state.name());
        mark::finish(ws, actor, msg, &note)?;
        return Ok(Acted {
            note,
            refused: false,
        });
    }
    let opts = RunOptions {
        once: true,
        use_cache: true,
        batch: None,
    };
    let mut notes = Vec::new();
    for _ in 0..all.len().max(1) {
        let taken = crate::refinery::run::run(ws, actor, opts, |_| {})?;
        notes.extend(taken.iter().map(|t| {
            let r = &t.request;
            let verdict = r
                .last_verdict
                .as_deref()
                .map(|v| format!(" ({v})"))
                .unwrap_or_default();
            format!(
                "{} {} -> {} {}{verdict}",
                r.id,
                r.branch,
                r.target,
                r.state.name()
            )
        }));
        let still_waits = named.as_deref().is_some_and(|id| {
            request::load_all(ws)
                .map(|(all, _)| all.iter().any(|r| r.id == id && r.state.is_waiting()))
                .unwrap_or(false)
        });
        if taken.is_empty() || !still_waits {
            break;
        }
    }
    let note = if notes.is_empty() {
        "refinery run --once: nothing queued".to_string()
    } else {
        format!("refinery run --once: {}", notes.join("; "))
    };
    mark::finish(ws, actor, msg, &note)?;
    Ok(Acted {
        note,
        refused: false,
    })
}

/// RE: NEEDS_CLARIFICATION: records the reply as the answer to the work's question and
/// inspects the work again; the answer, the result, its routing and the finished message
/// in one commit. An inspection that ends in ERROR writes nothing and is an error here, so
/// the message is tried again.
pub fn answered(ws: &Workspace, actor: &str, msg: &Message) -> Result<Acted> {
    let rest = subject_rest(&msg.subject, NEEDS_CLARIFICATION);
    let Some(work_id) = named_bead(ws, rest) else {
        return refuse(ws, actor, msg, "the subject names no bead");
    };
    let answer = mark::sent_body(msg);
    if answer.is_empty() {
        return refuse(ws, actor, msg, "the reply is empty");
    }
    let work = crate::bead::store::load_one(ws, &work_id)?;
    if let Some(why) = crate::inspect::answer::refusal(ws, &work, msg) {
        return refuse(ws, actor, msg, &format!("not an answer that counts: {why}"));
    }
    let req = inspect::Request {
        answer: Answer::Given(answer),
        ..inspect::Request::new(work_id, Upto::Run)
    };
    let mut reply = Reply {
        ws,
        msg,
        note: None,
    };
    let out = inspect::run(ws, Some(actor), &req, &mut reply)?;
    let note = reply.note.unwrap_or_default();
    Ok(Acted {
        note: if out.hook_warnings.is_empty() {
            note
        } else {
            format!("{note} (hook: {})", out.hook_warnings.join("; "))
        },
        refused: false,
    })
}

/// The loop's part in inspecting again after a reply: an ERROR is retried later, and the
/// reply is finished in the routing commit.
struct Reply<'a> {
    /// The workspace.
    ws: &'a Workspace,
    /// The reply.
    msg: &'a Message,
    /// What was done, once recorded.
    note: Option<String>,
}

impl inspect::Observer for Reply<'_> {
    fn inspected(&mut self, ins: &Inspection) -> Result<Proceed> {
        if ins.verdict == Verdict::Error {
            return Err(Error::Invalid(format!(
                "inspecting {} again ended in ERROR: {}",
                ins.work,
                ins.reasons.join("; ")
            )));
        }
        Ok(Proceed::Route)
    }

    fn record_in(
        &mut self,
        txn: &mut Txn<'_>,
        ins: &Inspection,
        routed: Option<&Routed>,
        _now: Timestamp,
    ) -> Result<Vec<String>> {
        let mailed = routed.map(|r| r.mailed.join(", ")).unwrap_or_default();
        let note = format!(
            "inspected {} again: {}{}",
            ins.work,
            ins.verdict.as_str(),
            if mailed.is_empty() {
                String::new()
            } else {
                format!("; mailed mayor/ {mailed}")
            }
        );
        mark::finish_in(txn, self.ws, self.msg, &note)?;
        self.note = Some(note);
        Ok(vec![self.msg.id.clone()])
    }

    fn commit_title(&self, _ins: &Inspection) -> Option<(String, String)> {
        Some(("inspector".into(), self.msg.subject.clone()))
    }
}

/// The subject prefix of a refinery request.
pub const MERGE_REQUEST: &str = "MERGE REQUEST:";
/// The subject prefix of a strategist request.
pub const NEW_SPEC_NEEDED: &str = "NEW SPEC NEEDED:";
/// The subject prefix of a question, after the reply's `RE:`.
pub const NEEDS_CLARIFICATION: &str = "NEEDS_CLARIFICATION:";

/// `subject` after `prefix` (and any `RE:` before it), trimmed; empty when it is not there.
pub fn subject_rest<'a>(subject: &'a str, prefix: &str) -> &'a str {
    let s = subject.trim();
    let s = strip_ci(s, "RE:").map_or(s, str::trim_start);
    strip_ci(s, prefix).map_or("", str::trim)
}

/// `text` without `prefix`, compared ignoring ASCII case.
pub fn strip_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}
