//! A verification run as the short Markdown GitHub shows on a job's summary page (what
//! `status --verify` appends to the file `GITHUB_STEP_SUMMARY` names): the totals, a row
//! of counts per spec, and each criterion that failed, errored or was unstable, linked to
//! its line in the spec and to its check. Spec text is escaped so it stays text.

use crate::check::Outcome;
use crate::verify::live::{Counts, SpecRun};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// Criteria listed at most; the rest are counted.
const LISTED: usize = 50;

/// The summary of `runs`; `link` turns a repository path and line into a URL (`None`:
/// the location is shown as text).
pub fn markdown(runs: &[SpecRun], link: &dyn Fn(&str, usize) -> Option<String>) -> String {
    let total = runs.iter().fold(Counts::default(), |t, r| t.plus(r.counts));
    let mut out = format!("### vermas status --verify: {}\n\n", total.line());
    if runs.is_empty() {
        out.push_str("No spec was selected.\n\n");
        return out;
    }
    out.push_str("| Spec | PASS | FAIL | ERROR | UNSTABLE | SKIP |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    for r in runs {
        let c = r.counts;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            located(&r.name, &r.path, None, link),
            c.passed,
            c.failed,
            c.errors,
            c.unstable,
            c.skipped
        );
    }
    let bad: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            r.criteria
                .iter()
                .filter(|c| {
                    matches!(
                        c.outcome,
                        Outcome::Fail | Outcome::Error | Outcome::Unstable
                    )
                })
                .map(move |c| {
                    let checks: Vec<String> = c
                        .checks
                        .iter()
                        .filter(|k| !matches!(k.result.outcome, Outcome::Pass | Outcome::Skip))
                        .map(|k| match k.check_location.as_deref().and_then(split_line) {
                            Some((file, line)) => located(&k.target, file, Some(line), link),
                            None => format!("`{}`", code(&k.target)),
                        })
                        .collect();
                    let via = if checks.is_empty() {
                        String::new()
                    } else {
                        format!(" (check {})", checks.join(", "))
                    };
                    format!(
                        "- **{}** {} {}{via}",
                        c.outcome,
                        located(
                            &format!("{}:{}", r.path, c.line),
                            &r.path,
                            Some(c.line),
                            link
                        ),
                        escape(&c.text)
                    )
                })
        })
        .collect();
    out.push('\n');
    if !bad.is_empty() {
        out.push_str("**Criteria that did not pass**\n\n");
        for line in bad.iter().take(LISTED) {
            let _ = writeln!(out, "{line}");
        }
        if bad.len() > LISTED {
            let _ = writeln!(out, "- and {} more", bad.len() - LISTED);
        }
        out.push('\n');
    }
    out
}

/// `text` linked to `path` (at `line`) when `link` gives a URL, else as code.
fn located(
    text: &str,
    path: &str,
    line: Option<usize>,
    link: &dyn Fn(&str, usize) -> Option<String>,
) -> String {
    match link(path, line.unwrap_or(0)) {
        Some(url) => format!("[{}]({})", escape(text), url.replace(')', "%29")),
        None => format!("`{}`", code(text)),
    }
}

/// `file:line` split.
fn split_line(location: &str) -> Option<(&str, usize)> {
    let (file, line) = location.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// Text with Markdown's and HTML's special characters escaped, on one line.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '(' | ')' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text for a code span: no backticks or line breaks.
fn code(text: &str) -> String {
    text.replace(['`', '\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_text_stays_text() {
        assert_eq!(
            escape("<script>x</script> | [a](javascript:b)"),
            "&lt;script&gt;x&lt;/script&gt; \\| \\[a\\]\\(javascript:b\\)"
        );
    }
}
