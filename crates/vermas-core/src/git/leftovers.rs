//! What a crash or a lost journal line can leave behind, found for `doctor`: git's own
//! lock files in the git folder, and record files under `.beads/` that differ from HEAD.
//! Read-only: the git command line is asked, nothing is changed.

use super::recovery::held_open;
use std::path::{Path, PathBuf};

/// A git lock file that is present now.
#[derive(Debug, Clone)]
pub(crate) struct LeftLock {
    /// The lock file.
    pub path: PathBuf,
    /// True when a live process has it open (a git command at work).
    pub in_use: bool,
}

/// `index.lock`, `HEAD.lock` and the current branch's ref lock, where present.
pub(crate) fn git_locks(root: &Path) -> Vec<LeftLock> {
    let git = |args: &[&str]| {
        super::cli::run(root, args)
            .ok()
            .map(|s| s.trim().to_string())
    };
    let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) else {
        return Vec::new();
    };
    let git_dir = PathBuf::from(git_dir);
    let mut candidates = vec![git_dir.join("index.lock"), git_dir.join("HEAD.lock")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        candidates.push(git_dir.join(format!("{branch}.lock")));
    }
    candidates
        .into_iter()
        .filter(|p| p.exists())
        .map(|path| LeftLock {
            in_use: held_open(&path),
            path,
        })
        .collect()
}

/// Record files under `beads_dir` (repository-relative paths, with git's two-letter
/// status) that are untracked or differ from HEAD: everything but vermas's caches and
/// wisps and the files bd keeps there.
pub(crate) fn unrecorded(root: &Path, beads_dir: &Path) -> Vec<(String, String)> {
    let Ok(out) = super::cli::run(
        root,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            &beads_dir.to_string_lossy(),
        ],
    ) else {
        return Vec::new();
    };
    let prefix = beads_dir
        .strip_prefix(root)
        .map(|p| format!("{}/", p.to_string_lossy()))
        .unwrap_or_default();
    let mut found = Vec::new();
    let mut entries = out.split('\0');
    while let Some(entry) = entries.next() {
        if entry.len() < 4 {
            continue;
        }
        let (state, path) = (&entry[..2], &entry[3..]);
        if state.starts_with('R') || state.starts_with('C') {
            entries.next(); // the rename's source
        }
        let under = path.strip_prefix(&prefix).unwrap_or(path);
        if is_record(under) {
            found.push((path.to_string(), state.trim().to_string()));
        }
    }
    found
}

/// True for a path (relative to `.beads/`) that holds one of vermas's records.
fn is_record(rel: &str) -> bool {
    const RECORD_DIRS: &[&str] = &[
        "issues/",
        "mail/",
        "mols/",
        "results/",
        "formulas/",
        "roles/",
        "hooks/",
    ];
    const BD_FILES: &[&str] = &[
        "issues.jsonl",
        "beads.db",
        "metadata.json",
        "deletions.jsonl",
        "interactions.jsonl",
    ];
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if BD_FILES.iter().any(|f| name.starts_with(f)) {
        return false;
    }
    // `config.yaml` is bd's (an older vermas's moves to `vermas.yaml` on first use).
    rel == crate::config::SETTINGS_FILE || RECORD_DIRS.iter().any(|d| rel.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::is_record;

    #[test]
    fn records_are_vermas_files_not_caches_or_bd_files() {
        assert!(is_record("issues/vm-a.md"));
        assert!(is_record("mail/mayor/msg-1.md"));
        assert!(is_record("vermas.yaml"));
        assert!(!is_record("config.yaml"));
        assert!(!is_record("metadata.json"));
        assert!(!is_record("daemon.log"));
        assert!(!is_record(".gitignore"));
        assert!(!is_record(".cache/index"));
        assert!(!is_record("wisps/mols/w.yaml"));
        assert!(!is_record("issues.jsonl"));
        assert!(!is_record("beads.db-wal"));
    }
}
