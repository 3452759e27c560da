//! How the Inspector's loop marks a message in `inspector/`: taking it (read, with an
//! `Inspector-Taken:` line, one commit) before acting, and finishing it (an
//! `Inspector-Done:` line saying what was done, moved to the archive) in the same commit
//! as the action's own records, so a restart never acts twice.

use crate::error::{Error, Result};
use crate::mail::Message;
use crate::mail::store::{self, Dir};
use crate::store::{CommitMessage, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// The line that marks a message taken: `Inspector-Taken: <time>`.
pub(crate) const TAKEN: &str = "Inspector-Taken:";
/// The line that says what was done: `Inspector-Done: <time> <note>`.
pub(crate) const DONE: &str = "Inspector-Done:";

/// The mailbox the loop reads.
pub(crate) const MAILBOX: &str = "inspector";

/// When the message was taken, if the loop took it.
pub(crate) fn taken_at(msg: &Message) -> Option<Timestamp> {
    marker(msg, TAKEN).map(|rest| {
        rest.split_whitespace()
            .next()
            .and_then(Timestamp::parse)
            .unwrap_or(Timestamp(0))
    })
}

/// True when a `Inspector-Done:` line is in the message.
pub(crate) fn is_done(msg: &Message) -> bool {
    marker(msg, DONE).is_some()
}

/// The text after the last line starting with `key`.
fn marker<'a>(msg: &'a Message, key: &str) -> Option<&'a str> {
    msg.body
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(key))
        .map(str::trim)
}

/// The body as its sender wrote it: without the loop's marker lines.
pub(crate) fn sent_body(msg: &Message) -> String {
    msg.body
        .lines()
        .filter(|l| !l.starts_with(TAKEN) && !l.starts_with(DONE))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// `body` with `line` added after a blank line (the markers form one block at the end).
fn with_line(body: &str, line: &str) -> String {
    let trimmed = body.trim_end();
    if trimmed.is_empty() {
        line.to_string()
    } else if trimmed
        .lines()
        .last()
        .is_some_and(|l| l.starts_with(TAKEN) || l.starts_with(DONE))
    {
        format!("{trimmed}\n{line}")
    } else {
        format!("{trimmed}\n\n{line}")
    }
}

/// The live (committed, not archived) folder of the loop's mailbox.
pub(crate) fn live_dir(ws: &Workspace) -> Dir {
    Dir::new(ws, MAILBOX, false, false)
}

/// Marks `msg` taken: read, with an `Inspector-Taken:` line; one commit (verb
/// `inspector take`). Returns the message as written.
pub(crate) fn take(ws: &Workspace, actor: &str, msg: &Message) -> Result<Message> {
    let dir = live_dir(ws);
    let mut txn = Txn::begin(ws)?;
    // Read again under the lock: another loop may have taken it meanwhile.
    let mut current = store::read_message(ws, &dir, &dir.file(&msg.id))?;
    if current.read {
        return Err(Error::conflict(format!(
            "{} was taken by someone else meanwhile",
            msg.id
        )));
    }
    current.read = true;
    current.body = with_line(&current.body, &format!("{TAKEN} {}", Timestamp::now()));
    txn.write(&dir.file(&current.id), current.render().as_bytes())?;
    txn.commit(&CommitMessage {
        verb: "inspector take".into(),
        ids: vec![current.id.clone()],
        title: current.subject.clone(),
        actor: actor.to_string(),
    })?;
    Ok(current)
}

/// Finishes `msg` inside the open change `txn`: an `Inspector-Done:` line with `note`, and
/// the file moved to the mailbox's `archive/` folder.
pub(crate) fn finish_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    msg: &Message,
    note: &str,
) -> Result<()> {
    let dir = live_dir(ws);
    let live = dir.file(&msg.id);
    let mut current = store::read_message(ws, &dir, &live)?;
    current.read = true;
    let note = note.replace(['\n', '\r'], " ");
    current.body = with_line(
        &current.body,
        &format!("{DONE} {} {note}", Timestamp::now()),
    );
    txn.write(
        &dir.archive(ws).file(&current.id),
        current.render().as_bytes(),
    )?;
    txn.remove(&live)?;
    Ok(())
}

/// Finishes `msg` with `note` in a commit of its own (verb `inspector`), for actions whose
/// records were committed by themselves.
pub(crate) fn finish(ws: &Workspace, actor: &str, msg: &Message, note: &str) -> Result<()> {
    let mut txn = Txn::begin(ws)?;
    finish_in(&mut txn, ws, msg, note)?;
    txn.commit(&CommitMessage {
        verb: "inspector".into(),
        ids: vec![msg.id.clone()],
        title: msg.subject.clone(),
        actor: actor.to_string(),
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(body: &str) -> Message {
        Message::parse(
            &format!(
                "---\nid: msg-1\nfrom: mayor/\nto: inspector/\nsubject: Hi\ncreated_at: 2026-01-01T00:00:00Z\n---\n{body}\n"
            ),
            "m.md",
        )
        .unwrap()
    }

    #[test]
    fn markers_form_one_block_after_the_senders_text() {
        let body = with_line(
            "vm-1 needs criteria.",
            "Inspector-Taken: 2026-01-02T00:00:00Z",
        );
        let body = with_line(&body, "Inspector-Done: 2026-01-02T00:00:01Z proposed");
        assert_eq!(
            body,
            "vm-1 needs criteria.\n\nInspector-Taken: 2026-01-02T00:00:00Z\nInspector-Done: 2026-01-02T00:00:01Z proposed"
        );
        let m = msg(&body);
        assert_eq!(taken_at(&m), Timestamp::parse("2026-01-02T00:00:00Z"));
        assert!(is_done(&m));
        assert_eq!(sent_body(&m), "vm-1 needs criteria.");
        let fresh = msg("vm-1 needs criteria.");
        assert_eq!((taken_at(&fresh), is_done(&fresh)), (None, false));
    }
}
