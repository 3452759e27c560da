//! Rendering a verification run: the human report, JSON, JUnit XML, TAP, GitHub
//! Actions annotations and the Markdown job summary.

pub mod github;
pub mod job_summary;
mod machine;

pub use machine::{json, junit, tap};

use crate::check::Outcome;
use crate::text::words::{plural, printable};
use crate::verify::live::{Counts, Kinds, SpecRun};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// Lines of a failing check's output shown in the human report.
const SNIPPET_LINES: usize = 12;

/// The human report: a block per spec, then the plain total line; `tag` writes each
/// outcome (see [`plain_tag`]; a terminal front end colours it).
pub fn human(runs: &[SpecRun], kinds: Kinds, tag: &dyn Fn(Outcome) -> String) -> String {
    let mut out = String::new();
    let mut total = Counts::default();
    for (i, run) in runs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let bead = run
            .bead
            .as_deref()
            .map(|b| format!(" ({b})"))
            .unwrap_or_default();
        let heading = format!("{}: {}{bead}", kinds.heading(), run.name);
        let _ = writeln!(out, "{heading}\n{}", "=".repeat(heading.chars().count()));
        for p in &run.problems {
            let _ = writeln!(out, "  {} {p}", tag(Outcome::Error));
        }
        for c in &run.criteria {
            // What a check, a script or a reply wrote is shown, never obeyed.
            let reason = printable(c.reason.as_deref().unwrap_or_default());
            let location = format!("{}:{}", run.path, c.line);
            match c.outcome {
                Outcome::Skip => {
                    let why = if reason.is_empty() {
                        String::new()
                    } else {
                        format!(" ({reason})")
                    };
                    let _ = writeln!(out, "  {} {}{why}", tag(c.outcome), c.text);
                }
                _ => {
                    let _ = writeln!(out, "  {} {}", tag(c.outcome), c.text);
                }
            }
            if c.passed_before == Some(true) {
                let _ = writeln!(
                    out,
                    "         vanity: passed before the change (on the baseline too)"
                );
            }
            for chk in &c.checks {
                if chk.result.outcome == Outcome::Skip && c.outcome != Outcome::Skip {
                    continue;
                }
                if c.outcome == Outcome::Skip {
                    continue;
                }
                let mut facts = Vec::new();
                if let Some(code) = chk.result.exit_code {
                    facts.push(format!("exit {code}"));
                }
                if chk.result.duration_ms > 0 || chk.result.exit_code.is_some() {
                    facts.push(format!("{:.1}s", chk.result.duration_ms as f64 / 1000.0));
                }
                let facts = if facts.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", facts.join(", "))
                };
                // The criterion's place, then the check function's own, both clickable.
                let function_at = chk
                    .check_location
                    .as_deref()
                    .map(|l| format!("  {l}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "         {}{facts}  {location}{function_at}",
                    chk.target
                );
                write_detail(&mut out, chk.kind.is_judge(), &chk.result);
            }
        }
        total = total.plus(run.counts);
        if runs.len() > 1 {
            let _ = writeln!(out, "{}: {}", run.name, run.counts.line());
        }
    }
    if runs.len() > 1 {
        out.push('\n');
    }
    let _ = writeln!(out, "{}", total.line());
    out
}

/// The reason, snippet or reasoning under a check that did not pass.
fn write_detail(out: &mut String, is_judge: bool, r: &crate::check::CheckResult) {
    let indent = "           ";
    match r.outcome {
        Outcome::Pass => {
            if is_judge && let Some(reason) = &r.reason {
                let _ = writeln!(out, "{indent}\"{}\"", printable(reason.trim()));
            }
        }
        Outcome::Fail if !is_judge => {
            let (snippet, left_out) = r.snippet(SNIPPET_LINES);
            for line in snippet.lines() {
                let _ = writeln!(out, "{indent}| {}", printable(line));
            }
            if left_out > 0 {
                let _ = writeln!(
                    out,
                    "{indent}| ({} left out; the whole output is in `--json` and in the record of `--record`)",
                    plural(left_out, "line")
                );
            }
            if r.truncated {
                let _ = writeln!(
                    out,
                    "{indent}| (output cut at verify.output_cap; what came after was not kept)"
                );
            }
        }
        Outcome::Skip => {}
        _ => {
            if let Some(reason) = &r.reason {
                let label = match r.outcome {
                    Outcome::Error => "error: ",
                    Outcome::Unstable => "unstable: ",
                    _ => "",
                };
                let _ = writeln!(out, "{indent}{label}{}", printable(reason.trim()));
            }
        }
    }
}

/// `[PASS]` and friends, plain: the front end styles them (colour stays out of the domain).
pub fn plain_tag(o: Outcome) -> String {
    format!("[{o}]")
}
