//! Mail operations: send, reply, read, archive (each one commit unless ephemeral), and
//! the queries inbox and thread.

use super::address::{self, Address};
use super::fresh::UsedIds;
use super::message::{Message, MsgType, Priority};
use super::store::{self, Dir, Located};
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn, write_atomic};
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// Everything `send` needs.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// Recipient: an address or `@group`.
    pub to: String,
    /// Further recipients.
    pub cc: Vec<String>,
    /// One-line summary.
    pub subject: String,
    /// The text; `None` when none was given.
    pub body: Option<String>,
    /// The sender (see [`sender`]).
    pub from: Address,
    /// What it asks of its reader.
    pub msg_type: MsgType,
    /// How soon it should be read.
    pub priority: Priority,
    /// The message it answers (id or unique prefix).
    pub reply_to: Option<String>,
    /// Keep it under `.beads/wisps/mail/`, never committed.
    pub ephemeral: bool,
}

/// The result of a change: the messages as written and what git recorded.
#[derive(Debug, Clone)]
pub struct Changed {
    /// The messages after the change (one per recipient mailbox for a send).
    pub messages: Vec<Message>,
    /// The commit, or why there is none (`Unchanged` for ephemeral mail).
    pub recorded: Recorded,
}

/// The sender: `from` (`--from`, which must be an address), else [`own_address`].
pub fn sender(ws: &Workspace, from: Option<&str>, actor: Option<&str>) -> Result<Address> {
    match from {
        Some(f) => Address::parse(f),
        None => own_address(ws, actor, "pass --from ADDR"),
    }
}

/// Your own address: config `mail.from` if set, else the actor's mailbox (the actor
/// itself when it is an address, else `<actor>/`). `override_hint` names the flag that
/// chooses another, for the error when neither gives an address.
pub(crate) fn own_address(
    ws: &Workspace,
    actor: Option<&str>,
    override_hint: &str,
) -> Result<Address> {
    if let Some(from) = ws.config.mail.from.as_deref() {
        return Address::parse(from).map_err(|e| match e {
            Error::InvalidWithHelp { message, help } => Error::InvalidWithHelp {
                message: format!("{message} (in config `mail.from`)"),
                help,
            },
            other => other,
        });
    }
    Address::of_actor(&ws.actor(actor), override_hint)
}

/// The actor whose mailbox name your own address was made from (see
/// [`address::derived_from_actor`]), when no `--from` (`explicit`) or `mail.from` chose it.
pub fn derived_actor(
    ws: &Workspace,
    explicit: Option<&str>,
    actor: Option<&str>,
) -> Option<String> {
    let actor = ws.actor(actor);
    (explicit.is_none() && ws.config.mail.from.is_none() && address::derived_from_actor(&actor))
        .then_some(actor)
}

/// The address whose inbox to show: `addr` (an address or `@group`), else your own
/// (see [`own_address`]).
pub fn inbox_address(ws: &Workspace, addr: Option<&str>, actor: Option<&str>) -> Result<String> {
    match addr {
        Some(a) => address::normalise(a, &ws.config.mail.groups),
        None => Ok(own_address(
            ws,
            actor,
            "give the address, e.g. `vermas mail inbox mayor/`",
        )?
        .to_string()),
    }
}

/// Sends `out`: one message file per recipient mailbox (groups expanded), committed in
/// one commit (or kept under wisps when ephemeral).
pub fn send(ws: &Workspace, out: Outgoing) -> Result<Changed> {
    let txn = if out.ephemeral {
        None
    } else {
        Some(Txn::begin(ws)?)
    };
    let (messages, verb, from) = compose(ws, txn.as_ref(), out)?;
    let recorded = write_all(ws, txn, verb, &from, &messages)?;
    Ok(Changed { messages, recorded })
}

/// Writes `out` into the open change `txn`, to be committed with the rest of it; returns
/// the messages written. An ephemeral message cannot be part of a commit.
pub(crate) fn send_in(txn: &mut Txn<'_>, ws: &Workspace, out: Outgoing) -> Result<Vec<Message>> {
    if out.ephemeral {
        return Err(Error::Invalid(
            "an ephemeral message is never committed".into(),
        ));
    }
    let (messages, _, _) = compose(ws, Some(txn), out)?;
    for m in &messages {
        let dir = Dir::new(ws, &m.mailbox, false, false);
        txn.write(&dir.file(&m.id), m.render().as_bytes())?;
    }
    Ok(messages)
}

/// The messages `out` makes (one per recipient mailbox), the commit verb and the sender;
/// `txn` is the change they are written in, if any.
fn compose(
    ws: &Workspace,
    txn: Option<&Txn<'_>>,
    out: Outgoing,
) -> Result<(Vec<Message>, &'static str, String)> {
    let subject = out.subject.trim().to_string();
    if subject.is_empty() {
        return Err(Error::Invalid("the subject is empty".into()));
    }
    if subject.contains('\n') {
        return Err(Error::Invalid("the subject must be one line".into()));
    }
    let Some(body) = out.body else {
        return Err(Error::invalid_with_help(
            "the message has no body",
            "give it with -m TEXT or on standard input with --stdin",
        ));
    };
    let from = out.from.to_string();
    let groups = &ws.config.mail.groups;
    let to = address::normalise(&out.to, groups)?;
    let mut recipients = Vec::new();
    address::expand(&to, groups, &mut recipients)?;
    let mut cc = Vec::new();
    for c in &out.cc {
        let c = address::normalise(c, groups)?;
        address::expand(&c, groups, &mut recipients)?;
        if c != to && !cc.contains(&c) {
            cc.push(c);
        }
    }
    let answered = out
        .reply_to
        .as_deref()
        .map(|q| store::find(ws, q)?.read(ws))
        .transpose()?;
    let now = Timestamp::now();
    let mailboxes: Vec<&str> = recipients.iter().map(|r| r.mailbox()).collect();
    let mut used = UsedIds::of(ws, txn, &mailboxes);
    let mut messages: Vec<Message> = Vec::new();
    for rcpt in &recipients {
        let id = used.fresh(&subject, &from);
        let thread = match (&answered, messages.first()) {
            (Some(a), _) => a.thread.clone(),
            (None, Some(first)) => first.id.clone(),
            (None, None) => id.clone(),
        };
        messages.push(Message {
            id,
            from: from.clone(),
            to: to.clone(),
            cc: cc.clone(),
            subject: subject.clone(),
            msg_type: out.msg_type,
            priority: out.priority,
            thread,
            reply_to: answered.as_ref().map(|a| a.id.clone()),
            created_at: now,
            read: false,
            body: body.trim_matches('\n').to_string(),
            mailbox: rcpt.mailbox().to_string(),
            archived: false,
            ephemeral: out.ephemeral,
            partial: false,
        });
    }
    let verb = if answered.is_some() {
        "mail reply"
    } else {
        "mail send"
    };
    Ok((messages, verb, from))
}

/// Answers message `query` (to its sender, in its thread); ephemeral if it was.
pub fn reply(ws: &Workspace, query: &str, body: &str, from: &Address) -> Result<Changed> {
    let original = store::find(ws, query)?.read(ws)?;
    let to = Address::parse(&original.from).map_err(|_| {
        Error::invalid_with_help(
            format!(
                "{} is from '{}', which has no mailbox to reply to",
                original.id, original.from
            ),
            format!(
                "answer with `vermas mail send ADDR --reply-to {} ...` instead",
                original.id
            ),
        )
    })?;
    let subject = if original.subject.to_ascii_lowercase().starts_with("re:") {
        original.subject.clone()
    } else {
        format!("RE: {}", original.subject)
    };
    send(
        ws,
        Outgoing {
            to: to.to_string(),
            cc: Vec::new(),
            subject,
            body: Some(body.to_string()),
            from: from.clone(),
            msg_type: MsgType::Reply,
            priority: original.priority,
            reply_to: Some(original.id),
            ephemeral: original.ephemeral,
        },
    )
}

/// Writes new messages: through `txn` with one commit, or (ephemeral, no `txn`) directly.
fn write_all(
    ws: &Workspace,
    txn: Option<Txn<'_>>,
    verb: &str,
    actor: &str,
    messages: &[Message],
) -> Result<Recorded> {
    let Some(mut txn) = txn else {
        for m in messages {
            let dir = Dir::new(ws, &m.mailbox, false, true);
            write_atomic(&ws.cache_dir(), &dir.file(&m.id), m.render().as_bytes())?;
        }
        return Ok(Recorded::Unchanged);
    };
    for m in messages {
        let dir = Dir::new(ws, &m.mailbox, false, false);
        txn.write(&dir.file(&m.id), m.render().as_bytes())?;
    }
    txn.commit(&CommitMessage {
        verb: verb.to_string(),
        ids: messages.iter().map(|m| m.id.clone()).collect(),
        title: messages
            .first()
            .map(|m| m.subject.clone())
            .unwrap_or_default(),
        actor: actor.to_string(),
    })
}

/// Runs `change` on message `query` under the write lock (none for ephemeral mail) and
/// records it with one commit of the paths it returns.
fn modify(
    ws: &Workspace,
    query: &str,
    verb: &str,
    actor: &str,
    change: impl FnOnce(&Located, Message) -> Result<Option<Moved>>,
) -> Result<Changed> {
    let found = store::find(ws, query)?;
    let txn = if found.dir.ephemeral {
        None
    } else {
        Some(Txn::begin(ws)?)
    };
    // Another writer may have moved it while we waited for the lock.
    let found = if found.path().is_file() {
        found
    } else {
        store::find(ws, &found.id)?
    };
    let msg = found.read(ws)?;
    let Some(moved) = change(&found, msg.clone())? else {
        return Ok(Changed {
            messages: vec![msg],
            recorded: Recorded::Unchanged,
        });
    };
    let recorded = match txn {
        Some(mut txn) => {
            txn.write(&moved.path, &moved.bytes)?;
            if moved.path != found.path() {
                txn.remove(&found.path())?;
            }
            txn.commit(&CommitMessage {
                verb: verb.to_string(),
                ids: vec![moved.message.id.clone()],
                title: moved.message.subject.clone(),
                actor: actor.to_string(),
            })?
        }
        None => {
            write_atomic(&ws.cache_dir(), &moved.path, &moved.bytes)?;
            if moved.path != found.path() {
                std::fs::remove_file(found.path()).map_err(|e| Error::io(found.path(), e))?;
            }
            Recorded::Unchanged
        }
    };
    Ok(Changed {
        messages: vec![moved.message],
        recorded,
    })
}

/// A message's new content and place.
struct Moved {
    path: std::path::PathBuf,
    bytes: Vec<u8>,
    message: Message,
}

/// Shows message `query` and marks it read (one commit when it was unread).
pub fn read(ws: &Workspace, query: &str, actor: &str) -> Result<Changed> {
    modify(ws, query, "mail read", actor, |found, mut msg| {
        if msg.read {
            return Ok(None);
        }
        msg.read = true;
        Ok(Some(Moved {
            path: found.path(),
            bytes: msg.render().into_bytes(),
            message: msg,
        }))
    })
}

/// Moves message `query` to its mailbox's `archive/` folder (one commit).
pub fn archive(ws: &Workspace, query: &str, actor: &str) -> Result<Changed> {
    modify(ws, query, "mail archive", actor, |found, mut msg| {
        if found.dir.archived {
            return Err(Error::wrong_state(format!(
                "{} is already archived",
                msg.id
            )));
        }
        let target = found.dir.archive(ws);
        // The same bytes: git sees a rename.
        let path = found.path();
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        msg.archived = true;
        Ok(Some(Moved {
            path: target.file(&msg.id),
            bytes,
            message: msg,
        }))
    })
}
