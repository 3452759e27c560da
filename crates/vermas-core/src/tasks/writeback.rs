//! Writing a run's results back: ticking the items whose signal was a pass in the tasks
//! file, and one learning per item in `.progress.md` with the last lines of a failing
//! command's output (smart-ralph: "truncate to last 50 lines in learnings").

use super::{ItemResult, Settings, Verification, files, parse};
use crate::check::Outcome;
use crate::error::Error;
use crate::time::Timestamp;
use std::path::Path;

/// Ticks the items that are still unticked and whose signal was a pass: PASS ones, and by
/// default SKIP ones too (smart-ralph marks a task complete on VERIFICATION_PASS, and a
/// skipped check is no failure); never a FAIL or ERROR one. A failure to write is a
/// warning.
pub(crate) fn mark(file: &Path, v: &mut Verification, s: &Settings) {
    let strict = v.strict;
    let lines: Vec<usize> = v
        .items
        .iter()
        .filter(|i| i.outcome == Outcome::Pass || (!strict && i.outcome == Outcome::Skip))
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
pub(crate) const LEARNING_LINES: usize = 50;

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
pub(crate) fn record(path: &Path, v: &Verification, s: &Settings) -> Result<(), Error> {
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
