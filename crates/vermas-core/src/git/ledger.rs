//! A merge made in the object store, for `vermas sync`: what two trees hold differently,
//! blobs read and written, a tree edited, a merge commit written, and the branch moved
//! with a compare-and-swap. Nothing here touches the work tree or the index, so an
//! interruption anywhere leaves the checkout as it was.

use super::loose::LooseWriter;
use super::{GitRepo, git_err};
use crate::error::{Error, Result};
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;
use gix::refs::{
    Target,
    transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog},
};

/// One path two trees hold differently: its blob in each (`None`: not there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// The path, relative to the work tree, `/`-separated.
    pub path: String,
    /// Its blob in the first tree.
    pub before: Option<String>,
    /// Its blob in the second tree.
    pub after: Option<String>,
}

/// Parses a hex object id.
fn oid(hex: &str) -> Result<gix::ObjectId> {
    gix::ObjectId::from_hex(hex.as_bytes())
        .map_err(|e| Error::git(format!("'{hex}' is not an object id: {e}")))
}

impl GitRepo {
    /// The root tree of commit `commit`.
    pub fn commit_tree_id(&self, commit: &str) -> Result<String> {
        let c = self.repo.find_commit(oid(commit)?).map_err(git_err)?;
        Ok(c.tree_id().map_err(git_err)?.to_string())
    }

    /// The best common ancestor of two commits, if they have one.
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>> {
        Ok(self
            .repo
            .merge_base(oid(a)?, oid(b)?)
            .ok()
            .flatten()
            .map(|id| id.to_string()))
    }

    /// Every file path whose blob differs between trees `a` and `b` (either may be
    /// `None`: the empty tree), with both blobs; a subtree equal in both is not entered.
    /// Submodules and symlinks count as files.
    pub fn tree_changes(&self, a: Option<&str>, b: Option<&str>) -> Result<Vec<Changed>> {
        let mut out = Vec::new();
        let a = a.map(oid).transpose()?;
        let b = b.map(oid).transpose()?;
        self.diff_trees(a, b, &mut String::new(), &mut out)?;
        Ok(out)
    }

    /// The entries of tree `id` (none for `None`): name → (id, is a tree).
    fn entries(&self, id: Option<gix::ObjectId>) -> Result<Vec<(BString, gix::ObjectId, bool)>> {
        let Some(id) = id else {
            return Ok(Vec::new());
        };
        let tree = self.repo.find_tree(id).map_err(git_err)?;
        let mut out = Vec::new();
        for entry in tree.iter() {
            let entry = entry.map_err(git_err)?;
            out.push((
                entry.filename().to_owned(),
                entry.object_id(),
                entry.mode().is_tree(),
            ));
        }
        Ok(out)
    }

    /// [`GitRepo::tree_changes`] below `prefix`.
    fn diff_trees(
        &self,
        a: Option<gix::ObjectId>,
        b: Option<gix::ObjectId>,
        prefix: &mut String,
        out: &mut Vec<Changed>,
    ) -> Result<()> {
        if a == b {
            return Ok(());
        }
        let (ea, eb) = (self.entries(a)?, self.entries(b)?);
        let mut names: Vec<&BString> = ea.iter().chain(eb.iter()).map(|e| &e.0).collect();
        names.sort();
        names.dedup();
        for name in names {
            let find = |list: &[(BString, gix::ObjectId, bool)]| {
                list.iter().find(|e| &e.0 == name).map(|e| (e.1, e.2))
            };
            let (x, y) = (find(&ea), find(&eb));
            if x == y {
                continue;
            }
            let len = prefix.len();
            prefix.push_str(&name.to_str_lossy());
            let tree = |e: Option<(gix::ObjectId, bool)>| e.filter(|e| e.1).map(|e| e.0);
            let file = |e: Option<(gix::ObjectId, bool)>| e.filter(|e| !e.1).map(|e| e.0);
            if tree(x).is_some() || tree(y).is_some() {
                prefix.push('/');
                self.diff_trees(tree(x), tree(y), prefix, out)?;
                prefix.truncate(len + name.len());
            }
            if file(x) != file(y) {
                out.push(Changed {
                    path: prefix.clone(),
                    before: file(x).map(|i| i.to_string()),
                    after: file(y).map(|i| i.to_string()),
                });
            }
            prefix.truncate(len);
        }
        Ok(())
    }

    /// The bytes of blob `id`.
    pub fn blob_bytes(&self, id: &str) -> Result<Vec<u8>> {
        let object = self.repo.find_object(oid(id)?).map_err(git_err)?;
        Ok(object.detach().data)
    }

    /// Writes `bytes` as a blob; its id.
    pub fn write_blob(&self, bytes: &[u8]) -> Result<String> {
        Ok(LooseWriter::new(&self.repo).write_blob(bytes)?.to_string())
    }

    /// Tree `tree` with each of `edits` made (a path set to a blob, or removed when
    /// `None`); the new tree's id.
    pub fn edit_tree(&self, tree: &str, edits: &[(String, Option<String>)]) -> Result<String> {
        let root: gix::objs::Tree = self
            .repo
            .find_tree(oid(tree)?)
            .map_err(git_err)?
            .decode()
            .map_err(git_err)?
            .into();
        let mut objects = LooseWriter::new(&self.repo);
        let mut editor =
            gix::objs::tree::Editor::new(root, &self.repo.objects, self.repo.object_hash());
        for (path, blob) in edits {
            let parts: Vec<BString> = path.split('/').map(BString::from).collect();
            match blob {
                Some(blob) => {
                    editor
                        .upsert(parts, EntryKind::Blob, oid(blob)?)
                        .map_err(git_err)?;
                }
                None => {
                    editor.remove(parts).map_err(git_err)?;
                }
            }
        }
        let id = editor
            .write(|t| objects.write_object(t))
            .map_err(|e| Error::git(format!("cannot write the merged tree: {e}")))?;
        Ok(id.to_string())
    }

    /// Writes a commit of `tree` with `parents` and `message`, by the author and
    /// committer vermas's own commits have (`author`: `git.author`), signed when git asks
    /// for signed commits. The branch does not move.
    pub fn write_commit_of(
        &self,
        tree: &str,
        parents: &[String],
        message: &str,
        author: Option<&str>,
    ) -> Result<String> {
        let (author, committer) = super::identity::identity(&self.repo, author)?;
        let mut commit = gix::objs::Commit {
            tree: oid(tree)?,
            parents: parents.iter().map(|p| oid(p)).collect::<Result<_>>()?,
            author,
            committer,
            encoding: None,
            message: message.into(),
            extra_headers: vec![],
        };
        if let Some(signer) = self.signer()? {
            let mut payload = Vec::new();
            gix::objs::WriteTo::write_to(&commit, &mut payload).map_err(git_err)?;
            let sig = signer.sign(&payload)?;
            commit.extra_headers.push(("gpgsig".into(), sig.into()));
        }
        let mut objects = LooseWriter::new(&self.repo);
        Ok(objects.write_object(&commit)?.to_string())
    }

    /// Moves the branch HEAD names from `old` to `new` if it is still at `old` (a
    /// compare-and-swap), with a reflog entry saying `why`; false when it had moved. The
    /// ref lock files it takes are named in the crash note at `note` first, so those a
    /// kill leaves behind are removed by the next vermas commit or sync.
    pub fn move_branch(
        &self,
        old: &str,
        new: &str,
        why: &str,
        note: &std::path::Path,
    ) -> Result<bool> {
        let index_lock = self.repo.index_path().with_extension("lock");
        let crash = super::recovery::CrashNote::new(note.to_path_buf(), index_lock);
        crash.recover();
        let mut locks = self.ref_lock_paths();
        locks.push(self.repo.common_dir().join("packed-refs.lock"));
        crash.record(&super::recovery::Phase::Committing {
            index_ino: 0,
            ref_locks: &locks,
        });
        let (_, committer) = super::identity::identity(&self.repo, None).or_else(|_| {
            super::identity::identity(&self.repo, Some("vermas <vermas@localhost>"))
        })?;
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: why.into(),
                },
                expected: PreviousValue::MustExistAndMatch(Target::Object(oid(old)?)),
                new: Target::Object(oid(new)?),
            },
            name: "HEAD".try_into().map_err(git_err)?,
            deref: true,
        };
        let mut time_buf = gix::date::parse::TimeBuf::default();
        match self
            .repo
            .edit_references_as([edit], Some(committer.to_ref(&mut time_buf)))
        {
            Ok(_) => Ok(true),
            Err(e) => {
                if self.head_commit().as_deref() != Some(old) {
                    return Ok(false);
                }
                Err(Error::git(format!(
                    "cannot move the branch: {e} (a stale .lock file under .git/refs or .git/HEAD.lock? remove it if no git command is running)"
                )))
            }
        }
    }
}
