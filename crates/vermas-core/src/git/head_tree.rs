//! HEAD's tree read a folder at a time: a commit of thousands of paths looks each one up
//! in the folder's entries, each folder's tree read once, instead of walking the tree
//! from its root (and scanning a folder of thousands of entries) for every path.

use super::git_err;
use crate::error::Result;
use gix::bstr::{BStr, BString, ByteSlice};
use std::collections::HashMap;

/// The entries of HEAD's folders met so far (`None`: HEAD has no such folder).
pub(super) struct HeadTree<'r> {
    repo: &'r gix::Repository,
    root: gix::ObjectId,
    folders: HashMap<BString, Option<HashMap<BString, gix::ObjectId>>>,
    /// False for a handful of paths: each is looked up from the root, which beats
    /// reading a folder of thousands of entries into a map.
    by_folder: bool,
}

/// From how many paths on a commit reads HEAD's folders into maps.
const BY_FOLDER_FROM: usize = 16;

impl<'r> HeadTree<'r> {
    /// The tree `root` of `repo`, nothing read yet, for looking up `paths` paths.
    pub(super) fn new(
        repo: &'r gix::Repository,
        root: gix::ObjectId,
        paths: usize,
    ) -> HeadTree<'r> {
        HeadTree {
            repo,
            root,
            folders: HashMap::new(),
            by_folder: paths >= BY_FOLDER_FROM,
        }
    }

    /// The object at `rela` (a `/`-separated path) in the tree, if there is one.
    pub(super) fn id_of(&mut self, rela: &BStr) -> Result<Option<gix::ObjectId>> {
        if !self.by_folder {
            let root = self.repo.find_tree(self.root).map_err(git_err)?;
            return Ok(root
                .lookup_entry_by_path(rela.to_str_lossy().as_ref())
                .map_err(git_err)?
                .map(|e| e.object_id()));
        }
        let (dir, name) = match rela.rfind_byte(b'/') {
            Some(at) => (&rela[..at], &rela[at + 1..]),
            None => (&rela[..0], rela),
        };
        if !self.folders.contains_key(dir) {
            let entries = self.read_folder(dir.as_bstr())?;
            self.folders.insert(dir.into(), entries);
        }
        Ok(self
            .folders
            .get(dir)
            .and_then(Option::as_ref)
            .and_then(|entries| entries.get(name.as_bstr()).copied()))
    }

    /// The entries of folder `dir` (empty: the root), by name.
    fn read_folder(&self, dir: &BStr) -> Result<Option<HashMap<BString, gix::ObjectId>>> {
        let tree_id = if dir.is_empty() {
            self.root
        } else {
            let root = self.repo.find_tree(self.root).map_err(git_err)?;
            match root
                .lookup_entry_by_path(dir.to_str_lossy().as_ref())
                .map_err(git_err)?
            {
                Some(entry) if entry.mode().is_tree() => entry.object_id(),
                _ => return Ok(None),
            }
        };
        let tree = self.repo.find_tree(tree_id).map_err(git_err)?;
        let mut entries = HashMap::new();
        for entry in tree.iter() {
            let entry = entry.map_err(git_err)?;
            entries.insert(entry.filename().to_owned(), entry.object_id());
        }
        Ok(Some(entries))
    }
}
