//! `[VERIFY]` task items: run their commands in order and report VERIFICATION_PASS, _FAIL
//! or _ERROR.
//!
//! A tasks file item such as `- [ ] V4 [VERIFY] Full local CI: cargo fmt --check && cargo
//! test` names commands after its first `: `; they run one by one with `sh -c` in the
//! repository root, each in its own process group with `gates.timeout`, and the first
//! command that does not pass stops the item. An item mentioning "AC checklist" instead
//! judges every `AC-x.y` of requirements.md through the LLM judge. Only what ran and
//! passed is a pass: an error, a timeout, a crash or nothing checked never is. Results can
//! tick the passing items and are appended to `.progress.md` under `## Learnings`.

pub mod commands;
pub mod files;
pub mod parse;
pub mod render;

use crate::check::{CheckResult, Outcome};
use crate::config::Config;
use crate::error::Error;
use crate::judge::{self, JudgeSettings};
use crate::time::Timestamp;
use parse::{Criterion, VerifyItem};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Most changed files put before the judge for one AC when its line names none.
const MAX_CHANGED_FILES: usize = 50;

/// How `[VERIFY]` items run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where commands run and judged files are read: the repository root.
    pub root: PathBuf,
    /// Longest one command may run (`gates.timeout`).
    pub timeout: Duration,
    /// Bytes of a command's output kept (`verify.output_cap`).
    pub output_cap: usize,
    /// How AC checklist items ask the LLM.
    pub judge: JudgeSettings,
    /// `.beads/.cache` when inside a workspace (temporary files of atomic writes).
    pub cache_dir: Option<PathBuf>,
}

impl Settings {
    /// Settings from config; `cache_dir` is the workspace cache when there is one.
    pub fn from_config(root: PathBuf, config: &Config, cache_dir: Option<PathBuf>) -> Settings {
        Settings {
            root,
            timeout: config.gates.timeout.get(),
            output_cap: usize::try_from(config.verify.output_cap).unwrap_or(usize::MAX),
            judge: JudgeSettings::from_config(config, cache_dir.clone(), true),
            cache_dir,
        }
    }
}

/// What `tasks verify` was asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    /// The tasks file.
    pub file: PathBuf,
    /// The requirements file (default: `requirements.md` beside the tasks file).
    pub requirements: Option<PathBuf>,
    /// Tick passing items `[x]`.
    pub mark: bool,
}

/// The overall answer, spelled as the signal agents look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// There were items and every one passed.
    #[serde(rename = "VERIFICATION_PASS")]
    Pass,
    /// Some item failed.
    #[serde(rename = "VERIFICATION_FAIL")]
    Fail,
    /// None failed, but something could not be checked, or nothing was.
    #[serde(rename = "VERIFICATION_ERROR")]
    Error,
}

impl Verdict {
    /// The verdict of a run's items: PASS needs at least one item and every one PASS; any
    /// FAIL (or UNSTABLE) is FAIL; anything else (an ERROR, no items) is ERROR.
    pub fn of(items: &[ItemResult]) -> Verdict {
        if items
            .iter()
            .any(|i| matches!(i.outcome, Outcome::Fail | Outcome::Unstable))
        {
            Verdict::Fail
        } else if !items.is_empty() && items.iter().all(|i| i.outcome == Outcome::Pass) {
            Verdict::Pass
        } else {
            Verdict::Error
        }
    }

    /// The process exit code: 0 pass, 1 fail, 3 error.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
            Verdict::Error => 3,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "VERIFICATION_PASS",
            Verdict::Fail => "VERIFICATION_FAIL",
            Verdict::Error => "VERIFICATION_ERROR",
        })
    }
}

/// One acceptance criterion as judged.
#[derive(Debug, Clone, Serialize)]
pub struct AcResult {
    /// `AC-1.2`.
    pub id: String,
    /// Its description.
    pub description: String,
    /// Its line in the requirements file.
    pub line: usize,
    /// PASS, FAIL, SKIP, ERROR or UNSTABLE.
    pub outcome: Outcome,
    /// The judge's reasoning, or why it could not judge.
    pub evidence: String,
    /// The files put before the judge.
    pub files: Vec<String>,
}

/// One `[VERIFY]` item as run.
#[derive(Debug, Clone, Serialize)]
pub struct ItemResult {
    /// The word before `[VERIFY]`, e.g. `V4`.
    pub id: Option<String>,
    /// Its line in the tasks file.
    pub line: usize,
    /// The text after `[VERIFY]` up to the colon.
    pub title: String,
    /// PASS (everything ran and passed), FAIL or ERROR (could not be checked).
    pub outcome: Outcome,
    /// Why it did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Each command in order; those after a FAIL or ERROR are SKIP and were not run.
    pub commands: Vec<CheckResult>,
    /// For an AC checklist item, each criterion.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub acs: Vec<AcResult>,
    /// This run ticked its checkbox.
    pub marked: bool,
}

impl ItemResult {
    /// How the item is named: `V4 [VERIFY] Full local CI`.
    pub fn heading(&self) -> String {
        match &self.id {
            Some(id) => format!("{id} [VERIFY] {}", self.title),
            None => format!("[VERIFY] {}", self.title),
        }
    }

    /// The id, else `line N`.
    pub fn name(&self) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| format!("line {}", self.line))
    }
}

/// Everything one `tasks verify` run found and did.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// The tasks file, as given.
    pub file: String,
    /// The requirements file read, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requirements: Option<String>,
    /// Each `[VERIFY]` item in file order.
    pub items: Vec<ItemResult>,
    /// VERIFICATION_PASS only when there were items and all passed.
    pub verdict: Verdict,
    /// Why the verdict is not a pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Items ticked in the tasks file by this run.
    pub marked: usize,
    /// The progress file learnings were appended to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
    /// Results that could not be written back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Runs every `[VERIFY]` item of `req.file`, then ticks and records as asked. A missing
/// tasks file or requirements file, or a malformed requirements file, is bad input.
pub fn verify(req: &Request, s: &Settings) -> Result<Verification, Error> {
    let text = read_input(&req.file, "tasks file")?;
    let items = parse::verify_items(&text);
    let wants_acs = items.iter().any(|i| i.ac_checklist);
    let mut requirements = None;
    let mut criteria = Vec::new();
    if wants_acs || req.requirements.is_some() {
        let path = req
            .requirements
            .clone()
            .unwrap_or_else(|| req.file.with_file_name("requirements.md"));
        let shown = path.display().to_string();
        let body = read_input(&path, "requirements file").map_err(|e| match e {
            Error::Invalid(m) if req.requirements.is_none() => Error::invalid_with_help(
                format!("{m} (an AC checklist item reads it)"),
                "give the file with --requirements FILE",
            ),
            other => other,
        })?;
        criteria = parse::criteria(&shown, &body)?;
        if criteria.is_empty() && wants_acs {
            return Err(Error::invalid_with_help(
                format!("{shown} has no AC-x.y acceptance criteria"),
                "write them as `- AC-1.2: what must hold`",
            ));
        }
        requirements = Some(path);
    }
    let mut changed: Option<Vec<String>> = None;
    let mut results = Vec::new();
    for item in &items {
        let result = if item.ac_checklist {
            let changed = changed.get_or_insert_with(|| {
                let skip = [Some(&req.file), requirements.as_ref()];
                changed_files(&s.root, &skip)
            });
            run_ac_item(item, &criteria, changed, s)
        } else {
            commands::run_item(item, s)
        };
        results.push(result);
    }
    let verdict = Verdict::of(&results);
    let file = req.file.display().to_string();
    let reason = verdict_reason(verdict, &results, &file);
    let mut v = Verification {
        file,
        requirements: requirements.map(|p| p.display().to_string()),
        items: results,
        verdict,
        reason,
        marked: 0,
        progress: None,
        warnings: Vec::new(),
    };
    if req.mark {
        mark(&req.file, &mut v, s);
    }
    if !v.items.is_empty() {
        let path = req.file.with_file_name(".progress.md");
        match record(&path, &v, s) {
            Ok(()) => v.progress = Some(path.display().to_string()),
            Err(e) => v.warnings.push(format!("learnings not recorded: {e}")),
        }
    }
    Ok(v)
}

/// Why `verdict` is not a pass: the items that failed, or could not be checked, or that
/// there was nothing to verify.
fn verdict_reason(verdict: Verdict, items: &[ItemResult], file: &str) -> Option<String> {
    let names = |f: fn(Outcome) -> bool| {
        items
            .iter()
            .filter(|i| f(i.outcome))
            .map(ItemResult::name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match verdict {
        Verdict::Pass => None,
        Verdict::Fail => Some(format!(
            "failed: {}",
            names(|o| matches!(o, Outcome::Fail | Outcome::Unstable))
        )),
        Verdict::Error if items.is_empty() => {
            Some(format!("nothing was verified: no [VERIFY] items in {file}"))
        }
        Verdict::Error => Some(format!(
            "could not be checked: {}",
            names(|o| o != Outcome::Pass)
        )),
    }
}

/// The text of an input file; a missing one (or a folder) is bad input.
fn read_input(path: &Path, what: &str) -> Result<String, Error> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| Error::Invalid(format!("{}: {what} is not UTF-8", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::Invalid(format!(
            "{}: no such {what}",
            path.display()
        ))),
        Err(_) if path.is_dir() => Err(Error::Invalid(format!(
            "{}: is a folder, not a {what}",
            path.display()
        ))),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Judges every criterion: a FAIL or UNSTABLE one fails the item; else one that could not
/// be judged (ERROR, or SKIP for want of files) makes it ERROR; it passes only when every
/// criterion was judged and passed.
fn run_ac_item(
    item: &VerifyItem,
    criteria: &[Criterion],
    changed: &[String],
    s: &Settings,
) -> ItemResult {
    let acs: Vec<AcResult> = criteria.iter().map(|c| judge_ac(c, changed, s)).collect();
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
fn changed_files(root: &Path, skip: &[Option<&PathBuf>]) -> Vec<String> {
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

/// Ticks the PASS items that are still unticked (never a FAIL or ERROR one); a failure to
/// write is a warning.
fn mark(file: &Path, v: &mut Verification, s: &Settings) {
    let lines: Vec<usize> = v
        .items
        .iter()
        .filter(|i| i.outcome == Outcome::Pass)
        .map(|i| i.line)
        .collect();
    if lines.is_empty() {
        return;
    }
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            v.warnings
                .push(format!("not marked: {}: {e}", file.display()));
            return;
        }
    };
    let now = parse::verify_items(&text);
    // Only items still where they were (a command may have edited the file).
    let mut ticked_lines = Vec::new();
    for item in v.items.iter().filter(|i| lines.contains(&i.line)) {
        if now
            .iter()
            .any(|n| n.line == item.line && n.title == item.title && !n.checked)
        {
            ticked_lines.push(item.line);
        }
    }
    if ticked_lines.is_empty() {
        return;
    }
    let (new_text, n) = files::tick(&text, &ticked_lines);
    match files::replace(s.cache_dir.as_deref(), file, new_text.as_bytes()) {
        Ok(()) => {
            v.marked = n;
            for item in &mut v.items {
                item.marked = ticked_lines.contains(&item.line);
            }
        }
        Err(e) => v.warnings.push(format!("not marked: {e}")),
    }
}

/// Lines of a failing command's output a learning keeps (its last ones).
const LEARNING_LINES: usize = 10;

/// For an item that did not pass, the last lines of its failing command's output (the
/// command is in the item's reason), as an indented block under the learning's line;
/// empty otherwise, and for a command that printed nothing.
fn failing_output(i: &ItemResult) -> String {
    let Some(c) = i
        .commands
        .iter()
        .find(|c| matches!(c.outcome, Outcome::Fail | Outcome::Error))
    else {
        return String::new();
    };
    let mut out = String::new();
    let lines: Vec<&str> = c.output.lines().collect();
    let tail = &lines[lines.len().saturating_sub(LEARNING_LINES)..];
    if !tail.is_empty() {
        out.push_str("\n  ```text");
        for l in tail {
            out.push_str(&format!("\n  {}", l.replace("```", "'''")));
        }
        out.push_str("\n  ```");
    }
    out
}

/// Appends one learning per item to the progress file.
fn record(path: &Path, v: &Verification, s: &Settings) -> Result<(), Error> {
    let old = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, e)),
    };
    let now = Timestamp::now();
    let entries: Vec<String> = v
        .items
        .iter()
        .map(|i| {
            let why = i
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            let mut entry = format!("- {now} {}: {}{why}", i.heading(), i.outcome);
            entry.push_str(&failing_output(i));
            entry
        })
        .collect();
    let new = files::add_learnings(&old, &entries);
    files::replace(s.cache_dir.as_deref(), path, new.as_bytes())
}
