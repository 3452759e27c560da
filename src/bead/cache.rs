//! A rebuildable index of parsed beads in `.beads/.cache/index.json`.
//!
//! The bead files stay the source of truth: every file is stat'ed on each load and any
//! file whose size, modification time or inode differs from its cache entry is parsed
//! again, so a hand edit is seen at once. Files changed in the last two seconds are never
//! cached (their timestamps could still repeat), and a missing or unreadable cache is
//! simply rebuilt.

use super::model::Bead;
use super::store::{BeadSet, read_bead};
use crate::error::{Error, Result};
use crate::store::write_atomic;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::time::{SystemTime, UNIX_EPOCH};

const CACHE_VERSION: u32 = 1;
/// Files younger than this are parsed every time.
const RACY_NANOS: i128 = 2_000_000_000;

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// One cached bead.
#[derive(Serialize, Deserialize)]
struct Entry {
    stamp: FileStamp,
    bead: Bead,
    description: String,
}

/// The cache file.
#[derive(Serialize, Deserialize, Default)]
struct Index {
    version: u32,
    entries: BTreeMap<String, Entry>,
}

/// Loads every bead, parsing only the files the cache does not already hold.
pub fn load_all(ws: &Workspace) -> Result<BeadSet> {
    let dir = ws.issues_dir();
    let cache_path = ws.cache_dir().join("index.json");
    let mut index: Index = std::fs::read(&cache_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok())
        .filter(|i| i.version == CACHE_VERSION)
        .unwrap_or_default();
    let read_dir = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BeadSet::default()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let now_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let mut set = BeadSet::default();
    let mut fresh: BTreeMap<String, Entry> = BTreeMap::new();
    let mut dirty = false;
    for dirent in read_dir {
        let dirent = dirent.map_err(|e| Error::io(&dir, e))?;
        let name = dirent.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(id) = name.strip_suffix(".md") else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let path = dirent.path();
        let Ok(md) = std::fs::metadata(&path) else {
            continue;
        };
        if !md.is_file() {
            continue;
        }
        let stamp = FileStamp::of(&md);
        if let Some(entry) = index.entries.remove(id)
            && entry.stamp == stamp
        {
            let mut bead = entry.bead.clone();
            bead.description.clone_from(&entry.description);
            set.beads.insert(id.to_string(), bead);
            fresh.insert(id.to_string(), entry);
            continue;
        }
        dirty = true;
        match read_bead(ws, &path) {
            Ok(mut bead) => {
                if now_ns - stamp.mtime_ns > RACY_NANOS && now_ns - stamp.ctime_ns > RACY_NANOS {
                    let description = std::mem::take(&mut bead.description);
                    let entry = Entry {
                        stamp,
                        bead: bead.clone(),
                        description: description.clone(),
                    };
                    bead.description = description;
                    fresh.insert(id.to_string(), entry);
                }
                set.beads.insert(bead.id.clone(), bead);
            }
            Err(e) => set.broken.push(e),
        }
    }
    if dirty || !index.entries.is_empty() {
        let index = Index {
            version: CACHE_VERSION,
            entries: fresh,
        };
        // Best effort: a cache that cannot be written is rebuilt next time.
        if let Ok(bytes) = serde_json::to_vec(&index) {
            let _ = write_atomic(&ws.cache_dir(), &cache_path, &bytes);
        }
    }
    Ok(set)
}
