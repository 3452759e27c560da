//! Lifecycle hooks around the Inspector's steps: each point runs the executable
//! `.beads/hooks/<Name>` and every executable in `.beads/hooks/<Name>.d/` (by name), with
//! a JSON payload on stdin, `VERMAS_HOOK=<Name>` and `VERMAS_ROOT` set, in the repository
//! root, through the check runner (its own process group, `inspect.hook_timeout`, output
//! capped, nothing left running). A Pre hook that fails stops its step; a Post or On hook
//! that fails is a warning. A hook behind a symlink leading outside the repository is
//! refused; a file without an execute bit is passed over with a warning.

use crate::proc::{self, Job};
use crate::workspace::Workspace;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bytes of a hook's output kept.
const OUTPUT_CAP: usize = 64 * 1024;

/// A lifecycle hook point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

    /// The point that follows a routed verdict: OnVerifyPass, OnVerifyFail or
    /// OnVerifyEscalate; none after an ERROR, which routes nothing.
    pub fn after(verdict: crate::inspect::roles::Verdict) -> Option<HookPoint> {
        use crate::inspect::roles::Verdict;
        match verdict {
            Verdict::Pass => Some(HookPoint::OnVerifyPass),
            Verdict::Fail => Some(HookPoint::OnVerifyFail),
            Verdict::NeedsHuman => Some(HookPoint::OnVerifyEscalate),
            Verdict::Error => None,
        }
    }

    /// The point called `name` (as [`HookPoint::name`] spells it).
    pub fn from_name(name: &str) -> Option<HookPoint> {
        HookPoint::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One hook as it ran.
#[derive(Debug, Clone, Serialize)]
pub struct HookRun {
    /// The hook file, relative to the repository.
    pub path: String,
    /// Its exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Wall time.
    pub duration_ms: u64,
    /// What it printed (stdout and stderr, interleaved, capped).
    pub output: String,
    /// Killed at `inspect.hook_timeout`.
    pub timed_out: bool,
}

/// What running a hook point did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HookReport {
    /// Every hook that ran, in order.
    pub ran: Vec<HookRun>,
    /// Why a Pre point stopped its step, or why any point stopped (a hook wrote records).
    pub stopped: Option<String>,
    /// Failures that did not stop anything, and hooks passed over.
    pub warnings: Vec<String>,
}

/// A lifecycle hook file present in the repository.
#[derive(Debug, Clone, Serialize)]
pub struct HookFile {
    /// Its point.
    pub point: HookPoint,
    /// The file (absolute).
    pub path: PathBuf,
    /// True when it would run (a file with an execute bit).
    pub executable: bool,
}

/// The hook files of `point`, in the order they run: `<Name>`, then `<Name>.d/*` by name
/// (names starting with `.` left out). Symlinks are listed too, for [`run`] to check.
pub fn files(ws: &Workspace, point: HookPoint) -> Vec<PathBuf> {
    let dir = ws.path(crate::workspace::layout::HOOKS);
    let mut out = Vec::new();
    let single = dir.join(point.name());
    if std::fs::symlink_metadata(&single).is_ok_and(|m| !m.is_dir()) {
        out.push(single);
    }
    if let Ok(entries) = std::fs::read_dir(dir.join(format!("{}.d", point.name()))) {
        let mut more: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .map(|e| e.path())
            .collect();
        more.sort();
        out.extend(more);
    }
    out
}

/// Every lifecycle hook file present, point by point in pipeline order.
pub fn present(ws: &Workspace) -> Vec<HookFile> {
    HookPoint::ALL
        .into_iter()
        .flat_map(|point| {
            files(ws, point).into_iter().map(move |path| HookFile {
                point,
                executable: is_executable(&path),
                path,
            })
        })
        .collect()
}

/// How long one hook may run: `inspect.hook_timeout`.
pub fn timeout(ws: &Workspace) -> Duration {
    ws.config.inspect.hook_timeout.get()
}

/// Runs the hooks of `point` with `payload` (one JSON line) on stdin. A Pre point stops
/// at the first hook that fails, is refused or cannot start; other points go on and
/// record each failure as a warning. A hook of any point that writes into `.beads/` stops
/// it, its change undone. Never prints.
pub fn run(ws: &Workspace, point: HookPoint, payload: &serde_json::Value) -> HookReport {
    let mut report = HookReport::default();
    let input = format!("{payload}\n").into_bytes();
    let limit = timeout(ws);
    for file in files(ws, point) {
        let shown = ws.display(&file);
        let real = match ws.contain(&file) {
            Ok(p) => p,
            Err(e) => {
                note(&mut report, point, format!("{} hook {e}", point.name()));
                if report.stopped.is_some() {
                    break;
                }
                continue;
            }
        };
        if !is_executable(&real) {
            report.warnings.push(format!(
                "{} hook {shown} is not an executable file: passed over (chmod +x it)",
                point.name()
            ));
            continue;
        }
        let job = Job::new(
            real.to_string_lossy(),
            Vec::new(),
            &ws.root,
            limit,
            OUTPUT_CAP,
        )
        .with_stdin(input.clone())
        .with_env("VERMAS_HOOK", point.name())
        .with_env("VERMAS_ROOT", ws.root.to_string_lossy());
        let before = super::lifecycle_guard::Snapshot::take(ws);
        let done = proc::run(&job);
        let tampered = before.undo_changes(ws);
        if !tampered.is_empty() {
            report.stopped = Some(format!(
                "{} hook {shown} wrote into the records ({}): hooks may not change .beads/, \
                 and the change was undone",
                point.name(),
                tampered.join(", ")
            ));
            break;
        }
        let failure = if let Some(e) = &done.spawn_error {
            Some(e.clone())
        } else if done.timed_out {
            Some(format!("timed out after {}", seconds(limit)))
        } else {
            match (done.exit_code, done.signal) {
                (Some(0), _) => None,
                (Some(code), _) => Some(format!("exited {code}")),
                (None, Some(sig)) => Some(format!("was killed by signal {sig}")),
                (None, None) => Some("was killed".to_string()),
            }
        };
        let output = done.text();
        report.ran.push(HookRun {
            path: shown.clone(),
            exit_code: done.exit_code,
            duration_ms: u64::try_from(done.duration.as_millis()).unwrap_or(u64::MAX),
            output,
            timed_out: done.timed_out,
        });
        if let Some(how) = failure {
            let first = done
                .text()
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| format!(": {l}"))
                .unwrap_or_default();
            note(
                &mut report,
                point,
                format!("{} hook {shown} {how}{first}", point.name()),
            );
            if report.stopped.is_some() {
                break;
            }
        }
    }
    report
}

/// [`run`] holding the workspace's write lock while hooks run (so no other vermas writer's
/// change is taken for a hook's), for callers outside a change; a point with no hooks
/// takes no lock.
pub fn run_locked(ws: &Workspace, point: HookPoint, payload: &serde_json::Value) -> HookReport {
    if files(ws, point).is_empty() {
        return HookReport::default();
    }
    let _writers = match ws.lock_file(&ws.beads_dir, crate::workspace::layout::LOCK) {
        Ok(lock) => lock,
        Err(e) => {
            return HookReport {
                stopped: Some(format!("{} hooks not run: {e}", point.name())),
                ..HookReport::default()
            };
        }
    };
    run(ws, point, payload)
}

/// Records a failing hook: it stops a Pre point, else it is a warning.
fn note(report: &mut HookReport, point: HookPoint, what: String) {
    if point.is_pre() {
        report.stopped = Some(what);
    } else {
        report.warnings.push(what);
    }
}

/// `d` as a person reads it: `30s`, `1.5s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{s}s")
    }
}

/// True when `path` (followed) is a regular file with an execute bit.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_pre_points_are_the_pre_ones() {
        for p in HookPoint::ALL {
            assert_eq!(HookPoint::from_name(p.name()), Some(p));
        }
        let pre: Vec<&str> = HookPoint::ALL
            .into_iter()
            .filter(|p| p.is_pre())
            .map(HookPoint::name)
            .collect();
        assert_eq!(
            pre,
            [
                "PreAuditPlan",
                "PreInspect",
                "PreAdvocate",
                "PreCritic",
                "PreJudgment"
            ]
        );
        assert_eq!(HookPoint::from_name("preinspect"), None);
    }

    #[test]
    fn seconds_reads_plainly() {
        assert_eq!(seconds(Duration::from_secs(30)), "30s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5s");
    }
}
