//! One merge of the remote's branch into the ledger's, made in the object store and then
//! landed ([`crate::store::landing`]): an interruption leaves the checkout before the merge
//! or after it, never between.
//!
//! Records (what `vermas merge-file` merges) are merged here, path by path, with no rename
//! detection (ids are names: `X.md` and `Y.md` are two records, never one renamed):
//! a side alone changing one takes that side, both sides by meaning, and a record deleted
//! on one side and changed on the other stays deleted (the change stays in history and
//! the sync names it). Every other file is git's to merge (`git merge-tree`), run only
//! when both sides changed such files; a conflict there is refused with nothing changed.

use super::Target;
use crate::error::{Error, Result};
use crate::git::{Changed, GitRepo};
use crate::store::Txn;
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// What one merge brought.
#[derive(Debug, Default)]
pub(super) struct Merged {
    /// Files under the ledger's folder the merge changed.
    pub pulled: usize,
    /// Records deleted on one side and changed on the other: they stay deleted.
    pub kept_deleted: Vec<KeptDeleted>,
}

/// A record deleted on one side and changed on the other: it stays deleted, and the
/// change is in the history of the side that made it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeptDeleted {
    /// The record's path, relative to the work tree.
    pub path: String,
    /// The commit whose tree holds the change (`git show COMMIT:PATH`).
    pub changed_in: String,
}

/// Merges commit `theirs` into the ledger's branch under the write lock (which also
/// finishes a merge an interrupted sync left half landed).
pub(super) fn merge(ws: &Workspace, target: &Target, theirs: &str) -> Result<Merged> {
    let repo = &target.repo;
    if repo.head_commit().as_deref() == Some(theirs) {
        return Ok(Merged::default());
    }
    let txn = Txn::begin(ws)?;
    let ours = repo
        .head_commit()
        .ok_or_else(|| Error::git("the ledger's branch has no commit yet"))?;
    let base = repo.merge_base(&ours, theirs)?;
    if ours == theirs || base.as_deref() == Some(theirs) {
        return Ok(Merged::default());
    }
    let (new, kept_deleted) = if base.as_deref() == Some(ours.as_str()) {
        (theirs.to_string(), Vec::new())
    } else {
        let (tree, kept) = merged_tree(target, repo, base.as_deref(), &ours, theirs)?;
        let message = message(target, &kept);
        let parents = [ours.clone(), theirs.to_string()];
        let author = ws.config.git.author.as_deref();
        (
            repo.write_commit_of(&tree, &parents, &message, author)?,
            kept,
        )
    };
    let changes = repo.tree_changes(
        Some(&repo.commit_tree_id(&ours)?),
        Some(&repo.commit_tree_id(&new)?),
    )?;
    in_the_way(target, repo, &changes)?;
    let ledger = &target.beads;
    let prefix = format!("{ledger}/");
    let pulled = changes
        .iter()
        .filter(|c| c.path.starts_with(&prefix))
        .count();
    let intent = ws.cache_dir().join(crate::store::landing::INTENT);
    let why = format!(
        "vermas sync: merge {}/{}",
        target.remote, target.remote_branch
    );
    let mut txn = txn;
    let landed = crate::store::landing::land(
        repo,
        &intent,
        ledger,
        (&ours, &new),
        &why,
        &mut |rel, bytes| txn.write_landed(&ws.beads_dir.join(rel), bytes),
    )?;
    if !landed {
        return Err(Error::git(
            "the ledger's branch moved while sync merged (a git command ran meanwhile); run \
             `vermas sync` again",
        ));
    }
    // The landed files are HEAD's already: this brings git's index up to date for them.
    txn.commit(&crate::store::CommitMessage {
        verb: "sync".into(),
        ids: Vec::new(),
        title: format!(
            "files of the merge of {}/{}",
            target.remote, target.remote_branch
        ),
        actor: "vermas sync".into(),
    })?;
    Ok(Merged {
        pulled,
        kept_deleted,
    })
}

/// The merge commit's message: what was merged, and each record kept deleted.
fn message(target: &Target, kept: &[KeptDeleted]) -> String {
    let mut text = format!(
        "vermas sync: merge {}/{}\n",
        target.remote, target.remote_branch
    );
    if !kept.is_empty() {
        text.push_str(
            "\nDeleted on one side and changed on the other: the delete wins, the change \
             stays in history.\n",
        );
        for k in kept {
            text.push_str(&format!(
                "Kept deleted: {} (the change: git show {}:{})\n",
                k.path, k.changed_in, k.path
            ));
        }
    }
    text
}

/// True for a record file `vermas merge-file` merges, inside the ledger's folder.
fn is_record(target: &Target, path: &str) -> bool {
    path.strip_prefix(&format!("{}/", target.beads))
        .is_some_and(|rest| crate::merge::Kind::of(&format!(".beads/{rest}")).is_some())
}

/// The merged tree of `ours` and `theirs` from `base`, and the records kept deleted.
fn merged_tree(
    target: &Target,
    repo: &GitRepo,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<(String, Vec<KeptDeleted>)> {
    let base_tree = base.map(|b| repo.commit_tree_id(b)).transpose()?;
    let (ours_tree, theirs_tree) = (repo.commit_tree_id(ours)?, repo.commit_tree_id(theirs)?);
    let split = |changes: Vec<Changed>| -> (BTreeMap<String, Changed>, bool) {
        let mut records = BTreeMap::new();
        let mut others = false;
        for c in changes {
            if is_record(target, &c.path) {
                records.insert(c.path.clone(), c);
            } else {
                others = true;
            }
        }
        (records, others)
    };
    let (o, o_others) = split(repo.tree_changes(base_tree.as_deref(), Some(&ours_tree))?);
    let (t, t_others) = split(repo.tree_changes(base_tree.as_deref(), Some(&theirs_tree))?);
    // Files other than records: the side that changed them, or git's merge of both.
    let start = match (o_others, t_others) {
        (_, false) => ours_tree,
        (false, true) => theirs_tree,
        (true, true) => git_merge_tree(target, ours, theirs)?,
    };
    let mut edits = Vec::new();
    let mut kept_deleted = Vec::new();
    let paths: std::collections::BTreeSet<&String> = o.keys().chain(t.keys()).collect();
    for path in paths {
        let was = o.get(path).or(t.get(path)).and_then(|c| c.before.clone());
        let mine = o.get(path).map_or(was.clone(), |c| c.after.clone());
        let other = t.get(path).map_or(was.clone(), |c| c.after.clone());
        let merged = match (&mine, &other) {
            _ if mine == other || other == was => mine,
            _ if mine == was => other,
            (Some(m), Some(x)) => Some(merge_record(repo, path, was.as_deref(), m, x)?),
            // Deleted on one side, changed on the other: the delete wins.
            _ => {
                kept_deleted.push(KeptDeleted {
                    path: path.clone(),
                    changed_in: if mine.is_some() { ours } else { theirs }.to_string(),
                });
                None
            }
        };
        edits.push((path.clone(), merged));
    }
    Ok((repo.edit_tree(&start, &edits)?, kept_deleted))
}

/// The blob of record `path` merged by meaning from blobs `base`, `ours` and `theirs`.
fn merge_record(
    repo: &GitRepo,
    path: &str,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<String> {
    let text = |id: &str| -> Result<String> {
        String::from_utf8(repo.blob_bytes(id)?)
            .map_err(|_| Error::Invalid(format!("{path} is not UTF-8 text")))
    };
    let base = base.map(text).transpose()?.unwrap_or_default();
    let merged =
        crate::merge::merge_file(&base, &text(ours)?, &text(theirs)?, path).map_err(|e| {
            Error::conflict(format!(
                "sync refused: {path} cannot be merged ({e}); nothing was changed"
            ))
            .with_help("fix the record on one side (`vermas doctor`), then `vermas sync` again")
        })?;
    repo.write_blob(merged.as_bytes())
}

/// git's merge of the two commits' trees, for files other than records (whose merge
/// here is left as ours: vermas merges them itself); a conflict outside the records is
/// refused, nothing changed.
fn git_merge_tree(target: &Target, ours: &str, theirs: &str) -> Result<String> {
    let args = [
        "-c",
        "merge.vermas.driver=true",
        "merge-tree",
        "--write-tree",
        "-z",
        "--name-only",
        "--no-messages",
        ours,
        theirs,
    ];
    let mut cmd = crate::git::cli::command(&target.dir);
    let out = cmd
        .args(args)
        .output()
        .map_err(|e| Error::git(format!("cannot run git merge-tree: {e}")))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut fields = text.split('\0');
    let tree = fields.next().unwrap_or_default().trim().to_string();
    match out.status.code() {
        Some(0) => Ok(tree),
        Some(1) => {
            let mut conflicted: Vec<String> = fields
                .take_while(|f| !f.is_empty())
                .filter(|p| !is_record(target, p))
                .map(str::to_string)
                .collect();
            conflicted.dedup();
            if conflicted.is_empty() {
                Ok(tree)
            } else {
                Err(super::refusal(target, &conflicted, None))
            }
        }
        _ => Err(Error::git(format!(
            "git merge-tree failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
    }
}

/// Refuses, before anything moves, a merge that would overwrite a local change: a ledger
/// file that is not what the branch holds, or another file git reports as changed,
/// staged or untracked.
fn in_the_way(target: &Target, repo: &GitRepo, changes: &[Changed]) -> Result<()> {
    let prefix = format!("{}/", target.beads);
    let mut blocked = Vec::new();
    let mut others = Vec::new();
    for c in changes {
        if c.path.starts_with(&prefix) {
            let on_disk = std::fs::read(repo.workdir().join(&c.path))
                .ok()
                .and_then(|bytes| {
                    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &bytes)
                        .ok()
                })
                .map(|id| id.to_string());
            if on_disk != c.before {
                blocked.push(c.path.clone());
            }
        } else {
            others.push(c.path.as_str());
        }
    }
    if !others.is_empty() {
        let mut args = vec![
            "--literal-pathspecs",
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
        ];
        args.extend(others);
        let out = target.git(&args)?;
        blocked.extend(
            out.split('\0')
                .filter(|l| l.len() > 3)
                .map(|l| l[3..].to_string()),
        );
    }
    if blocked.is_empty() {
        return Ok(());
    }
    Err(super::refusal(target, &[], Some(&blocked)))
}
