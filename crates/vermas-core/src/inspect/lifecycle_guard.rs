//! Keeping lifecycle hooks out of the records: a snapshot of every record file under
//! `.beads/` taken before a hook runs, compared after it, and any change the hook made
//! undone, so what a hook writes there is never committed by vermas nor read as criteria.

use crate::workspace::Workspace;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record files under `.beads/` and their content.
pub(crate) struct Snapshot {
    /// Each file with its bytes.
    files: BTreeMap<PathBuf, Vec<u8>>,
}

/// True for what is vermas's own scratch, not a record: the cache, the lock, temporary
/// and partial files.
fn scratch(rel: &Path) -> bool {
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy());
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    matches!(first.as_deref(), Some(".cache" | ".lock" | "tmp"))
        || name.ends_with(".tmp")
        || name.ends_with(".partial")
}

impl Snapshot {
    /// The record files of `ws` as they are now.
    pub(crate) fn take(ws: &Workspace) -> Snapshot {
        let mut files = BTreeMap::new();
        for entry in walkdir::WalkDir::new(&ws.beads_dir)
            .into_iter()
            .filter_entry(|e| {
                e.path()
                    .strip_prefix(&ws.beads_dir)
                    .is_ok_and(|rel| rel.as_os_str().is_empty() || !scratch(rel))
            })
            .filter_map(std::result::Result::ok)
            .filter(|e| e.file_type().is_file())
        {
            if let Ok(bytes) = std::fs::read(entry.path()) {
                files.insert(entry.path().to_path_buf(), bytes);
            }
        }
        Snapshot { files }
    }

    /// Undoes every change made since the snapshot (files written back, new ones
    /// removed); returns the paths that had changed, as `ws` shows them.
    pub(crate) fn undo_changes(&self, ws: &Workspace) -> Vec<String> {
        let now = Snapshot::take(ws);
        let mut changed = Vec::new();
        for (path, bytes) in &self.files {
            if now.files.get(path) != Some(bytes) {
                // Best effort: a file that cannot be put back is still named as changed.
                let _ = std::fs::write(path, bytes);
                changed.push(ws.display(path));
            }
        }
        for path in now.files.keys().filter(|p| !self.files.contains_key(*p)) {
            // Best effort, as above.
            let _ = std::fs::remove_file(path);
            changed.push(ws.display(path));
        }
        changed
    }
}
