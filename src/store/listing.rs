//! A folder's record files, listed once with `readdir` and stat'ed through the open folder
//! (`fstatat`, never following a symlink): no path walk and no allocation per file, so a
//! load of many records costs little more than the system calls themselves.

use crate::error::{Error, Result};
use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
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
pub const RACY_NANOS: i128 = 2_000_000_000;

impl FileStamp {
    /// The stamp of a file's metadata.
    pub fn of(md: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            size: md.len(),
            mtime_ns: nanos(md.mtime(), md.mtime_nsec()),
            ctime_ns: nanos(md.ctime(), md.ctime_nsec()),
            ino: md.ino(),
        }
    }

    /// The stamp of what `fstatat` returned.
    fn of_stat(st: &libc::stat) -> FileStamp {
        FileStamp {
            size: u64::try_from(st.st_size).unwrap_or(0),
            mtime_ns: nanos(st.st_mtime, st.st_mtime_nsec),
            ctime_ns: nanos(st.st_ctime, st.st_ctime_nsec),
            ino: st.st_ino,
        }
    }

    /// True when the file last changed long enough before `now_ns` that a later change
    /// is sure to give it a different stamp (the racy-time rule).
    pub fn settled(&self, now_ns: i128) -> bool {
        now_ns - self.mtime_ns > RACY_NANOS && now_ns - self.ctime_ns > RACY_NANOS
    }
}

/// Seconds and nanoseconds as nanoseconds.
fn nanos(secs: i64, nsec: i64) -> i128 {
    i128::from(secs) * 1_000_000_000 + i128::from(nsec)
}

/// What kind of file a listed name turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A symbolic link (its stamp is the link's own, not its target's).
    Symlink,
    /// A folder, a device or anything else: not a record.
    Other,
}

/// The `*.md` files of one folder (hidden ones left out), in the order the folder lists
/// them, with the folder kept open to stat them.
pub struct Listing {
    /// The folder.
    path: PathBuf,
    /// The open folder (`None` when it does not exist: an empty listing).
    dir: Option<OpenDir>,
    /// Every name, each followed by a NUL.
    names: Vec<u8>,
    /// Where each name starts in `names`, and its length without `.md`.
    spans: Vec<(u32, u32)>,
    /// Whether the folder said each is a regular file (`readdir`'s `d_type`).
    regular: Vec<bool>,
}

/// An open folder stream, closed when dropped.
struct OpenDir(*mut libc::DIR);

// SAFETY: the stream is read by one thread only (while listing); afterwards only its file
// descriptor is used, by `fstatat`, which is safe to call from several threads at once.
unsafe impl Send for OpenDir {}
// SAFETY: as above: shared use is limited to `fstatat` on the descriptor.
unsafe impl Sync for OpenDir {}

impl Drop for OpenDir {
    fn drop(&mut self) {
        // SAFETY: the pointer came from a successful `opendir` and is closed only here.
        unsafe { libc::closedir(self.0) };
    }
}

/// This thread's `errno`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn errno() -> *mut libc::c_int {
    // SAFETY: always valid for the calling thread.
    unsafe { libc::__errno_location() }
}

/// This thread's `errno`.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn errno() -> *mut libc::c_int {
    // SAFETY: always valid for the calling thread.
    unsafe { libc::__error() }
}

impl Listing {
    /// Lists `dir`; a folder that does not exist lists nothing.
    pub fn of(dir: &Path) -> Result<Listing> {
        let mut listing = Listing {
            path: dir.to_path_buf(),
            dir: None,
            names: Vec::new(),
            spans: Vec::new(),
            regular: Vec::new(),
        };
        let c_path = CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| Error::Invalid(format!("{} has a NUL in its name", dir.display())))?;
        // SAFETY: `c_path` is a valid NUL-terminated string.
        let stream = unsafe { libc::opendir(c_path.as_ptr()) };
        if stream.is_null() {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::NotFound {
                return Ok(listing);
            }
            return Err(Error::io(dir, e));
        }
        let stream = OpenDir(stream);
        loop {
            // SAFETY: errno is thread-local; clearing it tells the end from an error.
            unsafe { *errno() = 0 };
            // SAFETY: the stream is open and read by this thread only.
            let entry = unsafe { libc::readdir(stream.0) };
            if entry.is_null() {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error().is_some_and(|n| n != 0) {
                    return Err(Error::io(dir, e));
                }
                break;
            }
            // SAFETY: `d_name` of a returned entry is a NUL-terminated name that stays
            // valid until the next `readdir` on this stream.
            let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) }.to_bytes();
            if name.ends_with(b".md") && !name.starts_with(b".") {
                // SAFETY: as above, the entry is valid until the next `readdir`.
                let regular = unsafe { (*entry).d_type } == libc::DT_REG;
                listing.push(name, regular);
            }
        }
        listing.dir = Some(stream);
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
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when nothing was listed.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The key of file `i`: its name without `.md` (`None` when not UTF-8).
    pub fn key(&self, i: usize) -> Option<&str> {
        let (start, len) = self.spans[i];
        let start = start as usize;
        std::str::from_utf8(&self.names[start..start + len as usize]).ok()
    }

    /// The path of file `i`.
    pub fn path(&self, i: usize) -> PathBuf {
        let (start, len) = self.spans[i];
        let start = start as usize;
        let name = &self.names[start..start + len as usize + 3];
        self.path.join(std::ffi::OsStr::from_bytes(name))
    }

    /// What file `i` is and its stamp, without following a symlink; `None` when it is
    /// gone or cannot be stat'ed.
    pub fn stat(&self, i: usize) -> Option<(Kind, FileStamp)> {
        let dir = self.dir.as_ref()?;
        let (start, _) = self.spans[i];
        let name = self.names[start as usize..].as_ptr().cast::<libc::c_char>();
        // SAFETY: a plain C struct, filled in by `fstatat` before it is read.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the stream is open (so is its descriptor), `name` points at a
        // NUL-terminated name inside `self.names`, and `st` is a valid out-pointer.
        let rc =
            unsafe { libc::fstatat(libc::dirfd(dir.0), name, &mut st, libc::AT_SYMLINK_NOFOLLOW) };
        if rc != 0 {
            return None;
        }
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Kind::File,
            libc::S_IFLNK => Kind::Symlink,
            _ => Kind::Other,
        };
        Some((kind, FileStamp::of_stat(&st)))
    }
}

impl Listing {
    /// True when the folder listed file `i` as a regular file (it may have changed since).
    pub fn listed_regular(&self, i: usize) -> bool {
        self.regular[i]
    }

    /// Opens file `i` through the open folder, never through a symlink (nor blocking on a
    /// pipe); `None` when that fails.
    fn open(&self, i: usize) -> Option<std::fs::File> {
        use std::os::fd::FromRawFd;
        let dir = self.dir.as_ref()?;
        let (start, _) = self.spans[i];
        let name = self.names[start as usize..].as_ptr().cast::<libc::c_char>();
        // SAFETY: the descriptor is open and `name` is a NUL-terminated name inside
        // `self.names`.
        let fd = unsafe {
            libc::openat(
                libc::dirfd(dir.0),
                name,
                libc::O_RDONLY
                    | libc::O_NOFOLLOW
                    | libc::O_CLOEXEC
                    | libc::O_NOCTTY
                    | libc::O_NONBLOCK,
            )
        };
        // SAFETY: `fd` was just opened and is owned by nothing else.
        (fd >= 0).then(|| unsafe { std::fs::File::from_raw_fd(fd) })
    }

    /// The text of file `i`, `size` bytes as stat'ed, read through the open folder and
    /// never through a symlink; `None` when that fails or it is not UTF-8 (the caller then
    /// reads it by its path, which says why).
    pub fn read_text(&self, i: usize, size: u64) -> Option<String> {
        read_all(self.open(i)?, size)
    }

    /// Opens file `i` (as [`Listing::read_text`] does), stats it through the open file and
    /// reads it: one path lookup for both. `None` when it cannot be opened or is not a
    /// regular file (the caller then stats it by name).
    pub fn stat_and_read(&self, i: usize) -> Option<(FileStamp, Option<String>)> {
        use std::os::fd::AsRawFd;
        let file = self.open(i)?;
        // SAFETY: a plain C struct, filled in by `fstat` before it is read.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the descriptor is open and `st` is a valid out-pointer.
        if unsafe { libc::fstat(file.as_raw_fd(), &mut st) } != 0
            || st.st_mode & libc::S_IFMT != libc::S_IFREG
        {
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
                let (kind, stamp) = listing.stat(i).unwrap();
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
        assert_eq!(listing.stat(a).unwrap().1, FileStamp::of(&md));
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
