//! A change to `.beads/`: the write lock, atomic file writes, a journal of touched paths,
//! and the one commit that records them.
//!
//! The journal (`.beads/.cache/pending`) lists every path before it is written, so a
//! process killed between writing and committing leaves a record the next change commits.

use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::workspace::Workspace;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a finished change did in git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// A commit was made.
    Commit(String),
    /// The files matched HEAD already: nothing to commit.
    Unchanged,
    /// `git.commit: false`.
    Disabled,
    /// The `.beads` folder is not inside a git work tree.
    NotARepository,
}

/// The subject and trailers of a vermas commit.
#[derive(Debug, Clone)]
pub struct CommitMessage {
    /// The verb, e.g. `create`.
    pub verb: String,
    /// The records changed (first one names the commit).
    pub ids: Vec<String>,
    /// Title of the first record.
    pub title: String,
    /// Who made the change.
    pub actor: String,
}

impl CommitMessage {
    /// The full message: `vermas <verb>: <id> <title>`, a blank line, then trailers.
    pub fn render(&self) -> String {
        let mut subject = format!("vermas {}:", self.verb);
        if let Some(first) = self.ids.first() {
            subject.push(' ');
            subject.push_str(first);
        }
        if !self.title.is_empty() {
            subject.push(' ');
            subject.push_str(&self.title.replace('\n', " "));
        }
        if self.ids.len() > 1 {
            subject.push_str(&format!(" (+{} more)", self.ids.len() - 1));
        }
        let mut out = format!("{subject}\n\nVermas-Actor: {}\n", self.actor);
        for id in &self.ids {
            out.push_str(&format!("Vermas-Id: {id}\n"));
        }
        out
    }
}

/// An open change: holds `.beads/.lock` until dropped or committed.
pub struct Txn<'a> {
    ws: &'a Workspace,
    _lock: File,
    touched: Vec<PathBuf>,
    record: bool,
}

impl<'a> Txn<'a> {
    /// Takes the write lock (waiting for other vermas writers) and picks up paths an
    /// interrupted change left uncommitted.
    pub fn begin(ws: &'a Workspace) -> Result<Txn<'a>> {
        let lock_path = ws.beads_dir.join(".lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Error::io(&lock_path, e))?;
        // flock: the kernel releases it when the process dies, so no stale lock survives.
        lock.lock().map_err(|e| Error::io(&lock_path, e))?;
        let mut txn = Txn {
            ws,
            _lock: lock,
            touched: Vec::new(),
            record: ws.config.git.commit,
        };
        if txn.record
            && let Some(repo) = GitRepo::open(&ws.beads_dir)
        {
            let dir = ws
                .beads_dir
                .strip_prefix(repo.workdir())
                .map(|d| format!("{}/", d.to_string_lossy()))
                .unwrap_or_default();
            repo.check_can_commit(&dir)?;
        }
        if let Ok(text) = std::fs::read_to_string(txn.journal_path()) {
            txn.touched.extend(
                text.lines()
                    .filter(|l| !l.is_empty())
                    .map(|l| ws.beads_dir.join(l)),
            );
        }
        Ok(txn)
    }

    /// Overrides `git.commit` for this change (a config change that turns recording on
    /// is itself recorded).
    pub fn set_recording(&mut self, on: bool) {
        self.record = on;
    }

    /// The workspace this change is in.
    pub fn workspace(&self) -> &Workspace {
        self.ws
    }

    /// Writes `bytes` to `path` (inside `.beads`) atomically: temp file, then rename.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.journal(path)?;
        write_atomic(&self.ws.cache_dir(), path, bytes)
    }

    /// Removes `path` (inside `.beads`); a missing file is fine.
    pub fn remove(&mut self, path: &Path) -> Result<()> {
        self.journal(path)?;
        match std::fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Records `path` in the journal before it changes.
    fn journal(&mut self, path: &Path) -> Result<()> {
        if self.touched.iter().any(|p| p == path) {
            return Ok(());
        }
        let rel = path
            .strip_prefix(&self.ws.beads_dir)
            .map_err(|_| Error::Invalid(format!("{} is outside .beads", path.display())))?;
        let journal = self.journal_path();
        std::fs::create_dir_all(self.ws.cache_dir()).map_err(|e| Error::io(&journal, e))?;
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal)
            .map_err(|e| Error::io(&journal, e))?;
        writeln!(f, "{}", rel.to_string_lossy()).map_err(|e| Error::io(&journal, e))?;
        self.touched.push(path.to_path_buf());
        Ok(())
    }

    fn journal_path(&self) -> PathBuf {
        self.ws.cache_dir().join("pending")
    }

    /// Commits every touched path with `message` (unless commits are off or there is no
    /// repository), clears the journal, and releases the lock.
    pub fn commit(self, message: &CommitMessage) -> Result<Recorded> {
        let recorded = if !self.record {
            Recorded::Disabled
        } else if self.touched.is_empty() {
            Recorded::Unchanged
        } else {
            match GitRepo::open(&self.ws.beads_dir) {
                None => Recorded::NotARepository,
                Some(repo) => {
                    let text = message.render();
                    let owner = self.ws.cache_dir().join("commit-in-progress");
                    match repo.commit_paths(
                        &self.touched,
                        &text,
                        self.ws.config.git.author.as_deref(),
                        &owner,
                    )? {
                        Some(id) => Recorded::Commit(id.to_string()),
                        None => Recorded::Unchanged,
                    }
                }
            }
        };
        let _ = std::fs::remove_file(self.journal_path());
        Ok(recorded)
    }
}

/// Writes `bytes` to `path` through a temporary file in `tmp_dir` and a rename, so a reader
/// sees the old or the new content and never a part.
pub fn write_atomic(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp_dir = tmp_dir.join("tmp");
    std::fs::create_dir_all(&tmp_dir).map_err(|e| Error::io(&tmp_dir, e))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = tmp_dir.join(format!("{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}
