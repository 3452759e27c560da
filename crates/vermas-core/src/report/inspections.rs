//! Inspected work: each `results/<work>.yaml` an inspection wrote, with the criteria's
//! descriptions from the test spec, the roles' briefs, the question and the answer a person
//! gave, who approved the test spec, the failure reports and the earlier verdicts.

use super::ledger::Ledger;
use super::model::{FailureReport, Inspected, InspectedCheck, PastVerdict, SpecApproval};
use super::views::ResultView;
use crate::bead::model::{Bead, IssueType};
use crate::inspect::answer::ASKED_OF;
use std::collections::HashMap;

/// The order roles are shown in; any other role follows, by name.
const ROLES: &[&str] = &["auditor", "advocate", "critic", "judge"];

/// Where each inspection record came from: the commit that wrote its current version and
/// the earlier versions' verdicts (newest first), by work id.
pub(super) type Past = HashMap<String, (String, Vec<PastVerdict>)>;

/// Every inspection in `ledger`, newest first; with `only_recorded`, those whose record
/// `past` knows (recorded since `--since`).
pub(super) fn inspections(ledger: &Ledger, past: &Past, only_recorded: bool) -> Vec<Inspected> {
    let mut reports: HashMap<&str, Vec<&Bead>> = HashMap::new();
    let mut specs: HashMap<&str, &Bead> = HashMap::new();
    for b in ledger.beads.beads.values() {
        match (b.issue_type, b.parent.as_deref()) {
            (IssueType::VerificationResult, Some(p)) => reports.entry(p).or_default().push(b),
            (IssueType::TestSpec, Some(p)) => {
                specs.insert(p, b);
            }
            _ => {}
        }
    }
    let mut out: Vec<Inspected> = ledger
        .results
        .iter()
        .filter(|(stem, r)| !stem.starts_with("spec-") && !r.key.starts_with("spec:"))
        .filter(|(_, r)| !r.is_gate())
        .filter(|(stem, _)| !only_recorded || past.contains_key(stem.as_str()))
        .map(|(stem, r)| {
            let work = ledger.beads.beads.get(stem.as_str());
            let spec = specs.get(stem.as_str()).copied();
            let (recorded_in, earlier) = past.get(stem.as_str()).cloned().unzip();
            let (question, answer) = work.map(|w| asked(w, ledger)).unwrap_or_default();
            Inspected {
                work: stem.clone(),
                title: work.map(|w| w.title.clone()),
                verdict: r.verdict.clone().unwrap_or_else(|| "unknown".into()),
                confidence: r.confidence,
                at: r.at,
                recorded_in,
                head: r.head.clone(),
                tree: r.tree.clone(),
                base: r.base.clone(),
                approval: r.approval.clone(),
                reasons: r.reasons.clone(),
                checks: checks(r, spec),
                briefs: briefs(r),
                question,
                answer,
                spec: spec.map(approval),
                failure_reports: reports
                    .get(stem.as_str())
                    .map(|rs| rs.iter().map(|b| failure_report(b)).collect())
                    .unwrap_or_default(),
                earlier: earlier.unwrap_or_default(),
            }
        })
        .collect();
    out.sort_by(|a, b| b.at.cmp(&a.at).then(a.work.cmp(&b.work)));
    out
}

/// Each check of `r`, with its criterion's description from `spec`.
fn checks(r: &ResultView, spec: Option<&Bead>) -> Vec<InspectedCheck> {
    r.checks
        .iter()
        .map(|c| InspectedCheck {
            criterion: c.criterion.clone(),
            description: spec.and_then(|s| {
                s.acceptance_criteria
                    .iter()
                    .find(|a| a.id == c.criterion)
                    .map(|a| a.description.clone())
            }),
            kind: c.kind.clone(),
            command: c.command.clone(),
            outcome: c.outcome.clone(),
            exit_code: c.exit_code,
            snippet: c.snippet.clone(),
        })
        .collect()
}

/// The briefs of `r`, the pipeline's roles first.
fn briefs(r: &ResultView) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = ROLES
        .iter()
        .filter_map(|role| r.briefs.get(*role).map(|t| (role.to_string(), t.clone())))
        .collect();
    out.extend(
        r.briefs
            .iter()
            .filter(|(role, _)| !ROLES.contains(&role.as_str()))
            .map(|(role, t)| (role.clone(), t.clone())),
    );
    out
}

/// The last question noted on `work` and the answer a person gave to it: an `Answer:`
/// note after it, else the latest reply to the message it was asked in.
fn asked(work: &Bead, ledger: &Ledger) -> (Option<String>, Option<String>) {
    let Some(at) = work
        .notes
        .iter()
        .rposition(|n| n.text.starts_with("Question:"))
    else {
        return (None, None);
    };
    let (question, asked_in) = super::overview::split_question(&work.notes[at].text);
    let noted = work.notes[at + 1..]
        .iter()
        .rev()
        .find_map(|n| n.text.strip_prefix("Answer:"))
        .map(|a| a.trim().to_string());
    // A reply counts only from the address the question was asked of (as the Inspector
    // reads answers; with approvers set it also wants an approver's signature, which the
    // page says it does not check).
    let mailed = || {
        let msg = asked_in.as_deref()?;
        ledger
            .mail
            .iter()
            .filter(|m| m.reply_to.as_deref() == Some(msg) && m.from == ASKED_OF)
            .max_by_key(|m| m.created_at)
            .map(|m| without_markers(&m.body))
    };
    (Some(question), noted.or_else(mailed))
}

/// A reply's body without the lines the Inspector's loop adds when it acts on it.
fn without_markers(body: &str) -> String {
    body.lines()
        .filter(|l| !l.starts_with("Inspector-Taken:") && !l.starts_with("Inspector-Done:"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// The approval of test spec `spec`.
fn approval(spec: &Bead) -> SpecApproval {
    let a = spec.approved.as_ref();
    SpecApproval {
        id: spec.id.clone(),
        by: a.and_then(|a| a.by.clone()),
        at: a.and_then(|a| a.at),
        commit: a.and_then(|a| a.commit.clone()),
        holds: spec.status == crate::bead::model::Status::Closed && a.is_some(),
    }
}

/// A `verification-result` bead as a failure report.
fn failure_report(b: &Bead) -> FailureReport {
    FailureReport {
        id: b.id.clone(),
        title: b.title.clone(),
        closed: b.is_closed(),
        body: b.description.clone(),
    }
}
