//! Writing many blobs as loose objects with one compressor: a commit of thousands of
//! paths (an import) would otherwise allocate a fresh zlib state (a few hundred KiB) per
//! blob, which both costs time and, with glibc's allocator, can leave gigabytes of heap
//! behind (the 3 GB peak `bench/import.sh` saw at 10,000 issues).

use crate::error::{Error, Result};
use gix::zlib::stream::deflate::{Compress, FlushCompress};
use gix::zlib::{Compression, Status};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// Writes blobs into a repository's loose object folder, as git does (zlib at level 1,
/// read-only files, a temporary file renamed into place).
pub(super) struct BlobWriter {
    objects: PathBuf,
    hash: gix::hash::Kind,
    compress: Compress,
    /// The header and content of the blob being written, then its compressed form.
    raw: Vec<u8>,
    packed: Vec<u8>,
    /// Fan-out folders (`objects/ab/`) made or seen already.
    fanout_ready: [bool; 256],
    /// Names temporary files uniquely within this process.
    counter: u64,
}

impl BlobWriter {
    /// A writer into `repo`'s object folder.
    pub(super) fn new(repo: &gix::Repository) -> BlobWriter {
        BlobWriter {
            objects: repo.objects.store_ref().path().to_path_buf(),
            hash: repo.object_hash(),
            compress: Compress::new(Compression::BEST_SPEED),
            raw: Vec::new(),
            packed: Vec::new(),
            fanout_ready: [false; 256],
            counter: 0,
        }
    }

    /// Writes `bytes` as a blob and returns its id.
    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<gix::ObjectId> {
        let id = gix::objs::compute_hash(self.hash, gix::objs::Kind::Blob, bytes)
            .map_err(super::git_err)?;
        self.raw.clear();
        self.raw
            .extend_from_slice(format!("blob {}\0", bytes.len()).as_bytes());
        self.raw.extend_from_slice(bytes);
        self.deflate()?;
        let hex = id.to_string();
        let dir = self.objects.join(&hex[..2]);
        let first = id.as_bytes()[0] as usize;
        if !self.fanout_ready[first] {
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(Error::io(&dir, e)),
            }
            self.fanout_ready[first] = true;
        }
        self.counter += 1;
        let tmp = dir.join(format!(
            "tmp_obj_vermas_{}_{}",
            std::process::id(),
            self.counter
        ));
        let target = dir.join(&hex[2..]);
        let result = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o444)
                .open(&tmp)?;
            f.write_all(&self.packed)?;
            // An object already there has this very content: replacing it changes nothing.
            std::fs::rename(&tmp, &target)
        })();
        result.map_err(|e| {
            // Best effort: the error that matters is returned.
            let _ = std::fs::remove_file(&tmp);
            Error::io(&target, e)
        })?;
        Ok(id)
    }

    /// Compresses `raw` into `packed` as one zlib stream, reusing the compressor.
    fn deflate(&mut self) -> Result<()> {
        self.compress.reset();
        self.packed.clear();
        self.packed.resize(self.raw.len() / 2 + 64, 0);
        let mut written = 0;
        loop {
            let (before_in, before_out) = (self.compress.total_in(), self.compress.total_out());
            let consumed = before_in as usize;
            let status = self
                .compress
                .compress(
                    &self.raw[consumed..],
                    &mut self.packed[written..],
                    FlushCompress::Finish,
                )
                .map_err(|e| Error::git(format!("cannot compress a blob: {e}")))?;
            written += (self.compress.total_out() - before_out) as usize;
            match status {
                Status::StreamEnd => break,
                _ => {
                    let len = self.packed.len();
                    self.packed.resize(len * 2, 0);
                }
            }
        }
        self.packed.truncate(written);
        Ok(())
    }
}
