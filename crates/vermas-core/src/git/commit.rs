//! Committing exactly the paths vermas wrote, through gix, without disturbing the user's
//! other staged or unstaged work. docs/ARCHITECTURE.md describes the traps avoided.

use super::head_tree::HeadTree;
use super::index_file::{DiskState, encode_index, index_stale, update_index, write_index};
use super::loose::LooseWriter;
use super::recovery::{CrashNote, Phase};
use super::{GitRepo, git_err};
use crate::error::{Error, Result};
use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Stat, stat};
use gix::lock::acquire::Fail;
use gix::objs::tree::EntryKind;
use gix::refs::{
    Target,
    transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog},
};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

/// How often a commit is recomputed when another writer moved the branch meanwhile.
const CAS_ATTEMPTS: usize = 8;

/// Commits made by this process on a detached HEAD (see [`super::detached_commits`]).
pub(super) static DETACHED_COMMITS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

impl GitRepo {
    /// Commits the current content of `paths` (absolute, inside the work tree; missing files
    /// are removed) on the current branch with `message`. Returns the new commit, or `None`
    /// when nothing differed from HEAD.
    pub fn commit_paths(
        &self,
        paths: &[std::path::PathBuf],
        message: &str,
        author: Option<&str>,
        owner_file: &Path,
    ) -> Result<Option<gix::ObjectId>> {
        let mut rela_paths: Vec<BString> = paths
            .iter()
            .map(|p| self.rela_path(p))
            .collect::<Result<_>>()?;
        rela_paths.sort();
        rela_paths.dedup();
        let commit = NewCommit {
            message,
            author,
            signer: self.signer()?,
        };
        let mut last_conflict = None;
        for _ in 0..CAS_ATTEMPTS {
            match self.commit_once(&rela_paths, &commit, owner_file) {
                Err(CommitError::Conflict(e)) => {
                    last_conflict = Some(e);
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(CommitError::Other(e)) => return Err(e),
                Ok(id) => return Ok(id),
            }
        }
        Err(Error::git(format!(
            "the branch kept moving while vermas committed: {}",
            last_conflict.unwrap_or_default()
        )))
    }

    /// One attempt: lock the index, build tree and commit, move the branch, write the index.
    fn commit_once(
        &self,
        rela_paths: &[BString],
        commit: &NewCommit,
        owner_file: &Path,
    ) -> std::result::Result<Option<gix::ObjectId>, CommitError> {
        let index_path = self.repo.index_path();
        let lock_path = {
            let mut p = index_path.clone().into_os_string();
            p.push(".lock");
            std::path::PathBuf::from(p)
        };
        let note = CrashNote::new(owner_file.to_path_buf(), lock_path.clone());
        note.recover();
        let lock = self.lock_index(&note, &index_path, &lock_path)?;
        let mut index = self.open_index(&index_path)?;
        if let Some(refusal) = refusal(&self.repo, &index, &top_dir(rela_paths)) {
            return Err(refusal.into());
        }
        let (parent, head_tree_id) = self.head_and_tree()?;
        let mut objects = LooseWriter::new(&self.repo);
        let states = self.disk_states(rela_paths, &index, &mut objects)?;
        // A change interrupted after its commit but before its index write leaves the index
        // behind HEAD: bring our entries up to date even when there is nothing to commit.
        let stale = index_stale(&index, &states);
        update_index(&mut index, &states);
        // The new index is encoded on a second thread while the trees and the commit are
        // written: neither needs the other, and on a big repository each takes milliseconds.
        let skip_hash = self
            .repo
            .config_snapshot()
            .boolean("index.skipHash")
            .unwrap_or(false);
        let hash = self.repo.object_hash();
        let (recorded, encoded) = std::thread::scope(|scope| {
            let encoding = scope.spawn(|| encode_index(&index, skip_hash, hash));
            let recorded = (|| -> std::result::Result<_, CommitError> {
                let new_tree = self.new_tree(head_tree_id, &states, &mut objects)?;
                let commit_id = match new_tree {
                    Some(tree_id) => {
                        Some(self.write_commit(tree_id, parent, commit, &mut objects)?)
                    }
                    None => None,
                };
                Ok((new_tree, commit_id))
            })();
            (recorded, encoding.join())
        });
        let (new_tree, commit_id) = recorded?;
        if new_tree.is_none() && !stale {
            return Ok(None);
        }
        let bytes = encoded.map_err(|_| Error::git("encoding git's index failed"))??;
        write_index(lock, &bytes)?;
        note.clear();
        Ok(commit_id)
    }

    /// Takes git's own index lock (vermas and the git CLI serialise on it; held until the
    /// commit ends) and notes in `note` which lock files are ours, so a successor can
    /// remove them if this process is killed.
    fn lock_index(
        &self,
        note: &CrashNote,
        index_path: &Path,
        lock_path: &Path,
    ) -> Result<gix::lock::File> {
        note.record(&Phase::LockingIndex);
        let lock = gix::lock::File::acquire_to_update_resource(
            index_path,
            Fail::AfterDurationWithBackoff(Duration::from_secs(10)),
            None,
            0,
        )
        .map_err(|e| {
            note.clear();
            let message = format!(
                "cannot lock {}: {e} (is another git command running? if not, remove the stale lock file)",
                index_path.display()
            );
            Error::git_with(message, e)
        })?;
        let index_ino = std::fs::metadata(lock_path).map_or(0, |m| m.ino());
        let ref_locks = self.ref_lock_paths();
        note.record(&Phase::Committing {
            index_ino,
            ref_locks: &ref_locks,
        });
        Ok(lock)
    }

    /// The index at `index_path` (an empty one when there is none yet); a split or sparse
    /// index is refused.
    fn open_index(&self, index_path: &Path) -> Result<gix::index::File> {
        let index = if index_path.exists() {
            super::index_file::take(&self.repo)?
        } else {
            gix::index::File::from_state(
                gix::index::State::new(self.repo.object_hash()),
                index_path.to_path_buf(),
            )
        };
        if index.link().is_some() || index.is_sparse() {
            return Err(Error::git(
                "split or sparse index is not supported; run `git update-index --no-split-index`",
            ));
        }
        Ok(index)
    }

    /// HEAD's commit (none on an unborn branch) and its tree (the empty tree then).
    fn head_and_tree(&self) -> Result<(Option<gix::ObjectId>, gix::ObjectId)> {
        let repo = &self.repo;
        let parent: Option<gix::ObjectId> =
            repo.head().map_err(git_err)?.id().map(|id| id.detach());
        let tree = match parent {
            Some(p) => repo
                .find_commit(p)
                .map_err(git_err)?
                .tree_id()
                .map_err(git_err)?
                .detach(),
            None => gix::ObjectId::empty_tree(repo.object_hash()),
        };
        Ok((parent, tree))
    }

    /// Each path as it is on disk. Only files whose stat differs from their index entry are
    /// hashed (and written as blobs, by `objects`).
    fn disk_states(
        &self,
        rela_paths: &[BString],
        index: &gix::index::File,
        objects: &mut LooseWriter,
    ) -> Result<Vec<DiskState>> {
        let stat_opts = stat::Options::default();
        let mut states = Vec::with_capacity(rela_paths.len());
        for rela in rela_paths {
            let abs = self.workdir.join(rela.to_str_lossy().as_ref());
            let mut written = false;
            let file = match gix::index::fs::Metadata::from_path_no_follow(&abs) {
                Ok(md) if md.is_file() => {
                    let st = Stat::from_fs(&md).map_err(git_err)?;
                    let id = match index.entry_by_path(rela.as_bstr()) {
                        Some(e)
                            if e.stat.matches(&st, stat_opts)
                                && !e.stat.is_racy(index.timestamp(), stat_opts) =>
                        {
                            e.id
                        }
                        _ => {
                            let bytes = std::fs::read(&abs).map_err(|e| Error::io(&abs, e))?;
                            written = true;
                            objects.write_blob(&bytes)?
                        }
                    };
                    Some((id, st, md.is_executable()))
                }
                _ => None,
            };
            states.push(DiskState {
                rela: rela.clone(),
                file,
                written,
            });
        }
        Ok(states)
    }

    /// HEAD's tree with `states` applied, written; `None` when that changes nothing. Only
    /// the entries set here are checked to exist (the blobs this commit wrote are known
    /// to), not every entry of each folder written, as gix's checked editor would.
    fn new_tree(
        &self,
        head_tree_id: gix::ObjectId,
        states: &[DiskState],
        objects: &mut LooseWriter,
    ) -> Result<Option<gix::ObjectId>> {
        let mut head_tree = HeadTree::new(&self.repo, head_tree_id, states.len());
        let root: gix::objs::Tree = self
            .repo
            .find_tree(head_tree_id)
            .map_err(git_err)?
            .decode()
            .map_err(git_err)?
            .into();
        let mut editor =
            gix::objs::tree::Editor::new(root, &self.repo.objects, self.repo.object_hash());
        let parts = |rela: &BString| -> Vec<BString> {
            rela.split(|b| *b == b'/').map(BString::from).collect()
        };
        let mut tree_changed = false;
        for s in states {
            let in_head = head_tree.id_of(s.rela.as_bstr())?;
            match &s.file {
                Some((id, _, exe)) if in_head != Some(*id) => {
                    if !s.written && !self.repo.has_object(id) {
                        return Err(Error::git(format!(
                            "the object {id} of {} could not be found",
                            s.rela
                        )));
                    }
                    let kind = if *exe {
                        EntryKind::BlobExecutable
                    } else {
                        EntryKind::Blob
                    };
                    editor.upsert(parts(&s.rela), kind, *id).map_err(git_err)?;
                    tree_changed = true;
                }
                None if in_head.is_some() => {
                    editor.remove(parts(&s.rela)).map_err(git_err)?;
                    tree_changed = true;
                }
                _ => {}
            }
        }
        if !tree_changed {
            return Ok(None);
        }
        editor.write(|tree| objects.write_object(tree)).map(Some)
    }

    /// Writes the commit object for `tree_id` (signed when git asks for signed commits)
    /// and moves the branch to it with a compare-and-swap on `parent`, with a reflog entry.
    fn write_commit(
        &self,
        tree_id: gix::ObjectId,
        parent: Option<gix::ObjectId>,
        new: &NewCommit,
        objects: &mut LooseWriter,
    ) -> std::result::Result<gix::ObjectId, CommitError> {
        let repo = &self.repo;
        let message = new.message;
        let (author_sig, committer) = super::identity::identity(repo, new.author)?;
        let mut commit = gix::objs::Commit {
            tree: tree_id,
            parents: parent.into_iter().collect(),
            author: author_sig,
            committer: committer.clone(),
            encoding: None,
            message: message.into(),
            extra_headers: vec![],
        };
        if let Some(signer) = &new.signer {
            // git signs the object as it is without its signature header, then adds it.
            let mut payload = Vec::new();
            gix::objs::WriteTo::write_to(&commit, &mut payload).map_err(git_err)?;
            let sig = signer.sign(&payload)?;
            commit.extra_headers.push(("gpgsig".into(), sig.into()));
        }
        let commit_id = objects.write_object(&commit)?;
        let expected = match parent {
            Some(p) => PreviousValue::MustExistAndMatch(Target::Object(p)),
            None => PreviousValue::MustNotExist,
        };
        let summary = message.lines().next().unwrap_or_default();
        let reflog_msg = if parent.is_some() {
            format!("commit: {summary}")
        } else {
            format!("commit (initial): {summary}")
        };
        let mut time_buf = gix::date::parse::TimeBuf::default();
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: reflog_msg.into(),
                },
                expected,
                new: Target::Object(commit_id),
            },
            name: "HEAD".try_into().map_err(git_err)?,
            deref: true,
        };
        if let Err(e) = repo.edit_references_as([edit], Some(committer.to_ref(&mut time_buf))) {
            let now: Option<gix::ObjectId> =
                repo.head().ok().and_then(|h| h.id().map(|id| id.detach()));
            if now != parent {
                // Another writer moved the branch: recompute from its new tip.
                return Err(CommitError::Conflict(e.to_string()));
            }
            let message = format!(
                "cannot move the branch: {e} (a stale .lock file under .git/refs or .git/HEAD.lock? remove it if no git command is running)"
            );
            return Err(Error::git_with(message, e).into());
        }
        if self.is_detached() {
            DETACHED_COMMITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(commit_id)
    }

    /// The lock files a branch update may create: `HEAD.lock` and the branch's own.
    pub(super) fn ref_lock_paths(&self) -> Vec<std::path::PathBuf> {
        let mut out = vec![self.repo.git_dir().join("HEAD.lock")];
        if let Ok(Some(name)) = self.repo.head_name() {
            out.push(
                self.repo
                    .common_dir()
                    .join(format!("{}.lock", name.as_bstr())),
            );
        }
        out
    }

    /// Refuses early, before anything is written, when a commit would be refused: a merge
    /// or rebase in progress, unresolved conflicts under `dir` (relative, e.g. `.beads/`),
    /// or commit signing asked for in a way vermas cannot do.
    pub fn check_can_commit(&self, dir: &str) -> Result<()> {
        self.signer()?;
        match super::index_file::look(&self.repo, |index| refusal(&self.repo, index, dir)) {
            Ok(Some(refused)) => Err(refused),
            // No index (or one that cannot be read: the commit itself will say so).
            Ok(None) | Err(_) => Ok(()),
        }
    }

    /// Refuses early, before anything is written, a commit git would refuse for want of
    /// an identity: no author and committer in git's configuration or environment, and no
    /// `git.author` (`configured`) in vermas's config to use instead.
    pub fn check_identity(&self, configured: Option<&str>) -> Result<()> {
        super::identity::identity(&self.repo, configured).map(|_| ())
    }

    /// `path` relative to the work tree, with `/` separators.
    pub(super) fn rela_path(&self, path: &Path) -> Result<BString> {
        let rel = path.strip_prefix(&self.workdir).map_err(|_| {
            Error::git(format!(
                "{} is outside the work tree {}",
                path.display(),
                self.workdir.display()
            ))
        })?;
        let s = rel
            .to_str()
            .ok_or_else(|| Error::git(format!("path is not UTF-8: {}", rel.display())))?;
        Ok(s.replace('\\', "/").into())
    }
}

/// Why a commit must not be made now: a merge or rebase in progress, or unresolved
/// conflicts under `dir`.
fn refusal(repo: &gix::Repository, index: &gix::index::File, dir: &str) -> Option<Error> {
    if let Some(state) = repo.state() {
        return Some(Error::git(format!(
            "the repository is in the middle of a {state:?}; finish or abort it first"
        )));
    }
    let conflicted = index
        .entries()
        .iter()
        .find(|e| e.stage_raw() != 0 && e.path(index).starts_with(dir.as_bytes()))?;
    Some(Error::git(format!(
        "unresolved merge conflict in {}: resolve it and `git add` it first",
        conflicted.path(index)
    )))
}

/// Why one commit attempt did not land.
enum CommitError {
    /// The branch moved under us: try again.
    Conflict(String),
    /// Anything else: give up.
    Other(Error),
}

impl From<Error> for CommitError {
    fn from(e: Error) -> Self {
        CommitError::Other(e)
    }
}

/// The top folder all paths share, with a trailing `/` (`.beads/` in practice), or empty.
fn top_dir(paths: &[BString]) -> String {
    let Some(first) = paths.first() else {
        return String::new();
    };
    let first = first.to_str_lossy();
    match first.find('/') {
        Some(i) if paths.iter().all(|p| p.starts_with(first[..=i].as_bytes())) => {
            first[..=i].to_string()
        }
        _ => String::new(),
    }
}

/// What one commit is made of besides its tree and parent.
struct NewCommit<'a> {
    /// The full message.
    message: &'a str,
    /// `git.author`, if set.
    author: Option<&'a str>,
    /// Set when git asks for signed commits.
    signer: Option<super::sign::Signer>,
}
