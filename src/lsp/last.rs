//! A criterion's latest result, from this session's runs or the spec's record in
//! `.beads/results/`, and recording one criterion's run into that record.

use vermas_core::check::Outcome;
use vermas_core::store::{CommitMessage, Recorded, Txn};
use vermas_core::time::Timestamp;
use vermas_core::verify::results::{self, Evidence, ResultRecord, Verdict};
use vermas_core::workspace::Workspace;

/// The latest run of one criterion.
#[derive(Debug, Clone)]
pub struct LastRun {
    /// When it ran.
    pub at: Timestamp,
    /// The criterion's outcome.
    pub outcome: Outcome,
    /// Each check's evidence.
    pub checks: Vec<Evidence>,
    /// True when it comes from the record in `.beads/results/`.
    pub recorded: bool,
}

impl LastRun {
    /// True for an outcome an editor should show as a problem.
    pub fn is_bad(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Fail | Outcome::Error | Outcome::Unstable
        )
    }
}

/// How `criterion` (`path:line`) is named in records.
pub fn key(rel: &str, line: usize) -> String {
    format!("{rel}:{line}")
}

/// A criterion's outcome from its checks' outcomes: FAIL, then UNSTABLE, then ERROR, then
/// PASS; SKIP only when every check was skipped.
pub fn outcome_of(checks: &[Evidence]) -> Outcome {
    [
        Outcome::Fail,
        Outcome::Unstable,
        Outcome::Error,
        Outcome::Pass,
    ]
    .into_iter()
    .find(|o| checks.iter().any(|c| c.outcome == *o))
    .unwrap_or(Outcome::Skip)
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
) -> vermas_core::error::Result<Recorded> {
    let mut txn = Txn::begin(ws)?;
    let file = format!("spec-{name}");
    let criterion = key(rel, line);
    let outcome = outcome_of(&checks);
    let now = Timestamp::now();
    let mut record = results::load(ws, &file)?.unwrap_or_else(|| ResultRecord {
        key: format!("spec:{name}"),
        verdict: Verdict::Pass,
        confidence: None,
        at: now,
        checks: Vec::new(),
        briefs: Default::default(),
        reasons: Vec::new(),
        head: None,
        tree: None,
        approval: None,
        prompt_hashes: Default::default(),
    });
    record.checks.retain(|c| c.criterion != criterion);
    record.checks.extend(checks);
    record.checks.sort_by_key(|c| line_of(&c.criterion));
    record.verdict = verdict_of(&record.checks);
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
fn verdict_of(checks: &[Evidence]) -> Verdict {
    if checks
        .iter()
        .any(|c| matches!(c.outcome, Outcome::Fail | Outcome::Unstable))
    {
        Verdict::Fail
    } else if checks.iter().any(|c| c.outcome == Outcome::Error) {
        Verdict::Error
    } else {
        Verdict::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(criterion: &str, outcome: Outcome) -> Evidence {
        Evidence {
            criterion: criterion.into(),
            kind: "verify".into(),
            command: "bash x".into(),
            exit_code: Some(0),
            outcome,
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
        use Outcome::*;
        assert_eq!(outcome_of(&[e(Pass), e(Fail)]), Fail);
        assert_eq!(outcome_of(&[e(Skip), e(Pass)]), Pass);
        assert_eq!(outcome_of(&[e(Skip)]), Skip);
        assert_eq!(outcome_of(&[e(Error), e(Unstable)]), Unstable);
        assert_eq!(verdict_of(&[e(Pass), e(Error)]), Verdict::Error);
        assert_eq!(verdict_of(&[e(Unstable), e(Error)]), Verdict::Fail);
        assert_eq!(line_of("specs/a:b.md:12"), 12);
    }

    #[test]
    fn the_newer_run_wins() {
        let run = |at, recorded| LastRun {
            at: Timestamp(at),
            outcome: Outcome::Pass,
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
