//! The rest of each bead's JSON (notes, criteria, approval, description: what the index
//! lines leave out) kept beside the index in `.beads/.cache/tails`, so a long `--json`
//! listing is written without opening every shown bead's file.
//!
//! An entry is a line: the bead's id, the stamp of the file it was made from (as an index
//! line has, see [`crate::store::index`]), then the JSON members, newlines written as
//! [`ITEM`] (JSON escapes every control character inside a string, so neither a newline, a
//! tab nor [`ITEM`] is ever part of the text). An entry is used only while its file still
//! has that stamp, and only files older than the racy window are cached, so a hand edit is
//! seen at once; a missing, stale or malformed entry means the file is read, and the cache
//! is written anew. Readers take no lock: the cache is replaced whole.

use super::idmap::IdMap;
use super::model::Bead;
use super::table::{self, Column};
use crate::store::index::{FileStamp, ITEM, now_ns};
use crate::store::write_atomic;
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::PathBuf;

/// First line of the cache; a different one means "rebuild".
const HEADER: &str = "vermas-tails 2";

/// How every tail starts (a cheap check that an entry is one): the first member the index
/// line leaves out, which is never omitted.
const TAIL_START: &str = "  \"notes\": ";
const _: () = {
    let first = table::FIELDS[table::row(table::FIRST_LEFT)];
    assert!(!first.omit_empty);
    assert!(table::row(table::FIRST_LEFT) == table::row("notes"));
};

/// Where the cache lives.
pub fn tails_path(ws: &Workspace) -> PathBuf {
    ws.cache_dir().join("tails")
}

/// The members of a bead's JSON its index line leaves out (the rows of
/// [`table::FIELDS`] from the first [`Column::Left`] one on), as [`Bead`] writes them.
struct Tail<'a>(&'a Bead);

impl Serialize for Tail<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for (field, value) in table::FIELDS.iter().zip(self.0.fields()) {
            if field.column == Column::Left && !(field.omit_empty && value.is_empty()) {
                map.serialize_entry(field.name, &value)?;
            }
        }
        map.end()
    }
}

/// The members of `bead`'s pretty JSON its index line leaves out, as they stand inside
/// its object (indented one level, no comma before the first), newlines as [`ITEM`];
/// `None` when its index line cannot stand for the rest (a sole empty label reads back as
/// none).
pub fn tail_of(bead: &Bead) -> Option<String> {
    if bead.labels.len() == 1 && bead.labels[0].is_empty() {
        return None;
    }
    let text = serde_json::to_string_pretty(&Tail(bead)).ok()?;
    let members = text.strip_prefix("{\n")?.strip_suffix("\n}")?;
    Some(members.replace('\n', ITEM.encode_utf8(&mut [0; 4])))
}

/// Appends `tail` (see [`tail_of`]) after the members [`super::front::write_open`] wrote,
/// and closes the object.
pub fn write_close(out: &mut Vec<u8>, tail: &str) {
    for (i, member) in tail.as_bytes().split(|&b| b == ITEM as u8).enumerate() {
        out.extend_from_slice(if i == 0 { b",\n  " } else { b"\n  " });
        out.extend_from_slice(member);
    }
    out.extend_from_slice(b"\n  }");
}

/// The cached tails of some beads.
#[derive(Debug, Default)]
pub struct Tails {
    /// The tails found, one after another, in parts (one per thread that read them).
    parts: Vec<String>,
    /// Per wanted bead, where its tail lies in the parts taken as one text.
    found: Vec<Option<Range<usize>>>,
}

impl Tails {
    /// The tail of wanted bead `n`, when cached and current.
    pub fn get(&self, n: usize) -> Option<&str> {
        let mut range = self.found.get(n)?.clone()?;
        for part in &self.parts {
            if range.start < part.len() {
                return part.get(range);
            }
            range = range.start - part.len()..range.end - part.len();
        }
        None
    }

    /// Sets the tail of wanted bead `n` to `tail`, made from its file just now.
    pub fn insert(&mut self, n: usize, tail: &str) {
        let before: usize = self.parts.iter().map(String::len).sum();
        if let Some(slot) = self.found.get_mut(n) {
            if self.parts.is_empty() {
                self.parts.push(String::new());
            }
            let last = self.parts.len() - 1;
            let start = before;
            self.parts[last].push_str(tail);
            *slot = Some(start..start + tail.len());
        }
    }
}

/// One entry of the cache: its key, stamp and tail; `None` when malformed.
fn entry(line: &[u8]) -> Option<(&str, FileStamp, &str)> {
    let line = std::str::from_utf8(line.strip_suffix(b"\n")?).ok()?;
    let mut parts = line.splitn(6, '\t');
    let key = parts.next()?;
    let mut number = || parts.next()?.parse::<i128>().ok();
    let stamp = FileStamp {
        size: u64::try_from(number()?).ok()?,
        mtime_ns: number()?,
        ctime_ns: number()?,
        ino: u64::try_from(number()?).ok()?,
    };
    let tail = parts.next()?;
    (tail.starts_with(TAIL_START) && tail.ends_with('"') && !tail.contains('\t'))
        .then_some((key, stamp, tail))
}

/// The key of an entry (before its first tab).
fn entry_key(line: &[u8]) -> Option<&[u8]> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    Some(&line[..tab])
}

/// Calls `each` with every line of the cache after a matching header (each with its
/// newline, a last line without one included: [`entry`] refuses it).
fn each_line(ws: &Workspace, mut each: impl FnMut(&[u8])) {
    let Ok(file) = std::fs::File::open(tails_path(ws)) else {
        return;
    };
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::with_capacity(1024);
    if reader.read_until(b'\n', &mut line).is_err() || line != format!("{HEADER}\n").as_bytes() {
        return;
    }
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => each(&line),
        }
    }
}

/// The cached tails of `wanted` (each bead's id and its file's stamp as just stat'ed), in
/// that order: read in large blocks, a big cache in parts cut at line starts (one per
/// core, read on the idle ones), keeping only those.
pub fn load(ws: &Workspace, wanted: &[(&str, FileStamp)]) -> Tails {
    let mut tails = Tails {
        parts: Vec::new(),
        found: vec![None; wanted.len()],
    };
    let Ok(file) = std::fs::File::open(tails_path(ws)) else {
        return tails;
    };
    let size = file.metadata().map_or(0, |m| m.len());
    let Some(first) = after_header(&file) else {
        return tails;
    };
    let mut by_key: IdMap<&[u8], usize> = IdMap::default();
    by_key.reserve(wanted.len());
    for (n, (key, _)) in wanted.iter().enumerate() {
        by_key.insert(key.as_bytes(), n);
    }
    // A big cache in as many parts as there are cores, read on those idle now.
    let parts = if size - first >= SPLIT_FROM {
        crate::sys::par::cores()
    } else {
        1
    };
    let ranges = line_ranges(&file, first, size, parts);
    let read = crate::sys::par::pool(ranges.len(), crate::sys::par::idle_cores(), |i| {
        let (from, to) = ranges[i];
        // The kept tails are never longer than the range: room for them all at once, so
        // the text is never copied to grow. When most of the range is wanted (a long
        // listing), the room is made present in one call; for a few tails it is left to
        // fault in, so pages never written to cost no memory.
        let room = usize::try_from(to - from).unwrap_or(0);
        let mut text = if wanted.len() >= MANY_TAILS {
            crate::sys::mem::string_present(room)
        } else {
            String::with_capacity(room)
        };
        let mut found = Vec::new();
        let read = each_block_line(&file, from, to, |line| {
            let Some(&n) = entry_key(line).and_then(|k| by_key.get(k)) else {
                return true;
            };
            if let Some((_, stamp, tail)) = entry(line)
                && stamp == wanted[n].1
            {
                // Offsets within one part: a part of 4 GiB would not be a cache.
                let start = text.len();
                text.push_str(tail);
                if let (Ok(n), Ok(start), Ok(end)) = (
                    u32::try_from(n),
                    u32::try_from(start),
                    u32::try_from(text.len()),
                ) {
                    found.push((n, start, end));
                }
            }
            true
        });
        // Kept while the listing is written: no spare room.
        text.shrink_to_fit();
        read.map(|()| (text, found))
    });
    let mut offset = 0;
    for part in read {
        let Ok((text, found)) = part else {
            tails.parts.clear();
            tails.found.iter_mut().for_each(|f| *f = None);
            return tails;
        };
        // An id found twice: the first in the file counts.
        for (n, start, end) in found {
            let slot = &mut tails.found[n as usize];
            if slot.is_none() {
                *slot = Some(start as usize + offset..end as usize + offset);
            }
        }
        offset += text.len();
        tails.parts.push(text);
    }
    tails
}

/// From how many bytes of entries the cache is read on more than one core.
const SPLIT_FROM: u64 = 1 << 20;

/// Wanted tails from which a part's room is made present at once (see [`crate::sys::mem`]).
const MANY_TAILS: usize = 1000;

/// Where the entries of the cache `file` start: after its header line, when it is the
/// one this version writes.
fn after_header(file: &std::fs::File) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let want = format!("{HEADER}\n");
    let mut head = vec![0; want.len()];
    file.read_exact_at(&mut head, 0).ok()?;
    (head == want.as_bytes()).then_some(want.len() as u64)
}

/// `[first, size)` of `file` cut into up to `parts` ranges, each starting at a line.
fn line_ranges(file: &std::fs::File, first: u64, size: u64, parts: usize) -> Vec<(u64, u64)> {
    use std::os::unix::fs::FileExt;
    let mut cuts = vec![first];
    let step = (size - first) / parts.max(1) as u64;
    for i in 1..parts as u64 {
        let from = (first + i * step).max(*cuts.last().unwrap_or(&first));
        // The line start after `from`: past the next newline.
        let mut window = vec![0; 1 << 16];
        let mut at = from;
        let cut = loop {
            let n = match file.read_at(&mut window, at) {
                Ok(0) | Err(_) => break size,
                Ok(n) => n,
            };
            if let Some(nl) = window[..n].iter().position(|&b| b == b'\n') {
                break at + nl as u64 + 1;
            }
            at += n as u64;
        };
        if cut < size && cut > *cuts.last().unwrap_or(&first) {
            cuts.push(cut);
        }
    }
    cuts.iter()
        .zip(cuts.iter().skip(1).chain(std::iter::once(&size)))
        .map(|(&a, &b)| (a, b))
        .collect()
}

/// Calls `each` with every whole line of `file` between `from` and `to` (with its
/// newline; a last line without one is left out) until it returns false, reading large
/// blocks rather than line by line. `from` must start a line.
fn each_block_line(
    file: &std::fs::File,
    from: u64,
    to: u64,
    mut each: impl FnMut(&[u8]) -> bool,
) -> std::io::Result<()> {
    use std::io::BufRead;
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0; 1 << 18];
    let mut filled = 0;
    let mut at = from;
    loop {
        if filled == buf.len() {
            // A line longer than the block.
            buf.resize(buf.len() * 2, 0);
        }
        let room = (buf.len() - filled).min(usize::try_from(to - at).unwrap_or(usize::MAX));
        if room == 0 {
            return Ok(());
        }
        let n = match file.read_at(&mut buf[filled..filled + room], at) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        at += n as u64;
        let mut start = 0;
        let end = filled + n;
        // Only the new bytes can hold the end of the pending line.
        let mut search = filled;
        // `skip_until` finds the newline a word at a time, copying nothing.
        while let Ok(len) = (&mut &buf[search..end]).skip_until(b'\n')
            && len > 0
            && buf[search + len - 1] == b'\n'
        {
            let line_end = search + len;
            if !each(&buf[start..line_end]) {
                return Ok(());
            }
            start = line_end;
            search = line_end;
        }
        buf.copy_within(start..end, 0);
        filled = end - start;
    }
}

/// Writes the cache anew: its entries still current for `current` (every bead's id and
/// its file's stamp), then the `fresh` ones (id, stamp, tail) whose files are settled.
/// Best effort: a cache that cannot be written is made again next time.
pub fn save(ws: &Workspace, current: &HashMap<&str, FileStamp>, fresh: &[(&str, FileStamp, &str)]) {
    use std::fmt::Write;
    let now = now_ns();
    let fresh: Vec<_> = fresh
        .iter()
        .filter(|(_, stamp, _)| stamp.ino != 0 && stamp.settled(now))
        .collect();
    if fresh.is_empty() {
        return;
    }
    let mut written: HashSet<String> = fresh.iter().map(|(k, ..)| k.to_string()).collect();
    let mut out = String::with_capacity(1 << 20);
    out.push_str(HEADER);
    out.push('\n');
    each_line(ws, |line| {
        if let Some((key, stamp, _)) = entry(line)
            && current.get(key) == Some(&stamp)
            && written.insert(key.to_string())
        {
            // `entry` checked the line is UTF-8.
            out.push_str(std::str::from_utf8(line).unwrap_or_default());
        }
    });
    for (key, s, tail) in fresh {
        let _ = writeln!(
            out,
            "{key}\t{}\t{}\t{}\t{}\t{tail}",
            s.size, s.mtime_ns, s.ctime_ns, s.ino
        );
    }
    let _ = write_atomic(&ws.cache_dir(), &tails_path(ws), out.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::each_block_line;
    use std::io::{Seek, Write};

    /// The lines `each_block_line` gives for a file holding `text`.
    fn lines_of(text: &[u8]) -> Vec<Vec<u8>> {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text).unwrap();
        file.rewind().unwrap();
        let mut out = Vec::new();
        each_block_line(&file, 0, text.len() as u64, |l| {
            out.push(l.to_vec());
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn whole_lines_across_blocks_and_longer_than_a_block() {
        let long = vec![b'x'; 600_000];
        let mut text = b"a\n".to_vec();
        text.extend_from_slice(&long);
        text.extend_from_slice(b"\nb\nlast without newline");
        let lines = lines_of(&text);
        let mut want_long = long.clone();
        want_long.push(b'\n');
        assert_eq!(lines, vec![b"a\n".to_vec(), want_long, b"b\n".to_vec()]);
    }

    #[test]
    fn ranges_cut_at_line_starts_cover_the_file_and_read_each_line_once() {
        let text: String = (0..50_000).map(|n| format!("line {n}\n")).collect();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        let size = text.len() as u64;
        for parts in [1, 2, 3, 7] {
            let ranges = super::line_ranges(&file, 5, size, parts);
            assert_eq!(ranges.len(), parts, "{ranges:?}");
            assert_eq!(ranges[0].0, 5);
            assert_eq!(ranges.last().unwrap().1, size);
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].1, pair[1].0, "contiguous");
                assert_eq!(
                    text.as_bytes()[pair[1].0 as usize - 1],
                    b'\n',
                    "a line start"
                );
            }
            let mut lines = Vec::new();
            for (from, to) in &ranges {
                each_block_line(&file, *from, *to, |l| {
                    lines.push(l.to_vec());
                    true
                })
                .unwrap();
            }
            // The first range starts inside line 0: its rest, then every other line.
            assert_eq!(lines.len(), 50_000, "{parts} parts");
            assert_eq!(lines[1], b"line 1\n");
            assert_eq!(lines[49_999], b"line 49999\n");
        }
    }

    #[test]
    fn many_short_lines_all_read_in_order() {
        let text: String = (0..100_000).map(|n| format!("{n}\n")).collect();
        let lines = lines_of(text.as_bytes());
        assert_eq!(lines.len(), 100_000);
        assert_eq!(lines[99_999], b"99999\n");
        assert_eq!(lines[12_345], b"12345\n");
    }
}
