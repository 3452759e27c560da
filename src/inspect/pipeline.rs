//! The Inspector's pipeline: the verifier runs every criterion (no LLM), the auditor
//! checks the evidence per criterion, advocate and critic write opposing briefs in
//! parallel, and the judge decides; rules no LLM can override settle the verdict. Nothing
//! here writes: [`super::route`] records and routes what comes back.

use super::hooks::{self, HookPoint};
use super::roles::{self, Finding, Judgment, Role};
use super::verifier::CriterionCheck;
use crate::bead::model::{Bead, IssueType, Status};
use crate::check::Outcome;
use crate::error::{Error, Result};
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::BTreeMap;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

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

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The last step to run.
    pub upto: Upto,
    /// The diff's base (else the merge-base with the default branch).
    pub base: Option<String>,
    /// Use cached LLM replies.
    pub use_cache: bool,
    /// An answer a person gave to the judge's question, added to the evidence.
    pub answer: Option<String>,
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
    /// The commit verified.
    pub head: Option<String>,
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
    /// Hook failures that did not stop anything.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The work bead for `id` (a test-spec id stands for its work) and its test spec.
pub fn work_and_spec(ws: &Workspace, id: &str) -> Result<(Bead, Option<Bead>)> {
    let found = crate::bead::store::load_one(ws, id)?;
    let work = if found.issue_type == IssueType::TestSpec {
        let parent = found.parent.clone().ok_or_else(|| {
            Error::Invalid(format!("test spec {} names no work (no parent)", found.id))
        })?;
        crate::bead::store::load_one(ws, &parent)?
    } else {
        found
    };
    let spec = super::testspec::of_work(ws, &work.id)?;
    Ok((work, spec))
}

/// Inspects `work` by its test spec `spec` as far as `opts.upto`, with the checks run in
/// `ws.root` (the refinery's temporary worktree gives its own).
pub fn inspect(ws: &Workspace, work: &Bead, spec: Option<&Bead>, opts: &Options) -> Inspection {
    let mut ins = Inspection {
        work: work.id.clone(),
        title: work.title.clone(),
        spec: spec.as_ref().map(|s| s.id.clone()),
        head: crate::git::GitRepo::open(&ws.root).and_then(|r| r.head_commit()),
        checks: Vec::new(),
        audit: Vec::new(),
        briefs: BTreeMap::new(),
        prompt_hashes: BTreeMap::new(),
        judgment: None,
        verdict: Verdict::Error,
        confidence: 1.0,
        reasons: Vec::new(),
        question: None,
        warnings: Vec::new(),
    };
    if let Some(s) = spec
        && s.status != Status::Closed
    {
        return ins.error(format!(
            "test spec {} is not approved yet: `vermas inspect approve {}`",
            s.id, s.id
        ));
    }
    let payload = serde_json::json!({"bead_id": work.id, "title": work.title, "spec": ins.spec});
    if let Some(stop) = hook(ws, HookPoint::PreInspect, &payload, &mut ins) {
        return ins.error(stop);
    }
    ins.checks = super::verifier::verify(ws, work, spec, opts.use_cache);
    if ins.checks.is_empty() {
        return ins.error(
            "nothing to verify: no criteria in the test spec or the linked live spec".into(),
        );
    }
    hook(
        ws,
        HookPoint::PostVerify,
        &serde_json::to_value(&ins.checks).unwrap_or_default(),
        &mut ins,
    );
    let evidence = evidence(ws, work, &ins, opts);
    if opts.upto >= Upto::Audit && opts.upto != Upto::Review {
        if let Err(e) = audit(ws, &evidence, &mut ins, opts.use_cache) {
            return ins.error(e);
        }
        hook(
            ws,
            HookPoint::PostAudit,
            &serde_json::to_value(&ins.audit).unwrap_or_default(),
            &mut ins,
        );
    }
    if opts.upto >= Upto::Review
        && let Err(e) = review(ws, &evidence, &mut ins, opts.use_cache)
    {
        return ins.error(e);
    }
    settle(ws, &mut ins, opts.upto);
    ins
}

impl Inspection {
    /// Ends the inspection as ERROR for `why`.
    fn error(mut self, why: String) -> Inspection {
        self.verdict = Verdict::Error;
        self.reasons.push(why);
        self
    }
}

/// Runs a hook point; a Pre point's stop comes back, other failures become warnings.
fn hook(
    ws: &Workspace,
    point: HookPoint,
    payload: &serde_json::Value,
    ins: &mut Inspection,
) -> Option<String> {
    let report = hooks::run(ws, point, payload);
    ins.warnings.extend(report.warnings);
    report.stopped
}

/// The evidence every role reads: the work, each criterion with what the verifier saw,
/// any answer a person gave, and the diff (capped, with the cap said).
fn evidence(ws: &Workspace, work: &Bead, ins: &Inspection, opts: &Options) -> String {
    let mut e = format!(
        "WORK {}: {}\n{}\n\nCRITERIA AND EVIDENCE\n",
        work.id,
        work.title,
        work.description.trim()
    );
    for c in &ins.checks {
        let _ = writeln!(
            e,
            "CRITERION {}\n  {}\n  check ({}): {}\n  outcome: {}{}",
            c.id,
            c.description,
            c.kind,
            c.target,
            c.result.outcome,
            c.result
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
        let (snippet, _) = c.result.snippet(12);
        for line in snippet.lines() {
            let _ = writeln!(e, "  | {line}");
        }
    }
    if let Some(a) = &opts.answer {
        let _ = writeln!(e, "\nANSWER FROM A PERSON\n{a}");
    }
    let _ = writeln!(e, "\nDIFF\n{}", diff(ws, opts.base.as_deref()));
    e
}

/// Most of the diff the prompt carries.
const DIFF_CAP: usize = 64 * 1024;

/// `git diff BASE...HEAD`, BASE the given one or the merge-base with the default branch.
fn diff(ws: &Workspace, base: Option<&str>) -> String {
    let base = base.map(str::to_string).or_else(|| {
        [
            "origin/HEAD",
            "origin/main",
            "main",
            "origin/master",
            "master",
        ]
        .iter()
        .find_map(|b| crate::git::cli::run(&ws.root, &["merge-base", "HEAD", b]).ok())
        .map(|s| s.trim().to_string())
    });
    let Some(base) = base else {
        return "(no base to diff against)".into();
    };
    match crate::git::cli::run(&ws.root, &["diff", &format!("{base}...HEAD")]) {
        Ok(d) if d.len() > DIFF_CAP => {
            let mut cut = DIFF_CAP;
            while !d.is_char_boundary(cut) {
                cut -= 1;
            }
            format!(
                "{}\n(diff cut at {DIFF_CAP} bytes of {})",
                &d[..cut],
                d.len()
            )
        }
        Ok(d) if d.trim().is_empty() => format!("(no changes since {base})"),
        Ok(d) => d,
        Err(e) => format!("(no diff: {e})"),
    }
}

/// Asks `role` about `evidence`; the reply must be accepted by `accept`.
fn ask<T>(
    ws: &Workspace,
    role: Role,
    evidence: &str,
    use_cache: bool,
    accept: impl Fn(&str) -> std::result::Result<T, String>,
) -> std::result::Result<(String, String, T), String> {
    let prompt = roles::prompt(ws, role, evidence);
    let hash = crate::judge::llm::prompt_hash(&prompt)?;
    let (reply, v) = roles::llm(ws, role, use_cache)
        .ask(&ws.root, role.name(), "", &prompt, accept)
        .map_err(|e| format!("{}: {e}", role.name()))?;
    Ok((hash, reply, v))
}

/// The auditor's findings per criterion.
fn audit(
    ws: &Workspace,
    evidence: &str,
    ins: &mut Inspection,
    use_cache: bool,
) -> std::result::Result<(), String> {
    let ids: Vec<String> = ins.checks.iter().map(|c| c.id.clone()).collect();
    let (hash, reply, _) = ask(ws, Role::Auditor, evidence, use_cache, |r| {
        if r.trim().is_empty() {
            Err("the reply is empty".to_string())
        } else {
            Ok(())
        }
    })?;
    ins.prompt_hashes.insert("auditor".into(), hash);
    ins.audit = roles::parse_audit(&reply, &ids)
        .into_iter()
        .map(|(id, finding, why)| AuditLine { id, finding, why })
        .collect();
    ins.briefs
        .insert("auditor".into(), reply.trim().to_string());
    Ok(())
}

/// Advocate and critic in parallel, then the judge over both briefs.
fn review(
    ws: &Workspace,
    evidence: &str,
    ins: &mut Inspection,
    use_cache: bool,
) -> std::result::Result<(), String> {
    let payload = serde_json::json!({"bead_id": ins.work});
    for point in [HookPoint::PreAdvocate, HookPoint::PreCritic] {
        if let Some(stop) = hook(ws, point, &payload, ins) {
            return Err(stop);
        }
    }
    let nonempty = |r: &str| {
        if r.trim().is_empty() {
            Err("the reply is empty".to_string())
        } else {
            Ok(())
        }
    };
    let (advocate, critic) = std::thread::scope(|s| {
        let a = s.spawn(|| ask(ws, Role::Advocate, evidence, use_cache, nonempty));
        let c = s.spawn(|| ask(ws, Role::Critic, evidence, use_cache, nonempty));
        (join(a), join(c))
    });
    for (role, point, answer) in [
        ("advocate", HookPoint::PostAdvocate, advocate),
        ("critic", HookPoint::PostCritic, critic),
    ] {
        let (hash, reply, ()) = answer?;
        ins.prompt_hashes.insert(role.into(), hash);
        ins.briefs.insert(role.into(), reply.trim().to_string());
        hook(
            ws,
            point,
            &serde_json::json!({"bead_id": ins.work, "brief": reply}),
            ins,
        );
    }
    if let Some(stop) = hook(ws, HookPoint::PreJudgment, &payload, ins) {
        return Err(stop);
    }
    let with_briefs = format!(
        "{evidence}\nADVOCATE'S BRIEF\n{}\n\nCRITIC'S BRIEF\n{}\n",
        ins.briefs["advocate"], ins.briefs["critic"]
    );
    let (hash, reply, judgment) = ask(
        ws,
        Role::Judge,
        &with_briefs,
        use_cache,
        roles::parse_judgment,
    )?;
    ins.prompt_hashes.insert("judge".into(), hash);
    ins.briefs.insert("judge".into(), reply.trim().to_string());
    hook(
        ws,
        HookPoint::PostJudgment,
        &serde_json::to_value(&judgment).unwrap_or_default(),
        ins,
    );
    ins.judgment = Some(judgment);
    Ok(())
}

/// A role's answer from its thread (a panic there is an error, not a crash).
fn join<T>(
    h: std::thread::ScopedJoinHandle<'_, std::result::Result<T, String>>,
) -> std::result::Result<T, String> {
    h.join()
        .unwrap_or_else(|_| Err("the role's thread failed".to_string()))
}

/// The verdict, by rules no LLM can override: a deterministic FAIL fails, a check that
/// could not run is ERROR, then the judge (or the auditor) speaks, and a PASS below
/// `inspect.min_confidence` needs a person.
fn settle(ws: &Workspace, ins: &mut Inspection, upto: Upto) {
    let (mut verdict, confidence, mut reasons) = decide(ins, upto);
    let min = ws.config.inspect.min_confidence;
    if verdict == Verdict::Pass && confidence < min {
        verdict = Verdict::NeedsHuman;
        reasons.push(format!(
            "confidence {confidence:.2} is below inspect.min_confidence {min:.2}"
        ));
    }
    if verdict == Verdict::NeedsHuman {
        ins.question = ins
            .judgment
            .as_ref()
            .and_then(|j| j.question.clone())
            .or_else(|| Some(format!("Is {} done? {}", ins.work, reasons.join("; "))));
    }
    ins.verdict = verdict;
    ins.confidence = confidence;
    ins.reasons.extend(reasons);
}

/// A verdict with its confidence and reasons.
type Decision = (Verdict, f64, Vec<String>);

/// The verdict before `inspect.min_confidence`: the checks' when one failed or could not
/// run, else the judge's, else the auditor's, else PASS for the checks that passed.
fn decide(ins: &Inspection, upto: Upto) -> Decision {
    if let Some(d) = checks_decision(&ins.checks, ins.judgment.as_ref()) {
        return d;
    }
    if let Some(j) = &ins.judgment {
        return (j.decision, j.confidence, j.reasons.clone());
    }
    if upto >= Upto::Audit && !ins.audit.is_empty() {
        return audit_decision(&ins.audit);
    }
    (
        Verdict::Pass,
        1.0,
        vec![format!(
            "{} passed",
            crate::words::plural(ins.checks.len(), "check")
        )],
    )
}

/// FAIL when a check failed (overruling a judge's PASS), ERROR when one could not run;
/// `None` when neither.
fn checks_decision(checks: &[CriterionCheck], judgment: Option<&Judgment>) -> Option<Decision> {
    let failed: Vec<&CriterionCheck> = checks
        .iter()
        .filter(|c| matches!(c.result.outcome, Outcome::Fail | Outcome::Unstable))
        .collect();
    let errored: Vec<&CriterionCheck> = checks
        .iter()
        .filter(|c| c.result.outcome == Outcome::Error)
        .collect();
    if !failed.is_empty() {
        let ids: Vec<&str> = failed.iter().map(|c| c.id.as_str()).collect();
        let mut why = vec![format!("{} failing", ids.join(", "))];
        if judgment.map(|j| j.decision) == Some(Verdict::Pass) {
            why.push(format!(
                "judge said PASS; overruled by {} failing",
                ids.join(", ")
            ));
        }
        return Some((Verdict::Fail, 1.0, why));
    }
    if !errored.is_empty() {
        let ids: Vec<String> = errored
            .iter()
            .map(|c| {
                format!(
                    "{} ({})",
                    c.id,
                    c.result.reason.as_deref().unwrap_or("could not run")
                )
            })
            .collect();
        return Some((
            Verdict::Error,
            1.0,
            vec![format!("could not run: {}", ids.join(", "))],
        ));
    }
    None
}

/// The auditor's verdict: FAIL when a criterion is not met, NEEDS_HUMAN when one could not
/// be verified, else PASS.
fn audit_decision(audit: &[AuditLine]) -> Decision {
    let not_met: Vec<&str> = audit
        .iter()
        .filter(|a| a.finding == Finding::NotMet)
        .map(|a| a.id.as_str())
        .collect();
    let unsure: Vec<&str> = audit
        .iter()
        .filter(|a| a.finding == Finding::Unverifiable)
        .map(|a| a.id.as_str())
        .collect();
    if !not_met.is_empty() {
        (
            Verdict::Fail,
            1.0,
            vec![format!("the auditor found {} not met", not_met.join(", "))],
        )
    } else if !unsure.is_empty() {
        (
            Verdict::NeedsHuman,
            1.0,
            vec![format!(
                "the auditor could not verify {}",
                unsure.join(", ")
            )],
        )
    } else {
        (
            Verdict::Pass,
            1.0,
            vec!["the auditor found every criterion met".into()],
        )
    }
}
