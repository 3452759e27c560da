//! Rebuildable line-per-record indexes under `.beads/.cache/`, shared by beads and mail.
//!
//! The record files stay the source of truth: every file of a folder is stat'ed on each
//! load (`store::listing`) and any file whose size, modification time, change time or inode
//! differs from its entry is parsed again, so a hand edit is seen at once. Files changed in
//! the last two seconds are never cached (their timestamps could still repeat), and a
//! missing, unreadable or corrupt index is simply rebuilt.
//!
//! An index is a header line, then one line per file: its key (the file name without
//! `.md`), its stamp, then the record's own tab-separated fields, escaped with backslashes
//! ([`esc`]). It is read in one piece and its lines are used where they lie ([`LineSpan`]),
//! so a warm load allocates almost nothing per record.

mod line;
mod scan;

use crate::error::{Error, Result};
use crate::store::write_atomic;
use line::push_line;
use scan::{Found, scan};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(test)]
pub(crate) use line::decode_index;
pub(crate) use line::{LineSpan, encode_line, read_stamp};

pub(crate) use super::escape::{
    ITEM, PART, choice, esc, esc_into, esc_opt_into, unesc, unesc_cow, unesc_list, unesc_opt,
};
#[cfg(test)]
pub(crate) use super::escape::{esc_list, esc_opt};
pub(crate) use super::listing::FileStamp;
use crate::sys::par::par_map;

/// The current time in nanoseconds since the epoch.
pub(crate) fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// A record kind that can be kept in an index.
pub(crate) trait Indexed: Sized + Send + Sync {
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
pub(crate) struct Loaded<T> {
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

/// Every current record of a folder as an index line (see [`lines`]).
#[derive(Debug, Default)]
pub(crate) struct Lines {
    /// The index text the spans point into (it may hold lines no longer current).
    pub text: String,
    /// One span per current record, in no particular order.
    pub spans: Vec<LineSpan>,
    /// Files that could not be read.
    pub broken: Vec<Error>,
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
pub(crate) struct Snapshot<T> {
    /// The index text the lines point into.
    text: String,
    /// Each record: a line of `text`, or parsed.
    rows: Vec<Found<Parsed<T>>>,
    /// Files that could not be read.
    pub broken: Vec<Error>,
}

impl<T> Snapshot<T> {
    /// The records, in the folder's order.
    pub(crate) fn rows(&self) -> Vec<Row<'_, T>> {
        self.rows
            .iter()
            .filter_map(|f| match f {
                Found::Cached(span) => {
                    Some(Row::Line(span.key(&self.text), span.fields(&self.text)))
                }
                Found::Parsed(p) => p.result.as_ref().ok().map(Row::Record),
            })
            .collect()
    }
}

/// Loads every `*.md` record of `dir`, decoding current index lines and parsing the rest
/// with `parse` (see [`snapshot`]). `parse` is given symlinked entries too and must refuse
/// one leading outside the repository ([`crate::sys::contain::resolve()`]).
pub(crate) fn load<T: Indexed>(
    dir: &Path,
    index_path: &Path,
    cache_dir: &Path,
    parse: impl Fn(&Path) -> Result<T> + Sync,
) -> Result<Loaded<T>> {
    let mut snap = snapshot(dir, index_path, cache_dir, &parse)?;
    let rows = std::mem::take(&mut snap.rows);
    let text = &snap.text;
    let decoded = par_map(&rows, |_, f| match f {
        Found::Cached(span) => {
            let key = span.key(text);
            // A line that no longer decodes is read from its file.
            Some(
                T::decode(key, span.fields(text))
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
pub(crate) fn snapshot<T: Indexed>(
    dir: &Path,
    index_path: &Path,
    cache_dir: &Path,
    parse: impl Fn(&Path) -> Result<T> + Sync,
) -> Result<Snapshot<T>> {
    let scan = scan::<T, Parsed<T>>(dir, index_path, false, |file| Parsed {
        key: file.key.to_string(),
        result: parse(&file.path),
        stamp: file.stamp,
        settled: file.settled,
    })?;
    if scan.stale() {
        let mut out = String::with_capacity(scan.text.len() + 4096);
        out.push_str(T::HEADER);
        out.push('\n');
        for f in &scan.found {
            match f {
                Found::Cached(span) => {
                    out.push_str(span.line(&scan.text));
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
    let rows = scan
        .found
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
    Ok(Snapshot {
        text: scan.text,
        rows,
        broken,
    })
}

/// A file parsed for [`lines`]: its line, ready to be written.
struct Fresh {
    /// The encoded line (with its newline), or why the file could not be read.
    line: Result<String>,
    /// Old enough to be cached.
    settled: bool,
}

/// Every current record of `dir` as an index line: the lines of `index_path` whose file
/// is unchanged, and for every other file (parsed with `parse`, on every core) a line
/// encoded at once, so no parsed record is kept. Rewrites the index when it was stale;
/// lines of files too young to be cached are in the text but not in the index file.
///
/// `parse` gets the file's path and, for a regular file, its text (read through the open
/// folder, never through a symlink); with `None` it must read the file itself, refusing a
/// symlink that leads outside the repository ([`crate::sys::contain::resolve()`]).
pub(crate) fn lines<T: Indexed>(
    dir: &Path,
    index_path: &Path,
    cache_dir: &Path,
    parse: impl Fn(&Path, Option<String>) -> Result<T> + Sync,
) -> Result<Lines> {
    let scan = scan::<T, Fresh>(dir, index_path, true, |file| Fresh {
        line: parse(&file.path, file.text).map(|record| {
            let mut line = String::with_capacity(256);
            encode_line(&mut line, file.key, file.stamp, &record);
            line
        }),
        settled: file.settled,
    })?;
    if !scan.stale() {
        let spans = scan
            .found
            .iter()
            .filter_map(|f| match f {
                Found::Cached(span) => Some(*span),
                Found::Parsed(_) => None,
            })
            .collect();
        return Ok(Lines {
            text: scan.text,
            spans,
            broken: Vec::new(),
        });
    }
    let mut out = String::with_capacity(scan.text.len().max(scan.found.len() * 200) + 4096);
    out.push_str(T::HEADER);
    out.push('\n');
    let mut spans = Vec::with_capacity(scan.found.len());
    let mut young = Vec::new();
    let mut broken = Vec::new();
    for f in scan.found {
        match f {
            Found::Cached(span) => push_line(&mut out, span.line(&scan.text), &mut spans),
            Found::Parsed(p) => match p.line {
                Ok(line) if p.settled => push_line(
                    &mut out,
                    line.strip_suffix('\n').unwrap_or(&line),
                    &mut spans,
                ),
                Ok(line) => young.push(line),
                Err(e) => broken.push(e),
            },
        }
    }
    // Best effort: an index that cannot be written is rebuilt next time.
    let _ = write_atomic(cache_dir, index_path, out.as_bytes());
    for line in young {
        push_line(
            &mut out,
            line.strip_suffix('\n').unwrap_or(&line),
            &mut spans,
        );
    }
    Ok(Lines {
        text: out,
        spans,
        broken,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    pub(super) struct Rec(pub(super) String, pub(super) Vec<String>);

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

    fn parse(p: &Path) -> Result<Rec> {
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        if text == "bad" {
            return Err(Error::Invalid("bad".into()));
        }
        Ok(Rec(text, Vec::new()))
    }

    /// Sets a file's modification time well in the past, so the index may cache it (its
    /// change time still has to age: callers wait).
    fn age(path: &Path) {
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
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
        let loaded = load(&recs, &index, &dir.path().join("cache"), parse).unwrap();
        assert_eq!(loaded.records, vec![Rec("alpha".into(), Vec::new())]);
        assert_eq!(loaded.broken.len(), 1);
        // Fresh files are not cached yet: the index holds only the header.
        let text = std::fs::read_to_string(&index).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        let none = load(&dir.path().join("nope"), &index, dir.path(), parse).unwrap();
        assert!(none.records.is_empty());
    }

    #[test]
    fn lines_cache_settled_files_and_see_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let recs = dir.path().join("recs");
        let cache = dir.path().join("cache");
        let index = cache.join("idx");
        std::fs::create_dir_all(&recs).unwrap();
        for n in 0..600 {
            std::fs::write(recs.join(format!("r{n:03}.md")), format!("v{n}")).unwrap();
            age(&recs.join(format!("r{n:03}.md")));
        }
        std::fs::write(recs.join("young.md"), "young").unwrap();
        std::fs::write(recs.join("bad.md"), "bad").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2100));
        std::fs::write(recs.join("young.md"), "younger").unwrap();
        let values = |l: &Lines| {
            let mut v: Vec<String> = l
                .spans
                .iter()
                .map(|s| Rec::decode(s.key(&l.text), s.fields(&l.text)).unwrap().0)
                .collect();
            v.sort();
            v
        };
        let parse = |_: &Path, text: Option<String>| -> Result<Rec> {
            let text = text.expect("a regular file is read by the scan");
            if text == "bad" {
                return Err(Error::Invalid("bad".into()));
            }
            Ok(Rec(text, Vec::new()))
        };
        let first = lines::<Rec>(&recs, &index, &cache, parse).unwrap();
        assert_eq!(first.spans.len(), 601);
        assert_eq!(first.broken.len(), 1);
        assert!(values(&first).contains(&"younger".to_string()));
        // The settled files are written; the young one is not.
        let written = std::fs::read_to_string(&index).unwrap();
        assert_eq!(written.lines().count(), 601, "header and 600 lines");
        assert!(!written.contains("younger"));
        // A warm load reads the same records from the index.
        let second = lines::<Rec>(&recs, &index, &cache, parse).unwrap();
        assert_eq!(values(&second), values(&first));
        // An edit keeping size and mtime is still seen (its change time moved).
        std::fs::write(recs.join("r007.md"), "w7").unwrap();
        age(&recs.join("r007.md"));
        std::fs::remove_file(recs.join("r008.md")).unwrap();
        let third = lines::<Rec>(&recs, &index, &cache, parse).unwrap();
        let v = values(&third);
        assert!(v.contains(&"w7".to_string()) && !v.contains(&"v7".to_string()));
        assert!(!v.contains(&"v8".to_string()));
        assert_eq!(third.spans.len(), 600);
        // A corrupt index is rebuilt, with the same records.
        std::fs::write(&index, "test-index 1\ngarbage\tline\n\u{0}\n").unwrap();
        let fourth = lines::<Rec>(&recs, &index, &cache, parse).unwrap();
        assert_eq!(values(&fourth), v);
    }
}
