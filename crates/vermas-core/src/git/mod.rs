//! Git as the database: committing vermas's own paths and reading their history, via gix.

mod ancestry;
mod cache_key;
mod checkout;
pub mod cli;
mod commands;
mod commit;
mod head_tree;
mod history;
mod hookdir;
mod identity;
mod index_file;
mod ledger;
pub mod leftovers;
mod loose;
mod objects;
mod recovery;
mod sign;
mod snapshot;
mod temp_worktree;

pub use checkout::{LinkedCheckout, linked_checkout};
pub use commands::{Git, Merged};
pub use history::FileChange;
pub use hookdir::PushBase;
pub use ledger::Changed;
pub use recovery::recover_left_locks;
pub use snapshot::FolderChange;
pub use temp_worktree::TempWorktree;

use crate::error::Error;
use std::path::{Path, PathBuf};

/// An open repository with a work tree.
pub struct GitRepo {
    repo: gix::Repository,
    workdir: PathBuf,
}

/// The repository around `dir` as git finds it (honouring `GIT_DIR` and friends), with
/// replacement objects (`git replace`) ignored: vermas reads what is committed, never what
/// a replace ref says instead.
pub(crate) fn discover(dir: &Path) -> Option<gix::Repository> {
    let mut trust = gix::sec::trust::Mapping::<gix::open::Options>::default();
    let no_replace = ["core.useReplaceRefs=false"];
    trust.full = trust.full.config_overrides(no_replace);
    trust.reduced = trust.reduced.config_overrides(no_replace);
    gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
        dir,
        Default::default(),
        trust,
    )
    .ok()
    .map(|r| r.to_thread_local())
}

/// Turns any gix error into a vermas git error, keeping it as the source.
pub(crate) fn git_err(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::git_from(e)
}

impl GitRepo {
    /// Opens the repository whose work tree holds `dir`, honouring `GIT_DIR` and friends.
    /// `None` outside git, in a bare repository, or when `dir` is outside the work tree.
    pub fn open(dir: &Path) -> Option<GitRepo> {
        let mut repo = discover(dir)?;
        // A commit reads HEAD's folder of records several times (each path it looks up,
        // then the edit): decompressed once, kept here (a 10,000-bead folder is 500 KB; the
        // cap bounds what it may add to memory).
        repo.object_cache_size_if_unset(8 << 20);
        let workdir = repo.workdir()?.to_path_buf();
        let workdir = std::fs::canonicalize(&workdir).unwrap_or(workdir);
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        dir.starts_with(&workdir)
            .then_some(GitRepo { repo, workdir })
    }

    /// The work tree's root folder (canonical).
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// True when HEAD points at a commit rather than a branch: a commit made now would be
    /// on no branch.
    pub fn is_detached(&self) -> bool {
        matches!(self.repo.head_name(), Ok(None))
    }

    /// The commit HEAD points at now, if any.
    pub fn head_commit(&self) -> Option<String> {
        self.repo.head_id().ok().map(|id| id.to_string())
    }

    /// A fingerprint of the work at `commit`: the hash of its root tree's entries other
    /// than `records` (the ledger's folder, `.beads`), so vermas's own record commits
    /// leave it unchanged. `None` when the commit cannot be read.
    pub fn work_fingerprint(&self, commit: &str, records: &str) -> Option<String> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).ok()?;
        let commit = self.repo.find_object(id).ok()?.try_into_commit().ok()?;
        let tree = commit.tree().ok()?;
        let mut text = String::new();
        for entry in tree.iter() {
            let entry = entry.ok()?;
            if entry.filename() == records {
                continue;
            }
            text.push_str(&format!(
                "{:?} {} {}\n",
                entry.mode(),
                entry.filename(),
                entry.oid()
            ));
        }
        Some(crate::sys::hash::blob(&text))
    }

    /// A value of git's configuration (`merge.vermas.driver`), if set.
    pub fn config_value(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|s| s.to_string())
    }

    /// The short name of the branch HEAD points at (`None` when detached or unborn).
    pub fn head_branch(&self) -> Option<String> {
        let name = self.repo.head_name().ok()??;
        Some(name.shorten().to_string())
    }

    /// The commit the reference `name` (e.g. `refs/remotes/origin/main`) points at, read
    /// fresh from disk.
    pub fn ref_commit(&self, name: &str) -> Option<String> {
        let mut r = self.repo.find_reference(name).ok()?;
        r.peel_to_id().ok().map(|id| id.to_string())
    }

    /// The folders at or below `dir` (absolute, inside the work tree) holding files that
    /// git's index tracks whose names end in `suffix`, each once with how many it holds.
    pub fn tracked_folders(
        &self,
        dir: &Path,
        suffix: &str,
    ) -> crate::error::Result<Vec<(PathBuf, usize)>> {
        let mut prefix = self.rela_path(dir)?;
        prefix.push(b'/');
        index_file::look(&self.repo, |index| {
            let mut folders: Vec<(PathBuf, usize)> = Vec::new();
            let Some(range) = index.prefixed_entries_range(prefix.as_ref()) else {
                return folders;
            };
            let mut last: &[u8] = &[];
            for entry in &index.entries()[range] {
                let path: &[u8] = entry.path(index);
                if entry.stage_raw() != 0 || !path.ends_with(suffix.as_bytes()) {
                    continue;
                }
                let folder = &path[..path.iter().rposition(|b| *b == b'/').unwrap_or(0)];
                match folders.last_mut() {
                    Some((_, n)) if folder == last => *n += 1,
                    _ => {
                        let rela = String::from_utf8_lossy(folder);
                        folders.push((self.workdir.join(rela.as_ref()), 1));
                        last = folder;
                    }
                }
            }
            // A folder's files are apart in the index when a subfolder sorts among them
            // (`a/0.md`, `a/b/1.md`, `a/c.md`): its runs are added up.
            folders.sort_by(|a, b| a.0.cmp(&b.0));
            folders.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 += later.1;
                }
                same
            });
            folders
        })
    }

    /// `user.name` from git's configuration, if set.
    pub fn user_name(&self) -> Option<String> {
        self.repo
            .config_snapshot()
            .string("user.name")
            .map(|s| s.to_string())
            .filter(|s| !s.trim().is_empty())
    }
}

/// How many commits this process made on a detached HEAD (on no branch), for a warning.
pub fn detached_commits() -> usize {
    commit::DETACHED_COMMITS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Installs the handlers that remove git lock files on Ctrl-C and end running checks
/// before vermas exits; call once at start.
pub fn install_interrupt_cleanup() {
    // gix removes its lock files and returns; the check reaper then ends vermas.
    gix::tempfile::signal::setup(
        gix::tempfile::signal::handler::Mode::DeleteTempfilesOnTermination,
    );
    crate::proc::reap::prepare();
}
