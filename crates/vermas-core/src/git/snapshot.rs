//! A committed state read a folder at a time, without a checkout: a revision resolved, the
//! files and folders of a folder at a commit, and the commits that changed the files of a
//! folder, with what they wrote (what `vermas report` reads, so every clone shows the same
//! page; one file at a commit is `objects.rs`'s).

use super::{GitRepo, git_err};
use crate::error::{Error, Result};
use crate::time::Timestamp;
use gix::bstr::ByteSlice;
use std::collections::HashMap;

/// One commit that changed files directly inside a folder.
#[derive(Debug, Clone)]
pub struct FolderChange {
    /// Full commit id.
    pub commit: String,
    /// Commit time.
    pub at: Timestamp,
    /// The files it added or changed in the folder (names, not paths), with their new
    /// content; removals are left out.
    pub files: Vec<(String, Vec<u8>)>,
}

impl GitRepo {
    /// The commit `rev` names (`HEAD`, a branch, a tag, an abbreviated id), in full.
    pub fn resolve_commit(&self, rev: &str) -> Result<String> {
        let id = self
            .repo
            .rev_parse_single(rev)
            .map_err(|e| Error::Invalid(format!("{rev} names no commit here: {e}")))?;
        let commit = id
            .object()
            .map_err(git_err)?
            .peel_to_kind(gix::object::Kind::Commit)
            .map_err(|_| Error::Invalid(format!("{rev} is not a commit")))?;
        Ok(commit.id.to_string())
    }

    /// The time of commit `commit`.
    pub fn commit_time(&self, commit: &str) -> Result<Timestamp> {
        let c = self.find_commit(commit)?;
        Ok(Timestamp(c.time().map_err(git_err)?.seconds))
    }

    /// The files directly inside folder `dir` (repository-relative, `/`-separated) at
    /// `commit`, sorted by name; none when the folder is not there.
    pub fn folder_files(&self, commit: &str, dir: &str) -> Result<Vec<(String, Vec<u8>)>> {
        let tree = self.find_commit(commit)?.tree().map_err(git_err)?;
        let Some(id) = subtree(&tree, dir)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (name, oid) in blobs_of(&self.repo, id)? {
            out.push((name, self.blob(oid)?));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The folders directly inside folder `dir` at `commit`, by name.
    pub fn folder_names(&self, commit: &str, dir: &str) -> Result<Vec<String>> {
        let tree = self.find_commit(commit)?.tree().map_err(git_err)?;
        let Some(id) = subtree(&tree, dir)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for entry in self.repo.find_tree(id).map_err(git_err)?.iter() {
            let entry = entry.map_err(git_err)?;
            if entry.mode().is_tree() {
                out.push(entry.filename().to_str_lossy().into_owned());
            }
        }
        Ok(out)
    }

    /// Every commit reachable from `tip` and not from `since` that added or changed
    /// files directly inside folder `dir` (against its first parent), newest first, with
    /// those files' new content.
    pub fn folder_history(
        &self,
        tip: &str,
        dir: &str,
        since: Option<&str>,
    ) -> Result<Vec<FolderChange>> {
        let tip = oid(tip)?;
        let mut walk =
            self.repo
                .rev_walk([tip])
                .sorting(gix::revision::walk::Sorting::ByCommitTime(
                    gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
                ));
        if let Some(since) = since {
            walk = walk.with_hidden([oid(since)?]);
        }
        let mut out = Vec::new();
        for info in walk.all().map_err(git_err)? {
            let info = info.map_err(git_err)?;
            let commit = info.object().map_err(git_err)?;
            let now = subtree(&commit.tree().map_err(git_err)?, dir)?;
            let before = match info.parent_ids().next() {
                Some(p) => subtree(
                    &p.object()
                        .map_err(git_err)?
                        .into_commit()
                        .tree()
                        .map_err(git_err)?,
                    dir,
                )?,
                None => None,
            };
            let Some(now) = now.filter(|n| Some(*n) != before) else {
                continue;
            };
            let old: HashMap<String, gix::ObjectId> = match before {
                Some(b) => blobs_of(&self.repo, b)?.into_iter().collect(),
                None => HashMap::new(),
            };
            let mut files = Vec::new();
            for (name, id) in blobs_of(&self.repo, now)? {
                if old.get(&name) != Some(&id) {
                    files.push((name, self.blob(id)?));
                }
            }
            if files.is_empty() {
                continue;
            }
            files.sort_by(|a, b| a.0.cmp(&b.0));
            out.push(FolderChange {
                commit: info.id.to_string(),
                at: Timestamp(commit.time().map_err(git_err)?.seconds),
                files,
            });
        }
        Ok(out)
    }

    /// The commit `id` (full hex).
    fn find_commit(&self, id: &str) -> Result<gix::Commit<'_>> {
        self.repo
            .find_object(oid(id)?)
            .map_err(git_err)?
            .try_into_commit()
            .map_err(git_err)
    }

    /// The content of blob `id`.
    fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>> {
        Ok(self.repo.find_object(id).map_err(git_err)?.detach().data)
    }
}

/// A full hex commit id as gix's.
fn oid(hex: &str) -> Result<gix::ObjectId> {
    gix::ObjectId::from_hex(hex.as_bytes())
        .map_err(|_| Error::Invalid(format!("{hex} is not a full commit id")))
}

/// The tree at `dir` inside `tree`, if there is one (`""` is the tree itself).
fn subtree(tree: &gix::Tree<'_>, dir: &str) -> Result<Option<gix::ObjectId>> {
    if dir.is_empty() {
        return Ok(Some(tree.id));
    }
    Ok(tree
        .lookup_entry_by_path(dir)
        .map_err(git_err)?
        .filter(|e| e.mode().is_tree())
        .map(|e| e.object_id()))
}

/// The blobs (files and symlinks' targets aside: regular files only) directly in tree
/// `id`, by name.
fn blobs_of(repo: &gix::Repository, id: gix::ObjectId) -> Result<Vec<(String, gix::ObjectId)>> {
    let tree = repo.find_tree(id).map_err(git_err)?;
    let mut out = Vec::new();
    for entry in tree.iter() {
        let entry = entry.map_err(git_err)?;
        if entry.mode().is_blob() {
            out.push((
                entry.filename().to_str_lossy().into_owned(),
                entry.oid().into(),
            ));
        }
    }
    Ok(out)
}
