//! The commit an inspection judges. The refinery hands over its candidate's worktree;
//! otherwise it is HEAD of the checkout, judged in place when the checkout holds exactly
//! HEAD (outside the ledger's folder), else in a temporary worktree of HEAD, with a
//! warning: an uncommitted file never decides a verdict. Files ignored only by the
//! checkout's own exclude lists (`.git/info/exclude`, `core.excludesFile`) count as
//! uncommitted: only a committed `.gitignore` may hide a file.

use crate::error::Result;
use crate::git::{Git, GitRepo, TempWorktree};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// Where and what an inspection judges.
#[derive(Debug)]
pub struct Judged {
    /// The folder the checks run in.
    pub dir: PathBuf,
    /// The commit judged (`None` outside git).
    pub commit: Option<String>,
    /// Its root tree.
    pub tree: Option<String>,
    /// Why the checkout itself was not used, when it was not.
    pub warning: Option<String>,
    /// The temporary worktree, removed when this is dropped.
    _worktree: Option<TempWorktree>,
}

/// What `ws` judges: the worktree `given` (the refinery's candidate) as it is, else HEAD
/// of `ws.root` as described in the module docs.
pub fn judged(ws: &Workspace, given: Option<&Path>) -> Result<Judged> {
    let dir = given.unwrap_or(&ws.root).to_path_buf();
    let Some(repo) = GitRepo::open(&dir) else {
        return Ok(Judged {
            warning: given.is_none().then(|| {
                "not a git repository: the files are judged as they are, and no commit is \
                 recorded"
                    .to_string()
            }),
            dir,
            commit: None,
            tree: None,
            _worktree: None,
        });
    };
    let commit = repo.head_commit();
    let tree = commit.as_deref().and_then(|c| repo.tree_id(c));
    let changes = match (&commit, given) {
        (Some(_), None) => uncommitted(repo.workdir(), &ledger_pathspec(ws, repo.workdir())),
        _ => Vec::new(),
    };
    let Some(head) = commit.clone().filter(|_| !changes.is_empty()) else {
        // The worktree given, or a checkout that holds exactly HEAD: judged in place.
        return Ok(Judged {
            dir,
            commit,
            tree,
            warning: None,
            _worktree: None,
        });
    };
    let git = Git::new(repo.workdir(), None);
    let worktree = TempWorktree::add(&git, &head)?;
    let shown: Vec<&str> = changes.iter().take(3).map(String::as_str).collect();
    let more = changes.len().saturating_sub(shown.len());
    Ok(Judged {
        dir: worktree.dir().to_path_buf(),
        warning: Some(format!(
            "the checkout has uncommitted changes ({}{}): judged HEAD {} in a temporary \
             worktree; commit them to have them judged",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            &head[..head.len().min(12)]
        )),
        commit,
        tree,
        _worktree: Some(worktree),
    })
}

/// The pathspec that leaves the ledger's folder out, when it lies in this checkout.
fn ledger_pathspec(ws: &Workspace, workdir: &Path) -> Option<String> {
    let beads = std::fs::canonicalize(&ws.beads_dir).unwrap_or_else(|_| ws.beads_dir.clone());
    let rel = beads.strip_prefix(workdir).ok()?;
    Some(format!(":(exclude){}", rel.to_string_lossy()))
}

/// The paths of the checkout at `dir` that differ from HEAD: tracked files changed (staged
/// or not) and untracked files no committed `.gitignore` hides; outside `ledger`.
fn uncommitted(dir: &Path, ledger: &Option<String>) -> Vec<String> {
    let mut spec = vec!["--", "."];
    if let Some(l) = ledger {
        spec.push(l);
    }
    let run = |args: &[&str]| -> Vec<String> {
        let mut all = args.to_vec();
        all.extend(&spec);
        crate::git::cli::run(dir, &all)
            .map(|out| {
                out.split('\0')
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            // A git that cannot tell is treated as a change: judged in a clean worktree.
            .unwrap_or_else(|e| vec![format!("(git could not tell: {e})")])
    };
    let mut changed = run(&["diff", "HEAD", "--name-only", "-z", "--no-renames"]);
    changed.extend(run(&[
        "ls-files",
        "--others",
        "-z",
        "--exclude-per-directory=.gitignore",
    ]));
    changed
}
