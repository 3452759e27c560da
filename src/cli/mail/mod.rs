//! Handler of `mail`: turn arguments into mail library calls and render answers.

pub(super) mod args;

use super::mail::args::MailCmd;
use super::output::{diagnostic, recorded_note, short_commit, versioned};
use super::ui::{Ui, out, outln};
use super::{CmdResult, Ctx};
use serde_json::json;
use std::borrow::Cow;
use vermas_core::error::{Error, Result};
use vermas_core::mail::index::{Entry, json_unesc};
use vermas_core::mail::message::{MSG_TYPES, PRIORITIES};
use vermas_core::mail::ops::{self, Changed, Outgoing};
use vermas_core::mail::query;
use vermas_core::mail::{Address, Message, store};
use vermas_core::time::duration::HumanDuration;
use vermas_core::time::{Timestamp, short_age};
use vermas_core::workspace::Workspace;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;
use std::io::Read;
use std::mem::ManuallyDrop;
use std::time::Duration;

/// How often `mail wait` looks for a reply.
const POLL: Duration = Duration::from_millis(150);

/// `mail ...`.
pub fn mail(ctx: &Ctx, ui: &mut Ui, cmd: MailCmd) -> CmdResult {
    let ws = ctx.workspace()?;
    match cmd {
        MailCmd::Send {
            to,
            subject,
            message,
            stdin,
            from,
            msg_type,
            priority,
            cc,
            reply_to,
            ephemeral,
        } => {
            let body = match message {
                Some(m) => Some(m),
                None if stdin => Some(read_stdin()?),
                None => None,
            };
            // Ephemeral mail is never committed: only the name is checked then.
            let actor = if ephemeral {
                ctx.actor_name(&ws)?
            } else {
                ctx.actor(&ws)?
            };
            let sender = ops::sender(&ws, from.as_deref(), Some(&actor))?;
            note_derived(&ws, from.as_deref(), Some(&actor), &sender);
            let from = sender;
            let sent = ops::send(
                &ws,
                Outgoing {
                    to,
                    cc,
                    subject,
                    body,
                    from,
                    msg_type,
                    priority,
                    reply_to,
                    ephemeral,
                },
            )?;
            changed(ui, "Sent", sent)
        }
        MailCmd::Reply { msg, message, from } => {
            let actor = ctx.actor(&ws)?;
            let sender = ops::sender(&ws, from.as_deref(), Some(&actor))?;
            note_derived(&ws, from.as_deref(), Some(&actor), &sender);
            let sent = ops::reply(&ws, &msg, &message, &sender)?;
            changed(ui, "Replied", sent)
        }
        MailCmd::Inbox {
            addr,
            unread,
            watch,
        } => inbox(ctx, ui, &ws, addr.as_deref(), unread, watch),
        MailCmd::Read { msg } => {
            let actor = ctx.actor(&ws)?;
            let read = ops::read(&ws, &msg, &actor)?;
            recorded_note(&read.recorded);
            show(ui, &read.messages[0]);
            Ok(0)
        }
        MailCmd::Thread { msg } => thread(ctx, ui, &ws, &msg),
        MailCmd::Archive { msg } => {
            let actor = ctx.actor(&ws)?;
            let archived = ops::archive(&ws, &msg, &actor)?;
            changed(ui, "Archived", archived)
        }
        MailCmd::Wait { msg, timeout } => wait(ui, &ws, &msg, &timeout),
    }
}

/// Says on stderr which address was made of an actor that is no mailbox name.
fn note_derived(
    ws: &Workspace,
    explicit: Option<&str>,
    actor: Option<&str>,
    addr: &impl std::fmt::Display,
) {
    if let Some(actor) = ops::derived_actor(ws, explicit, actor) {
        eprintln!(
            "note: '{actor}' is no mailbox name: using {addr} (choose another with --from ADDR \
             or `vermas config set mail.from ADDR`)"
        );
    }
}

/// `mail inbox [ADDR] [--unread] [--watch]`.
fn inbox(
    ctx: &Ctx,
    ui: &mut Ui,
    ws: &Workspace,
    addr: Option<&str>,
    unread: bool,
    watch: bool,
) -> CmdResult {
    let own = addr.is_none();
    let addr = ops::inbox_address(ws, addr, ctx.actor.as_deref())?;
    if own {
        note_derived(ws, None, ctx.actor.as_deref(), &addr);
    }
    if watch {
        return watch_inbox(ctx, ui, ws, &addr, unread);
    }
    // Thousands of entries borrowing the inbox's text: the process ends right after this
    // command, so both are left to the operating system instead of being freed one by one.
    let inbox = ManuallyDrop::new(query::inbox(ws, &addr)?);
    let (entries, errors) = inbox.entries(ws, unread);
    let entries = ManuallyDrop::new(entries);
    for e in inbox.broken.iter().chain(&errors) {
        warn(ctx, e);
    }
    let sorted = query::sorted(&entries);
    if ui.json {
        ui.json_elements(&sorted, |out, e| entry_json(out, e));
    } else {
        out!(ui, "{}", inbox_view(&addr, &sorted, unread));
    }
    Ok(0)
}

/// `mail thread MSG`.
fn thread(ctx: &Ctx, ui: &mut Ui, ws: &Workspace, msg: &str) -> CmdResult {
    let listing = query::thread(ws, msg)?;
    for e in &listing.broken {
        warn(ctx, e);
    }
    let mut messages = listing.messages;
    store::complete(ws, &mut messages)?;
    if ui.json {
        ui.json_list(&messages);
    } else {
        out!(ui, "{}", thread_view(&messages));
    }
    Ok(0)
}

/// `mail inbox ADDR --watch`: the inbox again whenever its mailboxes change.
fn watch_inbox(ctx: &Ctx, ui: &mut Ui, ws: &Workspace, addr: &str, unread: bool) -> CmdResult {
    super::redraw::refuse_json(ctx, "vermas mail inbox")?;
    let folders = crate::session::changes::inbox_folders(ws, addr)?;
    let title = format!("vermas mail inbox {addr}");
    super::redraw::on_change(ui, &title, &folders, || {
        let inbox = query::inbox(ws, addr)?;
        let (entries, errors) = inbox.entries(ws, unread);
        let mut screen = inbox_view(addr, &query::sorted(&entries), unread);
        for e in inbox.broken.iter().chain(&errors) {
            let _ = writeln!(screen, "warning: {e}");
        }
        Ok(screen)
    })
}

/// `mail wait`: the reply, or exit 1 when none came in time.
fn wait(ui: &mut Ui, ws: &Workspace, msg: &str, timeout: &HumanDuration) -> CmdResult {
    match query::wait(ws, msg, timeout.get(), POLL)? {
        Some(reply) => {
            let mut reply = vec![reply];
            store::complete(ws, &mut reply)?;
            show(ui, &reply[0]);
            Ok(0)
        }
        None => {
            let text = format!("no reply to {msg} within {timeout}");
            super::output::failure(&text, "timeout", ui.json);
            Ok(1)
        }
    }
}

/// The body from standard input.
fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Error::io("<stdin>", e))?;
    Ok(s)
}

/// Warns on stderr about a message file that did not parse.
fn warn(ctx: &Ctx, e: &Error) {
    if ctx.json {
        eprintln!("{}", json!({"warning": e.to_string(), "code": e.code()}));
    } else {
        diagnostic("warning", e);
    }
}

/// Renders the result of a send, reply or archive.
fn changed(ui: &mut Ui, verb: &str, c: Changed) -> CmdResult {
    recorded_note(&c.recorded);
    if ui.json {
        match c.messages.as_slice() {
            [one] => ui.json(&versioned(one)),
            many => ui.json(&many),
        }
        return Ok(0);
    }
    let commit = short_commit(&c.recorded)
        .map(|s| format!(" [{s}]"))
        .unwrap_or_default();
    for m in &c.messages {
        let place = if verb == "Archived" {
            format!("from {}", address_of(&m.mailbox))
        } else {
            format!("to {}", address_of(&m.mailbox))
        };
        let eph = if m.ephemeral { " (ephemeral)" } else { "" };
        outln!(ui, "{verb} {} {place}: {}{eph}{commit}", m.id, m.subject);
    }
    Ok(0)
}

/// A message as JSON or as a person reads it.
fn show(ui: &mut Ui, m: &Message) {
    if ui.json {
        ui.json(&versioned(m));
    } else {
        out!(ui, "{}", full(m));
    }
}

/// The address a mailbox folder belongs to.
fn address_of(mailbox: &str) -> String {
    Address::of_mailbox(mailbox).map_or_else(|_| mailbox.to_string(), |a| a.to_string())
}

/// `3m ago` for a message.
fn age(t: Timestamp) -> String {
    format!("{} ago", short_age(t.seconds_until(Timestamp::now())))
}

/// One message in full: headers, a blank line, the body.
fn full(m: &Message) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", m.id, m.subject);
    let _ = writeln!(s, "From:     {}", m.from);
    let _ = writeln!(s, "To:       {}", m.to);
    if !m.cc.is_empty() {
        let _ = writeln!(s, "Cc:       {}", m.cc.join(", "));
    }
    let _ = writeln!(s, "Date:     {} ({})", m.created_at, age(m.created_at));
    let _ = writeln!(s, "Type:     {}, priority {}", m.msg_type, m.priority);
    let mut thread = m.thread.clone();
    if let Some(r) = &m.reply_to {
        let _ = write!(thread, ", reply to {r}");
    }
    let _ = writeln!(s, "Thread:   {thread}");
    let mut mailbox = address_of(&m.mailbox);
    if m.archived {
        mailbox.push_str(" (archived)");
    }
    if m.ephemeral {
        mailbox.push_str(" (ephemeral)");
    }
    let _ = writeln!(s, "Mailbox:  {mailbox}");
    if !m.body.is_empty() {
        let _ = writeln!(s, "\n{}", m.body);
    }
    s
}

/// An inbox: a heading, then one line per message, unread ones marked `*`.
fn inbox_view(addr: &str, entries: &[&Entry<'_>], unread_only: bool) -> String {
    let mut s = String::new();
    if entries.is_empty() {
        let what = if unread_only {
            "unread messages"
        } else {
            "messages"
        };
        let _ = writeln!(s, "No {what} for {addr}.");
        return s;
    }
    let text = |c: &Cow<'_, str>| json_unesc(c).map_or_else(|| c.to_string(), Cow::into_owned);
    let unread = entries.iter().filter(|m| !m.read).count();
    let _ = writeln!(
        s,
        "{addr}: {}, {unread} unread",
        vermas_core::text::words::plural(entries.len(), "message")
    );
    let id_w = entries.iter().map(|m| m.id.len()).max().unwrap_or(0);
    let from_w = entries
        .iter()
        .map(|m| m.from.len())
        .max()
        .unwrap_or(0)
        .min(24);
    let now = Timestamp::now();
    for m in entries {
        let mark = if m.read { ' ' } else { '*' };
        let _ = writeln!(
            s,
            "{mark} {:<id_w$}  {:<6}  {:<from_w$}  {}  ({} ago)",
            m.id,
            PRIORITIES[m.priority as usize],
            text(&m.from),
            text(&m.subject),
            short_age(m.created_at.seconds_until(now))
        );
    }
    s
}

/// One inbox entry as a pretty JSON array element: the same text `serde_json` writes for
/// the [`Message`], with the already escaped strings copied as they are.
fn entry_json(out: &mut Vec<u8>, e: &Entry<'_>) {
    /// `    "key": ` then `value` as written, then `,` unless last.
    fn raw(out: &mut Vec<u8>, key: &str, value: &str, last: bool) {
        out.extend_from_slice(b"    \"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(if last { b"\n" } else { b",\n" });
    }
    /// The same with `value` (already escaped) between quotes.
    fn string(out: &mut Vec<u8>, key: &str, value: &str) {
        out.extend_from_slice(b"    \"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\": \"");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\",\n");
    }
    let flag = |b: bool| if b { "true" } else { "false" };
    out.reserve(400 + e.body.len() + e.subject.len());
    out.extend_from_slice(b"  {\n");
    string(out, "id", &e.id);
    string(out, "from", &e.from);
    string(out, "to", &e.to);
    if e.cc.is_empty() {
        raw(out, "cc", "[]", false);
    } else {
        out.extend_from_slice(b"    \"cc\": [\n");
        for (n, c) in e.cc.iter().enumerate() {
            if n > 0 {
                out.extend_from_slice(b",\n");
            }
            out.extend_from_slice(b"      \"");
            out.extend_from_slice(c.as_bytes());
            out.push(b'"');
        }
        out.extend_from_slice(b"\n    ],\n");
    }
    string(out, "subject", &e.subject);
    string(out, "msg_type", MSG_TYPES[e.msg_type as usize]);
    string(out, "priority", PRIORITIES[e.priority as usize]);
    string(out, "thread", &e.thread);
    match &e.reply_to {
        Some(r) => string(out, "reply_to", r),
        None => raw(out, "reply_to", "null", false),
    }
    match e.created_at.rfc3339_bytes() {
        Some(b) => string(
            out,
            "created_at",
            std::str::from_utf8(&b).unwrap_or_default(),
        ),
        None => string(out, "created_at", &e.created_at.to_string()),
    }
    raw(out, "read", flag(e.read), false);
    string(out, "body", &e.body);
    string(out, "mailbox", &e.mailbox);
    raw(out, "archived", flag(e.archived), false);
    raw(out, "ephemeral", flag(e.ephemeral), true);
    out.extend_from_slice(b"  }");
}

/// A thread: each message with its sender and mailbox, then its body indented.
fn thread_view(msgs: &[Message]) -> String {
    let mut s = String::new();
    if let Some(first) = msgs.first() {
        let _ = writeln!(
            s,
            "Thread {} ({})",
            first.thread,
            vermas_core::text::words::plural(msgs.len(), "message")
        );
    }
    for m in msgs {
        let _ = writeln!(
            s,
            "\n{} {} {} -> {}: {}",
            m.id,
            m.created_at,
            m.from,
            address_of(&m.mailbox),
            m.subject
        );
        for line in m.body.lines() {
            let _ = writeln!(s, "    {line}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use vermas_core::mail::{MsgType, Priority};

    #[test]
    fn entry_json_is_what_serde_writes() {
        let mut m = Message {
            id: "msg-1".into(),
            from: "inspector/judge".into(),
            to: "@leads".into(),
            cc: vec!["mayor/".into(), "a\"b".into()],
            subject: "Tab\there \u{1f} \"quoted\" ünï".into(),
            msg_type: MsgType::Escalation,
            priority: Priority::High,
            thread: "msg-0".into(),
            reply_to: Some("msg-0".into()),
            created_at: Timestamp(1_700_000_000),
            read: true,
            body: "line 1\nline 2\t\\ </x>".into(),
            mailbox: "inspector/judge".into(),
            archived: true,
            ephemeral: false,
            partial: false,
        };
        for _ in 0..2 {
            let want = serde_json::to_string_pretty(&vec![m.clone(), m.clone()]).unwrap();
            let mut got = b"[\n".to_vec();
            entry_json(&mut got, &Entry::of(&m));
            got.extend_from_slice(b",\n");
            entry_json(&mut got, &Entry::of(&m));
            got.extend_from_slice(b"\n]");
            assert_eq!(String::from_utf8(got).unwrap(), want);
            m.cc.clear();
            m.reply_to = None;
        }
    }
}
