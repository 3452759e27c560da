//! What approving a test spec froze: the hash of its criteria, the commit it was approved
//! at, by whom and when. A test spec is approved only while it is closed and its criteria
//! still hash to what was approved; one whose criteria were edited afterwards (by hand,
//! on a branch, or with the stamp removed) reads as pending approval again, so only the
//! criteria a person approved ever decide an inspection or a merge.

pub use super::model::Approval;
use super::model::{AcceptanceCriterion, Bead, IssueType, Status};
use crate::time::Timestamp;

/// The hash of `criteria` as they decide: each one's id, description and checks, in order
/// (git's blob hash of that text).
pub fn criteria_hash(criteria: &[AcceptanceCriterion]) -> String {
    let mut text = String::new();
    for c in criteria {
        text.push_str(&format!("{}\n{}\n", c.id, c.description));
        for (key, value) in c.checks() {
            text.push_str(&format!("{key}={value}\n"));
        }
        text.push('\n');
    }
    crate::sys::hash::blob(&text)
}

impl Approval {
    /// The stamp for approving `criteria` now, as `by`, at `commit`, freezing `files`
    /// (path → committed blob) and the live spec `spec`.
    pub fn of(
        criteria: &[AcceptanceCriterion],
        files: std::collections::BTreeMap<String, String>,
        spec: Option<String>,
        by: &str,
        commit: Option<String>,
    ) -> Approval {
        Approval {
            criteria: criteria_hash(criteria),
            files,
            spec,
            commit,
            by: Some(by.to_string()),
            at: Some(Timestamp::now()),
        }
    }
}

/// True when `bead` is a closed test spec whose approval stamp is missing or no longer
/// matches its criteria.
fn lapsed(bead: &Bead) -> bool {
    bead.issue_type == IssueType::TestSpec
        && bead.status == Status::Closed
        && bead
            .approved
            .as_ref()
            .is_none_or(|a| a.criteria != criteria_hash(&bead.acceptance_criteria))
}

/// Reads a closed test spec whose approval does not hold as open (pending approval again).
pub fn settle(bead: &mut Bead) {
    if lapsed(bead) {
        bead.status = Status::Open;
    }
}

/// Why `spec` waits for approval when it was approved once: its criteria changed since.
pub fn changed_since_approval(spec: &Bead) -> Option<String> {
    let a = spec.approved.as_ref()?;
    (a.criteria != criteria_hash(&spec.acceptance_criteria)).then(|| {
        format!(
            "the criteria of {} changed after they were approved{}",
            spec.id,
            a.commit
                .as_deref()
                .map(|c| format!(" (at {})", &c[..c.len().min(12)]))
                .unwrap_or_default()
        )
    })
}
