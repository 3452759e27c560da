//! The Inspector's spec side end to end: test specs created with their work (the default),
//! criteria added and approved, and `sling` held back until then (or forced, on record).

use crate::common::*;
use crate::specs::support::*;

mod creation;
mod criteria;
mod walk_through;

/// Subjects of the messages in `mailbox`.
fn mail_subjects(repo: &Repo, mailbox: &str) -> Vec<String> {
    repo.json(&["mail", "inbox", mailbox])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|m| m["subject"].as_str().map(str::to_string))
        .collect()
}

/// Ids `ready` lists.
fn ready(repo: &Repo) -> Vec<String> {
    repo.json(&["ready", "-n", "0"])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["id"].as_str().map(str::to_string))
        .collect()
}

/// The bead `id` as `show --json` gives it.
fn bead(repo: &Repo, id: &str) -> serde_json::Value {
    repo.json(&["show", id])[0].clone()
}

/// Ids of the open test specs, as `inspect pending` orders them.
fn pending(repo: &Repo) -> Vec<String> {
    repo.json(&["inspect", "pending"])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect()
}
