//! A person's answer to the Inspector's question, and whether it counts. Only for the
//! question vermas asked last (the work's latest `Question:` note, naming the message it
//! was mailed in and the state of the work it is about), while the work is still in that
//! state; either an `Answer:` note after the question, or a reply to the question's message
//! from the address it was asked of. With approvers set, only an answer an approver's
//! signed commit recorded. The newest counts, by the order the ledger's commits recorded
//! them, never by a time the sender wrote.

use crate::bead::model::{AWAITING_INPUT, Bead};
use crate::mail::Message;
use crate::trusted::{Signed, Trusted};
use crate::workspace::Workspace;

/// The question vermas asked last about a work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked {
    /// The message the question was mailed in.
    pub msg: Option<String>,
    /// The state of the work it is about (a fingerprint's start).
    pub about: Option<String>,
    /// The question note's place among the work's notes.
    note: usize,
}

/// The address the Inspector asks its questions of.
pub(crate) const ASKED_OF: &str = "mayor/";

/// The latest question on `work`, if one was asked.
pub(crate) fn asked(work: &Bead) -> Option<Asked> {
    let note = work
        .notes
        .iter()
        .rposition(|n| n.text.starts_with("Question:"))?;
    let text = &work.notes[note].text;
    let (msg, about) = match text.rsplit_once("(asked in ") {
        Some((_, rest)) => {
            let rest = rest.trim_end_matches(')');
            match rest.split_once(", work ") {
                Some((m, at)) => (Some(m.to_string()), Some(at.trim().to_string())),
                None => (Some(rest.to_string()), None),
            }
        }
        None => (None, None),
    };
    Some(Asked { msg, about, note })
}

/// The answer that counts for the latest question on `work`, about the work as it is now
/// (`head`, its fingerprint): see the module docs.
pub(crate) fn latest(ws: &Workspace, work: &Bead, head: Option<&str>) -> Option<String> {
    let asked = asked(work)?;
    if let (Some(about), Some(head)) = (&asked.about, head)
        && !head.starts_with(about.as_str())
    {
        return None;
    }
    let trusted = Trusted::of(ws).ok()?;
    let notes = &work.notes[asked.note + 1..];
    if let Some(note) = notes.iter().rev().find(|n| n.text.starts_with("Answer:")) {
        let counts = !trusted.authenticated() || note_signed(ws, &trusted, work, note);
        if counts {
            return note
                .text
                .strip_prefix("Answer:")
                .map(|a| a.trim().to_string());
        }
    }
    let question = asked.msg.as_deref()?;
    let thread = crate::mail::query::thread(ws, question).ok()?;
    let replies: Vec<&Message> = thread
        .messages
        .iter()
        .filter(|m| is_reply_to(m, question))
        .collect();
    newest_counted(ws, &trusted, &replies).map(|m| m.body.trim().to_string())
}

/// Why `msg` is not an answer to the question vermas waits on for `work`; `None` when it
/// is one (see the module docs).
pub(crate) fn refusal(ws: &Workspace, work: &Bead, msg: &Message) -> Option<String> {
    let Some(asked) = asked(work) else {
        return Some(format!("no question was asked about {}", work.id));
    };
    if !work.has_label(AWAITING_INPUT) {
        return Some(format!("no question about {} waits for an answer", work.id));
    }
    let Some(question) = asked.msg.as_deref() else {
        return Some(format!(
            "the question about {} was not mailed, so no reply answers it",
            work.id
        ));
    };
    if !is_reply_to(msg, question) {
        return Some(format!(
            "it is not a reply from {ASKED_OF} to the question {question} (from {}, in reply \
             to {})",
            msg.from,
            msg.reply_to.as_deref().unwrap_or("nothing")
        ));
    }
    let trusted = match Trusted::of(ws) {
        Ok(t) => t,
        Err(e) => return Some(e.to_string()),
    };
    if trusted.authenticated() && newest_counted(ws, &trusted, &[msg]).is_none() {
        return Some(
            "approvers are set, and no approver signed the commit that recorded it".into(),
        );
    }
    None
}

/// True when `m` answers the question mailed as `question`: a reply to it, from the
/// address it was asked of.
fn is_reply_to(m: &Message, question: &str) -> bool {
    m.reply_to.as_deref() == Some(question) && m.from == ASKED_OF
}

/// The newest of `replies` by the commits that recorded them, among those that count
/// (with approvers: recorded by an approver's signed commit); by `created_at` when the
/// ledger is not committed.
fn newest_counted<'m>(
    ws: &Workspace,
    trusted: &Trusted,
    replies: &[&'m Message],
) -> Option<&'m Message> {
    let paths: Vec<(String, &Message)> = replies
        .iter()
        .filter_map(|m| {
            let file = crate::mail::store::find(ws, &m.id).ok()?.path();
            Some((trusted.rel(ws, &file)?, *m))
        })
        .collect();
    let rels: Vec<&str> = paths.iter().map(|(p, _)| p.as_str()).collect();
    if rels.is_empty() {
        return None;
    }
    let Ok(versions) = trusted.versions(&rels) else {
        return None;
    };
    if versions.is_empty() && !trusted.authenticated() {
        return replies.iter().max_by_key(|m| m.created_at).copied();
    }
    // Newest commit first: the first whose adding commit counts names the answer.
    for v in versions {
        if trusted.authenticated() && !matches!(v.signed, Signed::By(_)) {
            continue;
        }
        let Some(repo) = crate::git::GitRepo::open(&ws.beads_dir) else {
            break;
        };
        let added = paths.iter().find(|(rel, _)| {
            repo.file_at(&v.commit, rel).is_some() && !in_parent(&repo, &v.commit, rel)
        });
        if let Some((_, m)) = added {
            return Some(m);
        }
    }
    None
}

/// True when the first parent of `commit` holds `rel` already.
fn in_parent(repo: &crate::git::GitRepo, commit: &str, rel: &str) -> bool {
    repo.file_at(&format!("{commit}^"), rel).is_some()
}

/// True when an approver's signed commit recorded `note` on `work`.
fn note_signed(
    ws: &Workspace,
    trusted: &Trusted,
    work: &Bead,
    note: &crate::bead::model::Note,
) -> bool {
    let Some(rel) = trusted.rel(ws, &crate::bead::store::bead_path(ws, &work.id)) else {
        return false;
    };
    let made = trusted.made_by(&rel, |bytes| {
        crate::bead::parse_text(&String::from_utf8_lossy(bytes), &rel)
            .is_ok_and(|b| b.notes.contains(note))
    });
    matches!(
        made,
        Ok(Some(crate::trusted::Version {
            signed: Signed::By(_),
            ..
        }))
    )
}
