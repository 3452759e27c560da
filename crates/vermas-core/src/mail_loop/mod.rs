//! The Inspector's own loop (`inspector run`): reads `inspector/` mail oldest first and
//! acts on the kinds it knows (NEW SPEC NEEDED, MERGE REQUEST, RE: NEEDS_CLARIFICATION).
//! Each message is taken (marked read, one commit) before acting and finished (archived with
//! a note) after; a message taken but not finished is resumed by the next run. Any other
//! message is left unread for a person and reported once.

pub mod act;
pub mod mark;

use crate::error::{Error, Result};
use crate::mail::Message;
use crate::mail::store;
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::HashSet;
use std::time::Duration;

/// A kind of message the loop acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `NEW SPEC NEEDED: <title>`: propose criteria, mail `mayor/` for approval.
    NewSpec,
    /// `MERGE REQUEST: <branch or mq id>`: `refinery run --once`.
    MergeRequest,
    /// `RE: NEEDS_CLARIFICATION: <id>`: record the answer, inspect the work again.
    Answered,
}

/// The kind of a message by its subject, if the loop knows it.
pub fn classify(subject: &str) -> Option<Kind> {
    let s = subject.trim();
    if let Some(rest) = act::strip_ci(s, "RE:") {
        return act::strip_ci(rest.trim_start(), act::NEEDS_CLARIFICATION).map(|_| Kind::Answered);
    }
    if act::strip_ci(s, act::NEW_SPEC_NEEDED).is_some() {
        Some(Kind::NewSpec)
    } else if act::strip_ci(s, act::MERGE_REQUEST).is_some() {
        Some(Kind::MergeRequest)
    } else {
        None
    }
}

/// How the loop left a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// Taken, acted on and archived.
    Done,
    /// Taken by an earlier run that stopped before finishing; finished now.
    Resumed,
    /// Archived without acting: it named nothing to act on.
    Refused,
    /// The action failed: the message stays taken and the next run tries it again.
    Failed,
    /// Not a kind the loop knows: left unread for a person.
    Unknown,
    /// A file in the mailbox that does not parse: left as it is.
    Unreadable,
}

impl Disposition {
    /// The word shown for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Done => "done",
            Disposition::Resumed => "resumed",
            Disposition::Refused => "refused",
            Disposition::Failed => "failed",
            Disposition::Unknown => "unknown",
            Disposition::Unreadable => "unreadable",
        }
    }
}

/// One thing the loop did (or declined to do) with one message.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// The message id (for an unreadable file, its path).
    pub message: String,
    /// Its subject.
    pub subject: String,
    /// Its kind, when the loop knows it.
    pub kind: Option<Kind>,
    /// How it was left.
    pub outcome: Disposition,
    /// What was done, or why not.
    pub note: String,
}

/// What the loop remembers: the messages (and files) it reported as unknown or unreadable,
/// kept in `.beads/.cache/inspector-reported` so a restart does not report them again, and
/// the actions that failed in this run, tried again only by the next start.
#[derive(Debug, Default)]
pub struct Memory {
    /// Messages (and files) reported already.
    reported: HashSet<String>,
    /// Messages whose action failed in this run.
    failed: HashSet<String>,
    /// Where `reported` is kept (none: in memory only).
    file: Option<std::path::PathBuf>,
    /// True when `reported` grew since it was last kept.
    unsaved: bool,
}

impl Memory {
    /// The memory of the loops before this one in `ws` (a missing cache: nothing reported).
    pub fn load(ws: &Workspace) -> Memory {
        let file = ws.cache_dir().join("inspector-reported");
        let reported = std::fs::read_to_string(&file)
            .map(|t| t.lines().map(str::to_string).collect())
            .unwrap_or_default();
        Memory {
            reported,
            failed: HashSet::new(),
            file: Some(file),
            unsaved: false,
        }
    }

    /// Notes `key` as reported; false when it was already.
    fn report(&mut self, key: &str) -> bool {
        let new = self.reported.insert(key.to_string());
        self.unsaved |= new;
        new
    }

    /// Keeps what was reported in the cache, forgetting what is no longer in the mailbox
    /// (`present`). Best effort: a lost cache only means a message is reported again.
    fn save(&mut self, present: &HashSet<String>) {
        let before = self.reported.len();
        self.reported.retain(|k| present.contains(k));
        self.unsaved |= self.reported.len() != before;
        let Some(file) = self.file.as_ref().filter(|_| self.unsaved) else {
            return;
        };
        let mut keys: Vec<&str> = self.reported.iter().map(String::as_str).collect();
        keys.sort_unstable();
        let _ = file
            .parent()
            .map(std::fs::create_dir_all)
            .transpose()
            .and_then(|_| std::fs::write(file, keys.join("\n") + "\n"));
        self.unsaved = false;
    }
}

/// How `inspector run` runs.
#[derive(Debug, Clone, Copy)]
pub struct LoopOptions {
    /// One pass over the mailbox, then stop.
    pub once: bool,
    /// The wait between passes.
    pub interval: Duration,
}

/// Runs the loop as `actor`: one pass with `once`, else passes `interval` apart until the
/// process is stopped (Ctrl-C ends it; see [`crate::proc::interrupt`]). `seen` hears of each
/// event as it happens. Returns the events of a `once` run.
pub fn run(
    ws: &Workspace,
    actor: &str,
    opts: LoopOptions,
    mut seen: impl FnMut(&Event),
) -> Result<Vec<Event>> {
    crate::bead::ops::check_actor(actor)?;
    let mut memory = Memory::load(ws);
    let mut all = Vec::new();
    loop {
        let events = pass(ws, actor, &mut memory, &mut seen)?;
        if opts.once {
            all.extend(events);
            return Ok(all);
        }
        std::thread::sleep(opts.interval);
    }
}

/// One pass over the mailbox, oldest message first. One pass at a time: a second waits
/// for the first, so a message is taken (and acted on) by one pass only, and a message a
/// pass finds taken was left by one that was interrupted.
pub fn pass(
    ws: &Workspace,
    actor: &str,
    memory: &mut Memory,
    seen: &mut impl FnMut(&Event),
) -> Result<Vec<Event>> {
    let _one_pass = ws.lock_file(&ws.cache_dir(), "inspector.lock")?;
    let dir = mark::live_dir(ws);
    let loaded = store::load_dir(ws, &dir)?;
    let mut events = Vec::new();
    let mut emit = |e: Event| {
        seen(&e);
        events.push(e);
    };
    let mut present = HashSet::new();
    for broken in loaded.broken {
        let text = broken.to_string();
        present.insert(text.clone());
        if memory.report(&text) {
            emit(Event {
                message: text.split(':').next().unwrap_or_default().to_string(),
                subject: String::new(),
                kind: None,
                outcome: Disposition::Unreadable,
                note: text,
            });
        }
    }
    let mut messages = loaded.records;
    messages.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    present.extend(messages.iter().map(|m| m.id.clone()));
    for listed in messages {
        // The index may hold a long body only in part: read the file.
        let Ok(msg) = store::read_message(ws, &dir, &dir.file(&listed.id)) else {
            continue;
        };
        if let Some(e) = handle(ws, actor, memory, &msg) {
            emit(e);
        }
    }
    memory.save(&present);
    Ok(events)
}

/// What to do with one live message; `None` when it is not the loop's to act on.
fn handle(ws: &Workspace, actor: &str, memory: &mut Memory, msg: &Message) -> Option<Event> {
    if mark::is_done(msg) || memory.failed.contains(&msg.id) {
        return None;
    }
    let kind = classify(&msg.subject);
    let resumed = mark::taken_at(msg).is_some();
    let event = |outcome: Disposition, note: String| Event {
        message: msg.id.clone(),
        subject: msg.subject.clone(),
        kind,
        outcome,
        note,
    };
    if msg.read && !resumed {
        // Read by someone else: theirs to act on.
        return None;
    }
    let Some(kind) = kind else {
        if resumed || !memory.report(&msg.id) {
            return None;
        }
        return Some(event(
            Disposition::Unknown,
            "not a kind the inspector acts on: left unread".into(),
        ));
    };
    let taken = if resumed {
        Ok(msg.clone())
    } else {
        mark::take(ws, actor, msg)
    };
    let acted = taken.and_then(|m| match kind {
        Kind::NewSpec => act::new_spec(ws, actor, &m),
        Kind::MergeRequest => act::merge_request(ws, actor, &m),
        Kind::Answered => act::answered(ws, actor, &m),
    });
    Some(match acted {
        Ok(a) if a.refused => event(Disposition::Refused, a.note),
        Ok(a) if resumed => event(Disposition::Resumed, a.note),
        Ok(a) => event(Disposition::Done, a.note),
        Err(e) => {
            memory.failed.insert(msg.id.clone());
            event(Disposition::Failed, failure(&e, resumed))
        }
    })
}

/// The note of a failed action.
fn failure(e: &Error, resumed: bool) -> String {
    format!(
        "{e} (left taken{}; the next `vermas inspect loop` tries it again)",
        if resumed { ", resumed" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_subject() {
        assert_eq!(classify("NEW SPEC NEEDED: Fizz"), Some(Kind::NewSpec));
        assert_eq!(classify("new spec needed: Fizz"), Some(Kind::NewSpec));
        assert_eq!(
            classify("MERGE REQUEST: polecat/vm-1"),
            Some(Kind::MergeRequest)
        );
        assert_eq!(
            classify("RE: NEEDS_CLARIFICATION: vm-1"),
            Some(Kind::Answered)
        );
        assert_eq!(
            classify("Re:NEEDS_CLARIFICATION: vm-1"),
            Some(Kind::Answered)
        );
        assert_eq!(classify("NEEDS_CLARIFICATION: vm-1"), None);
        assert_eq!(classify("RE: NEW SPEC NEEDED: Fizz"), None);
        assert_eq!(classify("Lunch?"), None);
        assert_eq!(
            act::subject_rest("RE: NEEDS_CLARIFICATION: vm-1", act::NEEDS_CLARIFICATION),
            "vm-1"
        );
        assert_eq!(
            act::subject_rest("MERGE REQUEST:  mq-7h", act::MERGE_REQUEST),
            "mq-7h"
        );
    }
}
