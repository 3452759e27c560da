//! The message record (see docs/FORMATS.md): its fields, parsing from and rendering to its
//! file.

use crate::error::{Error, ParseError, Result};
use crate::store::frontmatter;
use crate::text::yaml::{self, flow_list, opt_scalar, scalar};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a message asks of its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MsgType {
    /// Work to do.
    Task,
    /// For information.
    #[default]
    Notification,
    /// Needs attention from above.
    Escalation,
    /// An answer to another message.
    Reply,
}

/// How soon a message should be read.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default, PartialOrd, Ord,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// At once.
    Urgent,
    /// Soon.
    High,
    /// In the normal course.
    #[default]
    Normal,
    /// When there is time.
    Low,
}

/// Every message type spelling.
pub const MSG_TYPES: &[&str] = &["task", "notification", "escalation", "reply"];
/// Every priority spelling.
pub const PRIORITIES: &[&str] = &["urgent", "high", "normal", "low"];

impl fmt::Display for MsgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MSG_TYPES[*self as usize])
    }
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(PRIORITIES[*self as usize])
    }
}

/// One message: a file `<mailbox>/<id>.md` under `.beads/mail/` (or `.beads/wisps/mail/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// `msg-<base36>`, the file name.
    pub id: String,
    /// Who sent it: an address (vermas writes only addresses; a hand-written or older file
    /// may hold any name, which then cannot be replied to).
    pub from: String,
    /// The address it was sent to (a group stays `@name`).
    pub to: String,
    /// Further addresses it was sent to.
    #[serde(default, deserialize_with = "crate::text::yaml::null_as_empty")]
    pub cc: Vec<String>,
    /// One-line summary.
    pub subject: String,
    /// What it asks of its reader.
    #[serde(default)]
    pub msg_type: MsgType,
    /// How soon it should be read.
    #[serde(default)]
    pub priority: Priority,
    /// Id of the first message of its conversation (its own id when it starts one).
    #[serde(default)]
    pub thread: String,
    /// The message it answers.
    #[serde(default)]
    pub reply_to: Option<String>,
    /// When it was sent.
    pub created_at: Timestamp,
    /// Whether its reader has read it.
    #[serde(default)]
    pub read: bool,
    /// The text.
    #[serde(default, skip_deserializing)]
    pub body: String,
    /// The mailbox folder holding it (from its location, not stored in the file).
    #[serde(default, skip_deserializing)]
    pub mailbox: String,
    /// True when it lies in its mailbox's `archive/` folder.
    #[serde(default, skip_deserializing)]
    pub archived: bool,
    /// True when it lies under `.beads/wisps/` and is never committed.
    #[serde(default, skip_deserializing)]
    pub ephemeral: bool,
    /// True when loaded from the index without its (long) body; never written back.
    #[serde(skip)]
    pub partial: bool,
}

impl Message {
    /// Parses a message file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Message> {
        let split = frontmatter::split(text, file)?;
        let mut msg: Message = yaml::parse(split.yaml, file, text, split.yaml_line)?;
        msg.body = split.body.to_string();
        let at_key = |key: &str, message: String| {
            let (line, col) = crate::store::frontmatter::key_position(text, key);
            Error::from(ParseError::at(file, text, line, col, message))
        };
        if !crate::store::id::is_valid(&msg.id) {
            return Err(at_key("id", format!("'{}' is not a valid id", msg.id)));
        }
        if msg.subject.trim().is_empty() {
            return Err(at_key("subject", "subject is empty".into()));
        }
        if msg.thread.is_empty() {
            msg.thread = msg.id.clone();
        } else if !crate::store::id::is_valid(&msg.thread) {
            return Err(at_key(
                "thread",
                format!("'{}' is not a valid id", msg.thread),
            ));
        }
        Ok(msg)
    }

    /// The file text: front matter in a fixed key order, then the body.
    pub fn render(&self) -> String {
        debug_assert!(!self.partial, "a partial message must not be written back");
        let mut out = String::with_capacity(320 + self.body.len());
        out.push_str("---\n");
        out.push_str(&format!("id: {}\n", scalar(&self.id)));
        out.push_str(&format!("from: {}\n", scalar(&self.from)));
        out.push_str(&format!("to: {}\n", scalar(&self.to)));
        out.push_str(&format!("cc: {}\n", flow_list(&self.cc)));
        out.push_str(&format!("subject: {}\n", scalar(&self.subject)));
        out.push_str(&format!("msg_type: {}\n", self.msg_type));
        out.push_str(&format!("priority: {}\n", self.priority));
        out.push_str(&format!("thread: {}\n", scalar(&self.thread)));
        out.push_str(&format!(
            "reply_to: {}\n",
            opt_scalar(self.reply_to.as_deref())
        ));
        out.push_str(&format!("created_at: {}\n", self.created_at));
        out.push_str(&format!("read: {}\n", self.read));
        out.push_str("---\n");
        if !self.body.is_empty() {
            out.push_str(&self.body);
            out.push('\n');
        }
        out
    }

    /// The order of an inbox: unread first, then by priority, then newest first.
    pub fn inbox_order(a: &Message, b: &Message) -> std::cmp::Ordering {
        (a.read, a.priority, std::cmp::Reverse(a.created_at), &a.id).cmp(&(
            b.read,
            b.priority,
            std::cmp::Reverse(b.created_at),
            &b.id,
        ))
    }
}

impl std::str::FromStr for MsgType {
    type Err = Error;

    /// Parses a message type, listing the valid ones on failure.
    fn from_str(text: &str) -> Result<MsgType> {
        crate::bead::model::parse_choice("message type", text, MSG_TYPES)
    }
}

impl std::str::FromStr for Priority {
    type Err = Error;

    /// Parses a priority, listing the valid ones on failure.
    fn from_str(text: &str) -> Result<Priority> {
        crate::bead::model::parse_choice("message priority", text, PRIORITIES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Message {
        Message {
            id: "msg-k3f9".into(),
            from: "inspector/judge".into(),
            to: "mayor/".into(),
            cc: vec!["@leads".into(), "inspector/".into()],
            subject: "NEEDS_CLARIFICATION: vm-k3f9".into(),
            msg_type: MsgType::Task,
            priority: Priority::Urgent,
            thread: "msg-k3f9".into(),
            reply_to: None,
            created_at: Timestamp(1_700_000_000),
            read: false,
            body: "Which CI?\n\n---\nnot front matter".into(),
            mailbox: String::new(),
            archived: false,
            ephemeral: false,
            partial: false,
        }
    }

    #[test]
    fn render_parse_round_trip() {
        let m = sample();
        let text = m.render();
        assert!(text.starts_with("---\nid: msg-k3f9\nfrom: inspector/judge\nto: mayor/\n"));
        assert!(text.contains("cc: [\"@leads\", inspector/]\n"), "{text}");
        assert_eq!(Message::parse(&text, "m.md").unwrap(), m);
    }

    #[test]
    fn minimal_and_bad_files() {
        let m = Message::parse(
            "---\nid: msg-1\nfrom: a\nto: mayor/\nsubject: Hi\ncreated_at: 2026-01-01T00:00:00Z\n---\n",
            "m.md",
        )
        .unwrap();
        assert_eq!(
            (m.thread.as_str(), m.priority, m.read),
            ("msg-1", Priority::Normal, false)
        );
        let e = Message::parse(
            "---\nid: msg-1\nfrom: a\nto: mayor/\nsubject: Hi\npriority: soon\ncreated_at: 2026-01-01T00:00:00Z\n---\n",
            "m.md",
        )
        .unwrap_err();
        let Error::Parse(p) = e else { panic!("{e:?}") };
        assert_eq!(p.line, 6, "{p:?}");
        assert!("memo".parse::<MsgType>().is_err());
        assert_eq!("high".parse::<Priority>().unwrap(), Priority::High);
    }

    #[test]
    fn inbox_order_is_unread_priority_newest() {
        let mut a = sample();
        a.priority = Priority::Low;
        let mut b = sample();
        b.read = true;
        b.priority = Priority::Urgent;
        let mut c = sample();
        c.priority = Priority::Low;
        c.created_at = Timestamp(1_800_000_000);
        let mut v = vec![b.clone(), a.clone(), c.clone()];
        v.sort_by(Message::inbox_order);
        assert_eq!(v, vec![c, a, b]);
    }
}
