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

use super::graph::IdMap;
use super::model::{AcceptanceCriterion, Approval, Bead, Note};
use crate::store::index::{FileStamp, ITEM, now_ns};
use crate::store::write_atomic;
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::PathBuf;

/// First line of the cache; a different one means "rebuild".
const HEADER: &str = "vermas-tails 1";

/// How every tail starts (a cheap check that an entry is one).
const TAIL_START: &str = "  \"notes\": ";

/// Where the cache lives.
pub fn tails_path(ws: &Workspace) -> PathBuf {
    ws.cache_dir().join("tails")
}

/// The members of a bead's JSON after its dependencies, in the order [`Bead`] writes them.
#[derive(Serialize)]
struct Tail<'a> {
    /// Its notes.
    notes: &'a [Note],
    /// Its criteria (left out when none, as [`Bead`] does).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    acceptance_criteria: &'a [AcceptanceCriterion],
    /// Its approval (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    approved: Option<&'a Approval>,
    /// Its body.
    description: &'a str,
}

/// The members of `bead`'s pretty JSON after its dependencies, as they stand inside its
/// object (indented one level, no comma before the first), newlines as [`ITEM`]; `None`
/// when its index line cannot stand for the rest (a sole empty label reads back as none).
pub fn tail_of(bead: &Bead) -> Option<String> {
    if bead.labels.len() == 1 && bead.labels[0].is_empty() {
        return None;
    }
    let tail = Tail {
        notes: &bead.notes,
        acceptance_criteria: &bead.acceptance_criteria,
        approved: bead.approved.as_ref(),
        description: &bead.description,
    };
    let text = serde_json::to_string_pretty(&tail).ok()?;
    let members = text.strip_prefix("{\n")?.strip_suffix("\n}")?;
    Some(members.replace('\n', ITEM.encode_utf8(&mut [0; 4])))
}

/// The cached tails of some beads.
#[derive(Debug, Default)]
pub struct Tails {
    /// The tails found, one after another.
    text: String,
    /// Per wanted bead, where its tail lies in `text`.
    found: Vec<Option<Range<usize>>>,
}

impl Tails {
    /// The tail of wanted bead `n`, when cached and current.
    pub fn get(&self, n: usize) -> Option<&str> {
        let range = self.found.get(n)?.clone()?;
        Some(&self.text[range])
    }

    /// Sets the tail of wanted bead `n` to `tail`, made from its file just now.
    pub fn insert(&mut self, n: usize, tail: &str) {
        if let Some(slot) = self.found.get_mut(n) {
            let start = self.text.len();
            self.text.push_str(tail);
            *slot = Some(start..self.text.len());
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
/// that order: read in one pass over the cache in large blocks, keeping only those.
pub fn load(ws: &Workspace, wanted: &[(&str, FileStamp)]) -> Tails {
    let mut tails = Tails {
        text: String::new(),
        found: vec![None; wanted.len()],
    };
    let Ok(mut file) = std::fs::File::open(tails_path(ws)) else {
        return tails;
    };
    let mut by_key: IdMap<&[u8], usize> = IdMap::default();
    by_key.reserve(wanted.len());
    for (n, (key, _)) in wanted.iter().enumerate() {
        by_key.insert(key.as_bytes(), n);
    }
    // The kept tails are never longer than the file: room for them all at once, so the
    // text is never copied to grow (pages never written to cost no memory).
    let size = file.metadata().map_or(0, |m| m.len());
    tails.text.reserve(usize::try_from(size).unwrap_or(0));
    let mut header = true;
    let read = each_block_line(&mut file, |line| {
        if header {
            header = false;
            return line == format!("{HEADER}\n").as_bytes();
        }
        let Some(&n) = entry_key(line).and_then(|k| by_key.get(k)) else {
            return true;
        };
        if let Some((_, stamp, tail)) = entry(line)
            && stamp == wanted[n].1
            && tails.found[n].is_none()
        {
            let start = tails.text.len();
            tails.text.push_str(tail);
            tails.found[n] = Some(start..tails.text.len());
        }
        true
    });
    if read.is_err() {
        tails.found.iter_mut().for_each(|f| *f = None);
    }
    // Kept while the listing is written: no spare room.
    tails.text.shrink_to_fit();
    tails
}

/// Calls `each` with every whole line of `file` (with its newline; a last line without
/// one is left out) until it returns false, reading large blocks rather than line by line.
fn each_block_line(
    file: &mut std::fs::File,
    mut each: impl FnMut(&[u8]) -> bool,
) -> std::io::Result<()> {
    use std::io::{BufRead, Read};
    let mut buf = vec![0; 1 << 18];
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // A line longer than the block.
            buf.resize(buf.len() * 2, 0);
        }
        let n = match file.read(&mut buf[filled..]) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
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
        each_block_line(&mut file, |l| {
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
    fn many_short_lines_all_read_in_order() {
        let text: String = (0..100_000).map(|n| format!("{n}\n")).collect();
        let lines = lines_of(text.as_bytes());
        assert_eq!(lines.len(), 100_000);
        assert_eq!(lines[99_999], b"99999\n");
        assert_eq!(lines[12_345], b"12345\n");
    }
}
