//! The report's reading of results and merge requests, tolerant of what it does not know:
//! every field optional (absent means unknown), words kept as written, unknown keys
//! ignored, so a record written by a newer or older vermas still shows what it holds.

use crate::check::Outcome;
use crate::time::Timestamp;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A `.beads/results/<key>.yaml` record as the report reads it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ResultView {
    /// A bead id or `spec:<name>`.
    pub key: String,
    /// PASS, FAIL, NEEDS_HUMAN, ERROR (as written).
    pub verdict: Option<String>,
    /// The judge's confidence, where one spoke.
    pub confidence: Option<f64>,
    /// When it was recorded.
    pub at: Option<Timestamp>,
    /// Every check.
    pub checks: Vec<CheckView>,
    /// Briefs and replies by role.
    pub briefs: BTreeMap<String, String>,
    /// Why the verdict is what it is.
    pub reasons: Vec<String>,
    /// The commit verified.
    #[serde(alias = "commit")]
    pub head: Option<String>,
    /// The tree judged, where recorded.
    pub tree: Option<String>,
    /// The diff's base, where recorded.
    #[serde(alias = "diff_base")]
    pub base: Option<String>,
    /// What the test spec's approval rested on, in words (an approver's signed commit,
    /// or not authenticated), where recorded.
    pub approval: Option<String>,
}

/// One check of a result record.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CheckView {
    /// `specs/x.md:12`, an acceptance criterion's id, or `-`.
    pub criterion: String,
    /// `verify`, `judge`, `gate:red`...
    pub kind: String,
    /// The command run.
    pub command: String,
    /// Its exit code.
    pub exit_code: Option<i32>,
    /// The outcome as written.
    pub outcome: String,
    /// The output worth reading.
    pub snippet: String,
}

impl ResultView {
    /// True for a gate's record (every check a `gate:` one).
    pub fn is_gate(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|c| c.kind.starts_with("gate:"))
    }
}

/// A `.beads/mq/<id>.yaml` request as the report reads it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RequestView {
    /// `mq-<hash>`.
    pub id: String,
    /// Place in the queue.
    pub seq: u64,
    /// The branch to land.
    pub branch: String,
    /// The work it carries.
    pub bead: String,
    /// Where it lands.
    pub target: String,
    /// `queued`, `verifying`, `merged`... as written.
    pub state: String,
    /// The last verdict.
    pub last_verdict: Option<String>,
    /// Why it stands where it does.
    pub reason: Option<String>,
    /// The commit it landed as.
    pub merged_commit: Option<String>,
    /// Who submitted it.
    pub submitted_by: Option<String>,
    /// When it last changed.
    pub updated_at: Option<Timestamp>,
}

/// The outcome spelled `word`, if it is one.
pub fn outcome_of(word: &str) -> Option<Outcome> {
    Some(match word {
        "PASS" => Outcome::Pass,
        "FAIL" => Outcome::Fail,
        "SKIP" => Outcome::Skip,
        "ERROR" => Outcome::Error,
        "UNSTABLE" => Outcome::Unstable,
        _ => return None,
    })
}

/// Reads a record's YAML text, `None` when it does not parse.
pub fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8], shown: &str) -> Option<T> {
    let text = std::str::from_utf8(bytes).ok()?;
    crate::text::yaml::parse(text, shown, text, 1).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_ignored_and_absent_ones_unknown() {
        let text = b"key: vm-a\nverdict: PASS\njudged: {commit: abc}\ntree: def\napproval: approvals are not authenticated\nchecks:\n- criterion: ac-1\n  outcome: SOMETHING_NEW\n  extra: 1\n";
        let r: ResultView = parse(text, "r.yaml").expect("reads");
        assert_eq!(r.verdict.as_deref(), Some("PASS"));
        assert_eq!(r.tree.as_deref(), Some("def"));
        assert_eq!(
            r.approval.as_deref(),
            Some("approvals are not authenticated")
        );
        assert_eq!(r.head, None);
        assert_eq!(outcome_of(&r.checks[0].outcome), None);
        assert!(!r.is_gate());
    }
}
