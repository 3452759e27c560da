//! A rebuildable index of parsed beads in `.beads/.cache/index`.
//!
//! The bead files stay the source of truth: every file is stat'ed on each load and any
//! file whose size, modification time, change time or inode differs from its entry is
//! parsed again, so a hand edit is seen at once. Files changed in the last two seconds are
//! never cached (their timestamps could still repeat), and a missing or unreadable index
//! is simply rebuilt. Entries leave out descriptions and notes (most of the bytes); such
//! beads are marked `partial` and completed from their files when a command shows them.
//!
//! The format is one line per bead of tab-separated fields, escaped with backslashes, so
//! ten thousand beads decode in a few milliseconds.

use super::model::{Bead, Dependency};
use super::store::{BeadSet, read_bead};
use crate::error::{Error, Result};
use crate::store::write_atomic;
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Deserialize;
use serde::de::IntoDeserializer;
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::time::{SystemTime, UNIX_EPOCH};

/// First line of the index; a different one means "rebuild".
const HEADER: &str = "vermas-index 3";
/// Files younger than this are parsed every time.
const RACY_NANOS: i128 = 2_000_000_000;
/// Separates items of a list field.
const ITEM: char = '\u{1f}';
/// Separates the parts of one item.
const PART: char = '\u{1e}';

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl FileStamp {
    fn of(md: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            size: md.len(),
            mtime_ns: i128::from(md.mtime()) * 1_000_000_000 + i128::from(md.mtime_nsec()),
            ctime_ns: i128::from(md.ctime()) * 1_000_000_000 + i128::from(md.ctime_nsec()),
            ino: md.ino(),
        }
    }
}

/// What one bead file turned out to be.
enum Found {
    /// Its index entry was current.
    Cached(Bead, FileStamp),
    /// It was parsed; cache it only if `cacheable`.
    Parsed(Result<Bead>, FileStamp, bool),
}

/// Loads every bead, parsing only the files the index does not already hold.
pub fn load_all(ws: &Workspace) -> Result<BeadSet> {
    let dir = ws.issues_dir();
    let index_path = ws.cache_dir().join("index");
    let index_text = std::fs::read_to_string(&index_path).unwrap_or_default();
    let index = decode_index(&index_text);
    let read_dir = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BeadSet::default()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut entries = Vec::new();
    for dirent in read_dir {
        let dirent = dirent.map_err(|e| Error::io(&dir, e))?;
        let name = dirent.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.ends_with(".md") && !n.starts_with('.'))
        {
            entries.push(dirent);
        }
    }
    let now_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    // Stat and decode on every core: the per-file stat is most of the cost.
    let threads = if entries.len() < 512 {
        1
    } else {
        crate::check::default_jobs()
    };
    let chunk = entries.len().div_ceil(threads.max(1)).max(1);
    let found: Vec<Vec<Found>> = std::thread::scope(|scope| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                scope.spawn(|| {
                    part.iter()
                        .filter_map(|d| examine(ws, d, &index, now_ns))
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let found: Vec<Found> = found.into_iter().flatten().collect();
    let cached = found
        .iter()
        .filter(|f| matches!(f, Found::Cached(..)))
        .count();
    // Rewrite the index when a file was parsed or an entry's file is gone.
    let dirty = cached != found.len() || cached != index.len();
    let mut out = dirty.then(|| {
        let mut out = String::with_capacity(index_text.len() + 4096);
        out.push_str(HEADER);
        out.push('\n');
        out
    });
    let mut set = BeadSet::default();
    for f in found {
        let (bead, stamp) = match f {
            Found::Cached(bead, stamp) => (bead, Some(stamp)),
            Found::Parsed(Ok(bead), stamp, settled) => (bead, settled.then_some(stamp)),
            Found::Parsed(Err(e), ..) => {
                set.broken.push(e);
                continue;
            }
        };
        if let (Some(out), Some(stamp)) = (out.as_mut(), stamp) {
            encode_bead(out, &bead, stamp);
        }
        set.beads.insert(bead.id.clone(), bead);
    }
    if let Some(out) = out {
        // Best effort: an index that cannot be written is rebuilt next time.
        let _ = write_atomic(&ws.cache_dir(), &index_path, out.as_bytes());
    }
    Ok(set)
}

/// Stats one bead file and takes it from the index when current, else parses it.
fn examine(
    ws: &Workspace,
    dirent: &std::fs::DirEntry,
    index: &HashMap<&str, (FileStamp, &str)>,
    now_ns: i128,
) -> Option<Found> {
    // fstatat on the open folder: no path walk per file.
    let md = dirent.metadata().ok()?;
    if !md.is_file() {
        return None;
    }
    let name = dirent.file_name();
    let id = name.to_str()?.strip_suffix(".md")?;
    let stamp = FileStamp::of(&md);
    if let Some((cached, line)) = index.get(id)
        && *cached == stamp
        && let Some(bead) = decode_bead(id, line)
    {
        return Some(Found::Cached(bead, stamp));
    }
    let settled = now_ns - stamp.mtime_ns > RACY_NANOS && now_ns - stamp.ctime_ns > RACY_NANOS;
    Some(Found::Parsed(read_bead(ws, &dirent.path()), stamp, settled))
}

/// Splits the index into id -> (stamp, rest of the line); empty when the header differs.
fn decode_index(text: &str) -> HashMap<&str, (FileStamp, &str)> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return HashMap::new();
    }
    let mut out = HashMap::new();
    for line in lines {
        let mut f = line.splitn(6, '\t');
        let (Some(id), Some(size), Some(mtime), Some(ctime), Some(ino), Some(rest)) =
            (f.next(), f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            continue;
        };
        let stamp = (|| {
            Some(FileStamp {
                size: size.parse().ok()?,
                mtime_ns: mtime.parse().ok()?,
                ctime_ns: ctime.parse().ok()?,
                ino: ino.parse().ok()?,
            })
        })();
        if let Some(stamp) = stamp {
            out.insert(id, (stamp, rest));
        }
    }
    out
}

/// Appends one bead's line.
fn encode_bead(out: &mut String, b: &Bead, s: FileStamp) {
    let partial = b.partial
        || !b.description.is_empty()
        || !b.notes.is_empty()
        || !b.acceptance_criteria.is_empty();
    let opt = |v: &Option<String>| v.as_ref().map_or(String::new(), |s| format!("+{}", esc(s)));
    let time = |t: &Option<Timestamp>| t.map_or(String::new(), |t| t.0.to_string());
    let labels: Vec<String> = b.labels.iter().map(|l| esc(l)).collect();
    let deps: Vec<String> = b
        .dependencies
        .iter()
        .map(|d| format!("{}{PART}{}", esc(&d.depends_on_id), d.dep_type))
        .collect();
    let fields = [
        esc(&b.id),
        s.size.to_string(),
        s.mtime_ns.to_string(),
        s.ctime_ns.to_string(),
        s.ino.to_string(),
        u8::from(partial).to_string(),
        esc(&b.title),
        b.status.to_string(),
        b.priority.to_string(),
        b.issue_type.to_string(),
        labels.join(&ITEM.to_string()),
        opt(&b.assignee),
        time(&b.created_at),
        opt(&b.created_by),
        time(&b.updated_at),
        time(&b.closed_at),
        opt(&b.close_reason),
        opt(&b.parent),
        opt(&b.spec),
        deps.join(&ITEM.to_string()),
    ];
    out.push_str(&fields.join("\t"));
    out.push('\n');
}

/// Rebuilds a (partial) bead from the fields after the stamp; `None` if malformed.
fn decode_bead(id: &str, rest: &str) -> Option<Bead> {
    let f: Vec<&str> = rest.split('\t').collect();
    if f.len() != 15 {
        return None;
    }
    let opt = |s: &str| s.strip_prefix('+').map(unesc);
    let time = |s: &str| -> Option<Option<Timestamp>> {
        if s.is_empty() {
            Some(None)
        } else {
            s.parse().ok().map(|n| Some(Timestamp(n)))
        }
    };
    let list = |s: &str| -> Vec<String> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split(ITEM).map(unesc).collect()
        }
    };
    let mut b = Bead::new(unesc(id), unesc(f[1]));
    b.partial = f[0] == "1";
    b.status = choice(f[2])?;
    b.priority = f[3].parse().ok()?;
    b.issue_type = choice(f[4])?;
    b.labels = list(f[5]);
    b.assignee = opt(f[6]);
    b.created_at = time(f[7])?;
    b.created_by = opt(f[8]);
    b.updated_at = time(f[9])?;
    b.closed_at = time(f[10])?;
    b.close_reason = opt(f[11]);
    b.parent = opt(f[12]);
    b.spec = opt(f[13]);
    for item in list(f[14]) {
        let (target, kind) = item.split_once(PART)?;
        b.dependencies.push(Dependency {
            depends_on_id: target.to_string(),
            dep_type: choice(kind)?,
        });
    }
    Some(b)
}

/// An enum from its serde spelling.
fn choice<T: for<'de> Deserialize<'de>>(s: &str) -> Option<T> {
    let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> = s.into_deserializer();
    T::deserialize(de).ok()
}

/// Escapes the characters the format uses as separators.
fn esc(s: &str) -> String {
    if !s.contains(['\\', '\t', '\n', '\r', ITEM, PART]) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            ITEM => out.push_str("\\i"),
            PART => out.push_str("\\p"),
            c => out.push(c),
        }
    }
    out
}

/// Undoes [`esc`].
fn unesc(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('i') => out.push(ITEM),
            Some('p') => out.push(PART),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::{DepType, Status};

    #[test]
    fn lines_round_trip() {
        let mut b = Bead::new(
            "vm-1".into(),
            "Tab\there, newline\nthere \\ and \u{1f}".into(),
        );
        b.status = Status::InProgress;
        b.labels = vec!["a:b".into(), "c".into()];
        b.assignee = Some(String::new());
        b.created_at = Some(Timestamp(1_700_000_000));
        b.dependencies.push(Dependency {
            depends_on_id: "vm-2".into(),
            dep_type: DepType::DiscoveredFrom,
        });
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            ino: 4,
        };
        let mut text = format!("{HEADER}\n");
        encode_bead(&mut text, &b, stamp);
        let index = decode_index(&text);
        let (s, rest) = index["vm-1"];
        assert_eq!(s, stamp);
        assert_eq!(decode_bead("vm-1", rest).unwrap(), b);
        assert!(decode_index("other header\n").is_empty());
    }
}
