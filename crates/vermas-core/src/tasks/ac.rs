//! An "AC checklist" item: every `AC-x.y` of the requirements judged by the LLM judge.
//!
//! By default smart-ralph's rules decide: any FAIL fails the item ("VERIFICATION_FAIL if
//! any AC is marked FAIL"), an AC with nothing to judge is SKIP with the explanation, and a
//! judge that could not answer is FAIL (the task stays unchecked and is retried); the item
//! passes when every AC is PASS or SKIP, and is SKIP when none was judged. With `--strict`
//! an AC that could not be judged (ERROR, or SKIP for want of files) makes the item ERROR,
//! and it passes only when every AC was judged and passed.

use super::parse::{Criterion, VerifyItem};
use super::{AcResult, ItemResult, Settings};
use crate::check::Outcome;
use crate::judge;
use std::path::{Path, PathBuf};

/// Most changed files put before the judge for one AC when its line names none.
const MAX_CHANGED_FILES: usize = 50;

/// Judges every criterion and settles the item by the rules above.
pub(crate) fn run_ac_item(
    item: &VerifyItem,
    criteria: &[Criterion],
    changed: &[String],
    s: &Settings,
    strict: bool,
) -> ItemResult {
    let mut acs: Vec<AcResult> = criteria.iter().map(|c| judge_ac(c, changed, s)).collect();
    if !strict {
        for a in &mut acs {
            if matches!(a.outcome, Outcome::Error | Outcome::Unstable) {
                let what = if a.outcome == Outcome::Error {
                    "could not be judged"
                } else {
                    "the judge's answers disagreed"
                };
                a.evidence = format!("{what}: {}", a.evidence);
                a.outcome = Outcome::Fail;
            }
        }
    }
    let ids = |f: fn(Outcome) -> bool| -> Vec<&str> {
        acs.iter()
            .filter(|a| f(a.outcome))
            .map(|a| a.id.as_str())
            .collect()
    };
    let failed = ids(|o| matches!(o, Outcome::Fail | Outcome::Unstable));
    let unjudged = ids(|o| matches!(o, Outcome::Error | Outcome::Skip));
    let (outcome, reason) = if !failed.is_empty() {
        let n = failed.len();
        (
            Outcome::Fail,
            Some(format!("{n} AC failed: {}", failed.join(", "))),
        )
    } else if !strict && acs.iter().any(|a| a.outcome == Outcome::Pass) {
        (Outcome::Pass, None)
    } else if !strict {
        let why = if acs.is_empty() {
            "no AC to judge".to_string()
        } else {
            format!("nothing was judged: {} AC skipped", unjudged.len())
        };
        (Outcome::Skip, Some(why))
    } else if !unjudged.is_empty() {
        let n = unjudged.len();
        (
            Outcome::Error,
            Some(format!(
                "{n} AC could not be judged: {}",
                unjudged.join(", ")
            )),
        )
    } else if acs.is_empty() {
        (Outcome::Error, Some("no AC to judge".to_string()))
    } else {
        (Outcome::Pass, None)
    };
    ItemResult {
        id: item.id.clone(),
        line: item.line,
        title: item.title.clone(),
        outcome,
        reason,
        verify_line: item.verify_line,
        commands: Vec::new(),
        acs,
        marked: false,
    }
}

/// Judges one criterion against the files its line names in backticks (existing files or
/// globs), else against the files changed in the work tree.
fn judge_ac(c: &Criterion, changed: &[String], s: &Settings) -> AcResult {
    let named: Vec<String> = c
        .quoted
        .iter()
        .filter(|w| w.contains(['*', '?']) || s.root.join(w).is_file())
        .cloned()
        .collect();
    let files = if named.is_empty() {
        changed.to_vec()
    } else {
        named
    };
    let (outcome, evidence) = if files.is_empty() {
        (
            Outcome::Skip,
            "no files to judge: name them in backticks on the AC line".to_string(),
        )
    } else {
        let r = judge::judge_criterion(&s.root, &c.description, &files, &s.judge);
        let evidence = r.reason.clone().unwrap_or_else(|| match r.outcome {
            Outcome::Pass => "the judge found it met".to_string(),
            _ => "the judge gave no reason".to_string(),
        });
        (r.outcome, evidence)
    };
    AcResult {
        id: c.id.clone(),
        description: c.description.clone(),
        line: c.line,
        outcome,
        evidence,
        files,
    }
}

/// Files changed in the work tree against HEAD, plus untracked ones git does not ignore
/// (asked of the `git` command, which knows the ignore rules), without `.beads/` and the
/// tasks and requirements files; at most [`MAX_CHANGED_FILES`]. Empty outside git.
pub(crate) fn changed_files(root: &Path, skip: &[Option<&PathBuf>]) -> Vec<String> {
    let git = |args: &[&str]| crate::git::cli::run(root, args).ok();
    let tracked = git(&["diff", "--name-only", "HEAD", "--"])
        .or_else(|| git(&["ls-files", "--cached"]))
        .unwrap_or_default();
    let untracked = git(&["ls-files", "--others", "--exclude-standard"]).unwrap_or_default();
    let canon_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let skipped: Vec<PathBuf> = skip
        .iter()
        .flatten()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for rel in tracked.lines().chain(untracked.lines()) {
        let rel = rel.trim();
        if rel.is_empty() || rel.starts_with(".beads/") || rel.ends_with(".progress.md") {
            continue;
        }
        let full = canon_root.join(rel);
        if !full.is_file() || skipped.contains(&full) || out.iter().any(|o| o == rel) {
            continue;
        }
        out.push(rel.to_string());
        if out.len() == MAX_CHANGED_FILES {
            break;
        }
    }
    out
}
