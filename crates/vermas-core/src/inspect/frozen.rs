//! The check files approving a test spec freezes: the file each criterion's link runs
//! (the script of `file#fn`, the test file of a pytest or cargo target, a judge's rubric),
//! the live spec the work links with the files its criteria run, and any file a person
//! names with `approve --freeze`. The work's own files are never frozen by a `--cmd`
//! criterion. Approval records each file's committed blob; an inspection of a commit
//! whose copy differs is an ERROR naming the file, and the refinery refuses a branch that
//! changes one before anything runs.

use crate::bead::model::{AcceptanceCriterion, Bead};
use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::workspace::Workspace;
use std::collections::{BTreeMap, BTreeSet};

/// The files approving `spec` (of `work`) freezes: each criterion's linked file, the live
/// spec the work links and its checks, and `extra`; with the live spec's path.
pub fn linked(
    ws: &Workspace,
    spec: &Bead,
    work: &Bead,
    extra: &[String],
) -> Result<(BTreeSet<String>, Option<String>)> {
    let mut files: BTreeSet<String> = spec
        .acceptance_criteria
        .iter()
        .filter_map(linked_file)
        .collect();
    for path in extra {
        files.insert(normal(path)?);
    }
    let live = work.spec.clone();
    if let Some(path) = &live {
        files.insert(normal(path)?);
        let s = crate::spec::load(&ws.root, &ws.root.join(path))?;
        files.extend(
            s.criteria
                .iter()
                .flat_map(|c| &c.annotations)
                .filter(|a| a.error.is_none())
                .map(|a| a.file.clone()),
        );
    }
    Ok((files, live))
}

/// The file criterion `c` runs, when it links one (`--verify` or `--judge`).
fn linked_file(c: &AcceptanceCriterion) -> Option<String> {
    let link = c.verify.as_deref().or(c.judge.as_deref())?;
    crate::spec::target::resolve(link, "").ok().map(|t| t.file)
}

/// `path` as the repository names it (relative, `/`-separated, no `.` or `..`), refused
/// when it leaves the repository.
fn normal(path: &str) -> Result<String> {
    crate::spec::target::normalise(path.trim_start_matches("./")).ok_or_else(|| {
        Error::Invalid(format!(
            "{path} is not a path inside the repository, so it cannot be frozen"
        ))
    })
}

/// The committed blob of each of `files` at HEAD of the checkout at `ws.root`; refused
/// for a file that does not exist, is not committed or has uncommitted changes (write the
/// check and commit it first, then approve), or outside a git repository.
pub fn stamp(ws: &Workspace, files: &BTreeSet<String>) -> Result<BTreeMap<String, String>> {
    if files.is_empty() {
        return Ok(BTreeMap::new());
    }
    let repo = GitRepo::open(&ws.root).ok_or_else(|| {
        Error::wrong_state(
            "the criteria run check files, and approval freezes them as committed: this is not a git repository".to_string(),
        )
    })?;
    let head = repo.head_commit().unwrap_or_default();
    let mut out = BTreeMap::new();
    for path in files {
        let on_disk = std::fs::read(ws.root.join(path)).ok();
        let committed = repo.blob_at(&head, path);
        let blob = match (on_disk, committed) {
            (None, _) => {
                return Err(Error::wrong_state(format!(
                    "the check file {path} does not exist"
                ))
                .with_help("write the check first, commit it, then approve (a RED gate comes before GREEN)"));
            }
            (Some(_), None) => {
                return Err(Error::wrong_state(format!(
                    "the check file {path} is not committed"
                ))
                .with_help(format!("commit it first (git add {path} && git commit), then approve: approval freezes the committed check")));
            }
            (Some(bytes), Some(blob)) if crate::sys::hash::blob_bytes(&bytes) != blob => {
                return Err(Error::wrong_state(format!(
                    "the check file {path} has uncommitted changes"
                ))
                .with_help(format!("commit them first (git commit {path}), then approve: approval freezes the committed check")));
            }
            (Some(_), Some(blob)) => blob,
        };
        out.insert(path.clone(), blob);
    }
    Ok(out)
}

/// One frozen file as a judged commit holds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FrozenFile {
    /// The path.
    pub path: String,
    /// The blob approved.
    pub approved: String,
    /// The blob the commit holds (`None`: missing, or not a regular file).
    pub now: Option<String>,
}

impl FrozenFile {
    /// True when the commit holds the approved file.
    pub fn holds(&self) -> bool {
        self.now.as_deref() == Some(self.approved.as_str())
    }
}

/// Each file `spec`'s approval froze, as `commit` of the repository at `dir` holds it (the
/// files on disk, outside git).
pub fn compare(spec: &Bead, dir: &std::path::Path, commit: Option<&str>) -> Vec<FrozenFile> {
    let Some(a) = &spec.approved else {
        return Vec::new();
    };
    let repo = commit.and_then(|_| GitRepo::open(dir));
    a.files
        .iter()
        .map(|(path, approved)| {
            let now = match (&repo, commit) {
                (Some(r), Some(c)) => r.blob_at(c, path),
                _ => std::fs::read(dir.join(path))
                    .ok()
                    .map(|b| crate::sys::hash::blob_bytes(&b)),
            };
            FrozenFile {
                path: path.clone(),
                approved: approved.clone(),
                now,
            }
        })
        .collect()
}

/// Why an inspection of `commit` cannot go on: the frozen files it does not hold as
/// approved, named with what to do; `None` when it holds them all.
pub fn changed(spec: &Bead, dir: &std::path::Path, commit: Option<&str>) -> Option<String> {
    let changed: Vec<String> = compare(spec, dir, commit)
        .into_iter()
        .filter(|f| !f.holds())
        .map(|f| match f.now {
            Some(_) => format!("{} changed", f.path),
            None => format!("{} is missing", f.path),
        })
        .collect();
    (!changed.is_empty()).then(|| {
        format!(
            "the checks are not the ones a person approved ({}): the work may not change its \
             own checks; restore them, or have a person approve the new checks: vermas \
             inspect approve {}",
            changed.join(", "),
            spec.id
        )
    })
}

/// Every file frozen by an approved test spec, with the spec that froze it: what no work
/// branch may change.
pub fn all_frozen(ws: &Workspace) -> Result<BTreeMap<String, String>> {
    let set = crate::bead::store::BeadSet::load(ws)?;
    let mut out = BTreeMap::new();
    for b in set.beads.values().filter(|b| {
        b.issue_type == crate::bead::model::IssueType::TestSpec
            && b.status == crate::bead::model::Status::Closed
    }) {
        let spec = crate::bead::store::load_one(ws, &b.id)?;
        for path in spec.approved.iter().flat_map(|a| a.files.keys()) {
            out.entry(path.clone()).or_insert_with(|| spec.id.clone());
        }
    }
    Ok(out)
}
