//! Noticing that records changed, for the panes that redraw on change (`mail inbox
//! --watch`, `inspect pending --watch`): a fingerprint of the files in a few folders
//! (name, size, modification time), compared from one look to the next.

use std::path::PathBuf;
use std::time::SystemTime;
use vermas_core::error::Result;
use vermas_core::workspace::Workspace;

/// What a set of folders held at one moment; equal fingerprints mean nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fingerprint(Vec<(PathBuf, u64, u64, Option<SystemTime>)>);

impl Fingerprint {
    /// Looks at every file under `folders` (recursively; a missing folder holds nothing).
    pub fn of(folders: &[PathBuf]) -> Fingerprint {
        let mut seen = Vec::new();
        for folder in folders {
            for entry in walkdir::WalkDir::new(folder).into_iter().flatten() {
                if let Ok(meta) = entry.metadata() {
                    // A record rewritten by rename is a new file (inode) even when its
                    // size and time look the same.
                    seen.push((
                        entry.path().to_path_buf(),
                        std::os::unix::fs::MetadataExt::ino(&meta),
                        meta.len(),
                        meta.modified().ok(),
                    ));
                }
            }
        }
        seen.sort();
        Fingerprint(seen)
    }
}

/// The folders an inbox of `addr` is read from: each recipient's mailbox, committed and
/// ephemeral (archiving moves a message out of them, reading rewrites it in place), and
/// the config that defines groups.
pub fn inbox_folders(ws: &Workspace, addr: &str) -> Result<Vec<PathBuf>> {
    let mut rcpts = Vec::new();
    vermas_core::mail::address::expand(addr, &ws.config.mail.groups, &mut rcpts)?;
    let mut folders = Vec::new();
    for rcpt in &rcpts {
        for dir in vermas_core::mail::store::live_dirs(ws, rcpt.mailbox()) {
            folders.push(dir.path);
        }
    }
    folders.push(ws.config_path());
    Ok(folders)
}

/// The folders pending test specs are read from: the beads.
pub fn pending_folders(ws: &Workspace) -> Vec<PathBuf> {
    vec![ws.issues_dir()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_or_rewritten_file_changes_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let folders = vec![dir.path().join("box"), dir.path().join("missing")];
        let empty = Fingerprint::of(&folders);
        std::fs::create_dir(&folders[0]).unwrap();
        std::fs::write(folders[0].join("a.md"), "one").unwrap();
        let one = Fingerprint::of(&folders);
        assert_ne!(empty, one);
        assert_eq!(one, Fingerprint::of(&folders));
        std::fs::write(folders[0].join("a.md"), "two!").unwrap();
        assert_ne!(one, Fingerprint::of(&folders));
    }
}
