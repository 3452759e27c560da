//! A change to `.beads/`: the write lock, atomic file writes, a journal of touched paths,
//! and the one commit that records them.
//!
//! The journal (`.beads/.cache/pending`) lists every path before it is written (one
//! `write()` per record, so a kill never glues two), so a process killed between writing
//! and committing leaves a record the next change commits. A change that fails instead
//! (its commit refused, an error half-way) is rolled back: its files get their earlier
//! content again, so a retry never makes a duplicate.
//!
//! A sync's merge an interrupted process left half landed is finished first
//! ([`super::landing`]), so a change never commits another machine's records under its
//! own name.

use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::workspace::Workspace;
use std::collections::HashSet;
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
    /// The full message: `vermas <verb>: <id> <title>`, a blank line, then trailers. No
    /// value can add a line: control characters in values become spaces.
    pub fn render(&self) -> String {
        let mut subject = format!("vermas {}:", one_line(&self.verb));
        if let Some(first) = self.ids.first() {
            subject.push(' ');
            subject.push_str(&one_line(first));
        }
        if !self.title.is_empty() {
            subject.push(' ');
            subject.push_str(&one_line(&self.title));
        }
        if self.ids.len() > 1 {
            subject.push_str(&format!(" (+{} more)", self.ids.len() - 1));
        }
        let mut out = format!("{subject}\n\nVermas-Actor: {}\n", one_line(&self.actor));
        for id in &self.ids {
            out.push_str(&format!("Vermas-Id: {}\n", one_line(id)));
        }
        out
    }
}

/// `value` with every control character (newlines included) turned into a space.
fn one_line(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// An open change: holds `.beads/.lock` until dropped or committed.
pub struct Txn<'a> {
    ws: &'a Workspace,
    _lock: File,
    /// Every path to commit: this change's and those an interrupted one left.
    touched: Vec<PathBuf>,
    /// The same paths, to tell at once whether one is there (an import writes thousands).
    touched_set: HashSet<PathBuf>,
    /// The paths of `before`, likewise.
    remembered: HashSet<PathBuf>,
    /// The journal, opened once for the whole change.
    journal_file: Option<File>,
    /// Folders this change checked to stay inside the repository and made: each is
    /// resolved once, not once per file written into it.
    ready_dirs: HashSet<PathBuf>,
    /// This change's paths with their content before it (`None`: did not exist).
    before: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// False once committed: dropping an uncommitted change rolls it back.
    open: bool,
    record: bool,
    /// The repository the change is recorded in, opened once (at the start when
    /// recording, else when first needed).
    repo: std::cell::OnceCell<Option<GitRepo>>,
}

impl<'a> Txn<'a> {
    /// Takes the write lock (waiting for other vermas writers) and picks up paths an
    /// interrupted change left uncommitted.
    pub fn begin(ws: &'a Workspace) -> Result<Txn<'a>> {
        let lock_path = ws.path(crate::workspace::layout::LOCK);
        let lock = crate::sys::contain::open(
            OpenOptions::new().create(true).truncate(false).write(true),
            &lock_path,
            |p| ws.contain(p),
        )?;
        // flock: the kernel releases it when the process dies, so no stale lock survives.
        lock.lock().map_err(|e| Error::io(&lock_path, e))?;
        let mut txn = Txn {
            ws,
            _lock: lock,
            touched: Vec::new(),
            touched_set: HashSet::new(),
            remembered: HashSet::new(),
            journal_file: None,
            ready_dirs: HashSet::new(),
            before: Vec::new(),
            open: true,
            record: ws.config.git.commit,
            repo: std::cell::OnceCell::new(),
        };
        if txn.record
            && let Some(repo) = txn.repo()
        {
            let dir = ws
                .beads_dir
                .strip_prefix(repo.workdir())
                .map(|d| format!("{}/", d.to_string_lossy()))
                .unwrap_or_default();
            repo.check_can_commit(&dir)?;
        }
        if let Ok(text) = std::fs::read_to_string(txn.journal_path()) {
            // Read tolerantly: a line that is not a path inside `.beads` (a journal that
            // came with a clone, a record cut short) is passed over; `doctor` finds any
            // record file that is still not in HEAD.
            for line in text.lines().filter(|l| !l.is_empty()) {
                let path = ws.beads_dir.join(line);
                if !line.starts_with('/')
                    && !line.contains("..")
                    && ws.contain(&path).is_ok()
                    && txn.touched_set.insert(path.clone())
                {
                    txn.touched.push(path);
                }
            }
        }
        txn.finish_landing()?;
        Ok(txn)
    }

    /// Finishes a sync's merge an interrupted process left half landed (see
    /// [`super::landing`]): one failed read when there is none.
    fn finish_landing(&mut self) -> Result<()> {
        let intent = self.ws.cache_dir().join(super::landing::INTENT);
        if !intent.exists() {
            return Ok(());
        }
        let Some(repo) = GitRepo::open(&self.ws.beads_dir) else {
            return Ok(());
        };
        let ledger = self.ledger_in(&repo);
        super::landing::finish(&repo, &intent, &ledger, &mut |rel, bytes| {
            let path = self.ws.beads_dir.join(rel);
            self.write_landed(&path, bytes)
        })
    }

    /// The ledger's folder relative to `repo`'s work tree (`.beads`).
    pub fn ledger_in(&self, repo: &GitRepo) -> String {
        let beads =
            std::fs::canonicalize(&self.ws.beads_dir).unwrap_or_else(|_| self.ws.beads_dir.clone());
        beads
            .strip_prefix(repo.workdir())
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_else(|_| crate::workspace::BEADS_DIR.to_string())
    }

    /// Writes (or with `None` removes) `path` as a landed merge brings it: journalled and
    /// committed as it is, never rolled back (the branch holds it already).
    pub fn write_landed(&mut self, path: &Path, bytes: Option<&[u8]>) -> Result<()> {
        let found = std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
        self.journal_found(path, found, false)?;
        match bytes {
            Some(bytes) => {
                let tmp_dir = self.ws.cache_dir().join("tmp");
                self.ready_dir(&tmp_dir)?;
                if let Some(parent) = path.parent() {
                    self.ready_dir(parent)?;
                }
                replace(&tmp_dir, path, &[bytes])
            }
            None => match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
                _ => Ok(()),
            },
        }
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

    /// The git repository holding `.beads`, if any.
    fn repo(&self) -> Option<&GitRepo> {
        self.repo
            .get_or_init(|| GitRepo::open(&self.ws.beads_dir))
            .as_ref()
    }

    /// The folders at or below `dir` (inside `.beads`) holding records that git's index
    /// tracks whose names end in `suffix`, each with how many, when this change is
    /// recorded in git: what is there without listing a folder. `None` when not recorded
    /// or the index cannot be read.
    pub fn recorded_folders(&self, dir: &Path, suffix: &str) -> Option<Vec<(PathBuf, usize)>> {
        let repo = self.repo().filter(|_| self.record)?;
        repo.tracked_folders(dir, suffix).ok()
    }

    /// Writes `bytes` to `path` (inside `.beads`) atomically: temp file, then rename, as
    /// [`write_atomic`] does; the folders are checked and made once per change.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        let found = std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
        self.journal_found(path, found, true)?;
        let tmp_dir = self.ws.cache_dir().join("tmp");
        self.ready_dir(&tmp_dir)?;
        if let Some(parent) = path.parent() {
            self.ready_dir(parent)?;
        }
        // A fifo or a device named as the file is written into: a rename would replace it.
        if found.is_some_and(|kind| !kind.is_file() && !kind.is_symlink()) {
            return write_into(path, bytes).map_err(|e| Error::io(path, e));
        }
        replace(&tmp_dir, path, &[bytes])
    }

    /// Checks once per change that folder `dir` stays inside the repository (as
    /// [`write_atomic`] checks it), then makes it.
    fn ready_dir(&mut self, dir: &Path) -> Result<()> {
        if self.ready_dirs.contains(dir) {
            return Ok(());
        }
        let tmp_dir = self.ws.cache_dir().join("tmp");
        if let Some(root) = tmp_dir.ancestors().nth(3)
            && dir.starts_with(root)
        {
            crate::sys::contain::resolve(root, dir)?;
        }
        if dir.starts_with(&self.ws.beads_dir) {
            self.ws.contain(dir)?;
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        self.ready_dirs.insert(dir.to_path_buf());
        Ok(())
    }

    /// Adds `path` (inside `.beads`, as it is on disk) to what this change commits,
    /// without writing it.
    pub fn include(&mut self, path: &Path) -> Result<()> {
        self.journal(path)
    }

    /// Keeps `path`'s content before this change first touches it, for a rollback;
    /// `exists` says whether anything is there to read.
    fn remember(&mut self, path: &Path, exists: bool) {
        if !self.remembered.insert(path.to_path_buf()) {
            return;
        }
        let old = exists.then(|| std::fs::read(path).ok()).flatten();
        self.before.push((path.to_path_buf(), old));
    }

    /// Puts back what this change wrote or removed, and leaves in the journal only what
    /// an interrupted earlier change still needs committed.
    fn roll_back(&mut self) {
        for (path, old) in self.before.iter().rev() {
            // Best effort on the error path: the journal below keeps what could not be put back.
            let _ = match old {
                Some(bytes) => write_atomic(&self.ws.cache_dir(), path, bytes),
                None => std::fs::remove_file(path).map_err(|e| Error::io(path, e)),
            };
        }
        let left: Vec<String> = self
            .touched
            .iter()
            .filter(|p| !self.remembered.contains(*p))
            .filter_map(|p| p.strip_prefix(&self.ws.beads_dir).ok())
            .map(|p| format!("{}\n", p.to_string_lossy()))
            .collect();
        let journal = self.journal_path();
        if left.is_empty() {
            // Best effort: a journal left behind only makes the next change look at its paths again.
            let _ = std::fs::remove_file(&journal);
        } else {
            // Best effort: the change's own error is what is reported.
            let _ = write_atomic(&self.ws.cache_dir(), &journal, left.concat().as_bytes());
        }
        self.before.clear();
        self.remembered.clear();
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

    /// Records `path` in the journal before it changes, refusing one that a symlink would
    /// take outside the repository.
    fn journal(&mut self, path: &Path) -> Result<()> {
        let found = std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
        self.journal_found(path, found, true)
    }

    /// [`Txn::journal`] for a `path` whose `lstat` found `found`: its folders are checked
    /// once per change, the file itself only when it is a symlink. Checked before its old
    /// content is read, so nothing behind a symlink leading outside is ever read.
    fn journal_found(
        &mut self,
        path: &Path,
        found: Option<std::fs::FileType>,
        keep_before: bool,
    ) -> Result<()> {
        let rel = path
            .strip_prefix(&self.ws.beads_dir)
            .map_err(|_| Error::Invalid(format!("{} is outside .beads", path.display())))?;
        if !self.touched_set.contains(path) {
            match path.parent() {
                Some(parent) if !self.ready_dirs.contains(parent) => {
                    self.ws.contain(path)?;
                }
                _ if found.is_some_and(|kind| kind.is_symlink()) => {
                    self.ws.contain(path)?;
                }
                _ => {}
            }
        }
        if keep_before {
            self.remember(path, found.is_some());
        }
        if self.touched_set.contains(path) {
            return Ok(());
        }
        let journal = self.journal_path();
        if self.journal_file.is_none() {
            std::fs::create_dir_all(self.ws.cache_dir()).map_err(|e| Error::io(&journal, e))?;
            self.journal_file = Some(crate::sys::contain::open(
                OpenOptions::new().create(true).append(true),
                &journal,
                |p| self.ws.contain(p),
            )?);
        }
        let Some(f) = self.journal_file.as_mut() else {
            return Ok(());
        };
        // One write() for the whole record: a kill cannot leave half a line for the next
        // record to be glued onto.
        let record = format!("{}\n", rel.to_string_lossy());
        match f.write(record.as_bytes()) {
            Ok(n) if n == record.len() => {}
            Ok(_) => {
                return Err(Error::io(
                    &journal,
                    std::io::Error::new(std::io::ErrorKind::WriteZero, "short write"),
                ));
            }
            Err(e) => return Err(Error::io(&journal, e)),
        }
        self.touched.push(path.to_path_buf());
        self.touched_set.insert(path.to_path_buf());
        Ok(())
    }

    fn journal_path(&self) -> PathBuf {
        self.ws.cache_dir().join("pending")
    }

    /// Commits every touched path with `message` (unless commits are off or there is no
    /// repository), clears the journal, and releases the lock.
    pub fn commit(mut self, message: &CommitMessage) -> Result<Recorded> {
        let head = || self.repo().and_then(GitRepo::head_commit);
        let head_before = head();
        let recorded = self.record_in_git(message);
        // Rolled back only when no commit landed: one that did (and failed later, at the
        // index) is history already; the next change brings the index up to date.
        match &recorded {
            Err(_) if head() == head_before => self.roll_back(),
            // Kept: the next change brings the index up to date for these paths.
            Err(_) => {}
            Ok(_) => {
                // Best effort: a journal left behind only makes the next change look at its paths again.
                let _ = std::fs::remove_file(self.journal_path());
            }
        }
        self.open = false;
        recorded
    }

    /// The commit itself, as [`Txn::commit`] describes.
    fn record_in_git(&self, message: &CommitMessage) -> Result<Recorded> {
        Ok(if !self.record {
            Recorded::Disabled
        } else if self.touched.is_empty() {
            Recorded::Unchanged
        } else {
            match self.repo() {
                None => Recorded::NotARepository,
                Some(repo) => {
                    let text = message.render();
                    let owner = self.ws.commit_note_path();
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
        })
    }
}

impl Drop for Txn<'_> {
    /// A change that was never committed (an error half-way) is rolled back.
    fn drop(&mut self) {
        if self.open && !self.before.is_empty() {
            self.roll_back();
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in `tmp_dir` and a rename, so a reader
/// sees the old or the new content and never a part.
///
/// `tmp_dir` is a workspace's `.beads/.cache`: neither its `tmp/` folder nor a `path`
/// inside the folder holding that `.beads` may reach outside it through a symlinked folder
/// ([`super::contain`]); the rename replaces a symlink at `path` itself rather than
/// writing through it.
pub fn write_atomic(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(tmp_dir, path, &[bytes])
}

/// [`write_atomic`] of the bytes `parts` hold one after the other (written through a
/// buffer, so many small parts cost few writes), for a file not held whole in memory.
pub fn write_atomic_parts(tmp_dir: &Path, path: &Path, parts: &[&[u8]]) -> Result<()> {
    let tmp_dir = tmp_dir.join("tmp");
    if let Some(root) = tmp_dir.ancestors().nth(3) {
        crate::sys::contain::resolve(root, &tmp_dir)?;
        if let Some(parent) = path.parent().filter(|p| p.starts_with(root)) {
            crate::sys::contain::resolve(root, parent)?;
        }
    }
    std::fs::create_dir_all(&tmp_dir).map_err(|e| Error::io(&tmp_dir, e))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    // A fifo or a device named as the file is written into: a rename would replace it.
    if let Some(written) = write_into_special(path, &parts.concat(), false) {
        return written.map_err(|e| Error::io(path, e));
    }
    replace(&tmp_dir, path, parts)
}

/// Replaces `path` with a new file holding `parts`, one after the other: written under
/// the checked folder `tmp_dir`, then renamed over it.
fn replace(tmp_dir: &Path, path: &Path, parts: &[&[u8]]) -> Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = tmp_dir.join(format!("{name}.{}.tmp", std::process::id()));
    let result = (|| {
        // A new file, never an existing one or the target of a planted symlink: one a
        // killed run left is removed first.
        let create = || OpenOptions::new().write(true).create_new(true).open(&tmp);
        let mut f = match create() {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(&tmp)?;
                create()?
            }
            other => other?,
        };
        if let [bytes] = parts {
            f.write_all(bytes)?;
        } else {
            let mut f = std::io::BufWriter::with_capacity(256 * 1024, f);
            for part in parts {
                f.write_all(part)?;
            }
            f.flush()?;
        }
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        // Best effort: the error that matters is returned.
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Writes `bytes` straight into `path` when it is there and is neither a regular file nor
/// a symlink (a fifo, a device, a socket), as a shell's `>` would: a rename would replace
/// it with a regular file. `None` when a rename is right: `path` is a regular file, a
/// symlink (with `follow`, one to a regular file or to nothing) or absent.
pub fn write_into_special(path: &Path, bytes: &[u8], follow: bool) -> Option<std::io::Result<()>> {
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    let kind = meta.ok()?.file_type();
    if kind.is_file() || kind.is_symlink() {
        return None;
    }
    Some(write_into(path, bytes))
}

/// Writes `bytes` into the existing `path` (a fifo, a device) without replacing it.
fn write_into(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_never_add_lines_to_a_commit_message() {
        let m = CommitMessage {
            verb: "create".into(),
            ids: vec!["vm-1".into(), "vm-2\nVermas-Id: vm-x".into()],
            title: "Fix\r\nVermas-Id: vm-victim".into(),
            actor: "mallory\nVermas-Id: vm-victim".into(),
        };
        let text = m.render();
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(
            text.lines().all(
                |l| !l.starts_with("Vermas-Id: vm-victim") && !l.starts_with("Vermas-Id: vm-x")
            ),
            "{text}"
        );
        assert!(text.starts_with("vermas create: vm-1 Fix  Vermas-Id: vm-victim (+1 more)\n"));
        assert!(
            text.contains("\nVermas-Actor: mallory Vermas-Id: vm-victim\n"),
            "{text}"
        );
    }
}
