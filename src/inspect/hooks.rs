//! Lifecycle hooks (being written): the stand-in API the pipeline calls.

use crate::workspace::Workspace;

/// A lifecycle hook point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPoint {
    /// Before the inspection.
    PreInspect,
    /// After the verifier.
    PostVerify,
    /// After the auditor.
    PostAudit,
    /// Before the advocate.
    PreAdvocate,
    /// After the advocate.
    PostAdvocate,
    /// Before the critic.
    PreCritic,
    /// After the critic.
    PostCritic,
    /// Before the judge.
    PreJudgment,
    /// After the judge.
    PostJudgment,
    /// After a PASS.
    OnVerifyPass,
    /// After a FAIL.
    OnVerifyFail,
    /// After a NEEDS_HUMAN.
    OnVerifyEscalate,
}

/// What running a hook point did.
#[derive(Debug, Clone, Default)]
pub struct HookReport {
    /// Why a Pre point stopped its step.
    pub stopped: Option<String>,
    /// Failures that did not stop anything.
    pub warnings: Vec<String>,
}

/// Runs the hooks of `point`.
pub fn run(_ws: &Workspace, _point: HookPoint, _payload: &serde_json::Value) -> HookReport {
    HookReport::default()
}
