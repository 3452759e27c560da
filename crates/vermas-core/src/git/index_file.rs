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

/// The index of `repo` (at `repo.index_path()`), read without verifying its checksum, or
/// the copy of the last read when the file has not changed since.
pub(super) fn read(repo: &gix::Repository) -> Result<gix::index::File> {
    let path = repo.index_path();
    let before = Stamp::of(&path);
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let (Some((p, stamp, index)), Some(now)) = (last.as_ref(), before)
        && *p == path
        && *stamp == now
    {
        return Ok(index.clone());
    }
    let index = gix::index::File::at(
        &path,
        repo.object_hash(),
        true,
        gix::index::decode::Options::default(),
    )
    .map_err(|e| Error::git(format!("cannot read git's index {}: {e}", path.display())))?;
    // Kept only when the file did not change while it was read.
    *last = match (before, Stamp::of(&path)) {
        (Some(a), Some(b)) if a == b => Some((path, a, index.clone())),
        _ => None,
    };
    Ok(index)
}
