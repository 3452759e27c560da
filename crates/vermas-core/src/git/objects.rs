//! Reading committed objects by name: the blob a path has at a commit, a commit's root
//! tree, and a file's bytes at a commit. What decides a verdict is read this way, from
//! what is committed, never from the work tree.

use super::GitRepo;

impl GitRepo {
    /// The blob id `path` (relative to the work tree's root, `/`-separated) has at
    /// `commit`; `None` when the commit or the path is not there, or the path is not a
    /// regular file (a symlink, a folder, a submodule).
    pub fn blob_at(&self, commit: &str, path: &str) -> Option<String> {
        let tree = self.commit_tree(commit)?;
        let entry = tree.lookup_entry_by_path(path).ok()??;
        (entry.mode().is_blob() && !entry.mode().is_link()).then(|| entry.object_id().to_string())
    }

    /// The bytes of `path` at `commit`, when it is a regular file there.
    pub fn file_at(&self, commit: &str, path: &str) -> Option<Vec<u8>> {
        let id = gix::ObjectId::from_hex(self.blob_at(commit, path)?.as_bytes()).ok()?;
        Some(self.repo.find_object(id).ok()?.data.clone())
    }

    /// The id of `commit`'s root tree.
    pub fn tree_id(&self, commit: &str) -> Option<String> {
        Some(self.commit_tree(commit)?.id.to_string())
    }

    /// The root tree of `commit` (a full id or anything git resolves, such as `HEAD`).
    fn commit_tree(&self, commit: &str) -> Option<gix::Tree<'_>> {
        let id = self.repo.rev_parse_single(commit).ok()?;
        id.object().ok()?.peel_to_commit().ok()?.tree().ok()
    }
}
