//! Picking a new message id that no message in any folder has. When the change is recorded
//! in git, the folders and the count come from git's index and a candidate is looked
//! for by its file name in each folder: sending stays as fast with 10,000 messages in a
//! mailbox (the Inspector's, which every `create` mails) as with ten. Otherwise every
//! folder is listed.

use super::store::{self, Dir};
use crate::store::{Txn, id};
use crate::workspace::Workspace;
use std::collections::HashSet;
use std::path::PathBuf;

/// The message ids in use, to pick new ones among.
pub(crate) struct UsedIds {
    /// Every id, when the folders were listed.
    listed: HashSet<String>,
    /// The folders a candidate's file is looked for in, when they were not listed.
    folders: Vec<PathBuf>,
    /// How many messages there are: what the id's length is chosen by.
    count: usize,
    /// The ids picked here so far.
    picked: HashSet<String>,
}

impl UsedIds {
    /// The ids in use in `ws` for a message to `mailboxes`, sent within `txn` when it is
    /// part of a change.
    pub(crate) fn of(ws: &Workspace, txn: Option<&Txn<'_>>, mailboxes: &[&str]) -> UsedIds {
        let durable = store::root(ws, false);
        let Some(tracked) = txn.and_then(|t| t.recorded_folders(&durable, ".md")) else {
            let listed: HashSet<String> = store::ids_in(&store::all_dirs(ws))
                .into_iter()
                .map(|(id, _)| id)
                .collect();
            return UsedIds {
                count: listed.len(),
                listed,
                folders: Vec::new(),
                picked: HashSet::new(),
            };
        };
        let count = tracked.iter().map(|(_, n)| n).sum();
        let mut folders: Vec<PathBuf> = tracked.into_iter().map(|(f, _)| f).collect();
        // Never committed, so not in the index: the ephemeral folders (few), and the
        // recipients' own folders, which may be new.
        folders.extend(store::dirs_under(ws, true).into_iter().map(|d| d.path));
        for mailbox in mailboxes {
            let live = Dir::new(ws, mailbox, false, false);
            folders.push(live.archive(ws).path);
            folders.push(live.path);
        }
        folders.sort();
        folders.dedup();
        UsedIds {
            listed: HashSet::new(),
            folders,
            count,
            picked: HashSet::new(),
        }
    }

    /// True when a message already has the id `candidate`.
    fn taken(&self, candidate: &str) -> bool {
        let file = format!("{candidate}.md");
        self.picked.contains(candidate)
            || self.listed.contains(candidate)
            || self
                .folders
                .iter()
                .any(|f| std::fs::symlink_metadata(f.join(&file)).is_ok())
    }

    /// A free `msg-<base36>` id, as short as the number of messages allows, kept as taken.
    pub(crate) fn fresh(&mut self, subject: &str, from: &str) -> String {
        let count = self.count + self.picked.len();
        let id = id::fresh("msg", subject, from, count, |c| self.taken(c));
        self.picked.insert(id.clone());
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_is_taken_when_any_folder_has_its_file_or_it_was_picked() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b/archive"));
        std::fs::create_dir_all(&a).expect("a");
        std::fs::create_dir_all(&b).expect("b");
        std::fs::write(b.join("msg-abcd.md"), "x").expect("message");
        let mut used = UsedIds {
            listed: HashSet::new(),
            folders: vec![a, b],
            count: 0,
            picked: HashSet::new(),
        };
        assert!(used.taken("msg-abcd"), "in the second folder");
        assert!(!used.taken("msg-zzzz"));
        let picked = used.fresh("subject", "me/");
        assert!(used.taken(&picked), "picked here");
        assert_ne!(used.fresh("subject", "me/"), picked);
    }
}
