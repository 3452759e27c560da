//! Landing a commit made in the object store (a sync's merge) on the ledger's checkout,
//! so that an interruption anywhere leaves the repository before the merge or after it,
//! never between: the intent (the branch's old and new commit) is written first, then the
//! branch moves with a compare-and-swap, then the files the two commits hold differently
//! are brought along (the ledger's by vermas, as a write of its own; the rest by
//! `git checkout`), then the intent goes. A process killed on the way leaves the intent,
//! and the next vermas write finishes the landing (the branch moved) or drops the intent
//! (it did not), before it reads a record.

use crate::error::{Error, Result};
use crate::git::GitRepo;
use std::path::Path;

/// The intent's file name in `.beads/.cache/`.
pub(crate) const INTENT: &str = "landing";

/// The crash note naming the ref lock files a landing takes (the one vermas's commits
/// keep, so either cleans up after the other).
const CRASH_NOTE: &str = "commit-in-progress";

/// How a landing hands over a ledger file to write: its path relative to the ledger's
/// folder, and its new bytes (`None`: remove it).
pub(crate) type WriteLedger<'w> = dyn FnMut(&Path, Option<&[u8]>) -> Result<()> + 'w;

/// Moves the branch from `old` to `new` and brings the checkout along, the intent kept
/// in `intent` meanwhile. `ledger` is the ledger's folder relative to the work tree
/// (`.beads`): its files go through `write`. False, with nothing changed, when the branch
/// is no longer at `old`.
pub(crate) fn land(
    repo: &GitRepo,
    intent: &Path,
    ledger: &str,
    (old, new): (&str, &str),
    why: &str,
    write: &mut WriteLedger<'_>,
) -> Result<bool> {
    // Written whole, then renamed into place: a reader finds both commits or none.
    let tmp = intent.with_extension("tmp");
    let folder = intent.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)
        .and_then(|()| std::fs::write(&tmp, format!("{old} {new}\n")))
        .and_then(|()| std::fs::rename(&tmp, intent))
        .map_err(|e| Error::io(intent, e))?;
    if !repo.move_branch(old, new, why, &folder.join(CRASH_NOTE))? {
        remove(intent);
        return Ok(false);
    }
    bring(repo, ledger, old, new, write)?;
    remove(intent);
    Ok(true)
}

/// Finishes a landing an interrupted process left in `intent`: brings the checkout to the
/// new commit when the branch is there, else (it never moved, or moved on since) only
/// drops the intent. Nothing to do without an intent.
pub(crate) fn finish(
    repo: &GitRepo,
    intent: &Path,
    ledger: &str,
    write: &mut WriteLedger<'_>,
) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(intent) else {
        return Ok(());
    };
    let mut words = text.split_whitespace();
    if let (Some(old), Some(new)) = (words.next(), words.next())
        && repo.head_commit().as_deref() == Some(new)
    {
        bring(repo, ledger, old, new, write)?;
    }
    remove(intent);
    Ok(())
}

/// Removes the intent; a missing one is fine.
fn remove(intent: &Path) {
    // Best effort: an intent left behind is finished again (a no-op) by the next write.
    let _ = std::fs::remove_file(intent);
}

/// Brings every file commits `old` and `new` hold differently to its content in `new`:
/// the ledger's through `write`, the others with `git checkout`/`git rm`. Each step can
/// run again: a file already at its new content is written the same.
fn bring(
    repo: &GitRepo,
    ledger: &str,
    old: &str,
    new: &str,
    write: &mut WriteLedger<'_>,
) -> Result<()> {
    let changes = repo.tree_changes(
        Some(&repo.commit_tree_id(old)?),
        Some(&repo.commit_tree_id(new)?),
    )?;
    let prefix = format!("{}/", ledger.trim_end_matches('/'));
    let (mut present, mut gone) = (Vec::new(), Vec::new());
    for c in changes {
        match c.path.strip_prefix(&prefix) {
            Some(rest) => {
                let bytes = c
                    .after
                    .as_deref()
                    .map(|id| repo.blob_bytes(id))
                    .transpose()?;
                write(Path::new(rest), bytes.as_deref())?;
            }
            None if c.after.is_some() => present.push(c.path),
            None => gone.push(c.path),
        }
    }
    let git = |args: &[&str], paths: &[String]| -> Result<()> {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(paths.iter().map(String::as_str));
        let mut cmd = crate::git::cli::command(repo.workdir());
        cmd.arg("--literal-pathspecs");
        crate::git::cli::stdout(cmd.args(&all), &all)
            .map(|_| ())
            .map_err(Error::from)
    };
    if !present.is_empty() {
        git(&["checkout", "-q", new, "--"], &present)?;
    }
    if !gone.is_empty() {
        git(&["rm", "-q", "--cached", "--ignore-unmatch", "--"], &gone)?;
        for path in &gone {
            let abs = repo.workdir().join(path);
            match std::fs::remove_file(&abs) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&abs, e));
                }
                _ => {}
            }
        }
    }
    Ok(())
}
