//! What a pytest run shows: its summary decides (a skipped test is SKIP, an expected
//! failure FAIL), an exit code that means it could not run the test is an ERROR, and no
//! summary at all is an ERROR.

use super::Decides;
use crate::check::Outcome;
use crate::proc::Finished;

/// What decides a pytest run: its exit code when it could not run the test, else the
/// summary it printed (a skipped test is SKIP, an expected failure FAIL, no summary ERROR).
pub(super) fn decide(done: &Finished) -> Decides {
    if done.text().contains("Unknown option: -P") {
        return Decides::Unproven(
            "python3 is older than 3.11: vermas runs pytest as `python3 -P -m pytest` so the \
             repository cannot stand in for pytest; use python 3.11 or later, or name a runner \
             for *.py under verify.runners"
                .to_string(),
        );
    }
    if let Some(why) = done.exit_code.and_then(pytest_error) {
        return Decides::Unproven(why.to_string());
    }
    let text = done.text();
    let Some(counts) = text.lines().rev().find_map(pytest_summary) else {
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Decides::Unproven(format!(
            "pytest could not run the test: it printed no summary (is pytest installed for python3?){}",
            if last.is_empty() {
                String::new()
            } else {
                format!("; it said: {}", last.trim())
            }
        ));
    };
    let n = |word: &str| {
        counts
            .iter()
            .filter(|(_, w)| w == word)
            .map(|(n, _)| *n)
            .sum::<u64>()
    };
    let said = counts
        .iter()
        .map(|(n, w)| format!("{n} {w}"))
        .collect::<Vec<_>>()
        .join(", ");
    if n("failed") + n("error") + n("errors") > 0 {
        Decides::ExitCode
    } else if n("xfailed") + n("xpassed") > 0 {
        Decides::Outcome(
            Outcome::Fail,
            format!("pytest: {said}: a test marked xfail is expected not to hold"),
        )
    } else if n("skipped") > 0 {
        Decides::Outcome(Outcome::Skip, format!("pytest: {said}"))
    } else if n("passed") > 0 {
        Decides::ExitCode
    } else {
        Decides::Unproven(format!("pytest ran no test ({said})"))
    }
}

/// Why a pytest exit code means the test could not be run, if it does.
fn pytest_error(code: i32) -> Option<&'static str> {
    match code {
        2 => Some("pytest was interrupted"),
        3 => Some("pytest hit an internal error"),
        4 => Some("pytest could not find the test (usage error: no such file or node id)"),
        5 => Some("pytest collected no test"),
        _ => None,
    }
}

/// The counts of a pytest summary line (`1 passed, 2 skipped in 0.1s`, possibly framed by
/// `=`), as number and word; `None` for any other line.
fn pytest_summary(line: &str) -> Option<Vec<(u64, String)>> {
    const WORDS: &[&str] = &[
        "passed",
        "failed",
        "skipped",
        "xfailed",
        "xpassed",
        "error",
        "errors",
        "deselected",
        "warning",
        "warnings",
        "rerun",
    ];
    let line = line.trim().trim_matches('=').trim();
    let (counts, _) = line.rsplit_once(" in ")?;
    if counts == "no tests ran" {
        return Some(Vec::new());
    }
    counts
        .split(", ")
        .map(|part| {
            let (n, word) = part.split_once(' ')?;
            let word = word.trim();
            WORDS
                .contains(&word)
                .then(|| Some((n.parse().ok()?, word.to_string())))?
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pytest_summaries() {
        let counts = |l| {
            pytest_summary(l).map(|c| {
                c.into_iter()
                    .map(|(n, w)| format!("{n} {w}"))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            counts("1 passed in 0.01s"),
            Some(vec!["1 passed".to_string()])
        );
        assert_eq!(
            counts("==== 1 xfailed, 2 warnings in 0.03s ===="),
            Some(vec!["1 xfailed".to_string(), "2 warnings".to_string()])
        );
        assert_eq!(counts("no tests ran in 0.01s"), Some(vec![]));
        assert_eq!(counts("checked in 3 files"), None);
        assert_eq!(counts("/usr/bin/python3: No module named pytest"), None);
    }
}
