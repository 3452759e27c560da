//! GitHub Actions workflow annotations for a verification run: one `::error` line per
//! criterion that failed or errored, at the criterion's line in its spec, so the failure
//! shows on the pull request's diff; the message names each failing check and the file:line
//! of its function.

use crate::check::Outcome;
use crate::verify::live::{CriterionRun, SpecRun};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// The annotation lines for `runs`: `::error` for FAIL and ERROR criteria and for problems
/// of a spec file, `::warning` for UNSTABLE ones; nothing when every criterion passed.
pub fn annotations(runs: &[SpecRun]) -> String {
    let mut out = String::new();
    for run in runs {
        for p in &run.problems {
            let _ = writeln!(
                out,
                "::error file={},title={}::{}",
                property(&run.path),
                property("vermas ERROR"),
                data(p)
            );
        }
        for c in &run.criteria {
            let level = match c.outcome {
                Outcome::Fail | Outcome::Error => "error",
                Outcome::Unstable => "warning",
                Outcome::Pass | Outcome::Skip => continue,
            };
            let _ = writeln!(
                out,
                "::{level} file={},line={},title={}::{}",
                property(&run.path),
                c.line,
                property(&format!("vermas {}", c.outcome)),
                data(&message(c))
            );
        }
    }
    out
}

/// `OUTCOME: criterion`, then a line per check that did not pass: its link, its function's
/// file:line, and the exit code or the reason.
fn message(c: &CriterionRun) -> String {
    let mut m = format!("{}: {}", c.outcome, c.text);
    for chk in &c.checks {
        let r = &chk.result;
        if matches!(r.outcome, Outcome::Pass | Outcome::Skip) {
            continue;
        }
        m.push('\n');
        m.push_str(&chk.target);
        if let Some(at) = &chk.check_location {
            let _ = write!(m, " ({at})");
        }
        let detail = match (r.outcome, r.exit_code, r.reason.as_deref()) {
            (Outcome::Fail, Some(code), _) => format!("exit {code}"),
            (_, _, Some(reason)) => reason.trim().to_string(),
            (_, Some(code), _) => format!("exit {code}"),
            _ => String::new(),
        };
        if !detail.is_empty() {
            let _ = write!(m, ": {detail}");
        }
    }
    if c.checks.is_empty()
        && let Some(reason) = &c.reason
    {
        let _ = write!(m, "\n{}", reason.trim());
    }
    m
}

/// A message escaped as GitHub's workflow commands require: `%`, CR and LF.
pub(crate) fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value (`file=`, `title=`) escaped: as [`data`], and `:` and `,` too.
pub(crate) fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_github_requires() {
        assert_eq!(data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
        assert_eq!(property("50% a:b,c\nd"), "50%25 a%3Ab%2Cc%0Ad");
    }
}
