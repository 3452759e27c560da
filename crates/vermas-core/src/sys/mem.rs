//! Room a large buffer is about to be filled in, made present in one call
//! (`MADV_POPULATE_WRITE`, Linux 5.14) rather than by one page fault per 4 KiB page as it
//! is first written: in a virtual machine each fault costs microseconds, and reading a
//! megabyte cache took hundreds of them. And a cache file mapped read-only
//! ([`MappedFile`]), read where it lies in the page cache.

/// Room below this is left to fault in as usual.
const WORTH_IT: usize = 64 * 1024;

/// Reserves room for `extra` more bytes in `buf` and, where the kernel can, makes that
/// room present at once (elsewhere, or on an older kernel, it is only reserved).
pub fn reserve_present(buf: &mut Vec<u8>, extra: usize) {
    buf.reserve(extra);
    #[cfg(target_os = "linux")]
    {
        let spare = buf.spare_capacity_mut();
        if spare.len() < WORTH_IT {
            return;
        }
        const PAGE: usize = 4096;
        let start = spare.as_mut_ptr() as usize;
        let first = start.div_ceil(PAGE) * PAGE;
        let end = (start + spare.len()) / PAGE * PAGE;
        if end > first {
            // SAFETY: the pages lie inside this vector's own allocation; populating them
            // changes no byte the program can see (fresh memory reads as zero either way).
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    end - first,
                    libc::MADV_POPULATE_WRITE,
                );
            }
        }
    }
}

/// A file's bytes mapped read-only into memory: read where they lie in the page cache,
/// never copied. Only for files vermas replaces whole (a new file renamed over the old,
/// as every cache is written): the map keeps the file it was made of, whatever is renamed
/// over it later. (A file cut shorter in place while mapped would end the process with
/// SIGBUS when a page past its new end is read; nothing vermas writes is cut in place.)
pub(crate) struct MappedFile {
    /// The start of the map (dangling when the file is empty: nothing is mapped).
    ptr: std::ptr::NonNull<u8>,
    /// Its length in bytes.
    len: usize,
}

// SAFETY: the map is read-only and owned by this value alone: sharing or sending it
// shares or sends an immutable byte slice.
unsafe impl Send for MappedFile {}
// SAFETY: as for `Send`: every access is a read.
unsafe impl Sync for MappedFile {}

impl MappedFile {
    /// Maps the whole of `file` (as long as it is now); `None` when it cannot be mapped.
    pub(crate) fn of(file: &std::fs::File) -> Option<MappedFile> {
        use rustix::mm::{MapFlags, ProtFlags, mmap};
        let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
        if len == 0 {
            return Some(MappedFile {
                ptr: std::ptr::NonNull::dangling(),
                len: 0,
            });
        }
        // SAFETY: a fresh private read-only map chosen by the kernel overlaps no memory
        // the program holds; the bytes are only ever read (see the type's note on a file
        // cut in place).
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ,
                MapFlags::PRIVATE | MapFlags::POPULATE,
                file,
                0,
            )
        }
        .ok()?;
        Some(MappedFile {
            ptr: std::ptr::NonNull::new(ptr.cast())?,
            len,
        })
    }
}

impl std::ops::Deref for MappedFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr` is `len` mapped readable bytes (or dangling with `len` 0), alive
        // until `drop`, and nothing writes to them.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: the map made in `of`, unmapped once; no slice of it outlives `self`.
            unsafe {
                let _ = rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len);
            }
        }
    }
}

impl std::fmt::Debug for MappedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MappedFile({} bytes)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_room_holds_what_is_written_and_reads_as_written() {
        let mut buf = b"head".to_vec();
        reserve_present(&mut buf, 1 << 20);
        assert!(buf.capacity() >= 4 + (1 << 20));
        assert_eq!(buf, b"head");
        buf.extend(std::iter::repeat_n(7u8, 1 << 20));
        assert_eq!(buf.len(), 4 + (1 << 20));
        assert!(buf[4..].iter().all(|b| *b == 7));
    }

    #[test]
    fn a_mapped_file_reads_as_it_was_when_mapped_after_another_is_renamed_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache");
        let text: Vec<u8> = (0..100_000u32).flat_map(|n| n.to_le_bytes()).collect();
        std::fs::write(&path, &text).unwrap();
        let mapped = MappedFile::of(&std::fs::File::open(&path).unwrap()).unwrap();
        let other = dir.path().join("other");
        std::fs::write(&other, b"replaced").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(&mapped[..], &text[..]);
        std::fs::write(&other, b"").unwrap();
        let empty = MappedFile::of(&std::fs::File::open(&other).unwrap()).unwrap();
        assert!(empty.is_empty());
    }
}
