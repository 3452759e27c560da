//! How messages are kept in the mail index (`.beads/.cache/mail/<folder>`), and [`Entry`]:
//! a message read straight from an index line without copying it, for fast inboxes.
//!
//! String fields are stored JSON-escaped (the text between the quotes of a JSON string):
//! that form has no tab or newline, so it fits the line format, and a JSON answer can copy
//! it as it is.

use super::message::{Message, MsgType, Priority};
use crate::store::index::{ITEM, Indexed, Row, choice};
use crate::time::Timestamp;
use std::borrow::Cow;

/// Bodies longer than this are left out of the index and read from the file when needed.
pub(crate) const BODY_CACHE_LIMIT: usize = 4096;

/// A message whose string fields are JSON-escaped and borrowed from an index line where
/// possible. Field meanings are those of [`Message`].
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<'a> {
    /// Id.
    pub id: Cow<'a, str>,
    /// Sender.
    pub from: Cow<'a, str>,
    /// Recipient as addressed.
    pub to: Cow<'a, str>,
    /// Further recipients.
    pub cc: Vec<Cow<'a, str>>,
    /// Subject.
    pub subject: Cow<'a, str>,
    /// Type.
    pub msg_type: MsgType,
    /// Priority.
    pub priority: Priority,
    /// Thread id.
    pub thread: Cow<'a, str>,
    /// The answered message.
    pub reply_to: Option<Cow<'a, str>>,
    /// When it was sent.
    pub created_at: Timestamp,
    /// Whether it was read.
    pub read: bool,
    /// The text (empty while `partial`).
    pub body: Cow<'a, str>,
    /// Mailbox folder (JSON-escaped).
    pub mailbox: Cow<'a, str>,
    /// In the archive folder.
    pub archived: bool,
    /// Under wisps, never committed.
    pub ephemeral: bool,
    /// The body was too long for the index: read the file for it.
    pub partial: bool,
}

/// `s` JSON-escaped: the text between the quotes of the JSON string for `s`.
pub(crate) fn json_esc(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        return Cow::Borrowed(s);
    }
    let quoted = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    Cow::Owned(quoted[1..quoted.len() - 1].to_string())
}

/// Undoes [`json_esc`] (`None` if `s` is not a valid escaped string).
pub fn json_unesc(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('\\') {
        return Some(Cow::Borrowed(s));
    }
    serde_json::from_str::<String>(&format!("\"{s}\""))
        .ok()
        .map(Cow::Owned)
}

impl<'a> Entry<'a> {
    /// Reads the fields [`Indexed::encode`] wrote for message `key`.
    pub fn from_line(key: &'a str, fields: &'a str) -> Option<Entry<'a>> {
        let mut f = fields.splitn(12, '\t');
        let mut next = || f.next();
        let partial = next()? == "1";
        let from = Cow::Borrowed(next()?);
        let to = Cow::Borrowed(next()?);
        let cc_field = next()?;
        let cc = if cc_field.is_empty() {
            Vec::new()
        } else {
            cc_field.split(ITEM).map(Cow::Borrowed).collect()
        };
        let subject = Cow::Borrowed(next()?);
        let msg_type = choice(next()?)?;
        let priority = choice(next()?)?;
        let thread = Cow::Borrowed(next()?);
        let reply_to = next()?.strip_prefix('+').map(Cow::Borrowed);
        let created_at = Timestamp(next()?.parse().ok()?);
        let read = next()? == "1";
        let body = Cow::Borrowed(next()?);
        Some(Entry {
            id: Cow::Borrowed(key),
            from,
            to,
            cc,
            subject,
            msg_type,
            priority,
            thread,
            reply_to,
            created_at,
            read,
            body,
            mailbox: Cow::Borrowed(""),
            archived: false,
            ephemeral: false,
            partial,
        })
    }

    /// The entry of a parsed message (escaping its fields).
    pub fn of(m: &'a Message) -> Entry<'a> {
        Entry {
            id: json_esc(&m.id),
            from: json_esc(&m.from),
            to: json_esc(&m.to),
            cc: m.cc.iter().map(|c| json_esc(c)).collect(),
            subject: json_esc(&m.subject),
            msg_type: m.msg_type,
            priority: m.priority,
            thread: json_esc(&m.thread),
            reply_to: m.reply_to.as_deref().map(json_esc),
            created_at: m.created_at,
            read: m.read,
            body: json_esc(&m.body),
            mailbox: json_esc(&m.mailbox),
            archived: m.archived,
            ephemeral: m.ephemeral,
            partial: m.partial,
        }
    }

    /// The entry of an index row (`None` if the line is malformed).
    pub fn of_row(row: &Row<'a, Message>) -> Option<Entry<'a>> {
        match row {
            Row::Line(key, fields) => Entry::from_line(key, fields),
            Row::Record(m) => Some(Entry::of(m)),
        }
    }

    /// The message itself, unescaped (`None` if a field is not validly escaped).
    pub fn to_message(&self) -> Option<Message> {
        let s = |c: &Cow<'_, str>| json_unesc(c).map(Cow::into_owned);
        Some(Message {
            id: s(&self.id)?,
            from: s(&self.from)?,
            to: s(&self.to)?,
            cc: self.cc.iter().map(s).collect::<Option<_>>()?,
            subject: s(&self.subject)?,
            msg_type: self.msg_type,
            priority: self.priority,
            thread: s(&self.thread)?,
            reply_to: match &self.reply_to {
                Some(r) => Some(s(r)?),
                None => None,
            },
            created_at: self.created_at,
            read: self.read,
            body: s(&self.body)?,
            mailbox: s(&self.mailbox)?,
            archived: self.archived,
            ephemeral: self.ephemeral,
            partial: self.partial,
        })
    }

    /// The same entry owning all its text.
    pub fn into_owned(self) -> Entry<'static> {
        let o = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        Entry {
            id: o(self.id),
            from: o(self.from),
            to: o(self.to),
            cc: self.cc.into_iter().map(o).collect(),
            subject: o(self.subject),
            msg_type: self.msg_type,
            priority: self.priority,
            thread: o(self.thread),
            reply_to: self.reply_to.map(o),
            created_at: self.created_at,
            read: self.read,
            body: o(self.body),
            mailbox: o(self.mailbox),
            archived: self.archived,
            ephemeral: self.ephemeral,
            partial: self.partial,
        }
    }

    /// The order of an inbox: unread first, then by priority, then newest first.
    pub fn inbox_order(a: &Entry<'_>, b: &Entry<'_>) -> std::cmp::Ordering {
        (a.read, a.priority, std::cmp::Reverse(a.created_at), &a.id).cmp(&(
            b.read,
            b.priority,
            std::cmp::Reverse(b.created_at),
            &b.id,
        ))
    }
}

impl Indexed for Message {
    const HEADER: &'static str = "vermas-mail-index 2";

    fn encode(&self, out: &mut String) {
        let partial = self.partial || self.body.len() > BODY_CACHE_LIMIT;
        let cc: Vec<Cow<'_, str>> = self.cc.iter().map(|c| json_esc(c)).collect();
        let fields: [&str; 12] = [
            if partial { "1" } else { "0" },
            &json_esc(&self.from),
            &json_esc(&self.to),
            &cc.join(&ITEM.to_string()),
            &json_esc(&self.subject),
            &self.msg_type.to_string(),
            &self.priority.to_string(),
            &json_esc(&self.thread),
            &self
                .reply_to
                .as_deref()
                .map_or(String::new(), |r| format!("+{}", json_esc(r))),
            &self.created_at.0.to_string(),
            if self.read { "1" } else { "0" },
            if partial { "" } else { &json_esc(&self.body) },
        ];
        out.push_str(&fields.join("\t"));
    }

    fn decode(key: &str, rest: &str) -> Option<Message> {
        Entry::from_line(key, rest)?.to_message()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::index::{FileStamp, decode_index, encode_line};

    fn sample() -> Message {
        Message {
            id: "msg-1".into(),
            from: "inspector/judge".into(),
            to: "@leads".into(),
            cc: vec!["mayor/".into(), "a\"b".into()],
            subject: "Tab\there \u{1f} \"quoted\"".into(),
            msg_type: MsgType::Escalation,
            priority: Priority::High,
            thread: "msg-0".into(),
            reply_to: Some("msg-0".into()),
            created_at: Timestamp(1_700_000_000),
            read: true,
            body: "line 1\nline 2\t\\ ünï ✓".into(),
            mailbox: String::new(),
            archived: false,
            ephemeral: false,
            partial: false,
        }
    }

    #[test]
    fn index_lines_round_trip() {
        let mut m = sample();
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            ino: 4,
        };
        let mut text = format!("{}\n", Message::HEADER);
        encode_line(&mut text, &m.id, stamp, &m);
        assert_eq!(text.lines().count(), 2, "{text}");
        let index = decode_index(&text, Message::HEADER);
        let (_, rest) = index["msg-1"];
        assert_eq!(Message::decode("msg-1", rest).unwrap(), m);
        let e = Entry::from_line("msg-1", rest).unwrap();
        assert_eq!(e.subject, "Tab\\there \\u001f \\\"quoted\\\"");
        assert_eq!(e, Entry::of(&m));
        m.body = "x".repeat(BODY_CACHE_LIMIT + 1);
        let mut text = String::new();
        encode_line(&mut text, &m.id, stamp, &m);
        let rest = text
            .strip_suffix('\n')
            .unwrap()
            .splitn(6, '\t')
            .nth(5)
            .unwrap();
        let back = Message::decode("msg-1", rest).unwrap();
        assert!(back.partial && back.body.is_empty());
    }

    #[test]
    fn escaping_round_trips() {
        for s in ["plain", "", "a\"b\\c\nd\te\u{1f}", "ünï ✓ / </script>"] {
            let e = json_esc(s);
            assert!(!e.contains(['\n', '\t', '\u{1f}']));
            assert_eq!(json_unesc(&e).unwrap(), s);
        }
        assert!(matches!(json_esc("plain"), Cow::Borrowed(_)));
        assert!(json_unesc("bad \\x escape").is_none());
    }
}
