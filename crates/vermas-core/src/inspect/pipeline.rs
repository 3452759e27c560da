//! The Inspector's pipeline: the verifier runs every criterion (no LLM), the auditor
//! checks the evidence per criterion, advocate and critic write opposing briefs in
//! parallel, and the judge decides; rules no LLM can override settle the verdict. Nothing
//! here writes: [`super::route`] records and routes what comes back.

use super::lifecycle::{self, HookPoint};
use super::roles::{self, Role};
use crate::bead::model::{Bead, IssueType, Status};
use crate::error::{Error, Result};
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The last step to run.
    pub upto: Upto,
    /// The diff's base (else the merge-base with the default branch).
    pub base: Option<String>,
    /// The diff's other end, else HEAD where the checks run.
    pub diff_head: Option<String>,
    /// Use cached LLM replies.
    pub use_cache: bool,
    /// An answer a person gave to the judge's question, added to the evidence.
    pub answer: Option<String>,
    /// Why nothing may be judged, when what the inspection rests on does not hold (see
    /// [`super::basis`]).
    pub refused: Option<String>,
}

pub use super::inspection::{AuditLine, Inspection, Upto, Verdict};

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
        head: None,
        tree: None,
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
        work_state: None,
        approval: None,
    };
    if let Some(repo) = crate::git::GitRepo::open(&ws.root) {
        ins.head = repo.head_commit();
        ins.tree = ins.head.as_deref().and_then(|c| repo.tree_id(c));
    }
    if let Some(why) = &opts.refused {
        return ins.error(why.clone());
    }
    if let Some(s) = spec
        && s.status != Status::Closed
    {
        let (why, next) = super::testspec::not_approved(s);
        return ins.error(format!("{why}: {next}"));
    }
    if let Some(why) = spec.and_then(|s| super::frozen::changed(s, &ws.root, ins.head.as_deref())) {
        return ins.error(why);
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
    if let Some(stop) = hook(
        ws,
        HookPoint::PostVerify,
        &serde_json::json!({"bead_id": ins.work, "checks": ins.checks}),
        &mut ins,
    ) {
        return ins.error(stop);
    }
    if opts.upto == Upto::Verify {
        // No role reads evidence: no diff is made, no git process runs.
        super::rules::settle(ws, &mut ins, opts.upto);
        return ins;
    }
    let (mut evidence, fence) = super::evidence::build(
        ws,
        work,
        &ins,
        opts.answer.as_deref(),
        (opts.base.as_deref(), opts.diff_head.as_deref()),
    );
    if opts.upto >= Upto::Audit && opts.upto != Upto::Review {
        if let Err(e) = audit(ws, &evidence, &mut ins, opts.use_cache) {
            return ins.error(e);
        }
        if let Some(stop) = hook(
            ws,
            HookPoint::PostAudit,
            &serde_json::json!({"bead_id": ins.work, "audit": ins.audit}),
            &mut ins,
        ) {
            return ins.error(stop);
        }
        evidence.push_str(&super::evidence::audit_section(&ins.audit, &fence));
    }
    if opts.upto >= Upto::Review
        && let Err(e) = review(ws, &evidence, &fence, &mut ins, opts.use_cache)
    {
        return ins.error(e);
    }
    if ins
        .briefs
        .values()
        .any(|b| b.starts_with(super::stand_in::MARK))
    {
        ins.warnings.push(
            "the roles were answered by vermas's stand-in (`vermas stand-in`), not a model: \
             its verdict only restates the checks"
                .into(),
        );
    }
    super::rules::settle(ws, &mut ins, opts.upto);
    ins
}

/// Runs a hook point; a Pre point's stop, or any hook's write into `.beads/` (undone),
/// comes back; other failures become warnings.
fn hook(
    ws: &Workspace,
    point: HookPoint,
    payload: &serde_json::Value,
    ins: &mut Inspection,
) -> Option<String> {
    let report = lifecycle::run_locked(ws, point, payload);
    ins.warnings.extend(report.warnings);
    report.stopped
}

/// Asks `role` about `evidence`; the reply must be accepted by `accept`.
fn ask<T>(
    ws: &Workspace,
    role: Role,
    evidence: &str,
    use_cache: bool,
    accept: impl Fn(&str) -> std::result::Result<T, String>,
) -> std::result::Result<Asked<T>, String> {
    let prompt = roles::prompt(ws, role, evidence);
    let hash = crate::judge::llm::prompt_hash(&prompt)?;
    let (reply, value, warning) = roles::llm(ws, role, use_cache)
        .ask(&ws.root, role.name(), "", &prompt, accept)
        .map_err(|e| format!("{}: {e}", role.name()))?;
    Ok(Asked {
        hash,
        reply,
        value,
        warning,
    })
}

/// A role's answer: the prompt's hash, the reply, what was read from it, and a warning
/// (a cached reply vermas did not write, ignored).
struct Asked<T> {
    /// The prompt's hash.
    hash: String,
    /// The reply.
    reply: String,
    /// What `accept` read from it.
    value: T,
    /// A warning about the cache, if any.
    warning: Option<String>,
}

/// The auditor's findings per criterion.
fn audit(
    ws: &Workspace,
    evidence: &str,
    ins: &mut Inspection,
    use_cache: bool,
) -> std::result::Result<(), String> {
    let ids: Vec<String> = ins.checks.iter().map(|c| c.id.clone()).collect();
    let Asked {
        hash,
        reply,
        warning,
        ..
    } = ask(ws, Role::Auditor, evidence, use_cache, |r| {
        if r.trim().is_empty() {
            Err("the reply is empty".to_string())
        } else {
            Ok(())
        }
    })?;
    ins.warnings.extend(warning);
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
    fence: &super::evidence::Fence,
    ins: &mut Inspection,
    use_cache: bool,
) -> std::result::Result<(), String> {
    let payload = serde_json::json!({"bead_id": ins.work, "evidence": evidence});
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
        let Asked {
            hash,
            reply,
            warning,
            ..
        } = answer?;
        ins.warnings.extend(warning);
        ins.prompt_hashes.insert(role.into(), hash);
        ins.briefs.insert(role.into(), reply.trim().to_string());
        if let Some(stop) = hook(
            ws,
            point,
            &serde_json::json!({"bead_id": ins.work, "brief": reply}),
            ins,
        ) {
            return Err(stop);
        }
    }
    let briefs = serde_json::json!({
        "bead_id": ins.work,
        "briefs": {"advocate": ins.briefs["advocate"], "critic": ins.briefs["critic"]},
    });
    if let Some(stop) = hook(ws, HookPoint::PreJudgment, &briefs, ins) {
        return Err(stop);
    }
    let with_briefs = format!(
        "{evidence}{}{}",
        super::evidence::brief_section("ADVOCATE'S BRIEF", &ins.briefs["advocate"], fence),
        super::evidence::brief_section("CRITIC'S BRIEF", &ins.briefs["critic"], fence)
    );
    let Asked {
        hash,
        reply,
        value: judgment,
        warning,
    } = ask(
        ws,
        Role::Judge,
        &with_briefs,
        use_cache,
        roles::parse_judgment,
    )?;
    ins.warnings.extend(warning);
    ins.prompt_hashes.insert("judge".into(), hash);
    ins.briefs.insert("judge".into(), reply.trim().to_string());
    if let Some(stop) = hook(
        ws,
        HookPoint::PostJudgment,
        &serde_json::json!({"bead_id": ins.work, "judgment": judgment}),
        ins,
    ) {
        return Err(stop);
    }
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
