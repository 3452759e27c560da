//! Lifecycle hooks around the Inspector's steps: each point runs the executable
//! `.beads/hooks/<Name>` and every executable in `.beads/hooks/<Name>.d/` (by name), with
//! a JSON payload on stdin and `VERMAS_HOOK=<Name>`, through the check runner (its own
//! process group, a timeout, nothing left running). A Pre hook that fails stops its step;
//! a Post or On hook that fails is a warning.

use crate::check::process::{self, Job};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Longest one hook may run.
const HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// A lifecycle hook point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPoint {
    /// Before a test spec is planned.
    PreAuditPlan,
    /// After a test spec is planned.
    PostAuditPlan,
    /// Before an inspection.
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
    /// After a PASS was routed.
    OnVerifyPass,
    /// After a FAIL was routed.
    OnVerifyFail,
    /// After a NEEDS_HUMAN was routed.
    OnVerifyEscalate,
}

impl HookPoint {
    /// Every point, in pipeline order.
    pub const ALL: [HookPoint; 14] = [
        HookPoint::PreAuditPlan,
        HookPoint::PostAuditPlan,
        HookPoint::PreInspect,
        HookPoint::PostVerify,
        HookPoint::PostAudit,
        HookPoint::PreAdvocate,
        HookPoint::PostAdvocate,
        HookPoint::PreCritic,
        HookPoint::PostCritic,
        HookPoint::PreJudgment,
        HookPoint::PostJudgment,
        HookPoint::OnVerifyPass,
        HookPoint::OnVerifyFail,
        HookPoint::OnVerifyEscalate,
    ];

    /// The point's name, as its file is called.
    pub fn name(self) -> &'static str {
        match self {
            HookPoint::PreAuditPlan => "PreAuditPlan",
            HookPoint::PostAuditPlan => "PostAuditPlan",
            HookPoint::PreInspect => "PreInspect",
            HookPoint::PostVerify => "PostVerify",
            HookPoint::PostAudit => "PostAudit",
            HookPoint::PreAdvocate => "PreAdvocate",
            HookPoint::PostAdvocate => "PostAdvocate",
            HookPoint::PreCritic => "PreCritic",
            HookPoint::PostCritic => "PostCritic",
            HookPoint::PreJudgment => "PreJudgment",
            HookPoint::PostJudgment => "PostJudgment",
            HookPoint::OnVerifyPass => "OnVerifyPass",
            HookPoint::OnVerifyFail => "OnVerifyFail",
            HookPoint::OnVerifyEscalate => "OnVerifyEscalate",
        }
    }

    /// True for a point whose failing hook stops the step.
    pub fn is_pre(self) -> bool {
        self.name().starts_with("Pre")
    }
}

/// One hook as it ran.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HookRun {
    /// The hook file, relative to the repository.
    pub path: String,
    /// Its exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Wall time.
    pub duration_ms: u64,
    /// What it printed (stdout and stderr).
    pub output: String,
}

/// What running a hook point did.
#[derive(Debug, Clone, Default)]
pub struct HookReport {
    /// Every hook that ran, in order.
    pub ran: Vec<HookRun>,
    /// Why a Pre point stopped its step.
    pub stopped: Option<String>,
    /// Failures that did not stop anything, and hooks passed over.
    pub warnings: Vec<String>,
}

/// The hook files of `point`, in the order they run: `<Name>`, then `<Name>.d/*` by name.
pub fn files(ws: &Workspace, point: HookPoint) -> Vec<PathBuf> {
    let dir = ws.beads_dir.join("hooks");
    let mut out = Vec::new();
    let single = dir.join(point.name());
    if single.is_file() {
        out.push(single);
    }
    if let Ok(entries) = std::fs::read_dir(dir.join(format!("{}.d", point.name()))) {
        let mut more: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        more.sort();
        out.extend(more);
    }
    out
}

/// Runs the hooks of `point` with `payload` on stdin.
pub fn run(ws: &Workspace, point: HookPoint, payload: &serde_json::Value) -> HookReport {
    let mut report = HookReport::default();
    let input = format!("{payload}\n").into_bytes();
    for file in files(ws, point) {
        let shown = ws.display(&file);
        let real = match ws.contain(&file) {
            Ok(p) => p,
            Err(e) => {
                note(&mut report, point, format!("{shown}: {e}"));
                if report.stopped.is_some() {
                    break;
                }
                continue;
            }
        };
        if !is_executable(&real) {
            report.warnings.push(format!(
                "{shown} is not executable: passed over (chmod +x it)"
            ));
            continue;
        }
        let done = process::run(&Job {
            program: real.to_string_lossy().into_owned(),
            args: Vec::new(),
            dir: ws.root.clone(),
            stdin: Some(input.clone()),
            env: vec![
                ("VERMAS_HOOK".into(), point.name().into()),
                ("VERMAS_ROOT".into(), ws.root.to_string_lossy().into_owned()),
            ],
            timeout: HOOK_TIMEOUT,
            output_cap: 64 * 1024,
        });
        let failure = if let Some(e) = &done.spawn_error {
            Some(e.clone())
        } else if done.timed_out {
            Some(format!("timed out after {}s", HOOK_TIMEOUT.as_secs()))
        } else {
            match done.exit_code {
                Some(0) => None,
                Some(code) => Some(format!("exited {code}")),
                None => Some("was killed by a signal".to_string()),
            }
        };
        let output = done.text();
        report.ran.push(HookRun {
            path: shown.clone(),
            exit_code: done.exit_code,
            duration_ms: done.duration.as_millis() as u64,
            output: output.clone(),
        });
        if let Some(how) = failure {
            let first = output.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            note(
                &mut report,
                point,
                format!("{} hook {shown} {how}: {first}", point.name()),
            );
            if report.stopped.is_some() {
                break;
            }
        }
    }
    report
}

/// Records a failing hook: it stops a Pre point, else it is a warning.
fn note(report: &mut HookReport, point: HookPoint, what: String) {
    if point.is_pre() {
        report.stopped = Some(what);
    } else {
        report.warnings.push(what);
    }
}

/// True when the file has an execute bit.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}
