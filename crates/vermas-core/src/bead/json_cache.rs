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
//! cache written anew. Readers take no lock: the cache is replaced whole.

use super::idmap::IdMap;
use super::model::Bead;
use crate::store::index::{now_ns, read_stamp};
use crate::store::write_atomic;
use crate::sys::mem::MappedFile;
use crate::workspace::Workspace;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

/// First line of the cache; a different one means "rebuild".
const HEADER: &str = "vermas-json 1";

/// What follows every element in the body: what separates two elements of an array.
const SEP: &[u8] = b",\n";

/// Where the cache lives.
pub(crate) fn json_cache_path(ws: &Workspace) -> PathBuf {
    ws.cache_dir().join("json")
}

/// `bead`'s pretty JSON as an element of a pretty array: every line indented one level,
/// no comma; exactly what the pretty JSON of a list of beads holds for it.
pub(crate) fn element(bead: &Bead) -> Vec<u8> {
    let mut out = b"  ".to_vec();
    // Writing into memory cannot fail, and a bead always serialises.
    let _ = serde_json::to_writer_pretty(Indented(&mut out), bead);
    out
}

/// A writer into a buffer that indents every line after the first by two spaces (pretty
/// JSON has line breaks only between tokens, so this nests it one level deeper).
struct Indented<'o>(&'o mut Vec<u8>);

impl std::io::Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Most pieces (keys, strings, numbers) hold no line break: one search, one copy.
        if !buf.contains(&b'\n') {
            self.0.extend_from_slice(buf);
            return Ok(buf.len());
        }
        let mut rest = buf;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.0.extend_from_slice(&rest[..=at]);
            self.0.extend_from_slice(b"  ");
            rest = &rest[at + 1..];
        }
        self.0.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        // Every write takes all of its bytes: no loop needed.
        self.write(buf).map(|_| ())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The cached JSON of some beads: the cache's bytes, and where each wanted bead's JSON
/// lies in them.
#[derive(Debug, Default)]
pub(crate) struct Elements {
    /// The whole cache file (`None` when it was not read).
    bytes: Option<MappedFile>,
    /// Per wanted bead, where its JSON lies in `bytes` (always followed by [`SEP`]).
    found: Vec<Option<Range<usize>>>,
}

impl Elements {
    /// Where the JSON of wanted bead `n` lies in [`Elements::bytes`], when cached and
    /// current.
    pub(crate) fn get(&self, n: usize) -> Option<Range<usize>> {
        self.found.get(n)?.clone()
    }

    /// The bytes the ranges point into.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.bytes.as_deref().unwrap_or_default()
    }

    /// How many bytes separate one element from the next in [`Elements::bytes`]: the
    /// JSON array's own separator.
    pub(crate) const SEP_LEN: usize = SEP.len();
}

/// One entry of a cache: where the bead's id, its file's stamp (as text) and its JSON
/// lie in the file.
#[derive(Debug, Clone)]
struct Entry {
    /// The id.
    key: Range<usize>,
    /// The stamp, as the index line has it.
    stamp: Range<usize>,
    /// The JSON (always followed by [`SEP`]).
    json: Range<usize>,
}

/// The entries of a cache file; `None` when the file is not one this version reads
/// whole (another header, lengths that do not add up to the body, an element that is not
/// an object, bytes that are not UTF-8).
fn parse(bytes: &[u8]) -> Option<Vec<Entry>> {
    let mut lines = bytes.split_inclusive(|&b| b == b'\n');
    if lines.next()? != format!("{HEADER}\n").as_bytes() {
        return None;
    }
    let count_line = lines.next()?;
    let count: usize = std::str::from_utf8(count_line.strip_suffix(b"\n")?)
        .ok()?
        .parse()
        .ok()?;
    let mut table = Vec::with_capacity(count.min(bytes.len() / 16));
    let mut at = HEADER.len() + 1 + count_line.len();
    for _ in 0..count {
        let end = at + bytes.get(at..)?.iter().position(|&b| b == b'\n')?;
        table.push(entry(bytes, at, end)?);
        at = end + 1;
    }
    // Every element is text (each id was checked as it was read).
    std::str::from_utf8(&bytes[at..]).ok()?;
    for e in &mut table {
        // Until now `json` held the length alone.
        let end = at.checked_add(e.json.end)?;
        let element = bytes.get(at..end)?;
        if !(element.starts_with(b"  {") && element.ends_with(b"}"))
            || bytes.get(end..end + SEP.len())? != SEP
        {
            return None;
        }
        e.json = at..end;
        at = end + SEP.len();
    }
    (at == bytes.len()).then_some(table)
}

/// The table's line at `at`, ending at `end` (its newline): `id`, the four stamp fields
/// as an index line has them, the JSON's length (as `json`'s end, for [`parse`] to place).
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

/// The cache file, mapped; `None` when there is none.
fn map_cache(ws: &Workspace) -> Option<MappedFile> {
    MappedFile::of(&std::fs::File::open(json_cache_path(ws)).ok()?)
}

/// A cache file mapped and checked whole: its entries, to be matched against a listing
/// ([`JsonCache::elements`]). Read on its own (see [`reading_json_cache`]) so a listing
/// can read it while it works out what it shows.
#[derive(Debug, Default)]
pub struct JsonCache {
    /// The file (`None` when there is none, or it was not one to read).
    bytes: Option<MappedFile>,
    /// Its entries, in the file's order.
    entries: Vec<Entry>,
}

impl JsonCache {
    /// The cache of `ws`; empty when there is none or it is not one this version reads.
    pub fn read(ws: &Workspace) -> JsonCache {
        map_cache(ws)
            .and_then(|bytes| {
                let entries = parse(&bytes)?;
                Some(JsonCache {
                    bytes: Some(bytes),
                    entries,
                })
            })
            .unwrap_or_default()
    }

    /// The cached JSON of `wanted` (each bead's id and its file's current stamp, as its
    /// index line has it), in that order.
    pub(crate) fn elements(self, wanted: &[(&str, &str)]) -> Elements {
        let found = match_entries(
            self.bytes.as_deref().unwrap_or_default(),
            &self.entries,
            wanted,
        );
        Elements {
            found,
            bytes: self.bytes,
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

/// Writes the cache anew: its entries still current for `current` (every bead's id and
/// its file's stamp as text), then the `fresh` ones (id, stamp as text, JSON) whose files
/// are settled, in the order given (a listing's order: the next such listing writes them
/// in one run). Best effort: a cache that cannot be written is made again next time.
pub(crate) fn save(ws: &Workspace, current: &HashMap<&str, &str>, fresh: &[(&str, &str, &[u8])]) {
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
    let old = map_cache(ws);
    let old = old.as_deref().unwrap_or_default();
    let mut entries: Vec<(&str, &str, &[u8])> = Vec::new();
    for e in parse(old).unwrap_or_default() {
        // Both were checked as text by `parse`.
        let text = |r: Range<usize>| std::str::from_utf8(&old[r]).unwrap_or_default();
        let (key, stamp) = (text(e.key), text(e.stamp));
        if current.get(key) == Some(&stamp) && written.insert(key) {
            entries.push((key, stamp, &old[e.json]));
        }
    }
    entries.extend(fresh.iter().map(|(k, s, j)| (*k, *s, *j)));
    let body: usize = entries.iter().map(|(.., j)| j.len() + SEP.len()).sum();
    let mut out = Vec::with_capacity(body + entries.len() * 64 + 32);
    out.extend_from_slice(format!("{HEADER}\n{}\n", entries.len()).as_bytes());
    for (key, stamp, json) in &entries {
        out.extend_from_slice(format!("{key}\t{stamp}\t{}\n", json.len()).as_bytes());
    }
    for (.., json) in &entries {
        out.extend_from_slice(json);
        out.extend_from_slice(SEP);
    }
    let _ = write_atomic(&ws.cache_dir(), &json_cache_path(ws), &out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(n: u64) -> String {
        format!("{n}\t{}\t-1\t{}", n * 10, n + 7)
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
        let parsed = parse(&bytes).expect("a cache");
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
        assert!(parse(&good).is_some());
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
            assert!(parse(&bad).is_none(), "{}", String::from_utf8_lossy(&bad));
        }
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
