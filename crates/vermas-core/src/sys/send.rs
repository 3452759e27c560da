//! Copying part of a file to an output by the kernel (`sendfile`): the bytes go from the
//! page cache to the output without passing through the process, so copying a big cache
//! out takes no memory of the process's own. Small parts are read through a window
//! instead ([`RangeReader`]), so many neighbours cost one read.

use rustix::io::Errno;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::FileExt;

/// Bytes read at a time where the kernel cannot copy.
const PART: u64 = 256 * 1024;

/// Writes bytes `range` of `file` to `out`. With `direct` (the descriptor `out` writes
/// to), `out` is flushed and the kernel copies what it can; what it cannot (an output
/// `sendfile` does not take) is read in parts and written to `out`. A file shorter than
/// `range` is an error.
pub fn send_range(
    file: &File,
    range: Range<u64>,
    out: &mut dyn Write,
    direct: Option<BorrowedFd<'_>>,
) -> std::io::Result<()> {
    let mut at = range.start;
    if let Some(fd) = direct {
        out.flush()?;
        while at < range.end {
            let count = usize::try_from(range.end - at).map_or(1 << 30, |n| n.min(1 << 30));
            let mut offset = at;
            match rustix::fs::sendfile(fd, file, Some(&mut offset), count) {
                // The file ended early: the read below says so.
                Ok(0) => break,
                Ok(sent) => at += sent as u64,
                Err(Errno::INTR) => {}
                // A non-blocking output that is full: wait until it takes more.
                Err(Errno::AGAIN) => {
                    let mut fds = [rustix::event::PollFd::new(
                        &fd,
                        rustix::event::PollFlags::OUT,
                    )];
                    let _ = rustix::event::poll(&mut fds, None);
                }
                // Not an output the kernel copies to: copied below.
                Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) if at == range.start => {
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    let mut buf = vec![0; usize::try_from((range.end - at).min(PART)).unwrap_or(0)];
    while at < range.end {
        let n = usize::try_from((range.end - at).min(PART)).unwrap_or(buf.len());
        file.read_exact_at(&mut buf[..n], at)?;
        out.write_all(&buf[..n])?;
        at += n as u64;
    }
    Ok(())
}

/// Reads small ranges of a file through a window of [`PART`] bytes: ranges that lie close
/// together, in rising order, cost one read between them.
pub struct RangeReader<'f> {
    /// The file read.
    file: &'f File,
    /// The bytes last read.
    window: Vec<u8>,
    /// Where in the file they start.
    at: u64,
}

impl<'f> RangeReader<'f> {
    /// A reader of `file` with nothing read yet.
    pub fn new(file: &'f File) -> RangeReader<'f> {
        RangeReader {
            file,
            window: Vec::new(),
            at: 0,
        }
    }

    /// Bytes `range` of the file; an error when the file is shorter.
    pub fn get(&mut self, range: Range<u64>) -> std::io::Result<&[u8]> {
        let len = usize::try_from(range.end - range.start).map_err(std::io::Error::other)?;
        let held = self.at..self.at + self.window.len() as u64;
        if range.start < held.start || range.end > held.end {
            self.window.resize(len.max(PART as usize), 0);
            let mut filled = 0;
            while filled < self.window.len() {
                match self
                    .file
                    .read_at(&mut self.window[filled..], range.start + filled as u64)
                {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            self.window.truncate(filled);
            self.at = range.start;
            if filled < len {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        let from = (range.start - self.at) as usize;
        Ok(&self.window[from..from + len])
    }
}

#[cfg(test)]
mod tests {
    use super::{RangeReader, send_range};
    use std::io::{Read, Seek};
    use std::os::fd::AsFd;

    /// A file holding 0, 1, 2, ... (mod 251), `len` bytes long.
    fn numbered(len: usize) -> (tempfile::TempDir, std::fs::File, Vec<u8>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let bytes: Vec<u8> = (0..len).map(|n| (n % 251) as u8).collect();
        let path = dir.path().join("in");
        std::fs::write(&path, &bytes).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        (dir, file, bytes)
    }

    #[test]
    fn a_range_goes_out_whole_by_the_kernel_or_by_reads() {
        let (dir, file, bytes) = numbered(600 * 1024 + 17);
        let range = 1000..bytes.len() as u64 - 3;
        let want = &bytes[1000..bytes.len() - 3];
        // Into a file by the kernel, after what the writer still held.
        let path = dir.path().join("out");
        let target = std::fs::File::create_new(&path).expect("out");
        let fd = target.try_clone().expect("clone");
        let mut out = std::io::BufWriter::new(target);
        std::io::Write::write_all(&mut out, b"[\n").expect("prefix");
        send_range(&file, range.clone(), &mut out, Some(fd.as_fd())).expect("sent");
        drop(out);
        let mut got = Vec::new();
        let mut written = std::fs::File::open(&path).expect("open");
        written.rewind().expect("rewind");
        written.read_to_end(&mut got).expect("read");
        assert_eq!(&got[..2], b"[\n");
        assert_eq!(&got[2..], want);
        // Into memory, by reads in parts.
        let mut mem = Vec::new();
        send_range(&file, range, &mut mem, None).expect("copied");
        assert_eq!(mem, want);
        // Past the file's end: an error, not a short copy.
        let past = 10..bytes.len() as u64 + 1;
        assert!(send_range(&file, past.clone(), &mut Vec::new(), None).is_err());
        let devnull = std::fs::File::options()
            .write(true)
            .open("/dev/null")
            .expect("null");
        let mut sink = devnull.try_clone().expect("clone");
        assert!(send_range(&file, past, &mut sink, Some(devnull.as_fd())).is_err());
    }

    #[test]
    fn small_ranges_are_read_through_a_window() {
        let (_dir, file, bytes) = numbered(700 * 1024);
        let mut reader = RangeReader::new(&file);
        // Rising, falling back, and one larger than the window.
        for range in [10..20, 30..4000, 300_000..300_100, 5..6, 100..600 * 1024] {
            let got = reader
                .get(range.start as u64..range.end as u64)
                .expect("read");
            assert_eq!(got, &bytes[range]);
        }
        assert!(
            reader
                .get(bytes.len() as u64 - 2..bytes.len() as u64 + 1)
                .is_err()
        );
    }
}
