//! Judge checks: a rubric's criterion and files go to an LLM command as a prompt, and the
//! reply's verdict decides. No verdict is never a pass.

pub(crate) mod llm;
pub(crate) mod rubric;
pub(crate) mod verdict;

use crate::check::{CheckResult, Outcome};
use crate::config::Config;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use verdict::Verdict;

/// How judge checks run.
#[derive(Debug, Clone)]
pub struct JudgeSettings {
    /// The LLM command (prompt on stdin, reply on stdout), run with `sh -c`.
    pub command: String,
    /// Longest one call may take.
    pub timeout: Duration,
    /// Bytes of each file put in the prompt.
    pub max_file_bytes: u64,
    /// Replies per check; the majority decides.
    pub samples: u32,
    /// `.beads/.cache`, where replies are kept (`None` outside a workspace: no caching).
    pub cache_dir: Option<PathBuf>,
    /// Use cached replies.
    pub use_cache: bool,
}

impl JudgeSettings {
    /// The LLM call these settings describe.
    pub fn llm(&self) -> llm::Llm {
        llm::Llm {
            command: self.command.clone(),
            timeout: self.timeout,
            cache_dir: self.cache_dir.clone(),
            use_cache: self.use_cache,
        }
    }

    /// Settings from config for the `judge` role.
    pub fn from_config(c: &Config, cache_dir: Option<PathBuf>, use_cache: bool) -> JudgeSettings {
        JudgeSettings {
            command: c.llm_command("judge").to_string(),
            timeout: c.llm.timeout.get(),
            max_file_bytes: c.judge.max_file_bytes,
            samples: c.judge.samples.max(1),
            cache_dir,
            use_cache,
        }
    }
}

/// Judges `file#function` (a rubric) for the spec criterion `criterion`.
pub(crate) fn run_judge(
    root: &Path,
    file: &str,
    function: Option<&str>,
    criterion: &str,
    settings: &JudgeSettings,
) -> CheckResult {
    let start = Instant::now();
    let Some(function) = function else {
        return CheckResult::without_run(
            Outcome::Error,
            format!("judge target {file} names no rubric function (use {file}#function)"),
        );
    };
    let scratch = settings
        .cache_dir
        .as_ref()
        .map_or_else(std::env::temp_dir, |d| d.join("tmp"));
    let rubric = match rubric::extract(root, file, function, &scratch) {
        Ok(r) => r,
        Err(e) => return CheckResult::without_run(Outcome::Error, e),
    };
    let files = match rubric::read_files(root, &rubric.files, settings.max_file_bytes) {
        Ok(f) => f,
        Err(e) => return CheckResult::without_run(Outcome::Error, e),
    };
    decide(root, &prompt(criterion, &rubric, &files), settings, start)
}

/// Judges `criterion` against the files `patterns` name (globs allowed), without a rubric
/// file: the criterion is both what must hold and what to check.
pub(crate) fn judge_criterion(
    root: &Path,
    criterion: &str,
    patterns: &[String],
    settings: &JudgeSettings,
) -> CheckResult {
    let start = Instant::now();
    let files = match rubric::read_files(root, patterns, settings.max_file_bytes) {
        Ok(f) => f,
        Err(e) => return CheckResult::without_run(Outcome::Error, e),
    };
    let rubric = rubric::Rubric {
        criterion: criterion.to_string(),
        files: patterns.to_vec(),
    };
    decide(root, &prompt(criterion, &rubric, &files), settings, start)
}

/// Asks for `settings.samples` verdicts on `prompt` and combines them.
fn decide(root: &Path, prompt: &str, settings: &JudgeSettings, start: Instant) -> CheckResult {
    let mut verdicts = Vec::new();
    let mut last_reply = String::new();
    for sample in 0..settings.samples {
        match ask(root, prompt, sample, settings) {
            Ok((reply, v)) => {
                last_reply = reply;
                verdicts.push(v);
            }
            Err(e) => {
                let mut r = CheckResult::without_run(Outcome::Error, e);
                r.command = settings.command.clone();
                r.duration_ms = start.elapsed().as_millis() as u64;
                return r;
            }
        }
    }
    let passes = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Pass(_)))
        .count();
    let fails = verdicts.len() - passes;
    let reasoning = |want_pass: bool| {
        verdicts
            .iter()
            .find_map(|v| match (v, want_pass) {
                (Verdict::Pass(r), true) | (Verdict::Fail(r), false) => Some(r.clone()),
                _ => None,
            })
            .unwrap_or_default()
    };
    let (outcome, reason) = if passes > 0 && fails > 0 {
        (
            Outcome::Unstable,
            format!(
                "{passes} of {} samples passed, {fails} failed",
                verdicts.len()
            ),
        )
    } else if passes > 0 {
        (Outcome::Pass, reasoning(true))
    } else {
        (Outcome::Fail, reasoning(false))
    };
    CheckResult {
        outcome,
        reason: Some(reason).filter(|r| !r.is_empty()),
        command: settings.command.clone(),
        exit_code: None,
        duration_ms: start.elapsed().as_millis() as u64,
        output: last_reply,
        truncated: false,
    }
}

/// The prompt: the criterion, the files with line numbers, and the answer format.
pub(crate) fn prompt(
    spec_criterion: &str,
    rubric: &rubric::Rubric,
    files: &[rubric::JudgedFile],
) -> String {
    let mut p = String::new();
    p.push_str("You are judging whether a software project meets one success criterion.\n\n");
    let _ = writeln!(p, "Success criterion: {spec_criterion}");
    let _ = writeln!(p, "What to check: {}\n", rubric.criterion.trim());
    if files.is_empty() {
        p.push_str("No files were given.\n");
    }
    for f in files {
        let _ = writeln!(p, "=== {} ===", f.path);
        for (i, line) in f.text.lines().enumerate() {
            let _ = writeln!(p, "{:>5} | {line}", i + 1);
        }
        if f.truncated {
            let _ = writeln!(
                p,
                "[truncated: only the first {} of {} bytes of {} are shown]",
                f.text.len(),
                f.size,
                f.path
            );
        }
        p.push('\n');
    }
    p.push_str(
        "Decide whether the files meet the criterion. Answer with PASS or FAIL alone on the \
         first line, then one to three sentences of reasoning.\n",
    );
    p
}

/// One reply with its verdict, from the cache when the same prompt and command were
/// answered before, else from the LLM command.
fn ask(
    root: &Path,
    prompt: &str,
    sample: u32,
    s: &JudgeSettings,
) -> Result<(String, Verdict), String> {
    // A cached reply vermas did not write is ignored and the LLM asked: its verdict is the
    // LLM's own either way.
    s.llm()
        .ask(root, "judge", &sample.to_string(), prompt, verdict::parse)
        .map(|(reply, v, _)| (reply, v))
}
