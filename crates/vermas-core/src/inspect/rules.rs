//! The rules no LLM can override, which settle an inspection's verdict: a deterministic
//! FAIL fails, a check that could not run is ERROR, then the judge (or the auditor) speaks;
//! a PASS needs a stated confidence at or above `inspect.min_confidence`, and a PASS over
//! an auditor's `not met` needs a person, who is asked about the disagreement.

use super::inspection::{AuditLine, Inspection, Upto, Verdict};
use super::roles::Finding;
use super::verifier::CriterionCheck;
use crate::check::Outcome;
use crate::workspace::Workspace;

/// A verdict with its confidence (none when the judge stated none) and reasons.
struct Decision {
    /// The verdict.
    verdict: Verdict,
    /// How sure, when known.
    confidence: Option<f64>,
    /// Why.
    reasons: Vec<String>,
    /// What to ask a person, when the rule itself has the question.
    question: Option<String>,
}

impl Decision {
    /// A decision no LLM took (confidence 1).
    fn certain(verdict: Verdict, reasons: Vec<String>) -> Decision {
        Decision {
            verdict,
            confidence: Some(1.0),
            reasons,
            question: None,
        }
    }
}

/// Settles `ins`'s verdict, confidence, reasons and question by the rules.
pub fn settle(ws: &Workspace, ins: &mut Inspection, upto: Upto) {
    let mut d = decide(ins, upto);
    let mut question = d.question.take();
    if d.verdict == Verdict::Pass && ins.judgment.is_some() {
        let min = ws.config.inspect.min_confidence;
        match d.confidence {
            None => {
                d.verdict = Verdict::NeedsHuman;
                d.reasons.push(format!(
                    "the judge said PASS without stating a confidence (a PASS needs one at or \
                     above inspect.min_confidence {min:.2})"
                ));
            }
            Some(c) if c < min => {
                d.verdict = Verdict::NeedsHuman;
                d.reasons.push(format!(
                    "confidence {c:.2} is below inspect.min_confidence {min:.2}"
                ));
            }
            Some(_) => {}
        }
    }
    let not_met = not_met(&ins.audit);
    if d.verdict == Verdict::Pass && ins.judgment.is_some() && !not_met.is_empty() {
        d.verdict = Verdict::NeedsHuman;
        let dissent: Vec<String> = not_met
            .iter()
            .map(|a| format!("{} ({})", a.id, a.why))
            .collect();
        d.reasons.push(format!(
            "the judge said PASS, but the auditor found {} not met",
            dissent.join(", ")
        ));
        question = Some(format!(
            "The judge said {} passes, but the auditor found {} not met. Is the work done?",
            ins.work,
            dissent.join("; ")
        ));
    }
    if d.verdict == Verdict::NeedsHuman {
        question = question
            .or_else(|| ins.judgment.as_ref().and_then(|j| j.question.clone()))
            .or_else(|| Some(format!("Is {} done? {}", ins.work, d.reasons.join("; "))));
    }
    if d.reasons.is_empty() {
        d.reasons.push(format!(
            "the judge said {} and gave no reason",
            d.verdict.as_str()
        ));
    }
    ins.question = question;
    ins.verdict = d.verdict;
    ins.confidence = d.confidence.unwrap_or(0.0);
    ins.reasons.extend(d.reasons);
}

/// The auditor's `not met` findings.
fn not_met(audit: &[AuditLine]) -> Vec<&AuditLine> {
    audit
        .iter()
        .filter(|a| a.finding == Finding::NotMet)
        .collect()
}

/// The verdict before the confidence and dissent rules: the checks' when one failed or
/// could not run, else the judge's, else the auditor's, else PASS for the checks that
/// passed.
fn decide(ins: &Inspection, upto: Upto) -> Decision {
    if let Some(d) = checks_decision(&ins.checks, ins.judgment.as_ref().map(|j| j.decision)) {
        return d;
    }
    if let Some(j) = &ins.judgment {
        return Decision {
            verdict: j.decision,
            confidence: j.confidence,
            reasons: j.reasons.clone(),
            question: None,
        };
    }
    if upto >= Upto::Audit && !ins.audit.is_empty() {
        return audit_decision(&ins.audit);
    }
    Decision::certain(
        Verdict::Pass,
        vec![format!(
            "{} passed",
            crate::text::words::plural(ins.checks.len(), "check")
        )],
    )
}

/// FAIL when a check failed (overruling a judge's PASS), ERROR when one could not run,
/// NEEDS_HUMAN when one was skipped; `None` when none of these.
fn checks_decision(checks: &[CriterionCheck], judge: Option<Verdict>) -> Option<Decision> {
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| matches!(c.result.outcome, Outcome::Fail | Outcome::Unstable))
        .map(|c| c.id.as_str())
        .collect();
    if !failed.is_empty() {
        let mut why = vec![format!("{} failing", failed.join(", "))];
        if judge == Some(Verdict::Pass) {
            why.push(format!(
                "judge said PASS; overruled by {} failing",
                failed.join(", ")
            ));
        }
        return Some(Decision::certain(Verdict::Fail, why));
    }
    let errored: Vec<String> = checks
        .iter()
        .filter(|c| c.result.outcome == Outcome::Error)
        .map(|c| {
            format!(
                "{} ({})",
                c.id,
                c.result.reason.as_deref().unwrap_or("could not run")
            )
        })
        .collect();
    if !errored.is_empty() {
        return Some(Decision::certain(
            Verdict::Error,
            vec![format!("could not run: {}", errored.join(", "))],
        ));
    }
    skipped_decision(checks)
}

/// NEEDS_HUMAN when a check was skipped (a skip code, pytest's skip, a tool missing, no
/// check defined): nothing verified that criterion, so the work cannot pass on it, whatever
/// the judge says; `None` when none was skipped.
fn skipped_decision(checks: &[CriterionCheck]) -> Option<Decision> {
    let skipped: Vec<String> = checks
        .iter()
        .filter(|c| c.result.outcome == Outcome::Skip)
        .map(|c| {
            format!(
                "{} ({})",
                c.id,
                c.result.reason.as_deref().unwrap_or("skipped")
            )
        })
        .collect();
    (!skipped.is_empty()).then(|| {
        let why = format!(
            "nothing verified {}: a skipped check is not a pass",
            skipped.join(", ")
        );
        let mut d = Decision::certain(Verdict::NeedsHuman, vec![why.clone()]);
        d.question = Some(format!(
            "{why}. Make it run (install what it needs), or change the criterion and approve \
             the test spec again."
        ));
        d
    })
}

/// The auditor's verdict: FAIL when a criterion is not met, NEEDS_HUMAN when one could not
/// be verified, else PASS.
fn audit_decision(audit: &[AuditLine]) -> Decision {
    let ids = |f: Finding| -> Vec<&str> {
        audit
            .iter()
            .filter(|a| a.finding == f)
            .map(|a| a.id.as_str())
            .collect()
    };
    let (not_met, unsure) = (ids(Finding::NotMet), ids(Finding::Unverifiable));
    if !not_met.is_empty() {
        Decision::certain(
            Verdict::Fail,
            vec![format!("the auditor found {} not met", not_met.join(", "))],
        )
    } else if !unsure.is_empty() {
        Decision::certain(
            Verdict::NeedsHuman,
            vec![format!(
                "the auditor could not verify {}",
                unsure.join(", ")
            )],
        )
    } else {
        Decision::certain(
            Verdict::Pass,
            vec!["the auditor found every criterion met".into()],
        )
    }
}
