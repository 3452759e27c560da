//! A folder's record files, listed once with `readdir` and stat'ed through the open folder
//! (`fstatat`, never following a symlink): no path walk and no allocation per file, so a
//! load of many records costs little more than the system calls themselves. The system
//! calls go through rustix's safe wrappers.

use crate::error::{Error, Result};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use std::ffi::CStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status change time, nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// Inode number.
    pub ino: u64,
}

/// Files younger than this (nanoseconds) are parsed every time.
pub(super) const RACY_NANOS: i128 = 2_000_000_000;

impl FileStamp {
    /// The stamp of a file's metadata.
    pub(crate) fn of(md: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            size: md.len(),
            mtime_ns: nanos(md.mtime(), md.mtime_nsec()),
            ctime_ns: nanos(md.ctime(), md.ctime_nsec()),
            ino: md.ino(),
        }
    }

    /// The stamp of what `fstatat` returned.
    fn of_stat(st: &Stat) -> FileStamp {
        FileStamp {
            size: u64::try_from(st.st_size).unwrap_or(0),
            mtime_ns: nanos(st.st_mtime, i64::try_from(st.st_mtime_nsec).unwrap_or(0)),
            ctime_ns: nanos(st.st_ctime, i64::try_from(st.st_ctime_nsec).unwrap_or(0)),
            ino: st.st_ino,
        }
    }

    /// True when the file last changed long enough before `now_ns` that a later change
    /// is sure to give it a different stamp (the racy-time rule).
    pub(crate) fn settled(&self, now_ns: i128) -> bool {
        now_ns - self.mtime_ns > RACY_NANOS && now_ns - self.ctime_ns > RACY_NANOS
    }
}

/// Seconds and nanoseconds as nanoseconds.
fn nanos(secs: i64, nsec: i64) -> i128 {
    i128::from(secs) * 1_000_000_000 + i128::from(nsec)
}

/// What kind of file a listed name turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A regular file.
    File,
    /// A symbolic link (its stamp is the link's own, not its target's).
    Symlink,
    /// A folder, a device or anything else: not a record.
    Other,
}

/// The `*.md` files of one folder (hidden ones left out), in the order the folder lists
/// them, with the folder kept open to stat them.
pub(super) struct Listing {
    /// The folder.
    path: PathBuf,
    /// The open folder (`None` when it does not exist: an empty listing).
    dir: Option<OwnedFd>,
    /// Every name, each followed by a NUL.
    names: Vec<u8>,
    /// Where each name starts in `names`, and its length without `.md`.
    spans: Vec<(u32, u32)>,
    /// Whether the folder said each is a regular file (`readdir`'s `d_type`).
    regular: Vec<bool>,
}

impl Listing {
    /// Lists `dir`; a folder that does not exist lists nothing.
    pub(super) fn of(dir: &Path) -> Result<Listing> {
        let mut listing = Listing {
            path: dir.to_path_buf(),
            dir: None,
            names: Vec::new(),
            spans: Vec::new(),
            regular: Vec::new(),
        };
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(rustix::fs::CWD, dir, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(e) if e == rustix::io::Errno::NOENT => return Ok(listing),
            Err(e) => return Err(Error::io(dir, e.into())),
        };
        let mut entries = rustix::fs::Dir::read_from(&fd).map_err(|e| Error::io(dir, e.into()))?;
        while let Some(entry) = entries.read() {
            let entry = entry.map_err(|e| Error::io(dir, e.into()))?;
            let name = entry.file_name().to_bytes();
            if name.ends_with(b".md") && !name.starts_with(b".") {
                listing.push(name, entry.file_type() == FileType::RegularFile);
            }
        }
        listing.dir = Some(fd);
        Ok(listing)
    }

    /// Keeps one name.
    fn push(&mut self, name: &[u8], regular: bool) {
        self.regular.push(regular);
        let start = self.names.len() as u32;
        self.names.extend_from_slice(name);
        self.names.push(0);
        self.spans.push((start, (name.len() - 3) as u32));
    }

    /// How many names were listed.
    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when nothing was listed.
    pub(super) fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The key of file `i`: its name without `.md` (`None` when not UTF-8).
    pub(super) fn key(&self, i: usize) -> Option<&str> {
        let (start, len) = self.spans[i];
        let start = start as usize;
        std::str::from_utf8(&self.names[start..start + len as usize]).ok()
    }

    /// The path of file `i`.
    pub(super) fn path(&self, i: usize) -> PathBuf {
        let (start, len) = self.spans[i];
        let start = start as usize;
        let name = &self.names[start..start + len as usize + 3];
        self.path.join(std::ffi::OsStr::from_bytes(name))
    }

    /// What file `i` is and its stamp, without following a symlink; `None` when it is
    /// gone or cannot be stat'ed. `own` is the folder opened again for this thread (see
    /// [`Listing::reopen`]), or `None` to use the listing's.
    pub(super) fn stat(&self, own: Option<&OwnedFd>, i: usize) -> Option<(Kind, FileStamp)> {
        let dir = own.or(self.dir.as_ref())?;
        let st = rustix::fs::statat(dir, self.c_name(i), AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let kind = match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => Kind::File,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        };
        Some((kind, FileStamp::of_stat(&st)))
    }
}

impl Listing {
    /// The folder opened again, for one thread's stats: threads sharing one open folder
    /// contend on its reference count in every call (about a tenth slower over 10,000
    /// files on two cores). `None` when it cannot be (the listing's own is used then).
    pub(super) fn reopen(&self) -> Option<OwnedFd> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        rustix::fs::openat(self.dir.as_ref()?, c".", flags, Mode::empty()).ok()
    }

    /// The name of file `i` as the system calls take it (NUL-terminated).
    fn c_name(&self, i: usize) -> &CStr {
        let (start, len) = self.spans[i];
        let start = start as usize;
        // Pushed with its `.md` and a NUL after it, and a name holds no NUL.
        CStr::from_bytes_with_nul(&self.names[start..start + len as usize + 4])
            .expect("a listed name is NUL-terminated")
    }

    /// True when the folder listed file `i` as a regular file (it may have changed since).
    pub(super) fn listed_regular(&self, i: usize) -> bool {
        self.regular[i]
    }

    /// Opens file `i` through the open folder, never through a symlink (nor blocking on a
    /// pipe); `None` when that fails.
    fn open(&self, i: usize) -> Option<std::fs::File> {
        let dir = self.dir.as_ref()?;
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
        rustix::fs::openat(dir, self.c_name(i), flags, Mode::empty())
            .ok()
            .map(std::fs::File::from)
    }

    /// The text of file `i`, `size` bytes as stat'ed, read through the open folder and
    /// never through a symlink; `None` when that fails or it is not UTF-8 (the caller then
    /// reads it by its path, which says why).
    pub(super) fn read_text(&self, i: usize, size: u64) -> Option<String> {
        read_all(self.open(i)?, size)
    }

    /// Opens file `i` (as [`Listing::read_text`] does), stats it through the open file and
    /// reads it: one path lookup for both. `None` when it cannot be opened or is not a
    /// regular file (the caller then stats it by name).
    pub(super) fn stat_and_read(&self, i: usize) -> Option<(FileStamp, Option<String>)> {
        let file = self.open(i)?;
        let st = rustix::fs::fstat(&file).ok()?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return None;
        }
        let stamp = FileStamp::of_stat(&st);
        Some((stamp, read_all(file, stamp.size)))
    }
}

/// The text of `file`, `size` bytes as stat'ed; `None` when it cannot be read or is not
/// UTF-8.
fn read_all(mut file: std::fs::File, size: u64) -> Option<String> {
    use std::io::Read;
    let mut buf = vec![0; usize::try_from(size).ok()?.saturating_add(1)];
    let mut len = 0;
    // One read when the file still has the size it was stat'ed with: a short read of
    // exactly that many bytes is its end. Otherwise read on to the end.
    loop {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if len == buf.len() {
                    buf.resize(buf.len() * 2, 0);
                } else if len as u64 == size {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    buf.truncate(len);
    String::from_utf8(buf).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_md_files_and_stats_them_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.md"), "alpha").unwrap();
        std::fs::write(d.join(".hidden.md"), "x").unwrap();
        std::fs::write(d.join("notes.txt"), "x").unwrap();
        std::fs::create_dir(d.join("sub.md")).unwrap();
        std::os::unix::fs::symlink("a.md", d.join("l.md")).unwrap();
        let listing = Listing::of(d).unwrap();
        let mut seen: Vec<(String, Kind, u64)> = (0..listing.len())
            .map(|i| {
                let (kind, stamp) = listing.stat(None, i).unwrap();
                (listing.key(i).unwrap().to_string(), kind, stamp.size)
            })
            .collect();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(seen[0], ("a".to_string(), Kind::File, 5));
        assert_eq!(seen[1].0, "l");
        assert_eq!(seen[1].1, Kind::Symlink);
        assert_eq!(seen[2].0, "sub");
        assert_eq!(seen[2].1, Kind::Other);
        assert_eq!(seen.len(), 3);
        let a = (0..listing.len())
            .find(|&i| listing.key(i) == Some("a"))
            .unwrap();
        assert_eq!(listing.path(a), d.join("a.md"));
        let md = std::fs::metadata(d.join("a.md")).unwrap();
        assert_eq!(
            listing.stat(listing.reopen().as_ref(), a).unwrap().1,
            FileStamp::of(&md)
        );
        assert_eq!(listing.read_text(a, 5).as_deref(), Some("alpha"));
        // A size that changed since the stat is still read whole.
        assert_eq!(listing.read_text(a, 1).as_deref(), Some("alpha"));
        let l = (0..listing.len())
            .find(|&i| listing.key(i) == Some("l"))
            .unwrap();
        assert_eq!(listing.read_text(l, 5), None, "never through a symlink");
        assert!(listing.listed_regular(a) && !listing.listed_regular(l));
        let (stamp, text) = listing.stat_and_read(a).unwrap();
        assert_eq!(
            (stamp, text.as_deref()),
            (FileStamp::of(&md), Some("alpha"))
        );
        assert!(listing.stat_and_read(l).is_none());
        let sub = (0..listing.len())
            .find(|&i| listing.key(i) == Some("sub"))
            .unwrap();
        assert!(listing.stat_and_read(sub).is_none(), "a folder is not read");
        assert!(Listing::of(&d.join("none")).unwrap().is_empty());
    }
}
