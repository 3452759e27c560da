//! Machine formats of a verification run: JSON, JUnit XML, TAP.

use crate::check::Outcome;
use crate::verify::live::{Counts, SpecRun};
use serde_json::{Value, json};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// The run as one JSON object with `schema_version: 1`.
pub fn json(runs: &[SpecRun]) -> Value {
    let total = runs.iter().fold(Counts::default(), |t, r| t.plus(r.counts));
    json!({
        "schema_version": 1,
        "specs": runs,
        "counts": total,
        "exit_code": total.exit_code(),
    })
}

/// JUnit XML: a test suite per spec, a test case per criterion.
pub fn junit(runs: &[SpecRun]) -> String {
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = runs.iter().fold(Counts::default(), |t, r| t.plus(r.counts));
    let count = |c: Counts| c.passed + c.failed + c.skipped + c.errors + c.unstable;
    let _ = writeln!(
        x,
        "<testsuites name=\"vermas\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
        count(total),
        total.failed + total.unstable,
        total.errors,
        total.skipped
    );
    for run in runs {
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            esc(&run.name),
            count(run.counts),
            run.counts.failed + run.counts.unstable,
            run.counts.errors,
            run.counts.skipped
        );
        for p in &run.problems {
            let _ = writeln!(
                x,
                "    <testcase name=\"{}\" classname=\"{}\"><error message=\"{}\"/></testcase>",
                esc("spec file"),
                esc(&run.path),
                esc(p)
            );
        }
        for c in &run.criteria {
            let secs: f64 = c
                .checks
                .iter()
                .map(|k| k.result.duration_ms as f64 / 1000.0)
                .sum();
            // classname is the spec alone, so a test's history survives edits that move it.
            let _ = write!(
                x,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\" time=\"{:.3}\"",
                esc(&c.text),
                esc(&run.path),
                esc(&run.path),
                c.line,
                secs.max(0.0)
            );
            let reason = esc(c.reason.as_deref().unwrap_or_default());
            let output: String = c
                .checks
                .iter()
                .map(|k| k.result.output.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            match c.outcome {
                Outcome::Pass => x.push_str("/>\n"),
                Outcome::Skip => {
                    let _ = writeln!(x, "><skipped message=\"{reason}\"/></testcase>");
                }
                Outcome::Fail | Outcome::Unstable => {
                    let _ = writeln!(
                        x,
                        "><failure message=\"{}{reason}\">{}</failure></testcase>",
                        if c.outcome == Outcome::Unstable {
                            "UNSTABLE: "
                        } else {
                            ""
                        },
                        esc(&output)
                    );
                }
                Outcome::Error => {
                    let _ = writeln!(
                        x,
                        "><error message=\"{reason}\">{}</error></testcase>",
                        esc(&output)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// TAP version 13: one test point per criterion.
pub fn tap(runs: &[SpecRun]) -> String {
    let n: usize = runs
        .iter()
        .map(|r| r.criteria.len() + r.problems.len())
        .sum();
    let mut t = format!("TAP version 13\n1..{n}\n");
    let mut i = 0;
    for run in runs {
        for p in &run.problems {
            i += 1;
            let _ = writeln!(
                t,
                "not ok {i} - {} # spec file error\n  ---\n  message: {}\n  ...",
                run.path,
                yaml_line(p)
            );
        }
        for c in &run.criteria {
            i += 1;
            let name = format!("{}:{} {}", run.path, c.line, c.text.replace('#', "\\#"));
            let reason = c.reason.as_deref().unwrap_or_default();
            match c.outcome {
                Outcome::Pass => {
                    let _ = writeln!(t, "ok {i} - {name}");
                }
                Outcome::Skip => {
                    let _ = writeln!(t, "ok {i} - {name} # SKIP {reason}");
                }
                o => {
                    let _ = writeln!(t, "not ok {i} - {name}");
                    let _ = writeln!(t, "  ---\n  outcome: {o}\n  message: {}", yaml_line(reason));
                    let output: Vec<&str> = c
                        .checks
                        .iter()
                        .flat_map(|k| k.result.output.lines())
                        .collect();
                    if !output.is_empty() {
                        t.push_str("  output: |\n");
                        for line in output {
                            let _ = writeln!(t, "    {line}");
                        }
                    }
                    t.push_str("  ...\n");
                }
            }
        }
    }
    t
}

/// A string as a one-line YAML scalar for TAP diagnostics.
fn yaml_line(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Escapes text for XML attributes and content, dropping characters XML forbids.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}
