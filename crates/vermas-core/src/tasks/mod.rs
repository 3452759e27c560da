//! `[VERIFY]` task items: run their commands in order and answer with one of smart-ralph's
//! two signals, VERIFICATION_PASS or VERIFICATION_FAIL.
//!
//! A tasks file item such as `- [ ] V4 [VERIFY] Full local CI: cargo fmt --check && cargo
//! test` names commands after its first `: ` (else in backticks on its `**Verify**:` line);
//! they run one by one with `sh -c` in the repository root, each in its own process group
//! with `gates.timeout`. An item mentioning "AC checklist" instead judges every `AC-x.y` of
//! requirements.md through the LLM judge. By default the spec-executor's failure table
//! decides (a missing program is SKIP, a timeout FAIL, no failures a pass, nothing verified
//! said in the report); `--strict` keeps vermas's own rule that only what ran and passed is
//! a pass, and signals what could not be checked as VERIFICATION_FAIL with the reason.
//! Results can tick the passing items and are appended to `.progress.md` under
//! `## Learnings`.

pub(crate) mod ac;
pub(crate) mod commands;
pub(crate) mod files;
pub(crate) mod parse;
pub mod render;
pub(crate) mod writeback;

use crate::check::{CheckResult, Outcome};
use crate::config::Config;
use crate::error::Error;
use crate::judge::JudgeSettings;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    /// vermas's own rules instead of smart-ralph's table: a program missing, a timeout or
    /// nothing verified is not a pass.
    pub strict: bool,
}

/// The overall answer, spelled as one of the two signals smart-ralph's loop knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Nothing failed (by default); every item ran and passed (`--strict`).
    #[serde(rename = "VERIFICATION_PASS")]
    Pass,
    /// Some item failed, or (`--strict`) could not be checked.
    #[serde(rename = "VERIFICATION_FAIL")]
    Fail,
}

impl Verdict {
    /// The verdict of a run's items. Any FAIL (or UNSTABLE) is FAIL. Otherwise, by default,
    /// PASS ("no failures = pass", even with nothing verified); strict, PASS needs at least
    /// one item and every one PASS.
    pub fn of(items: &[ItemResult], strict: bool) -> Verdict {
        let failed = items
            .iter()
            .any(|i| matches!(i.outcome, Outcome::Fail | Outcome::Unstable));
        let all_passed = !items.is_empty() && items.iter().all(|i| i.outcome == Outcome::Pass);
        if failed || (strict && !all_passed) {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "VERIFICATION_PASS",
            Verdict::Fail => "VERIFICATION_FAIL",
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
    /// PASS, FAIL, SKIP (nothing verified, nothing failed) or, `--strict`, ERROR (could
    /// not be checked).
    pub outcome: Outcome,
    /// Why it did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The `**Verify**:` line its commands were read from, when not its own line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_line: Option<usize>,
    /// Each command in order; those after a FAIL (or strict, an ERROR) are SKIP, not run.
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
    /// VERIFICATION_PASS or VERIFICATION_FAIL.
    pub verdict: Verdict,
    /// Why the verdict is not a pass, or that a pass verified nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Run with `--strict`.
    pub strict: bool,
    /// Items ticked in the tasks file by this run.
    pub marked: usize,
    /// The progress file learnings were appended to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
    /// Results that could not be written back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Verification {
    /// The process exit code: 0 for a pass, 1 when an item failed, 3 when (strict) the
    /// fail is only for what could not be checked.
    pub fn exit_code(&self) -> i32 {
        let failed = self
            .items
            .iter()
            .any(|i| matches!(i.outcome, Outcome::Fail | Outcome::Unstable));
        match self.verdict {
            Verdict::Pass => 0,
            Verdict::Fail if failed => 1,
            Verdict::Fail => 3,
        }
    }
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
                ac::changed_files(&s.root, &skip)
            });
            ac::run_ac_item(item, &criteria, changed, s, req.strict)
        } else {
            commands::run_item(item, s, req.strict)
        };
        results.push(result);
    }
    let verdict = Verdict::of(&results, req.strict);
    let file = req.file.display().to_string();
    let reason = verdict_reason(verdict, &results, &file, req.strict);
    let mut v = Verification {
        file,
        requirements: requirements.map(|p| p.display().to_string()),
        items: results,
        verdict,
        reason,
        strict: req.strict,
        marked: 0,
        progress: None,
        warnings: Vec::new(),
    };
    if req.mark {
        writeback::mark(&req.file, &mut v, s);
    }
    if !v.items.is_empty() {
        let path = req.file.with_file_name(".progress.md");
        match writeback::record(&path, &v, s) {
            Ok(()) => v.progress = Some(path.display().to_string()),
            Err(e) => v.warnings.push(format!("learnings not recorded: {e}")),
        }
    }
    Ok(v)
}

/// Why `verdict` is not a pass (the items that failed, or, strict, could not be checked),
/// or, for a pass that verified nothing, why nothing was: no items, every command
/// missing, every check skipped.
fn verdict_reason(
    verdict: Verdict,
    items: &[ItemResult],
    file: &str,
    strict: bool,
) -> Option<String> {
    let names = |f: fn(Outcome) -> bool| {
        items
            .iter()
            .filter(|i| f(i.outcome))
            .map(ItemResult::name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let failed = items
        .iter()
        .any(|i| matches!(i.outcome, Outcome::Fail | Outcome::Unstable));
    if failed {
        return Some(format!(
            "failed: {}",
            names(|o| matches!(o, Outcome::Fail | Outcome::Unstable))
        ));
    }
    if items.is_empty() {
        return Some(format!("nothing was verified: no [VERIFY] items in {file}"));
    }
    if strict && verdict == Verdict::Fail {
        return Some(format!(
            "could not be checked: {}",
            names(|o| o != Outcome::Pass)
        ));
    }
    if items.iter().any(|i| i.outcome == Outcome::Pass) {
        return None;
    }
    let commands: Vec<&CheckResult> = items.iter().flat_map(|i| &i.commands).collect();
    let every_missing = items.iter().all(|i| i.acs.is_empty())
        && !commands.is_empty()
        && commands.iter().all(|c| c.exit_code == Some(127));
    Some(if every_missing {
        "nothing was verified: every command was missing".to_string()
    } else {
        "nothing was verified: every check was skipped".to_string()
    })
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
