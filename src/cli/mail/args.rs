//! Arguments of the `mail` commands.

use clap::Subcommand;
use vermas_core::error::Error;
use vermas_core::mail::message::{MsgType, Priority};
use vermas_core::time::duration::HumanDuration;

/// `mail` subcommands.
#[derive(Debug, Subcommand)]
pub enum MailCmd {
    /// Send a message (one commit; --ephemeral: never committed).
    Send {
        /// Address: mayor/, inspector/, inspector/ROLE, NAME/, RIG/refinery, RIG/AGENT or @group.
        to: String,
        /// Subject line.
        #[arg(short, long)]
        subject: String,
        /// Body text.
        #[arg(short, long, conflicts_with = "stdin")]
        message: Option<String>,
        /// Read the body from standard input.
        #[arg(long)]
        stdin: bool,
        /// Sender (default: config mail.from, else your own mailbox ACTOR/).
        #[arg(long)]
        from: Option<String>,
        /// task, notification, escalation or reply.
        #[arg(short = 't', long = "type", default_value = "notification", add = crate::cli::complete::msg_type())]
        msg_type: MsgType,
        /// urgent, high, normal or low.
        #[arg(short, long, default_value = "normal", add = crate::cli::complete::msg_priority())]
        priority: Priority,
        /// Also send to (repeatable).
        #[arg(long)]
        cc: Vec<String>,
        /// The message this answers (same thread).
        #[arg(long, value_name = "MSG")]
        reply_to: Option<String>,
        /// Keep it under .beads/wisps/mail/, never committed.
        #[arg(long)]
        ephemeral: bool,
    },
    /// Messages for an address: unread first, then by priority, newest first.
    Inbox {
        /// Address (default: config mail.from, else your own mailbox ACTOR/).
        addr: Option<String>,
        /// Only unread ones.
        #[arg(long)]
        unread: bool,
        /// Redraw whenever the mailbox changes, until Ctrl-C.
        #[arg(long)]
        watch: bool,
    },
    /// Show a message and mark it read.
    Read {
        /// Message id or unique prefix.
        msg: String,
    },
    /// Answer a message: to its sender, in its thread.
    Reply {
        /// Message id or unique prefix.
        msg: String,
        /// Body text.
        #[arg(short, long)]
        message: String,
        /// Sender (default: config mail.from, else your own mailbox ACTOR/).
        #[arg(long)]
        from: Option<String>,
    },
    /// Every message of a message's thread, oldest first.
    Thread {
        /// Message id or unique prefix.
        msg: String,
    },
    /// Archive a message.
    Archive {
        /// Message id or unique prefix.
        msg: String,
    },
    /// Block until a reply to MSG exists (exit 1 on timeout).
    Wait {
        /// Message id or unique prefix.
        msg: String,
        /// Longest to wait, e.g. 30s or 5m.
        #[arg(long, default_value = "5m", value_parser = timeout)]
        timeout: HumanDuration,
    },
}

/// Parses `mail wait --timeout`.
fn timeout(text: &str) -> Result<HumanDuration, Error> {
    text.parse().map_err(|m| {
        Error::invalid_with_help(format!("bad --timeout: {m}"), "e.g. --timeout 30s or 5m")
    })
}
