//! Rebuildable line-per-record indexes under `.beads/.cache/`, shared by beads and mail.
//!
//! The record files stay the source of truth: every file of a folder is stat'ed on each
//! load and any file whose size, modification time, change time or inode differs from its
//! entry is parsed again, so a hand edit is seen at once. Files changed in the last two
//! seconds are never cached (their timestamps could still repeat), and a missing or
//! unreadable index is simply rebuilt.
//!
//! An index is a header line, then one line per file: its key (the file name without
//! `.md`), its stamp, then the record's own tab-separated fields, escaped with backslashes
//! ([`esc`]), so ten thousand records decode in a few milliseconds.

use crate::error::{Error, Result};
use crate::store::write_atomic;
use std::collections::HashMap;
use std::fs::DirEntry;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// Files younger than this (nanoseconds) are parsed every time.
pub const RACY_NANOS: i128 = 2_000_000_000;
/// Separates items of a list field.
pub const ITEM: char = '\u{1f}';
/// Separates the parts of one item.
pub const PART: char = '\u{1e}';

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

impl FileStamp {
    /// The stamp of a file's metadata.
    pub fn of(md: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            size: md.len(),
            mtime_ns: i128::from(md.mtime()) * 1_000_000_000 + i128::from(md.mtime_nsec()),
            ctime_ns: i128::from(md.ctime()) * 1_000_000_000 + i128::from(md.ctime_nsec()),
            ino: md.ino(),
        }
    }

    /// True when the file last changed long enough before `now_ns` that a later change
    /// is sure to give it a different stamp (the racy-time rule).
    pub fn settled(&self, now_ns: i128) -> bool {
        now_ns - self.mtime_ns > RACY_NANOS && now_ns - self.ctime_ns > RACY_NANOS
    }
}

/// The current time in nanoseconds since the epoch.
pub fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// A record kind that can be kept in an index.
pub trait Indexed: Sized + Send + Sync {
    /// First line of its index; a different one means "rebuild".
    const HEADER: &'static str;
    /// Appends the record's fields (after key and stamp), tab-separated, no newline.
    fn encode(&self, out: &mut String);
    /// Rebuilds a record from its key and the fields [`Indexed::encode`] wrote; `None`
    /// if they are malformed (the file is parsed instead).
    fn decode(key: &str, rest: &str) -> Option<Self>;
}

/// The records of one folder, plus the files that did not parse.
#[derive(Debug)]
pub struct Loaded<T> {
    /// Records in no particular order.
    pub records: Vec<T>,
    /// Files that could not be read.
    pub broken: Vec<Error>,
}

impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Loaded {
            records: Vec::new(),
            broken: Vec::new(),
        }
    }
}

/// What one file turned out to be.
enum Found<T> {
    /// Its index line was current: the line's byte range in the index text, and where its
    /// fields start.
    Cached(std::ops::Range<usize>, usize),
    /// It was parsed (boxed: most rows are small `Cached` ones).
    Parsed(Box<Parsed<T>>),
}

/// A file parsed because the index did not hold it.
struct Parsed<T> {
    /// Its key.
    key: String,
    /// The record, or why it could not be read.
    result: Result<T>,
    /// Its stamp when it was stat'ed.
    stamp: FileStamp,
    /// Old enough to be cached.
    settled: bool,
}

/// One current record of a folder, as a [`Snapshot`] holds it.
pub enum Row<'a, T> {
    /// Taken from the index: the file's key and the fields [`Indexed::encode`] wrote.
    Line(&'a str, &'a str),
    /// Parsed from its file just now.
    Record(&'a T),
}

/// The current records of one folder: index lines (not yet decoded) and freshly parsed
/// records, in the folder's order, plus the files that did not parse.
pub struct Snapshot<T> {
    /// The index text the lines point into.
    text: String,
    /// Each record: a line of `text`, or parsed.
    rows: Vec<Found<T>>,
    /// Files that could not be read.
    pub broken: Vec<Error>,
}

impl<T> Snapshot<T> {
    /// The records, in the folder's order.
    pub fn rows(&self) -> Vec<Row<'_, T>> {
        self.rows
            .iter()
            .filter_map(|f| match f {
                Found::Cached(line, fields) => {
                    let key = self.text[line.clone()].split('\t').next().unwrap_or("");
                    Some(Row::Line(key, &self.text[*fields..line.end]))
                }
                Found::Parsed(p) => p.result.as_ref().ok().map(Row::Record),
            })
            .collect()
    }
}

/// Loads every `*.md` record of `dir`, decoding current index lines and parsing the rest
/// with `parse` (see [`snapshot`]). `parse` is given symlinked entries too and must refuse
/// one leading outside the repository ([`crate::store::contain`]).
pub fn load<T: Indexed>(
    dir: &Path,
    index_path: &Path,
    cache_dir: &Path,
    parse: impl Fn(&Path) -> Result<T> + Sync,
) -> Result<Loaded<T>> {
    let mut snap = snapshot(dir, index_path, cache_dir, &parse)?;
    let rows = std::mem::take(&mut snap.rows);
    let text = &snap.text;
    let decoded = par_map(&rows, |_, f| match f {
        Found::Cached(line, fields) => {
            let key = text[line.clone()].split('\t').next().unwrap_or("");
            // A line that no longer decodes is read from its file.
            Some(
                T::decode(key, &text[*fields..line.end])
                    .map_or_else(|| parse(&dir.join(format!("{}.md", unesc(key)))), Ok),
            )
        }
        Found::Parsed(..) => None,
    });
    let mut loaded = Loaded {
        records: Vec::with_capacity(rows.len()),
        broken: snap.broken,
    };
    let mut decoded = decoded.into_iter();
    for f in rows {
        let record = match f {
            Found::Cached(..) => decoded.next(),
            Found::Parsed(p) => Some(p.result),
        };
        match record {
            Some(Ok(r)) => loaded.records.push(r),
            Some(Err(e)) => loaded.broken.push(e),
            None => {}
        }
    }
    Ok(loaded)
}

/// The current records of `dir`: index lines from `index_path` whose file is unchanged,
/// and the other files parsed with `parse`; rewrites the index when it was stale.
/// `cache_dir` holds the temporary file of the rewrite.
pub fn snapshot<T: Indexed>(
    dir: &Path,
    index_path: &Path,
    cache_dir: &Path,
    parse: impl Fn(&Path) -> Result<T> + Sync,
) -> Result<Snapshot<T>> {
    // Reading the index and listing the folder both wait on the kernel: do them at once.
    let (text, entries) = std::thread::scope(|scope| {
        let listing = scope.spawn(|| md_entries(dir));
        let text = std::fs::read_to_string(index_path).unwrap_or_default();
        let entries = listing
            .join()
            .unwrap_or_else(|_| Err(Error::Invalid(format!("cannot list {}", dir.display()))));
        (text, entries)
    });
    let entries = entries?;
    let lines = index_lines(&text, T::HEADER);
    // Looked up by key only when an entry is not where the last load wrote it.
    let by_key = OnceLock::new();
    let index = Index {
        text: &text,
        lines: &lines,
        by_key: &by_key,
    };
    let now = now_ns();
    let found = par_map(&entries, |i, d| examine(i, d, &index, now, &parse));
    let cached = found
        .iter()
        .filter(|f| matches!(f, Found::Cached(..)))
        .count();
    // Rewrite the index when a file was parsed or an entry's file is gone.
    if cached != found.len() || cached != lines.len() {
        let mut out = String::with_capacity(text.len() + 4096);
        out.push_str(T::HEADER);
        out.push('\n');
        for f in &found {
            match f {
                Found::Cached(line, _) => {
                    out.push_str(&text[line.clone()]);
                    out.push('\n');
                }
                Found::Parsed(p) => {
                    if let (Ok(record), true) = (&p.result, p.settled) {
                        encode_line(&mut out, &p.key, p.stamp, record);
                    }
                }
            }
        }
        // Best effort: an index that cannot be written is rebuilt next time.
        let _ = write_atomic(cache_dir, index_path, out.as_bytes());
    }
    let mut broken = Vec::new();
    let rows = found
        .into_iter()
        .filter_map(|f| match f {
            Found::Parsed(p) if p.result.is_err() => {
                if let Err(e) = p.result {
                    broken.push(e);
                }
                None
            }
            other => Some(other),
        })
        .collect();
    Ok(Snapshot { text, rows, broken })
}

/// The `*.md` entries of `dir` (not hidden ones); none when the folder does not exist.
pub fn md_entries(dir: &Path) -> Result<Vec<DirEntry>> {
    let read_dir = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut entries = Vec::new();
    for dirent in read_dir {
        let dirent = dirent.map_err(|e| Error::io(dir, e))?;
        let name = dirent.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.ends_with(".md") && !n.starts_with('.'))
        {
            entries.push(dirent);
        }
    }
    Ok(entries)
}

/// `f` over `items` (with their positions) on every core when there are many (the
/// per-file stat is most of the cost of a load), keeping the `Some` results in order.
pub fn par_map<I: Sync, T: Send>(items: &[I], f: impl Fn(usize, &I) -> Option<T> + Sync) -> Vec<T> {
    let parts = par_chunks(items, f);
    let total: usize = parts.iter().map(Vec::len).sum();
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_default();
    out.reserve(total - out.len());
    for part in parts {
        out.extend(part);
    }
    out
}

/// [`par_map`] without joining the parts: one vector per thread, in order (saves copying
/// large records).
pub fn par_chunks<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(usize, &I) -> Option<T> + Sync,
) -> Vec<Vec<T>> {
    let threads = if items.len() < 512 {
        1
    } else {
        crate::check::default_jobs().max(1)
    };
    let chunk = items.len().div_ceil(threads).max(1);
    let run = |start: usize, part: &[I]| -> Vec<T> {
        // Sized up front: growing a vector of large records copies and faults in pages.
        let mut out = Vec::with_capacity(part.len());
        out.extend(
            part.iter()
                .enumerate()
                .filter_map(|(j, item)| f(start + j, item)),
        );
        out
    };
    if threads == 1 {
        return vec![run(0, items)];
    }
    std::thread::scope(|scope| {
        let run = &run;
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .skip(1)
            .map(|(n, part)| scope.spawn(move || run(n * chunk, part)))
            .collect();
        // The first part on this thread.
        let mut parts = vec![run(0, &items[..chunk.min(items.len())])];
        parts.extend(handles.into_iter().map(|h| h.join().unwrap_or_default()));
        parts
    })
}

/// The lines of an index: in file order, and by key when needed.
struct Index<'a> {
    /// The whole index.
    text: &'a str,
    /// (key, stamp and fields) per line, in the order they were written.
    lines: &'a [(&'a str, &'a str)],
    /// Line number by key, built on first need.
    by_key: &'a OnceLock<HashMap<&'a str, usize>>,
}

impl Index<'_> {
    /// The line of `key` (expected at position `i`: a folder's order is stable) as its byte
    /// range in the index and where its fields start, if its stamp is `stamp`.
    fn current(
        &self,
        i: usize,
        key: &str,
        stamp: FileStamp,
    ) -> Option<(std::ops::Range<usize>, usize)> {
        let at = match self.lines.get(i) {
            Some((k, _)) if *k == key => i,
            _ => *self
                .by_key
                .get_or_init(|| {
                    let mut map = HashMap::with_capacity(self.lines.len());
                    for (n, (k, _)) in self.lines.iter().enumerate() {
                        map.insert(*k, n);
                    }
                    map
                })
                .get(key)?,
        };
        let (k, rest) = self.lines[at];
        let (cached, fields) = parse_stamp(rest)?;
        if cached != stamp {
            return None;
        }
        let offset = |s: &str| s.as_ptr() as usize - self.text.as_ptr() as usize;
        let start = offset(k);
        let fields_start = offset(fields);
        Some((start..fields_start + fields.len(), fields_start))
    }
}

/// Stats one file and takes it from the index when current, else parses it.
fn examine<T: Indexed>(
    i: usize,
    dirent: &DirEntry,
    index: &Index<'_>,
    now_ns: i128,
    parse: &(impl Fn(&Path) -> Result<T> + Sync),
) -> Option<Found<T>> {
    // fstatat on the open folder, not following symlinks: no path walk per file. A symlink
    // goes to `parse` (which refuses one leading outside), never cached: its stamp is not
    // its target's.
    let md = dirent.metadata().ok()?;
    let link = md.file_type().is_symlink();
    if !md.is_file() && !link {
        return None;
    }
    let name = dirent.file_name();
    let key = name.to_str()?.strip_suffix(".md")?;
    let stamp = FileStamp::of(&md);
    if !link && let Some((line, fields)) = index.current(i, key, stamp) {
        return Some(Found::Cached(line, fields));
    }
    let settled = !link && stamp.settled(now_ns);
    Some(Found::Parsed(Box::new(Parsed {
        key: key.to_string(),
        result: parse(&dirent.path()),
        stamp,
        settled,
    })))
}

/// The (key, rest) pairs of an index's lines; none when the header differs.
fn index_lines<'a>(text: &'a str, header: &str) -> Vec<(&'a str, &'a str)> {
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        return Vec::new();
    }
    lines.filter_map(|l| l.split_once('\t')).collect()
}

/// Splits `size, mtime, ctime, ino, fields` into the stamp and the fields.
fn parse_stamp(rest: &str) -> Option<(FileStamp, &str)> {
    let mut f = rest.splitn(5, '\t');
    let stamp = FileStamp {
        size: f.next()?.parse().ok()?,
        mtime_ns: f.next()?.parse().ok()?,
        ctime_ns: f.next()?.parse().ok()?,
        ino: f.next()?.parse().ok()?,
    };
    Some((stamp, f.next()?))
}

/// Splits an index into key -> (stamp, fields); empty when the header differs.
pub fn decode_index<'a>(text: &'a str, header: &str) -> HashMap<&'a str, (FileStamp, &'a str)> {
    index_lines(text, header)
        .into_iter()
        .filter_map(|(key, rest)| Some((key, parse_stamp(rest)?)))
        .collect()
}

/// Appends one record's line: key, stamp, then its fields.
pub fn encode_line<T: Indexed>(out: &mut String, key: &str, s: FileStamp, record: &T) {
    use std::fmt::Write;
    let _ = write!(
        out,
        "{}\t{}\t{}\t{}\t{}\t",
        esc(key),
        s.size,
        s.mtime_ns,
        s.ctime_ns,
        s.ino
    );
    record.encode(out);
    out.push('\n');
}

pub use super::escape::{choice, esc, esc_list, esc_opt, unesc, unesc_list, unesc_opt};

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Rec(String, Vec<String>);

    impl Indexed for Rec {
        const HEADER: &'static str = "test-index 1";
        fn encode(&self, out: &mut String) {
            out.push_str(&esc(&self.0));
            out.push('\t');
            out.push_str(&esc_list(&self.1));
        }
        fn decode(_key: &str, rest: &str) -> Option<Self> {
            let (a, b) = rest.split_once('\t')?;
            Some(Rec(unesc(a), unesc_list(b)))
        }
    }

    #[test]
    fn lines_round_trip() {
        let rec = Rec(
            "Tab\there, newline\nthere \\ and \u{1f}".into(),
            vec!["a\u{1e}".into(), String::new(), "c".into()],
        );
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            ino: 4,
        };
        let mut text = format!("{}\n", Rec::HEADER);
        encode_line(&mut text, "k-1", stamp, &rec);
        let index = decode_index(&text, Rec::HEADER);
        let (s, rest) = index["k-1"];
        assert_eq!(s, stamp);
        assert_eq!(Rec::decode("k-1", rest).unwrap(), rec);
        assert!(decode_index(&text, "other header").is_empty());
        assert_eq!(unesc_opt(&esc_opt(Some(""))), Some(String::new()));
        assert_eq!(unesc_opt(&esc_opt(None)), None);
    }

    #[test]
    fn load_parses_new_files_and_caches_settled_ones() {
        let dir = tempfile::tempdir().unwrap();
        let recs = dir.path().join("recs");
        std::fs::create_dir_all(&recs).unwrap();
        std::fs::write(recs.join("a.md"), "alpha").unwrap();
        std::fs::write(recs.join("b.md"), "bad").unwrap();
        std::fs::write(recs.join(".hidden.md"), "x").unwrap();
        let index = dir.path().join("cache/idx");
        let parse = |p: &Path| -> Result<Rec> {
            let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
            if text == "bad" {
                return Err(Error::Invalid("bad".into()));
            }
            Ok(Rec(text, Vec::new()))
        };
        let loaded = load(&recs, &index, &dir.path().join("cache"), parse).unwrap();
        assert_eq!(loaded.records, vec![Rec("alpha".into(), Vec::new())]);
        assert_eq!(loaded.broken.len(), 1);
        // Fresh files are not cached yet: the index holds only the header.
        let text = std::fs::read_to_string(&index).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        let none = load(&dir.path().join("nope"), &index, dir.path(), parse).unwrap();
        assert!(none.records.is_empty());
    }
}
