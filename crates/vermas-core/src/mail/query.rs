//! Reading mail without changing it: inbox, thread, and waiting for a reply.

use super::address::{self, Address};
use super::index::{Entry, json_esc};
use super::message::Message;
use super::store::{self, Dir};
use crate::error::{Error, Result};
use crate::store::index::{Row, Snapshot};
use crate::workspace::Workspace;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Messages found by a query, plus the files that did not parse.
#[derive(Debug, Default)]
pub struct Listing {
    /// The messages, in the query's order.
    pub messages: Vec<Message>,
    /// Files that could not be read (the other messages are still listed).
    pub broken: Vec<Error>,
}

/// The live (not archived) folders of an inbox, loaded; [`Inbox::entries`] borrows from it.
pub struct Inbox {
    /// Each folder with its current messages.
    folders: Vec<(Dir, String, Snapshot<Message>)>,
    /// Files that could not be read (the other messages are still listed).
    pub broken: Vec<Error>,
}

/// Loads the inbox of `addr` (an address, or `@group` for its members' mailboxes).
pub fn inbox(ws: &Workspace, addr: &str) -> Result<Inbox> {
    let mut rcpts = Vec::new();
    address::expand(addr, &ws.config.mail.groups, &mut rcpts)?;
    let mut inbox = Inbox {
        folders: Vec::new(),
        broken: Vec::new(),
    };
    for rcpt in &rcpts {
        for dir in store::live_dirs(ws, rcpt.mailbox()) {
            let mut snap = store::snapshot_dir(ws, &dir)?;
            inbox.broken.append(&mut snap.broken);
            let mailbox = json_esc(&dir.mailbox).into_owned();
            inbox.folders.push((dir, mailbox, snap));
        }
    }
    Ok(inbox)
}

impl Inbox {
    /// The messages (only unread ones if `unread_only`), in no particular order (see
    /// [`sorted`]); a long body is read from its file. Also returns the files that could
    /// not be read meanwhile.
    pub fn entries(&self, ws: &Workspace, unread_only: bool) -> (Entries<'_>, Vec<Error>) {
        let mut parts = Vec::new();
        let errors = Mutex::new(Vec::new());
        for (dir, mailbox, snap) in &self.folders {
            let rows = snap.rows();
            parts.extend(crate::sys::par::par_chunks(&rows, |_, row| {
                let mut e = match Entry::of_row(row) {
                    Some(e) if !e.partial => e,
                    // A long body, or a line that no longer decodes: read the file.
                    _ => {
                        let id = match row {
                            Row::Line(key, _) => (*key).to_string(),
                            Row::Record(m) => m.id.clone(),
                        };
                        match store::read_message(ws, dir, &dir.file(&id)) {
                            Ok(m) => Entry::of(&m).into_owned(),
                            Err(e) => {
                                errors.lock().map(|mut v| v.push(e)).ok()?;
                                return None;
                            }
                        }
                    }
                };
                if unread_only && e.read {
                    return None;
                }
                e.mailbox = Cow::Borrowed(mailbox.as_str());
                e.archived = dir.archived;
                e.ephemeral = dir.ephemeral;
                Some(e)
            }));
        }
        (Entries { parts }, errors.into_inner().unwrap_or_default())
    }
}

/// The entries of an inbox, in parts as they were decoded.
pub struct Entries<'a> {
    /// Each part's entries.
    parts: Vec<Vec<Entry<'a>>>,
}

impl<'a> Entries<'a> {
    /// Every entry.
    pub fn iter(&self) -> impl Iterator<Item = &Entry<'a>> {
        self.parts.iter().flatten()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `entries` in inbox order: unread first, then by priority, then newest first.
pub fn sorted<'b, 'a>(entries: &'b Entries<'a>) -> Vec<&'b Entry<'a>> {
    let mut refs: Vec<&Entry<'a>> = Vec::with_capacity(entries.len());
    refs.extend(entries.iter());
    refs.sort_by(|a, b| Entry::inbox_order(a, b));
    refs
}

/// Every message of the thread of message `query` in every mailbox (archived ones
/// included), oldest first, each after the message it answers.
pub fn thread(ws: &Workspace, query: &str) -> Result<Listing> {
    let msg = store::find(ws, query)?.read(ws)?;
    let all = store::load_all(ws)?;
    let mut messages: Vec<Message> = all
        .records
        .into_iter()
        .filter(|m| m.thread == msg.thread || m.id == msg.thread)
        .collect();
    let parents: HashMap<String, Option<String>> = messages
        .iter()
        .map(|m| (m.id.clone(), m.reply_to.clone()))
        .collect();
    let depth = |m: &Message| {
        let mut d = 0usize;
        let mut cur = m.reply_to.as_deref();
        while let Some(p) = cur {
            d += 1;
            if d > parents.len() {
                break;
            }
            cur = parents.get(p).and_then(|x| x.as_deref());
        }
        d
    };
    let mut keyed: Vec<(usize, Message)> = messages.drain(..).map(|m| (depth(&m), m)).collect();
    keyed.sort_by(|(da, a), (db, b)| (a.created_at, da, &a.id).cmp(&(b.created_at, db, &b.id)));
    Ok(Listing {
        messages: keyed.into_iter().map(|(_, m)| m).collect(),
        broken: all.broken,
    })
}

/// Blocks until a reply to message `query` exists: a message whose `reply_to` is it, or
/// one of its thread from someone else that is newer. Returns `None` after `timeout`.
/// Checks every `poll`, listing only the folders a reply can land in.
pub fn wait(
    ws: &Workspace,
    query: &str,
    timeout: Duration,
    poll: Duration,
) -> Result<Option<Message>> {
    let deadline = Instant::now() + timeout;
    let original = store::find(ws, query)?.read(ws)?;
    let answers = |m: &Message, newer: bool| {
        m.id != original.id
            && (m.reply_to.as_deref() == Some(original.id.as_str())
                || (m.thread == original.thread
                    && m.from != original.from
                    && (newer || m.created_at > original.created_at)))
    };
    let all = store::load_all(ws)?;
    let mut existing: Vec<&Message> = all.records.iter().filter(|m| answers(m, false)).collect();
    existing.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    if let Some(first) = existing.first() {
        return Ok(Some((*first).clone()));
    }
    // Where a reply can land: the sender's mailbox and those the thread already uses.
    let watched: Option<Vec<Dir>> = Address::parse(&original.from).ok().map(|from| {
        let mut boxes: BTreeSet<String> = all
            .records
            .iter()
            .filter(|m| m.thread == original.thread)
            .map(|m| m.mailbox.clone())
            .collect();
        boxes.insert(from.mailbox().to_string());
        boxes
            .iter()
            .flat_map(|b| {
                [false, true]
                    .into_iter()
                    .flat_map(move |eph| [false, true].map(|arch| Dir::new(ws, b, arch, eph)))
            })
            .collect()
    });
    let mut seen: HashSet<String> = store::ids_in(&store::all_dirs(ws))
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(poll.min(left));
        // Without a sender mailbox a reply may land anywhere: look at every folder.
        let dirs = watched.clone().unwrap_or_else(|| store::all_dirs(ws));
        for (id, i) in store::ids_in(&dirs) {
            if seen.contains(&id) {
                continue;
            }
            let dir = &dirs[i];
            // A file that cannot be read now (moved meanwhile) is looked at again.
            if let Ok(m) = store::read_message(ws, dir, &dir.file(&id)) {
                if answers(&m, true) {
                    return Ok(Some(m));
                }
                seen.insert(id);
            }
        }
        if left.is_zero() {
            return Ok(None);
        }
    }
}
