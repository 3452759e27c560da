//! The commits that changed one file, newest first, with the file's content before and after.

use super::{GitRepo, git_err};
use crate::error::{Error, Result};
use crate::time::Timestamp;
use gix::bstr::ByteSlice;
use std::path::Path;

/// One commit that changed a file.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// Full commit id.
    pub commit: String,
    /// Author name.
    pub author: String,
    /// Commit time.
    pub at: Timestamp,
    /// First line of the message.
    pub summary: String,
    /// The file before the commit (`None`: it did not exist).
    pub before: Option<Vec<u8>>,
    /// The file after the commit (`None`: it was removed).
    pub after: Option<Vec<u8>>,
}

impl GitRepo {
    /// Every commit reachable from HEAD that changed `path` against its first parent,
    /// newest first.
    pub fn file_history(&self, path: &Path) -> Result<Vec<FileChange>> {
        let rela = path
            .strip_prefix(&self.workdir)
            .map_err(|_| Error::git(format!("{} is outside the work tree", path.display())))?
            .to_path_buf();
        let repo = &self.repo;
        let Some(head) = repo.head().map_err(git_err)?.id().map(|id| id.detach()) else {
            return Ok(Vec::new());
        };
        let blob_at = |commit: &gix::Commit<'_>| -> Result<Option<gix::ObjectId>> {
            let tree = commit.tree().map_err(git_err)?;
            Ok(tree
                .lookup_entry_by_path(&rela)
                .map_err(git_err)?
                .filter(|e| e.mode().is_blob())
                .map(|e| e.object_id()))
        };
        let read = |id: Option<gix::ObjectId>| -> Result<Option<Vec<u8>>> {
            id.map(|id| Ok(repo.find_object(id).map_err(git_err)?.data.clone()))
                .transpose()
        };
        let mut out = Vec::new();
        let walk = repo
            .rev_walk([head])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()
            .map_err(git_err)?;
        for info in walk {
            let info = info.map_err(git_err)?;
            let commit = info.object().map_err(git_err)?;
            let now = blob_at(&commit)?;
            let before = match info.parent_ids().next() {
                Some(p) => blob_at(&p.object().map_err(git_err)?.into_commit())?,
                None => None,
            };
            if now == before {
                continue;
            }
            let author = commit.author().map_err(git_err)?;
            let message = commit.message_raw_sloppy().to_string();
            out.push(FileChange {
                commit: info.id.to_string(),
                author: author.name.to_string(),
                at: Timestamp(commit.time().map_err(git_err)?.seconds),
                summary: message.lines().next().unwrap_or_default().to_string(),
                before: read(before)?,
                after: read(now)?,
            });
        }
        Ok(out)
    }
}

impl GitRepo {
    /// The newest `limit` commits on HEAD whose subject starts with `prefix`.
    pub fn recent_commits(&self, limit: usize, prefix: &str) -> Result<Vec<FileChange>> {
        let repo = &self.repo;
        let Some(head) = repo.head().map_err(git_err)?.id().map(|id| id.detach()) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for info in repo
            .rev_walk([head])
            .first_parent_only()
            .all()
            .map_err(git_err)?
        {
            let commit = info.map_err(git_err)?.object().map_err(git_err)?;
            let summary = commit
                .message_raw_sloppy()
                .lines()
                .next()
                .map(|l| l.to_str_lossy().into_owned())
                .unwrap_or_default();
            if !summary.starts_with(prefix) {
                continue;
            }
            out.push(FileChange {
                commit: commit.id.to_string(),
                author: commit.author().map_err(git_err)?.name.to_string(),
                at: Timestamp(commit.time().map_err(git_err)?.seconds),
                summary,
                before: None,
                after: None,
            });
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }
}
