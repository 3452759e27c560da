//! A criterion's latest result, from this session's runs or the spec's record in
//! `.beads/results/`, and recording one criterion's run into that record.

use crate::results::{self, Evidence, ResultRecord};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// The latest run of one criterion.
#[derive(Debug, Clone)]
pub struct LastRun {
    /// When it ran.
    pub at: Timestamp,
    /// The criterion's outcome (`PASS`, `FAIL`, `SKIP`, `ERROR`, `UNSTABLE`).
    pub outcome: String,
    /// Each check's evidence.
    pub checks: Vec<Evidence>,
    /// True when it comes from the record in `.beads/results/`.
    pub recorded: bool,
}

impl LastRun {
    /// True for an outcome an editor should show as a problem.
    pub fn is_bad(&self) -> bool {
        matches!(self.outcome.as_str(), "FAIL" | "ERROR" | "UNSTABLE")
    }
}

/// How `criterion` (`path:line`) is named in records.
pub fn key(rel: &str, line: usize) -> String {
    format!("{rel}:{line}")
}

/// A criterion's outcome from its checks' outcomes: FAIL, then UNSTABLE, then ERROR, then
/// PASS; SKIP only when every check was skipped.
pub fn outcome_of(checks: &[Evidence]) -> String {
    ["FAIL", "UNSTABLE", "ERROR", "PASS", "SKIP"]
        .into_iter()
        .find(|o| checks.iter().any(|c| c.outcome == *o))
        .unwrap_or("SKIP")
        .to_string()
}

/// The run of `criterion` in `record`, if the record has checks for it.
pub fn from_record(record: &ResultRecord, criterion: &str) -> Option<LastRun> {
    let checks: Vec<Evidence> = record
        .checks
        .iter()
        .filter(|c| c.criterion == criterion)
        .cloned()
        .collect();
    if checks.is_empty() {
        return None;
    }
    let at = checks
        .iter()
        .filter_map(|c| c.at)
        .max()
        .unwrap_or(record.at);
    Some(LastRun {
        at,
        outcome: outcome_of(&checks),
        checks,
        recorded: true,
    })
}

/// The newer of a session run and a recorded one (the session's on a tie: it knows the
/// criterion's own outcome).
pub fn newest(session: Option<LastRun>, recorded: Option<LastRun>) -> Option<LastRun> {
    match (session, recorded) {
        (Some(s), Some(r)) if r.at > s.at => Some(r),
        (Some(s), _) => Some(s),
        (None, r) => r,
    }
}

/// Replaces the checks of criterion `line` in the record of spec `name` (at `rel`) with
/// `checks`, recomputes the record's verdict and time, and commits it as `actor`. The
/// record is read under the lock, so concurrent runs never lose each other's checks; an
/// unreadable record is an error, never overwritten.
pub fn record_criterion(
    ws: &Workspace,
    name: &str,
    rel: &str,
    line: usize,
    checks: Vec<Evidence>,
    actor: &str,
) -> crate::error::Result<Recorded> {
    let mut txn = Txn::begin(ws)?;
    let file = format!("spec-{name}");
    let criterion = key(rel, line);
    let outcome = outcome_of(&checks);
    let now = Timestamp::now();
    let mut record = results::load(ws, &file)?.unwrap_or_else(|| ResultRecord {
        key: format!("spec:{name}"),
        verdict: String::new(),
        confidence: None,
        at: now,
        checks: Vec::new(),
        briefs: Default::default(),
        reasons: Vec::new(),
        head: None,
        prompt_hashes: Default::default(),
    });
    record.checks.retain(|c| c.criterion != criterion);
    record.checks.extend(checks);
    record.checks.sort_by_key(|c| line_of(&c.criterion));
    record.verdict = verdict_of(&record.checks).to_string();
    record.at = now;
    let text = results::render(&record)?;
    txn.write(&results::path(ws, &file), text.as_bytes())?;
    txn.commit(&CommitMessage {
        verb: "verify".into(),
        ids: vec![record.key.clone()],
        title: format!("{criterion} {outcome}"),
        actor: actor.to_string(),
    })
}

/// The line of a `path:line` criterion name (0 when it has none).
fn line_of(criterion: &str) -> usize {
    criterion
        .rsplit_once(':')
        .and_then(|(_, l)| l.parse().ok())
        .unwrap_or(0)
}

/// A spec record's verdict from all its checks, as `status --record` decides it: FAIL if
/// any failed or was unstable, else ERROR if any could not run, else PASS.
fn verdict_of(checks: &[Evidence]) -> &'static str {
    if checks
        .iter()
        .any(|c| c.outcome == "FAIL" || c.outcome == "UNSTABLE")
    {
        "FAIL"
    } else if checks.iter().any(|c| c.outcome == "ERROR") {
        "ERROR"
    } else {
        "PASS"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(criterion: &str, outcome: &str) -> Evidence {
        Evidence {
            criterion: criterion.into(),
            kind: "verify".into(),
            command: "bash x".into(),
            exit_code: Some(0),
            outcome: outcome.into(),
            classification: None,
            duration_ms: 1,
            attempt: 1,
            at: None,
            snippet: String::new(),
        }
    }

    #[test]
    fn a_criterion_is_as_bad_as_its_worst_check() {
        let e = |o| evidence("specs/a.md:3", o);
        assert_eq!(outcome_of(&[e("PASS"), e("FAIL")]), "FAIL");
        assert_eq!(outcome_of(&[e("SKIP"), e("PASS")]), "PASS");
        assert_eq!(outcome_of(&[e("SKIP")]), "SKIP");
        assert_eq!(outcome_of(&[e("ERROR"), e("UNSTABLE")]), "UNSTABLE");
        assert_eq!(verdict_of(&[e("PASS"), e("ERROR")]), "ERROR");
        assert_eq!(verdict_of(&[e("UNSTABLE"), e("ERROR")]), "FAIL");
        assert_eq!(line_of("specs/a:b.md:12"), 12);
    }

    #[test]
    fn the_newer_run_wins() {
        let run = |at, recorded| LastRun {
            at: Timestamp(at),
            outcome: "PASS".into(),
            checks: Vec::new(),
            recorded,
        };
        assert!(
            newest(Some(run(5, false)), Some(run(9, true)))
                .unwrap()
                .recorded
        );
        assert!(
            !newest(Some(run(9, false)), Some(run(9, true)))
                .unwrap()
                .recorded
        );
        assert!(newest(None, None).is_none());
    }
}
