//! Git's index file. Read as git reads it: its trailing checksum is not verified (git
//! stopped doing so on every read in 2.13; `git fsck` still does), and the last read is
//! kept for the next one while the file's size, times and inode are unchanged, so a
//! commit's early check and the commit itself decode the index once. Updated for a
//! commit's paths only, and written back whole.

use super::git_err;
use crate::error::{Error, Result};
use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Flags, Mode, Stat};
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What tells one version of the index file from another: git replaces the file (a new
/// inode) on every write, and its times are kept to the nanosecond.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    /// Inode.
    ino: u64,
    /// Size in bytes.
    size: u64,
    /// Modification time, nanoseconds.
    mtime_ns: i128,
    /// Status change time, nanoseconds.
    ctime_ns: i128,
}

impl Stamp {
    /// The stamp of the file at `path`, if it is there.
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            ino: m.ino(),
            size: m.size(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        })
    }
}

/// The last index read in this process: its path, its stamp when read, and the index.
static LAST: Mutex<Option<(PathBuf, Stamp, gix::index::File)>> = Mutex::new(None);

/// Calls `look` with the index of `repo` (at `repo.index_path()`): the last one read when
/// the file has not changed since, else read now (without verifying its checksum) and kept
/// for the next caller.
pub(super) fn look<R>(
    repo: &gix::Repository,
    look: impl FnOnce(&gix::index::File) -> R,
) -> Result<R> {
    let path = repo.index_path();
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, index)) = last
        .as_ref()
        .filter(|(p, stamp, _)| *p == path && Some(*stamp) == Stamp::of(&path))
    {
        return Ok(look(index));
    }
    let (index, stamp) = read_now(repo, &path)?;
    let answer = look(&index);
    // Kept only when the file did not change while it was read.
    *last = stamp.map(|s| (path, s, index));
    Ok(answer)
}

/// The index of `repo` to change and write back: the one kept by [`look`] when the file
/// has not changed since (taken, not copied), else read now.
pub(super) fn take(repo: &gix::Repository) -> Result<gix::index::File> {
    let path = repo.index_path();
    let kept = LAST.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some((p, stamp, index)) = kept
        && p == path
        && Some(stamp) == Stamp::of(&path)
    {
        return Ok(index);
    }
    read_now(repo, &path).map(|(index, _)| index)
}

/// Reads the index at `path` without verifying its checksum; also its stamp, when the file
/// did not change while it was read.
fn read_now(repo: &gix::Repository, path: &Path) -> Result<(gix::index::File, Option<Stamp>)> {
    let before = Stamp::of(path);
    let index = gix::index::File::at(
        path,
        repo.object_hash(),
        true,
        gix::index::decode::Options::default(),
    )
    .map_err(|e| Error::git(format!("cannot read git's index {}: {e}", path.display())))?;
    let stamp = before.filter(|b| Stamp::of(path) == Some(*b));
    Ok((index, stamp))
}

/// A path to commit as it is now on disk: its blob, or gone.
pub(super) struct DiskState {
    pub(super) rela: BString,
    pub(super) file: Option<(gix::ObjectId, Stat, bool)>,
    /// True when this commit wrote the blob (so it is known to exist).
    pub(super) written: bool,
}

/// `index` as git stores it: its entries and extensions encoded whole, then hashed in one
/// pass (gix's own writer hashes each field as it goes: ten calls per entry);
/// `skip_hash` (`index.skipHash`, set by `feature.manyFiles`) gives a null checksum, as git
/// writes.
pub(super) fn encode_index(
    index: &gix::index::File,
    skip_hash: bool,
    hash: gix::hash::Kind,
) -> Result<Vec<u8>> {
    let options = gix::index::write::Options {
        skip_hash,
        ..Default::default()
    };
    let mut bytes = Vec::with_capacity(index.entries().len() * 96 + 4096);
    let state: &gix::index::State = index;
    state.write_to(&mut bytes, options).map_err(git_err)?;
    let checksum = if skip_hash {
        hash.null()
    } else {
        let mut hasher = gix::hash::hasher(hash);
        hasher.update(&bytes);
        hasher.try_finalize().map_err(git_err)?
    };
    bytes.extend_from_slice(checksum.as_slice());
    Ok(bytes)
}

/// Writes the encoded index `bytes` through its `lock` and puts the file in place.
pub(super) fn write_index(mut lock: gix::lock::File, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    lock.write_all(bytes).map_err(git_err)?;
    lock.commit().map_err(|e| git_err(e.error))?;
    Ok(())
}

/// True when an index entry of `states` differs from the disk (or is missing, or left).
pub(super) fn index_stale(index: &gix::index::File, states: &[DiskState]) -> bool {
    states
        .iter()
        .any(|s| match (&s.file, index.entry_by_path(s.rela.as_bstr())) {
            (Some((id, _, _)), Some(e)) => e.id != *id,
            (None, None) => false,
            _ => true,
        })
}

/// The index with `states` applied: those paths get their new id and stat, removed ones
/// go, the rest is untouched; the cache tree forgets the folders that changed.
pub(super) fn update_index(index: &mut gix::index::File, states: &[DiskState]) {
    let mut touched: Vec<BString> = Vec::new();
    let mut new_entries = Vec::new();
    for s in states {
        if let Some((id, st, exe)) = &s.file {
            let mode = if *exe {
                Mode::FILE_EXECUTABLE
            } else {
                Mode::FILE
            };
            match index.entry_mut_by_path_and_stage(
                s.rela.as_bstr(),
                gix::index::entry::Stage::Unconflicted,
            ) {
                Some(e) => {
                    if e.id != *id || e.mode != mode {
                        touched.push(s.rela.clone());
                    }
                    e.id = *id;
                    e.stat = *st;
                    e.mode = mode;
                }
                None => {
                    touched.push(s.rela.clone());
                    new_entries.push((s.rela.clone(), *id, *st, mode));
                }
            }
        } else if index.entry_by_path(s.rela.as_bstr()).is_some() {
            touched.push(s.rela.clone());
        }
    }
    let removed: HashSet<&[u8]> = states
        .iter()
        .filter(|s| s.file.is_none())
        .map(|s| s.rela.as_bytes())
        .collect();
    index.remove_entries(|_, path, _| removed.contains(path.as_bytes()));
    for (rela, id, st, mode) in new_entries {
        index.dangerously_push_entry(st, id, Flags::empty(), mode, rela.as_bstr());
    }
    index.sort_entries();
    if let Some(tree) = index.tree_mut() {
        for p in &touched {
            invalidate_cache_tree(tree, p);
        }
    }
}

/// Invalidates the cached tree of every folder along `path`, as git's
/// `cache_tree_invalidate_path` does (gix writes the extension back unchanged).
fn invalidate_cache_tree(tree: &mut gix::index::extension::Tree, path: &[u8]) {
    tree.num_entries = None;
    if let Some(pos) = path.iter().position(|b| *b == b'/')
        && let Some(child) = tree
            .children
            .iter_mut()
            .find(|c| c.name.as_slice() == &path[..pos])
    {
        invalidate_cache_tree(child, &path[pos + 1..]);
    }
}
