//! The human report of a `tasks verify` run: a block per item, the AC table, a count line,
//! and the signal alone on the last line, in the shape of smart-ralph's qa-engineer.

use super::{ItemResult, Verification};
use crate::check::{CheckResult, Outcome};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// Lines of a failing command's output shown.
const SNIPPET_LINES: usize = 12;

/// Characters of evidence shown in an AC table cell.
const EVIDENCE_CHARS: usize = 100;

/// The report; its last line is `VERIFICATION_PASS` or `VERIFICATION_FAIL`, after the
/// reason it is not a pass (or that a pass verified nothing).
pub fn human(v: &Verification) -> String {
    let mut out = String::new();
    for item in &v.items {
        let _ = writeln!(out, "Verified {}  {}:{}", item.heading(), v.file, item.line);
        if let Some(n) = item.verify_line {
            let _ = writeln!(
                out,
                "  (commands from its **Verify**: line, {}:{n})",
                v.file
            );
        }
        if item.acs.is_empty() {
            write_commands(&mut out, item);
        } else {
            write_acs(&mut out, item);
        }
        out.push('\n');
    }
    let count = |o: Outcome| v.items.iter().filter(|i| i.outcome == o).count();
    if !v.items.is_empty() {
        let _ = write!(
            out,
            "{} passed, {} failed",
            count(Outcome::Pass),
            count(Outcome::Fail) + count(Outcome::Unstable),
        );
        if v.strict {
            let errors = count(Outcome::Error);
            let _ = writeln!(
                out,
                ", {errors} error{}",
                if errors == 1 { "" } else { "s" }
            );
        } else {
            let _ = writeln!(out, ", {} skipped", count(Outcome::Skip));
        }
    }
    if v.marked > 0 {
        let s = if v.marked == 1 { "" } else { "s" };
        let _ = writeln!(out, "marked {} item{s} [x] in {}", v.marked, v.file);
    }
    if let Some(p) = &v.progress {
        let _ = writeln!(out, "learnings appended to {p}");
    }
    if let Some(reason) = &v.reason {
        let _ = writeln!(out, "{reason}");
    }
    let _ = writeln!(out, "{}", v.verdict);
    out
}

/// `- command: OUTCOME (facts)` per command, with the output of a FAIL or ERROR.
fn write_commands(out: &mut String, item: &ItemResult) {
    if item.commands.is_empty() {
        let why = item.reason.as_deref().unwrap_or_default();
        let _ = writeln!(out, "- {} ({why})", item.outcome);
        return;
    }
    for c in &item.commands {
        let _ = writeln!(out, "- {}: {}{}", c.command, c.outcome, facts(c));
        let output = c.output.trim();
        // An ERROR's reason often is its output already ("command not found: ...").
        let said = c.reason.as_deref().is_some_and(|r| r.contains(output));
        let shown = c.outcome == Outcome::Fail || (c.outcome == Outcome::Error && !said);
        if shown && !output.is_empty() {
            for line in c.snippet(SNIPPET_LINES).0.lines() {
                let _ = writeln!(out, "  | {line}");
            }
            if c.truncated {
                let _ = writeln!(out, "  | [output truncated]");
            }
        }
    }
}

/// ` (exit 1, 0.3s)`, ` (command not found: ...)`.
fn facts(c: &CheckResult) -> String {
    let mut f = Vec::new();
    match (c.outcome, c.exit_code) {
        (Outcome::Pass, _) => {}
        (Outcome::Fail, Some(code)) if c.reason.is_none() => f.push(format!("exit {code}")),
        _ => f.extend(c.reason.clone()),
    }
    if c.outcome != Outcome::Skip || c.exit_code.is_some() {
        f.push(format!("{:.1}s", c.duration_ms as f64 / 1000.0));
    }
    if f.is_empty() {
        String::new()
    } else {
        format!(" ({})", f.join(", "))
    }
}

/// The table `AC | Description | Status | Evidence`, then the failed ACs.
fn write_acs(out: &mut String, item: &ItemResult) {
    out.push('\n');
    out.push_str("| AC | Description | Status | Evidence |\n");
    out.push_str("|----|-------------|--------|----------|\n");
    for a in &item.acs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            a.id,
            cell(&a.description, usize::MAX),
            a.outcome,
            cell(&a.evidence, EVIDENCE_CHARS)
        );
    }
    if let Some(reason) = item
        .reason
        .as_deref()
        .filter(|_| item.outcome != Outcome::Pass)
    {
        let _ = writeln!(out, "\n{reason}");
    }
}

/// Text fit for one table cell: one line, `|` escaped, at most `max` characters.
fn cell(text: &str, max: usize) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s: String = one.chars().take(max).collect();
    if one.chars().count() > max {
        s.push_str("...");
    }
    s.replace('|', "\\|")
}
