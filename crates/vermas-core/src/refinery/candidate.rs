//! The commit that would land: the branch put onto the target's tip by the configured
//! strategy, built in git's object store. `merge`: a merge commit whose parents are the
//! tip and the branch; `squash`: one commit on the tip holding the merged tree; `ff-only`:
//! the branch itself, when the tip is its ancestor.

use super::request::MergeRequest;
use crate::config::Strategy;
use crate::error::Result;
use crate::git::{Git, Merged};
use std::collections::BTreeMap;

/// What putting the branch onto the tip gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Candidate {
    /// The commit to verify and land.
    Ready(String),
    /// The branch does not merge cleanly: these paths conflict.
    Conflict(Vec<String>),
    /// Nothing can land, and why (not a fast-forward, nothing to merge).
    Refused(String),
}

/// Builds the commit that would land `req` (branch at `head`) on the target's `tip`;
/// `records` is the ledger folder relative to the repository (`.beads/`).
pub(crate) fn build(
    git: &Git,
    req: &MergeRequest,
    strategy: Strategy,
    (tip, head): (&str, &str),
    records: &str,
    frozen: &BTreeMap<String, String>,
    actor: &str,
) -> Result<Candidate> {
    if git.is_ancestor(head, tip)? {
        return Ok(Candidate::Refused(format!(
            "nothing to merge: every commit of {} is in {} already",
            req.branch, req.target
        )));
    }
    let changed = git.changed_paths(tip, head)?;
    let checks: Vec<String> = changed
        .iter()
        .filter_map(|p| frozen.get(p).map(|spec| format!("{p}, frozen by {spec}")))
        .collect();
    if !checks.is_empty() {
        return Ok(Candidate::Refused(format!(
            "{} changes check files a person approved ({}): work branches change the work, \
             not its checks; a person changes a check on {} and approves it again (vermas \
             inspect approve)",
            req.branch,
            checks.join("; "),
            req.target
        )));
    }
    let links: Vec<String> = git
        .symlinks_added(tip, head)?
        .into_iter()
        .filter(|p| p.starts_with(records) || frozen.contains_key(p))
        .collect();
    if !links.is_empty() {
        return Ok(Candidate::Refused(format!(
            "{} adds symlinks where the Inspector reads its records ({}): a record is what \
             its path is, never a link to somewhere else",
            req.branch,
            links.join(", ")
        )));
    }
    let judges = inspector_records(git, tip, head, &changed, records);
    if !judges.is_empty() {
        return Ok(Candidate::Refused(format!(
            "{} changes the Inspector's own records ({}): work branches change code, not \
             their judges; a person changes those on {} itself",
            req.branch,
            judges.join(", "),
            req.target
        )));
    }
    if strategy == Strategy::FfOnly {
        return Ok(if git.is_ancestor(tip, head)? {
            Candidate::Ready(head.to_string())
        } else {
            Candidate::Refused(format!(
                "not a fast-forward: {} has commits {} lacks (refinery.strategy is ff-only); \
                 rebase {} onto {} and submit again",
                req.target, req.branch, req.branch, req.target
            ))
        });
    }
    let tree = match git.merge_tree(tip, head)? {
        Merged::Clean(tree) => tree,
        Merged::Conflict(paths) => return Ok(Candidate::Conflict(paths)),
    };
    let trailers = format!(
        "Vermas-Actor: {}\nVermas-Id: {}\nVermas-Id: {}\n",
        one_line(actor),
        req.id,
        req.bead
    );
    let commit = if strategy == Strategy::Squash {
        let mut message = format!(
            "Squash branch '{}' into {}\n\n",
            one_line(&req.branch),
            one_line(&req.target)
        );
        for subject in git.subjects(tip, head)? {
            message.push_str(&format!("* {}\n", one_line(&subject)));
        }
        message.push('\n');
        message.push_str(&trailers);
        git.commit_tree(&tree, &[tip], &message)?
    } else {
        let message = format!(
            "Merge branch '{}' into {}\n\n{trailers}",
            one_line(&req.branch),
            one_line(&req.target)
        );
        git.commit_tree(&tree, &[tip, head], &message)?
    };
    Ok(Candidate::Ready(commit))
}

/// The Inspector's own records the branch changes: test specs (as either side has them),
/// results, lifecycle hooks, role prompts, the merge queue and the settings under
/// `records`.
fn inspector_records(
    git: &Git,
    tip: &str,
    head: &str,
    changed: &[String],
    records: &str,
) -> Vec<String> {
    let judges = [
        "results/",
        "hooks/",
        "roles/",
        "mq/",
        "vermas.yaml",
        "config.yaml",
    ];
    let is_test_spec = |path: &str| {
        [tip, head].iter().any(|rev| {
            git.show_file(rev, path).is_some_and(|text| {
                // The front matter: the lines between the first two `---`.
                text.lines()
                    .skip(1)
                    .take_while(|l| l.trim_end() != "---")
                    .any(|l| l.trim() == "issue_type: test-spec")
            })
        })
    };
    changed
        .iter()
        .filter(|path| {
            let Some(rel) = path.strip_prefix(records) else {
                return false;
            };
            judges
                .iter()
                .any(|j| rel == *j || (j.ends_with('/') && rel.starts_with(j)))
                || (rel.starts_with("issues/") && is_test_spec(path))
        })
        .cloned()
        .collect()
}

/// `text` with every control character turned into a space, so no value adds a line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
