//! What one inspection found: the steps it ran to, the verifier's checks, the auditor's
//! findings, the briefs, the judge's answer and the verdict the rules settled. The
//! pipeline fills it, the rules settle it, routing records it.

use super::roles::{Finding, Judgment};
use super::verifier::CriterionCheck;
use serde::Serialize;
use std::collections::BTreeMap;

/// How far the pipeline goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Upto {
    /// The verifier alone (`inspect verify`).
    Verify,
    /// Verifier and auditor (`inspect audit`).
    Audit,
    /// Verifier, then advocate ∥ critic → judge (`inspect review`).
    Review,
    /// Everything (`inspect run`).
    Run,
}

pub use super::roles::Verdict;

/// The auditor's word on one criterion.
#[derive(Debug, Clone, Serialize)]
pub struct AuditLine {
    /// The criterion.
    pub id: String,
    /// Met, not met or unverifiable.
    pub finding: Finding,
    /// Its reason.
    pub why: String,
}

/// Everything one inspection found.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The work bead.
    pub work: String,
    /// Its title.
    pub title: String,
    /// Its test-spec bead, if it has one.
    pub spec: Option<String>,
    /// The commit judged.
    pub head: Option<String>,
    /// Its root tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// The verifier's results.
    pub checks: Vec<CriterionCheck>,
    /// The auditor's findings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub audit: Vec<AuditLine>,
    /// Briefs and replies by role.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub briefs: BTreeMap<String, String>,
    /// Hash of each role's prompt.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub prompt_hashes: BTreeMap<String, String>,
    /// The judge's answer, when it spoke.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgment: Option<Judgment>,
    /// The verdict after the rules.
    pub verdict: Verdict,
    /// The confidence behind it (1 for a deterministic verdict).
    pub confidence: f64,
    /// Why.
    pub reasons: Vec<String>,
    /// The question a person must answer, with NEEDS_HUMAN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// What the test spec's approval rests on (signed by an approver, or not
    /// authenticated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// Warnings: hook failures that did not stop anything, what a verdict left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The state of the work a question and its answer are about (the fingerprint of
    /// HEAD, or for the refinery of the branch's tip rather than the merge candidate).
    #[serde(skip)]
    pub work_state: Option<String>,
}

impl Inspection {
    /// Ends the inspection as ERROR for `why`.
    pub fn error(mut self, why: String) -> Inspection {
        self.verdict = Verdict::Error;
        self.reasons.push(why);
        self
    }
}
