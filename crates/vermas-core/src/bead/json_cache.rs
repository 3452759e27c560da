//! Each bead's JSON as a long `--json` listing shows it, kept beside the index in
//! `.beads/.cache/json`, so `list --json -n 0` copies bytes rather than writing JSON: a
//! run of beads that lie side by side in the cache goes out in one write.
//!
//! The file: the line `vermas-json 1`, a line with the number of entries, then one line
//! per entry (the bead's id, the stamp of the file its JSON was made from, written as
//! the index line has it, see [`crate::store::index`], and the JSON's length in bytes), then the
//! body: every entry's JSON in table order, each followed by `,\n` (so neighbours read as
//! the listing's array has them). An entry is used only while its file still has that
//! stamp, and only files older than the racy window are cached, so a hand edit is seen at
//! once; a cache whose lengths do not add up to its body, or that is not UTF-8, is not
//! read at all, and a missing, stale or malformed entry means the file is read and the
//! cache written anew. Readers take no lock: the cache is replaced whole, and a reader
//! keeps the file it opened.
//!
//! A reader holds the table only: the body is checked a group of elements at a time and
//! copied out later by the kernel, from the open file (see [`crate::sys::send`]), so the
//! memory a listing takes does not grow with the cache. The writer notes the stamp of the
//! file it wrote in `.beads/.cache/json.stamp`: while the cache still has that stamp and
//! it is older than the racy window, no byte of it changed since, and its body is not
//! checked again (as an index line is trusted while its file's stamp holds).

use super::idmap::IdMap;
use super::model::Bead;
use crate::store::index::{FileStamp, now_ns, read_stamp};
use crate::store::{write_atomic, write_atomic_parts};
use crate::workspace::Workspace;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

/// First line of the cache; a different one means "rebuild".
const HEADER: &str = "vermas-json 1";

/// What follows every element in the body: what separates two elements of an array.
const SEP: &[u8] = b",\n";

/// Where the cache lives.
pub(crate) fn json_cache_path(ws: &Workspace) -> PathBuf {
    ws.cache_dir().join("json")
}

/// Where the stamp of the cache as last written lives.
fn stamp_path(ws: &Workspace) -> PathBuf {
    ws.cache_dir().join("json.stamp")
}

/// The stamp as a line: its four fields, each followed by a tab (as an index line has
/// them, see [`read_stamp`]).
fn stamp_line(s: FileStamp) -> String {
    format!("{}\t{}\t{}\t{}\t\n", s.size, s.mtime_ns, s.ctime_ns, s.ino)
}

/// Notes `stamp` as the cache's as written (best effort: a cache not noted is checked).
fn note_stamp(ws: &Workspace, stamp: FileStamp) {
    let _ = write_atomic(
        &ws.cache_dir(),
        &stamp_path(ws),
        stamp_line(stamp).as_bytes(),
    );
}

/// True when `stamp` is the one noted for the cache as written, and settled: the file is
/// as vermas wrote it (and was checked then).
fn written_so(ws: &Workspace, stamp: FileStamp) -> bool {
    let Ok(noted) = std::fs::read(stamp_path(ws)) else {
        return false;
    };
    read_stamp(&noted, 0, noted.len())
        .is_some_and(|(s, end)| s == stamp && end + 1 == noted.len() && s.settled(now_ns()))
}

/// `bead`'s pretty JSON as an element of a pretty array: every line indented one level,
/// no comma; exactly what the pretty JSON of a list of beads holds for it.
pub(crate) fn element(bead: &Bead) -> Vec<u8> {
    let mut out = Vec::with_capacity(512);
    // Writing into memory cannot fail, and a bead always serialises.
    let _ = serde_json::to_writer_pretty(&mut out, &[bead]);
    // The array of one is `[\n`, the element, `\n]`.
    if out.len() >= 4 {
        out.truncate(out.len() - 2);
        out.drain(..2);
    }
    // Kept by the thousand after a load that parsed files: no room to spare.
    out.shrink_to_fit();
    out
}

/// The cached JSON of some beads: the cache as read, and where each wanted bead's JSON
/// lies in its file.
#[derive(Debug, Default)]
pub(crate) struct Elements {
    /// The cache, as read and checked.
    cache: JsonCache,
    /// Per wanted bead, where its JSON lies in the cache file (always followed by
    /// [`SEP`]).
    found: Vec<Option<Range<usize>>>,
}

impl Elements {
    /// Where the JSON of wanted bead `n` lies in [`Elements::file`], when cached and
    /// current.
    pub(crate) fn get(&self, n: usize) -> Option<Range<usize>> {
        self.found.get(n)?.clone()
    }

    /// The file the ranges point into.
    pub(crate) fn file(&self) -> Option<&File> {
        self.cache.file.as_ref()
    }

    /// How many bytes separate one element from the next in [`Elements::file`]: the
    /// JSON array's own separator.
    pub(crate) const SEP_LEN: usize = SEP.len();
}

/// One entry of a cache: where the bead's id and its file's stamp (as text) lie in the
/// table, and where its JSON lies in the file.
#[derive(Debug, Clone)]
struct Entry {
    /// The id.
    key: Range<usize>,
    /// The stamp, as the index line has it.
    stamp: Range<usize>,
    /// The JSON (always followed by [`SEP`]); until the body is placed ([`place`]),
    /// `0..` its length.
    json: Range<usize>,
}

/// The body is checked this many bytes at a time (whole elements, so at least one).
const GROUP: usize = 1 << 20;

/// The table of the cache `file` (`size` bytes long) as read, its entries, and where the
/// body starts (the table read ends there or a little further). `None` when the table is
/// not one this version reads (another header, a count or line that does not parse, a
/// table longer than the file).
fn read_table(file: &File, size: usize) -> Option<(Vec<u8>, Vec<Entry>, usize)> {
    let mut buf = Vec::new();
    // The next line from `at`, reading more of the file (twice as much each time) until
    // it is whole.
    let line = |buf: &mut Vec<u8>, at: &mut usize| -> Option<Range<usize>> {
        loop {
            if let Some(n) = buf[*at..].iter().position(|&b| b == b'\n') {
                let line = *at..*at + n;
                *at += n + 1;
                return Some(line);
            }
            let start = buf.len();
            if start >= size {
                return None;
            }
            buf.resize((start * 2).max(64 * 1024).min(size), 0);
            file.read_exact_at(&mut buf[start..], start as u64).ok()?;
        }
    };
    let mut at = 0;
    let header = line(&mut buf, &mut at)?;
    if buf[header] != *HEADER.as_bytes() {
        return None;
    }
    let count_line = line(&mut buf, &mut at)?;
    let count: usize = std::str::from_utf8(&buf[count_line]).ok()?.parse().ok()?;
    let mut entries = Vec::with_capacity(count.min(size / 16));
    for _ in 0..count {
        let text = line(&mut buf, &mut at)?;
        entries.push(entry(&buf, text.start, text.end)?);
    }
    Some((buf, entries, at))
}

/// Places each entry's JSON in the body, which starts at `body` and ends at `size`; `None`
/// when the lengths do not add up to the file.
fn place(entries: &mut [Entry], body: usize, size: usize) -> Option<()> {
    let mut at = body;
    for e in entries.iter_mut() {
        let end = at.checked_add(e.json.end)?;
        e.json = at..end;
        at = end.checked_add(SEP.len())?;
    }
    (at == size).then_some(())
}

/// Checks the body of placed `entries` in `file` a group at a time: text, each element
/// an object followed by [`SEP`].
fn check_body(file: &File, entries: &[Entry]) -> Option<()> {
    let mut buf = Vec::new();
    let mut first = 0;
    while first < entries.len() {
        let start = entries[first].json.start;
        let mut last = first + 1;
        while last < entries.len() && entries[last].json.end + SEP.len() - start <= GROUP {
            last += 1;
        }
        buf.resize(entries[last - 1].json.end + SEP.len() - start, 0);
        file.read_exact_at(&mut buf, start as u64).ok()?;
        // A group ends after a separator: no character is cut.
        std::str::from_utf8(&buf).ok()?;
        for e in &entries[first..last] {
            let (from, to) = (e.json.start - start, e.json.end - start);
            if !(buf[from..to].starts_with(b"  {") && buf[from..to].ends_with(b"}"))
                || buf[to..to + SEP.len()] != *SEP
            {
                return None;
            }
        }
        first = last;
    }
    Some(())
}

/// The table's line at `at`, ending at `end` (its newline): `id`, the four stamp fields
/// as an index line has them, the JSON's length (as `json`'s end, for [`place`]).
fn entry(bytes: &[u8], at: usize, end: usize) -> Option<Entry> {
    let line = std::str::from_utf8(&bytes[at..end]).ok()?;
    let (key, rest) = line.split_once('\t')?;
    let (stamp, len) = rest.rsplit_once('\t')?;
    if key.is_empty()
        || len.is_empty()
        || len.len() > 12
        || !len.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let key_end = at + key.len();
    let stamp_start = key_end + 1;
    Some(Entry {
        key: at..key_end,
        stamp: stamp_start..stamp_start + stamp.len(),
        json: 0..len.parse().ok()?,
    })
}

/// A cache file checked whole: its table and entries, to be matched against a listing
/// ([`JsonCache::elements`]), and the open file the JSON is copied from. Read on its own
/// (see [`reading_json_cache`]) so a listing can read it while it works out what it
/// shows.
#[derive(Debug, Default)]
pub struct JsonCache {
    /// The file (`None` when there is none, or it was not one to read).
    file: Option<File>,
    /// The header and the table (the keys and stamps of `entries` point into it).
    table: Vec<u8>,
    /// Its entries, in the file's order.
    entries: Vec<Entry>,
}

impl JsonCache {
    /// The cache of `ws`; empty when there is none or it is not one this version reads.
    pub fn read(ws: &Workspace) -> JsonCache {
        File::open(json_cache_path(ws))
            .ok()
            .and_then(|file| {
                let stamp = FileStamp::of(&file.metadata().ok()?);
                let as_written = written_so(ws, stamp);
                let cache = JsonCache::checked(file, as_written)?;
                if !as_written && stamp.settled(now_ns()) {
                    // Checked whole and settled: the next reader need not check it again.
                    note_stamp(ws, stamp);
                }
                Some(cache)
            })
            .unwrap_or_default()
    }

    /// `file` read as a cache: its table kept, its body checked unless `as_written` (see
    /// the module's note); `None` when it is not one to read.
    fn checked(file: File, as_written: bool) -> Option<JsonCache> {
        let size = usize::try_from(file.metadata().ok()?.len()).ok()?;
        let (mut table, mut entries, body) = read_table(&file, size)?;
        place(&mut entries, body, size)?;
        if !as_written {
            check_body(&file, &entries)?;
        }
        table.truncate(body);
        Some(JsonCache {
            file: Some(file),
            table,
            entries,
        })
    }

    /// Its body (every entry's JSON, where the table ends), read in one go; `None` when
    /// there is none or it cannot be read.
    fn body(&self) -> Option<Vec<u8>> {
        let file = self.file.as_ref()?;
        let start = self.table.len();
        let end = self
            .entries
            .last()
            .map_or(start, |e| e.json.end + SEP.len());
        let mut bytes = vec![0; end - start];
        file.read_exact_at(&mut bytes, start as u64).ok()?;
        Some(bytes)
    }

    /// The cached JSON of `wanted` (each bead's id and its file's current stamp, as its
    /// index line has it), in that order.
    pub(crate) fn elements(self, wanted: &[(&str, &str)]) -> Elements {
        Elements {
            found: match_entries(&self.table, &self.entries, wanted),
            cache: self,
        }
    }
}

/// Runs `work` here while the JSON cache of `ws` is read on another thread, when `wanted`
/// (a long `--json` listing, see [`super::catalog::json_cache_helps`]); gives both (an
/// empty cache when not wanted).
pub fn reading_json_cache<R>(
    ws: &Workspace,
    wanted: bool,
    work: impl FnOnce() -> R,
) -> (R, JsonCache) {
    if !wanted {
        return (work(), JsonCache::default());
    }
    std::thread::scope(|scope| {
        let cache = scope.spawn(|| JsonCache::read(ws));
        let done = work();
        (done, cache.join().unwrap_or_default())
    })
}

/// How many entries past the last one found are tried before looking an id up.
const NEAR: usize = 64;

/// Where each of `wanted` lies among `entries`, when its stamp is current. A listing
/// usually wants the entries in the order the cache holds them (it was written in a
/// listing's order), or some of them: the few entries after the last one found are tried
/// first, and an id is looked up only when none of them is it.
fn match_entries(
    bytes: &[u8],
    entries: &[Entry],
    wanted: &[(&str, &str)],
) -> Vec<Option<Range<usize>>> {
    let key_of = |e: &Entry| &bytes[e.key.clone()];
    let mut by_key: Option<IdMap<&[u8], usize>> = None;
    let mut next = 0;
    // Once the cache's order is plainly not the listing's, ids are only looked up.
    let mut misses = 0;
    wanted
        .iter()
        .map(|(key, stamp)| {
            let key = key.as_bytes();
            // A listing of fewer beads skips a few entries between two it shows.
            let near = (misses < NEAR)
                .then(|| entries.get(next..(next + NEAR).min(entries.len())))
                .flatten()
                .and_then(|ahead| ahead.iter().position(|e| key_of(e) == key));
            misses += usize::from(near.is_none());
            let at = match near {
                Some(skip) => Some(next + skip),
                None => by_key
                    .get_or_insert_with(|| {
                        let mut map = IdMap::default();
                        map.reserve(entries.len());
                        // The first entry of an id counts.
                        for (n, e) in entries.iter().enumerate().rev() {
                            map.insert(key_of(e), n);
                        }
                        map
                    })
                    .get(key)
                    .copied(),
            }?;
            next = at + 1;
            let e = &entries[at];
            (&bytes[e.stamp.clone()] == stamp.as_bytes()).then(|| e.json.clone())
        })
        .collect()
}

/// Writes the cache anew: the entries of `old` (the cache the listing read) still current
/// for `current` (every bead's id and its file's stamp as text), then the `fresh` ones
/// (id, stamp as text, JSON) whose files are settled, in the order given (a listing's
/// order: the next such listing writes them in one run). Best effort: a cache that cannot
/// be written is made again next time.
pub(crate) fn save(
    ws: &Workspace,
    old: &Elements,
    current: &HashMap<&str, &str>,
    fresh: &[(&str, &str, &[u8])],
) {
    let now = now_ns();
    let settled = |stamp: &str| {
        let line = format!("{stamp}\t");
        read_stamp(line.as_bytes(), 0, line.len())
            .is_some_and(|(s, _)| s.ino != 0 && s.settled(now))
    };
    let fresh: Vec<_> = fresh
        .iter()
        .filter(|(_, stamp, _)| settled(stamp))
        .collect();
    if fresh.is_empty() {
        return;
    }
    let mut written: HashSet<&str> = fresh.iter().map(|(k, ..)| *k).collect();
    let (cache, mut entries) = (&old.cache, Vec::new());
    let body = cache.body();
    if let Some(body) = &body {
        let base = cache.table.len();
        // Ids and stamps were read as text with the table.
        let text =
            |r: &Range<usize>| std::str::from_utf8(&cache.table[r.clone()]).unwrap_or_default();
        for e in &cache.entries {
            let (key, stamp) = (text(&e.key), text(&e.stamp));
            if current.get(key) == Some(&stamp) && written.insert(key) {
                entries.push((key, stamp, &body[e.json.start - base..e.json.end - base]));
            }
        }
    }
    entries.extend(fresh.iter().map(|(k, s, j)| (*k, *s, *j)));
    let mut new_table = Vec::with_capacity(entries.len() * 64 + 32);
    new_table.extend_from_slice(format!("{HEADER}\n{}\n", entries.len()).as_bytes());
    for (key, stamp, json) in &entries {
        new_table.extend_from_slice(format!("{key}\t{stamp}\t{}\n", json.len()).as_bytes());
    }
    // The body is written from where each element lies, not gathered first.
    let mut parts: Vec<&[u8]> = Vec::with_capacity(1 + 2 * entries.len());
    parts.push(&new_table);
    for (.., json) in &entries {
        parts.push(json);
        parts.push(SEP);
    }
    let path = json_cache_path(ws);
    if write_atomic_parts(&ws.cache_dir(), &path, &parts).is_ok()
        && let Ok(md) = std::fs::symlink_metadata(&path)
        && md.is_file()
    {
        note_stamp(ws, FileStamp::of(&md));
        // What older versions kept for these listings, made useless by this cache.
        let _ = std::fs::remove_file(ws.cache_dir().join("tails"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(n: u64) -> String {
        format!("{n}\t{}\t-1\t{}", n * 10, n + 7)
    }

    /// `bytes` read as a cache file, checked whole.
    fn read(bytes: &[u8]) -> Option<JsonCache> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("json");
        std::fs::write(&path, bytes).expect("write");
        JsonCache::checked(File::open(&path).expect("open"), false)
    }

    /// A cache file holding `entries` as [`save`] lays it out.
    fn file(entries: &[(&str, String, &str)]) -> Vec<u8> {
        let mut out = format!("{HEADER}\n{}\n", entries.len());
        for (k, s, j) in entries {
            out.push_str(&format!("{k}\t{s}\t{}\n", j.len()));
        }
        for (.., j) in entries {
            out.push_str(j);
            out.push_str(",\n");
        }
        out.into_bytes()
    }

    #[test]
    fn entries_are_found_where_the_lengths_put_them() {
        let bytes = file(&[
            ("a", stamp(1), "  {\n    \"id\": \"a\"\n  }"),
            ("b", stamp(2), "  {}"),
        ]);
        let parsed = read(&bytes).expect("a cache").entries;
        assert_eq!(parsed.len(), 2);
        let at = |r: &Range<usize>| &bytes[r.clone()];
        assert_eq!(at(&parsed[0].key), b"a");
        assert_eq!(at(&parsed[1].stamp), stamp(2).as_bytes());
        assert_eq!(at(&parsed[0].stamp), b"1\t10\t-1\t8");
        assert_eq!(at(&parsed[0].json), b"  {\n    \"id\": \"a\"\n  }");
        assert_eq!(at(&parsed[1].json), b"  {}");
        // Neighbours read as an array's elements do.
        assert_eq!(&bytes[parsed[0].json.end..parsed[1].json.end], b",\n  {}");
    }

    #[test]
    fn a_file_whose_lengths_do_not_add_up_is_not_read() {
        let good = file(&[("a", stamp(1), "  {}"), ("b", stamp(2), "  {\"x\": 1}")]);
        assert!(read(&good).is_some());
        let cut = &good[..good.len() - 1];
        let longer = [good.as_slice(), b"  {},\n"].concat();
        let other =
            String::from_utf8(good.clone())
                .unwrap()
                .replacen("vermas-json 1", "vermas-json 0", 1);
        let not_object = String::from_utf8(good.clone())
            .unwrap()
            .replacen("  {}", "  []", 1);
        let mut not_utf8 = good.clone();
        let at = not_utf8.len() - 4;
        not_utf8[at] = 0xff;
        for bad in [
            cut.to_vec(),
            longer,
            other.into_bytes(),
            not_object.into_bytes(),
            not_utf8,
            Vec::new(),
        ] {
            assert!(read(&bad).is_none(), "{}", String::from_utf8_lossy(&bad));
        }
    }

    #[test]
    fn a_big_file_is_read_and_checked_in_parts() {
        // A table over the first read (64 KiB) and a body over two groups (1 MiB each).
        let json = format!("  {{\n    \"d\": \"{}\"\n  }}", "\u{e9}".repeat(500));
        let entries: Vec<(String, String)> =
            (0..3000).map(|n| (format!("vm-{n}"), stamp(n))).collect();
        let listed: Vec<(&str, String, &str)> = entries
            .iter()
            .map(|(k, s)| (k.as_str(), s.clone(), json.as_str()))
            .collect();
        let bytes = file(&listed);
        let step = json.len() + SEP.len();
        let body = bytes.len() - 3000 * step;
        assert!(body > 64 * 1024 && bytes.len() - body > 2 * GROUP);
        let cache = read(&bytes).expect("a cache");
        assert_eq!(cache.table.len(), body);
        assert_eq!(cache.entries.len(), 3000);
        for (n, e) in cache.entries.iter().enumerate() {
            assert_eq!(e.json, body + n * step..body + n * step + json.len());
            assert_eq!(&cache.table[e.key.clone()], format!("vm-{n}").as_bytes());
            assert_eq!(&cache.table[e.stamp.clone()], stamp(n as u64).as_bytes());
        }
        // A broken byte far into the body (its third group) is found too.
        let mut broken = bytes.clone();
        broken[body + 2500 * step + 20] = 0xff;
        assert!(read(&broken).is_none());
        let mut not_object = bytes.clone();
        not_object[body + 2999 * step + 2] = b'[';
        assert!(read(&not_object).is_none());
        // A file known to be as written is not checked again: only its table is read.
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("json");
        std::fs::write(&path, &broken).expect("write");
        let trusted = JsonCache::checked(File::open(&path).expect("open"), true);
        assert_eq!(trusted.expect("read as written").entries.len(), 3000);
    }

    #[test]
    fn an_element_is_the_pretty_json_one_level_deep() {
        let mut bead = Bead::new("vm-1".into(), "Title\nwith a break".into());
        bead.description = "line one\nline two".into();
        let whole = serde_json::to_string_pretty(&vec![&bead]).expect("json");
        let element = String::from_utf8(element(&bead)).expect("UTF-8");
        assert_eq!(whole, format!("[\n{element}\n]"));
    }
}
