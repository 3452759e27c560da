//! Writing a commit's objects (blobs, trees, the commit) as loose objects with one
//! compressor: a commit of thousands of paths (an import) would otherwise allocate a fresh
//! zlib state (a few hundred KiB) per object, which both costs time and, with glibc's
//! allocator, can leave gigabytes of heap behind (the 3 GB peak `bench/import.sh` saw at
//! 10,000 issues); a small commit saves the state's set-up per object (a sixth of the
//! time its objects took).

use crate::error::{Error, Result};
use gix::zlib::stream::deflate::{Compress, FlushCompress};
use gix::zlib::{Compression, Status};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// Writes objects into a repository's loose object folder, as git does (zlib at level 1,
/// read-only files, a temporary file renamed into place).
pub(super) struct LooseWriter {
    objects: PathBuf,
    hash: gix::hash::Kind,
    /// Made at the first object written.
    compress: Option<Compress>,
    /// The header and content of the object being written, then its compressed form.
    raw: Vec<u8>,
    packed: Vec<u8>,
    /// Fan-out folders (`objects/ab/`) made or seen already.
    fanout_ready: [bool; 256],
    /// Names temporary files uniquely within this process.
    counter: u64,
}

impl LooseWriter {
    /// A writer into `repo`'s object folder.
    pub(super) fn new(repo: &gix::Repository) -> LooseWriter {
        LooseWriter {
            objects: repo.objects.store_ref().path().to_path_buf(),
            hash: repo.object_hash(),
            compress: None,
            raw: Vec::new(),
            packed: Vec::new(),
            fanout_ready: [false; 256],
            counter: 0,
        }
    }

    /// Writes `bytes` as a blob and returns its id.
    pub(super) fn write_blob(&mut self, bytes: &[u8]) -> Result<gix::ObjectId> {
        self.write(gix::objs::Kind::Blob, bytes)
    }

    /// Writes `object` (a tree or a commit) and returns its id.
    pub(super) fn write_object(
        &mut self,
        object: &impl gix::objs::WriteTo,
    ) -> Result<gix::ObjectId> {
        let mut bytes = Vec::with_capacity(object.size() as usize);
        object.write_to(&mut bytes).map_err(super::git_err)?;
        self.write(object.kind(), &bytes)
    }

    /// Writes `bytes` as an object of `kind` and returns its id.
    fn write(&mut self, kind: gix::objs::Kind, bytes: &[u8]) -> Result<gix::ObjectId> {
        let id = gix::objs::compute_hash(self.hash, kind, bytes).map_err(super::git_err)?;
        self.raw.clear();
        self.raw
            .extend_from_slice(&gix::objs::encode::loose_header(kind, bytes.len() as u64));
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
        let compress = self
            .compress
            .get_or_insert_with(|| Compress::new(Compression::BEST_SPEED));
        compress.reset();
        self.packed.clear();
        self.packed.resize(self.raw.len() / 2 + 64, 0);
        let mut written = 0;
        loop {
            let (before_in, before_out) = (compress.total_in(), compress.total_out());
            let consumed = before_in as usize;
            let status = compress
                .compress(
                    &self.raw[consumed..],
                    &mut self.packed[written..],
                    FlushCompress::Finish,
                )
                .map_err(|e| Error::git(format!("cannot compress an object: {e}")))?;
            written += (compress.total_out() - before_out) as usize;
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
