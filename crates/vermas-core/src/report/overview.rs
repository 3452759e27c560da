//! The overview: every work item in one state, what waits for a person (test specs to
//! approve, questions, gate bypasses) and the refinery's queue and recent merges.

use super::ledger::Ledger;
use super::model::{
    Bypass, MergeItem, Overview, PendingSpec, Question, WorkGroup, WorkItem, WorkState,
};
use super::views::RequestView;
use crate::bead::fields::display_order;
use crate::bead::graph::{Others, is_ready, open_blockers};
use crate::bead::model::{AWAITING_INPUT, Bead, IssueType, Status, VERIFIED};
use crate::inspect::assign::GATE_BYPASSED;

/// True for a work item: not a test spec, a result, a message, a molecule or a gate.
pub(super) fn is_work(b: &Bead) -> bool {
    !matches!(
        b.issue_type,
        IssueType::TestSpec
            | IssueType::VerificationResult
            | IssueType::Message
            | IssueType::Molecule
            | IssueType::Gate
    )
}

/// The overview of `ledger`, lists cut at `cap` items.
pub(super) fn overview(ledger: &Ledger, cap: usize) -> Overview {
    let others = Others::of_set(&ledger.beads);
    let mut by_state: Vec<Vec<(&Bead, Vec<String>)>> = vec![Vec::new(); WorkState::ALL.len()];
    let mut work = 0;
    for b in ledger.beads.beads.values().filter(|b| is_work(b)) {
        work += 1;
        let (state, blockers) = state_of(b, &others, ledger);
        by_state[state as usize].push((b, blockers));
    }
    let groups = WorkState::ALL
        .iter()
        .zip(by_state)
        .map(|(state, mut beads)| {
            beads.sort_by(|a, b| display_order(a.0, b.0));
            WorkGroup {
                state: *state,
                count: beads.len(),
                items: beads
                    .into_iter()
                    .take(cap)
                    .map(|(b, blocked_by)| item(b, blocked_by))
                    .collect(),
            }
        })
        .collect();
    let (queue, merged, stopped) = refinery(&ledger.requests, cap);
    Overview {
        work,
        groups,
        pending_specs: pending_specs(ledger),
        questions: questions(ledger),
        bypasses: bypasses(ledger),
        queue,
        merged,
        stopped,
    }
}

/// The one state `b` is shown in, with what blocks it.
fn state_of(b: &Bead, others: &Others<'_>, ledger: &Ledger) -> (WorkState, Vec<String>) {
    let blockers: Vec<String> = open_blockers(others, b)
        .into_iter()
        .map(str::to_string)
        .collect();
    let state = if b.status == Status::Closed {
        if ledger.results.get(&b.id).is_some_and(|r| !r.is_gate()) {
            WorkState::Closed
        } else {
            WorkState::ClosedUninspected
        }
    } else if b.status == Status::Rejected {
        WorkState::Rejected
    } else if b.has_label(VERIFIED) {
        WorkState::Verified
    } else if b.has_label(AWAITING_INPUT) {
        WorkState::AwaitingInput
    } else if b.status == Status::Blocked || !blockers.is_empty() {
        WorkState::Blocked
    } else if matches!(b.status, Status::InProgress | Status::Hooked) {
        WorkState::InProgress
    } else if is_ready(b, None, others) {
        WorkState::Ready
    } else {
        WorkState::Deferred
    };
    (state, blockers)
}

/// `b` as a list item.
fn item(b: &Bead, blocked_by: Vec<String>) -> WorkItem {
    WorkItem {
        id: b.id.clone(),
        title: b.title.clone(),
        priority: b.priority,
        assignee: b.assignee.clone(),
        blocked_by,
        updated_at: b.updated_at,
    }
}

/// Test specs not approved (or whose approval lapsed) that have criteria to approve,
/// oldest first.
fn pending_specs(ledger: &Ledger) -> Vec<PendingSpec> {
    let mut specs: Vec<&Bead> = ledger
        .beads
        .beads
        .values()
        .filter(|b| b.issue_type == IssueType::TestSpec && b.status != Status::Closed)
        .filter(|b| !b.acceptance_criteria.is_empty())
        .collect();
    specs.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    specs
        .into_iter()
        .map(|s| PendingSpec {
            id: s.id.clone(),
            work: s.parent.clone(),
            title: s.title.clone(),
            criteria: s.acceptance_criteria.len(),
            changed_since_approval: s.approved.is_some(),
        })
        .collect()
}

/// The open question of each work item awaiting input, oldest first.
fn questions(ledger: &Ledger) -> Vec<Question> {
    let mut out: Vec<Question> = ledger
        .beads
        .beads
        .values()
        .filter(|b| b.has_label(AWAITING_INPUT) && !b.is_closed())
        .map(|b| {
            let note = b
                .notes
                .iter()
                .rev()
                .find(|n| n.text.starts_with("Question:"));
            let (question, asked_in) = note
                .map(|n| split_question(&n.text))
                .unwrap_or_else(|| ("(no question noted)".to_string(), None));
            Question {
                work: b.id.clone(),
                title: b.title.clone(),
                question,
                asked_at: note.map(|n| n.at),
                asked_in,
            }
        })
        .collect();
    out.sort_by(|a, b| a.asked_at.cmp(&b.asked_at).then(a.work.cmp(&b.work)));
    out
}

/// A `Question: ... (asked in msg-x, work abc)` note as the question and the message.
pub(super) fn split_question(note: &str) -> (String, Option<String>) {
    let text = note.trim_start_matches("Question:").trim();
    match text.rsplit_once(" (asked in ") {
        Some((q, rest)) => {
            let msg = rest.trim_end_matches(')');
            let msg = msg.split_once(", work ").map_or(msg, |(m, _)| m);
            (q.to_string(), Some(msg.to_string()))
        }
        None => (text.to_string(), None),
    }
}

/// Work slung past its gate, with the reason noted.
fn bypasses(ledger: &Ledger) -> Vec<Bypass> {
    ledger
        .beads
        .beads
        .values()
        .filter(|b| b.has_label(GATE_BYPASSED))
        .map(|b| {
            let note = b
                .notes
                .iter()
                .rev()
                .find(|n| n.text.starts_with("GATE_BYPASS:"));
            Bypass {
                work: b.id.clone(),
                title: b.title.clone(),
                reason: note
                    .map(|n| n.text.trim_start_matches("GATE_BYPASS:").trim().to_string())
                    .unwrap_or_default(),
                at: note.map(|n| n.at),
            }
        })
        .collect()
}

/// The requests waiting (queue order), merged and stopped (newest first, `cap` each).
fn refinery(
    requests: &[RequestView],
    cap: usize,
) -> (Vec<MergeItem>, Vec<MergeItem>, Vec<MergeItem>) {
    let (mut queue, mut merged, mut stopped) = (Vec::new(), Vec::new(), Vec::new());
    for r in requests {
        let it = MergeItem {
            id: r.id.clone(),
            branch: r.branch.clone(),
            bead: r.bead.clone(),
            target: r.target.clone(),
            state: r.state.clone(),
            last_verdict: r.last_verdict.clone(),
            reason: r.reason.clone(),
            merged_commit: r.merged_commit.clone(),
            updated_at: r.updated_at,
        };
        match r.state.as_str() {
            "queued" | "verifying" | "merging" => queue.push(it),
            "merged" => merged.push(it),
            _ => stopped.push(it),
        }
    }
    for list in [&mut merged, &mut stopped] {
        list.sort_by_key(|r| std::cmp::Reverse(r.updated_at));
        list.truncate(cap);
    }
    (queue, merged, stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_note_splits_into_the_question_and_its_message() {
        assert_eq!(
            split_question("Question: Which CI? (asked in msg-k3, work abc123)"),
            ("Which CI?".to_string(), Some("msg-k3".to_string()))
        );
        assert_eq!(
            split_question("Question: Why (so) ?"),
            ("Why (so) ?".to_string(), None)
        );
    }
}
