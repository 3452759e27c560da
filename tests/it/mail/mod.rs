//! Agent mail on real repositories: every command, one commit per send/read/archive,
//! ephemeral mail never committed, groups, inbox order, the question flow with two
//! processes and `mail wait`, and each kind of bad input.

use crate::common::{LEAKY_ENV, Repo, stderr, stdout};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod errors;
mod inbox;
mod send;
mod wait;

/// An initialised repository whose git identity (`user.name`) is a valid mailbox name, so
/// mail sent without `--from` comes from `tester/`.
fn mail_repo() -> Repo {
    let repo = Repo::initialised();
    repo.git(&["config", "user.name", "tester"]);
    repo
}

/// `mail send` with `--json`; returns the message object.
fn send(repo: &Repo, to: &str, subject: &str, extra: &[&str]) -> Value {
    let mut args = vec!["mail", "send", to, "-s", subject, "-m", "body text"];
    args.extend_from_slice(extra);
    repo.json(&args)
}

/// The id of a message sent with [`send`].
fn send_id(repo: &Repo, to: &str, subject: &str, extra: &[&str]) -> String {
    id_of(&send(repo, to, subject, extra))
}

/// The `id` of a JSON message.
fn id_of(m: &Value) -> String {
    m["id"].as_str().expect("id").to_string()
}

/// The ids of a JSON array of messages.
fn ids(v: &Value) -> Vec<String> {
    v.as_array().expect("array").iter().map(id_of).collect()
}
