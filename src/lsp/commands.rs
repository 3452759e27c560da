//! "Run this criterion": the code lens and code action on each criterion with links, and
//! `workspace/executeCommand` `vermas.runCriterion [uri, line]`, which runs that
//! criterion's checks with the same runner as `status --verify` and records the result.

use super::hover::criterion_at;
use super::last::{self, LastRun};
use super::position;
use super::state::{Server, SpecDoc};
use lsp_types::{
    CodeAction, CodeActionContext, CodeActionKind, CodeActionOrCommand, CodeLens, Command,
    Diagnostic, NumberOrString, Range, Uri,
};
use serde::Serialize;
use serde_json::{Value, json};
use vermas_core::check::Outcome;
use vermas_core::spec::{self, Criterion};
use vermas_core::store::Recorded;
use vermas_core::time::Timestamp;
use vermas_core::verify::{self, Kinds, Project, SpecRun};

/// The command that runs one criterion.
pub const RUN_CRITERION: &str = "vermas.runCriterion";

/// The kind of the *Run this criterion* code action.
pub const RUN_KIND: &str = "source.vermas.run";

/// Title of the lens and the action.
const TITLE: &str = "Run this criterion";

/// Why a judge link did not run when no LLM can be called.
const NO_LLM: &str = "judge not run: no runnable LLM command is configured (llm.command)";

/// The command running the criterion on one-based `line` of `doc` (its arguments: the URI
/// and the zero-based line, as LSP counts lines).
fn run_command(doc: &SpecDoc, line: usize) -> Command {
    Command::new(
        TITLE.into(),
        RUN_CRITERION.into(),
        Some(vec![json!(doc.uri.as_str()), json!(line.saturating_sub(1))]),
    )
}

/// The criteria that have something to run.
fn runnable(spec: &spec::Spec) -> impl Iterator<Item = &Criterion> {
    spec.criteria.iter().filter(|c| !c.annotations.is_empty())
}

/// A lens above each criterion with links.
pub fn lenses(doc: &SpecDoc) -> Vec<CodeLens> {
    let spec = spec::parse(&doc.text, &doc.rel);
    runnable(&spec)
        .map(|c| CodeLens {
            range: position::line_range(&doc.text, c.line),
            command: Some(run_command(doc, c.line)),
            data: None,
        })
        .collect()
}

/// The action for each criterion with links on the lines of `range`, of kind
/// [`RUN_KIND`], each naming the failed-run diagnostics of `context` it addresses; none when
/// the client asks `only` for kinds that do not cover it.
pub fn actions(
    doc: &SpecDoc,
    range: Range,
    context: &CodeActionContext,
) -> Vec<CodeActionOrCommand> {
    if let Some(only) = &context.only
        && !only.iter().any(|k| covers(k.as_str(), RUN_KIND))
    {
        return Vec::new();
    }
    let spec = spec::parse(&doc.text, &doc.rel);
    let (first, last) = (
        range.start.line.min(range.end.line),
        range.end.line.max(range.start.line),
    );
    let mut seen = Vec::new();
    for line in first..=last.min(first.saturating_add(10_000)) {
        if let Some(c) = criterion_at(&spec, line).filter(|c| !c.annotations.is_empty())
            && !seen.contains(&c.line)
        {
            seen.push(c.line);
        }
    }
    seen.into_iter()
        .map(|line| {
            let addressed: Vec<Diagnostic> = context
                .diagnostics
                .iter()
                .filter(|d| addressed_by_run(&spec, d, line))
                .cloned()
                .collect();
            CodeActionOrCommand::CodeAction(CodeAction {
                title: TITLE.into(),
                kind: Some(CodeActionKind::from(RUN_KIND)),
                diagnostics: (!addressed.is_empty()).then_some(addressed),
                command: Some(run_command(doc, line)),
                ..CodeAction::default()
            })
        })
        .collect()
}

/// True when kind `asked` covers `kind`: the same, or a dot-separated prefix of it.
fn covers(asked: &str, kind: &str) -> bool {
    asked.is_empty()
        || kind == asked
        || kind
            .strip_prefix(asked)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// True for vermas's failed-run diagnostic `d` on the criterion of one-based `line`: the
/// one running it again settles.
fn addressed_by_run(spec: &spec::Spec, d: &Diagnostic, line: usize) -> bool {
    d.source.as_deref() == Some("vermas")
        && d.code == Some(NumberOrString::String(super::diagnostics::LAST_RUN.into()))
        && criterion_at(spec, d.range.start.line).is_some_and(|c| c.line == line)
}

/// The URI and zero-based line `vermas.runCriterion` was given.
pub fn arguments(args: &[Value]) -> Result<(Uri, u32), String> {
    let usage = "vermas.runCriterion takes [uri, line]: the spec's URI and a zero-based line of the criterion";
    let [uri, line] = args else {
        return Err(usage.into());
    };
    let uri: Uri = uri
        .as_str()
        .and_then(|u| u.parse().ok())
        .ok_or_else(|| format!("{usage}; '{uri}' is not a URI"))?;
    let line = line
        .as_u64()
        .and_then(|l| u32::try_from(l).ok())
        .ok_or_else(|| format!("{usage}; '{line}' is not a line number"))?;
    Ok((uri, line))
}

/// One check of a criterion run, as the command returns it.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// `verify`, `judge` or `verify:NAME`.
    pub kind: vermas_core::spec::AnnotationKind,
    /// `file#function`.
    pub target: String,
    /// Its outcome.
    pub outcome: Outcome,
    /// Exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Wall time.
    pub duration_ms: u64,
    /// Why it was skipped or could not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What `vermas.runCriterion` returns.
#[derive(Debug, Serialize)]
pub struct RunReport {
    /// The criterion's outcome.
    pub outcome: Outcome,
    /// The spec's repository-relative path.
    pub spec: String,
    /// Zero-based line of the criterion (as LSP counts lines, like the argument).
    pub line: usize,
    /// The criterion's text.
    pub criterion: String,
    /// Why it was skipped or errored, where there is a reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Each check.
    pub checks: Vec<CheckReport>,
    /// What became of the record: `committed`, `unchanged`, or why it was not written.
    pub recorded: String,
}

/// Runs the criterion on zero-based `line` of the spec `uri` (its open buffer's links, the
/// files on disk), remembers and records the result. Errors say why nothing ran.
pub fn run_criterion(server: &Server, uri: &Uri, line: u32) -> Result<RunReport, String> {
    let doc = server
        .spec(uri)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{} is not a spec of this workspace", uri.as_str()))?;
    let mut spec = spec::parse(&doc.text, &doc.rel);
    let criterion = criterion_at(&spec, line)
        .cloned()
        .ok_or_else(|| format!("no success criterion at line {} of {}", line + 1, doc.rel))?;
    spec.criteria = vec![criterion];
    // The spec's own problems belong to its diagnostics, not to this criterion's outcome.
    spec.problems.clear();
    let project = &doc.project;
    let llm = llm_ready(project);
    let kinds = Kinds {
        verify: true,
        judge: llm,
    };
    let request = verify::Request::new(verify::Selection::Given(vec![spec]), kinds);
    let mut runs = verify::run(project, request, &mut ())
        .map_err(|e| e.to_string())?
        .runs;
    let mut run = runs.pop().ok_or("the run returned no result")?;
    if !llm {
        explain_unjudged(&mut run);
    }
    let now = Timestamp::now();
    let evidence = vermas_core::verify::results::from_spec_run(&run, now).checks;
    let crit = run.criteria.pop().ok_or("the run returned no criterion")?;
    let key = last::key(&doc.rel, crit.line);
    let (recorded, written) = record(&doc, crit.line, evidence.clone());
    // Remembered after recording, so hover says where the result really is.
    server.remember_run(
        key,
        LastRun {
            at: now,
            outcome: crit.outcome,
            checks: evidence,
            recorded: written,
        },
    );
    Ok(RunReport {
        outcome: crit.outcome,
        spec: doc.rel.clone(),
        line: crit.line.saturating_sub(1),
        criterion: crit.text,
        reason: crit.reason,
        checks: crit
            .checks
            .into_iter()
            .map(|c| CheckReport {
                kind: c.kind,
                target: c.target,
                outcome: c.result.outcome,
                exit_code: c.result.exit_code,
                duration_ms: c.result.duration_ms,
                reason: c.result.reason,
            })
            .collect(),
        recorded,
    })
}

/// True when the judge's LLM command is set and its program can be started.
fn llm_ready(project: &Project) -> bool {
    let command = project.config.llm_command("judge");
    !command.trim().is_empty()
        && vermas_core::config::check_runnable(command, &project.root).is_ok()
}

/// Judge links skipped because no LLM can be called say so (not "judge only").
fn explain_unjudged(run: &mut SpecRun) {
    for c in &mut run.criteria {
        for chk in c.checks.iter_mut().filter(|k| k.kind.is_judge()) {
            if chk.result.outcome == Outcome::Skip {
                chk.result.reason = Some(NO_LLM.into());
            }
        }
        if c.outcome == Outcome::Skip && c.checks.iter().all(|k| k.kind.is_judge()) {
            c.reason = Some(NO_LLM.into());
        }
    }
}

/// Records a criterion's evidence as `status --verify --record` would (a commit in the
/// workspace); says what happened or why nothing was written, and whether the record in
/// `.beads/results/` now holds this run.
fn record(
    doc: &SpecDoc,
    line: usize,
    evidence: Vec<vermas_core::verify::results::Evidence>,
) -> (String, bool) {
    let Some(ws) = doc.project.ws.as_ref() else {
        return (
            "not recorded: no .beads workspace (run `vermas init`)".into(),
            false,
        );
    };
    let checked = vermas_core::setup::checked_actor(ws, None).and_then(|actor| {
        if ws.config.git.commit {
            vermas_core::setup::check_recordable(ws, ws.config.git.author.as_deref())?;
        }
        Ok(actor)
    });
    let outcome = checked
        .and_then(|actor| last::record_criterion(ws, &doc.name, &doc.rel, line, evidence, &actor));
    match outcome {
        Ok(Recorded::Commit(_)) => ("committed".into(), true),
        Ok(Recorded::Unchanged) => ("unchanged".into(), true),
        Ok(Recorded::Disabled) => ("written, not committed: git.commit is false".into(), true),
        Ok(Recorded::NotARepository) => (
            "written, not committed: not in a git repository".into(),
            true,
        ),
        Err(e) => (format!("not recorded: {e}"), false),
    }
}
