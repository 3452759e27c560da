//! Reading git's index as git reads it: its trailing checksum is not verified (git stopped
//! doing so on every read in 2.13; `git fsck` still does), and the last read is kept for
//! the next one while the file's size, times and inode are unchanged, so a commit's early
//! check and the commit itself decode the index once.

use crate::error::{Error, Result};
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
