//! A folder of the ledger on disk against what is committed: every file the commit holds
//! there with the same content, no other file, and no symlink on either side.

use crate::error::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// How the folder `on_disk` differs from `rel` at `commit` of the checkout at `dir`, one
/// line per path.
pub(super) fn differences(
    dir: &Path,
    commit: &str,
    rel: &str,
    on_disk: &Path,
) -> Result<Vec<String>> {
    let listed = crate::git::cli::run(dir, &["ls-tree", "-r", "-z", commit, "--", rel])?;
    let mut committed = BTreeMap::new();
    let mut out = Vec::new();
    for entry in listed.split('\0').filter(|e| !e.is_empty()) {
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let mut words = meta.split(' ');
        let (mode, blob) = (words.next().unwrap_or(""), words.nth(1).unwrap_or(""));
        if mode == "120000" {
            out.push(format!("{path} is a committed symlink"));
        }
        committed.insert(path.to_string(), blob.to_string());
    }
    for entry in walkdir::WalkDir::new(on_disk)
        .follow_links(false)
        .min_depth(1)
    {
        let Ok(entry) = entry else { continue };
        let rel_path = entry
            .path()
            .strip_prefix(on_disk)
            .map(|p| format!("{rel}/{}", p.to_string_lossy()))
            .unwrap_or_default();
        if entry.file_type().is_symlink() {
            out.push(format!("{rel_path} is a symlink"));
            continue;
        }
        if entry.file_type().is_dir() {
            continue;
        }
        let hash = std::fs::read(entry.path())
            .map(|b| crate::sys::hash::blob_bytes(&b))
            .unwrap_or_default();
        match committed.remove(&rel_path) {
            Some(blob) if blob == hash => {}
            Some(_) => out.push(format!("{rel_path} has changes that are not committed")),
            None => out.push(format!("{rel_path} is not committed")),
        }
    }
    out.extend(
        committed
            .into_keys()
            .map(|p| format!("{p} is committed but missing on disk")),
    );
    Ok(out)
}
