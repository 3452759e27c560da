//! Matching the record files of a folder against the lines of its index: every file is
//! stat'ed (on every core) and taken from its line when the stamps agree; the others go
//! to the caller, to be parsed.

use super::line::{IndexLine, LineSpan, index_lines};
use super::{Indexed, now_ns};
use crate::error::{Error, Result};
use crate::store::listing::{FileStamp, Kind, Listing};
use crate::sys::par::{idle_cores, par_ranges};
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

/// What one file turned out to be.
pub(super) enum Found<P> {
    /// Its index line was current.
    Cached(LineSpan),
    /// It was parsed: what the caller made of it (boxed: most rows are small `Cached`
    /// ones).
    Parsed(Box<P>),
}

/// What a scan of a folder found: the old index text and, per file in the folder's
/// order, its current line or what was made of the parsed file.
pub(super) struct Scan<P> {
    /// The index as it was read.
    pub(super) text: String,
    /// One entry per record file.
    pub(super) found: Vec<Found<P>>,
    /// How many lines the index held.
    pub(super) indexed: usize,
}

impl<P> Scan<P> {
    /// True when the index should be written again: a file was parsed or an entry's file
    /// is gone.
    pub(super) fn stale(&self) -> bool {
        let cached = self
            .found
            .iter()
            .filter(|f| matches!(f, Found::Cached(..)))
            .count();
        cached != self.found.len() || cached != self.indexed
    }
}

/// A file of a scanned folder that the index did not hold.
pub(super) struct Unindexed<'a> {
    /// Its path.
    pub(super) path: std::path::PathBuf,
    /// Its key.
    pub(super) key: &'a str,
    /// Its stamp.
    pub(super) stamp: FileStamp,
    /// Its text, when the scan was asked to read files and could (a regular file, read
    /// through the open folder).
    pub(super) text: Option<String>,
    /// Old enough to be cached.
    pub(super) settled: bool,
}

/// Stats every `*.md` file of `dir` and matches it against its line in `index_path`;
/// each file without a current line goes to `parsed`, on every core. With `read`, the
/// scan reads those files too (a file the index has no line for is opened at once, and
/// stat'ed through the open file: one path lookup instead of two).
pub(super) fn scan<T: Indexed, P: Send>(
    dir: &Path,
    index_path: &Path,
    read: bool,
    parsed: impl Fn(Unindexed<'_>) -> P + Sync,
) -> Result<Scan<P>> {
    let (text, listing) = read_index_and_list(index_path, dir);
    let listing = listing?;
    let lines = index_lines(&text, T::HEADER);
    if listing.is_empty() {
        return Ok(Scan {
            indexed: lines.len(),
            text,
            found: Vec::new(),
        });
    }
    let by_key = OnceLock::new();
    let index = Index {
        text: &text,
        lines: &lines,
        by_key: &by_key,
    };
    let now = now_ns();
    let parts = par_ranges(listing.len(), |range| {
        match_files(&listing, &index, range, read, now, &parsed)
    });
    let mut found = Vec::with_capacity(listing.len());
    for part in parts {
        found.extend(part);
    }
    Ok(Scan {
        indexed: lines.len(),
        text,
        found,
    })
}

/// The index text and the folder's listing. Both wait on the kernel: they are read at once
/// when a core is free.
fn read_index_and_list(index_path: &Path, dir: &Path) -> (String, Result<Listing>) {
    if idle_cores() > 1 {
        std::thread::scope(|scope| {
            let listing = scope.spawn(|| Listing::of(dir));
            let text = read_index(index_path);
            let listing = listing
                .join()
                .unwrap_or_else(|_| Err(Error::Invalid(format!("cannot list {}", dir.display()))));
            (text, listing)
        })
    } else {
        (read_index(index_path), Listing::of(dir))
    }
}

/// A part of a scan with at least this many files stats them through its own handle on
/// the folder (see [`Listing::reopen`]).
const OWN_HANDLE_FROM: usize = 64;

/// The files `range` of `listing`, each taken from its current line of `index` or given
/// to `parsed` (read first when `read`; see [`scan`]).
fn match_files<P>(
    listing: &Listing,
    index: &Index<'_>,
    range: Range<usize>,
    read: bool,
    now: i128,
    parsed: &(impl Fn(Unindexed<'_>) -> P + Sync),
) -> Vec<Found<P>> {
    let mut out = Vec::with_capacity(range.len());
    // This part's own handle on the folder, when it has files enough to pay for it.
    let own = (range.len() >= OWN_HANDLE_FROM)
        .then(|| listing.reopen())
        .flatten();
    // A folder lists its files in a stable order, the order the index was written
    // in: the next line is where the next file is expected.
    let mut next = range.start;
    for i in range {
        let Some(key) = listing.key(i) else {
            continue;
        };
        let line = index.find(next, key);
        let unindexed = |kind, stamp: FileStamp, text| Unindexed {
            path: listing.path(i),
            key,
            stamp,
            text,
            settled: kind == Kind::File && stamp.settled(now),
        };
        if read
            && line.is_none()
            && listing.listed_regular(i)
            && let Some((stamp, text)) = listing.stat_and_read(i)
        {
            next += 1;
            out.push(Found::Parsed(Box::new(parsed(unindexed(
                Kind::File,
                stamp,
                text,
            )))));
            continue;
        }
        let Some((kind, stamp)) = listing
            .stat(own.as_ref(), i)
            .filter(|(k, _)| *k != Kind::Other)
        else {
            continue;
        };
        // A symlink is never cached: its stamp is not its target's. `parsed` reads it
        // (refusing one that leads outside).
        if kind == Kind::File
            && let Some(at) = line
            && let Some(span) = index.current(at, stamp)
        {
            next = at + 1;
            out.push(Found::Cached(span));
            continue;
        }
        next += 1;
        let text = match kind {
            Kind::File if read => listing.read_text(i, stamp.size),
            _ => None,
        };
        out.push(Found::Parsed(Box::new(parsed(unindexed(
            kind, stamp, text,
        )))));
    }
    out
}

/// The index file's text; empty when it is missing, unreadable or not UTF-8. Read into
/// room made present at once (see [`crate::sys::mem`]).
fn read_index(path: &Path) -> String {
    use std::io::Read;
    let read = || -> std::io::Result<Vec<u8>> {
        let mut file = std::fs::File::open(path)?;
        let size = file.metadata().map_or(0, |m| m.len());
        let mut bytes = Vec::new();
        crate::sys::mem::reserve_present(&mut bytes, usize::try_from(size).unwrap_or(0) + 1);
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    read()
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .filter(|t| u32::try_from(t.len()).is_ok())
        .unwrap_or_default()
}

/// The lines of an index: in file order, and by key when needed.
struct Index<'a> {
    /// The whole index.
    text: &'a str,
    /// Each line, in the order they were written.
    lines: &'a [IndexLine],
    /// Line number by key, built on first need.
    by_key: &'a OnceLock<HashMap<&'a str, usize>>,
}

impl Index<'_> {
    /// The position of the line of `key`, expected at `hint`.
    fn find(&self, hint: usize, key: &str) -> Option<usize> {
        match self.lines.get(hint) {
            Some(line) if line.key(self.text) == key => Some(hint),
            _ => self
                .by_key
                .get_or_init(|| {
                    let mut map = HashMap::with_capacity(self.lines.len());
                    for (n, line) in self.lines.iter().enumerate() {
                        map.insert(line.key(self.text), n);
                    }
                    map
                })
                .get(key)
                .copied(),
        }
    }

    /// The span of line `at`, if its stamp is `stamp`.
    fn current(&self, at: usize, stamp: FileStamp) -> Option<LineSpan> {
        let (span, cached) = self.lines[at].read(self.text)?;
        (cached == stamp).then_some(span)
    }
}
