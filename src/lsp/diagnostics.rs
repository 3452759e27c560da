//! `textDocument/publishDiagnostics`: what `spec check` finds in the open buffer, and each
//! criterion whose last run failed or could not run, on the criterion's line.

use super::last::{self, LastRun};
use super::position;
use super::state::{Server, SpecDoc};
use lsp_server::Notification;
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, PublishDiagnosticsParams, Uri};
use vermas_core::check::Outcome;
use vermas_core::spec::{self, Spec, lint};

/// Lines of a failure's output put in its diagnostic.
const SNIPPET_LINES: usize = 8;

/// The code of a criterion's failed-run diagnostic.
pub const LAST_RUN: &str = "last-run";

/// What to do about a failed run.
const RUN_HELP: &str = "fix the check or the code it checks, then use *Run this criterion* (or `vermas status --verify --record`)";

/// Every diagnostic of `doc`.
pub fn compute(server: &Server, doc: &SpecDoc) -> Vec<Diagnostic> {
    let spec = spec::parse(&doc.text, &doc.rel);
    let mut out = findings(doc, &spec);
    let record = doc
        .project
        .ws
        .as_ref()
        .and_then(|ws| vermas_core::verify::results::load_spec(ws, &doc.name));
    for c in &spec.criteria {
        let key = last::key(&doc.rel, c.line);
        let recorded = record.as_ref().and_then(|r| last::from_record(r, &key));
        if let Some(run) = last::newest(server.session_run(&key), recorded)
            && run.is_bad()
        {
            out.push(failed_run(doc, c.line, &run));
        }
    }
    out
}

/// `spec check`'s findings in this spec, each over its link (or to the end of its line).
fn findings(doc: &SpecDoc, spec: &Spec) -> Vec<Diagnostic> {
    let annotations: Vec<&spec::Annotation> =
        spec.criteria.iter().flat_map(|c| &c.annotations).collect();
    lint::check(&doc.project.root, std::slice::from_ref(spec))
        .into_iter()
        .filter(|f| f.file == doc.rel)
        .map(|f| {
            let range = annotations
                .iter()
                .find(|a| a.line == f.line && a.column == f.column)
                .map_or_else(
                    || position::to_line_end(&doc.text, f.line, f.column),
                    |a| position::of_span(&doc.text, a.span),
                );
            let severity = match f.level {
                lint::Level::Error => DiagnosticSeverity::ERROR,
                lint::Level::Warning => DiagnosticSeverity::WARNING,
            };
            diagnostic(range, severity, "spec-check", f.message, f.help.as_deref())
        })
        .collect()
}

/// The diagnostic of a criterion whose last run failed, errored or was unstable.
fn failed_run(doc: &SpecDoc, line: usize, run: &LastRun) -> Diagnostic {
    let severity = if run.outcome == Outcome::Unstable {
        DiagnosticSeverity::WARNING
    } else {
        DiagnosticSeverity::ERROR
    };
    let source = if run.recorded {
        "recorded"
    } else {
        "run in this session"
    };
    let mut message = format!("last run {} at {} ({source})", run.outcome, run.at);
    for c in run.checks.iter().filter(|c| c.outcome != Outcome::Pass) {
        let exit = c.exit_code.map_or(String::new(), |e| format!(", exit {e}"));
        message.push_str(&format!("\n{}: {}{exit}", c.outcome, c.command));
        let snippet: Vec<&str> = c.snippet.lines().take(SNIPPET_LINES).collect();
        if !snippet.is_empty() {
            message.push_str(&format!("\n{}", snippet.join("\n")));
        }
    }
    diagnostic(
        position::line_range(&doc.text, line),
        severity,
        LAST_RUN,
        message,
        Some(RUN_HELP),
    )
}

/// A vermas diagnostic; `help` (the fix, as the CLI's `help:` line says it) ends the
/// message on a `help:` line and is kept alone in `data.help`. No `codeDescription`: vermas
/// has no web page per code to link to.
fn diagnostic(
    range: lsp_types::Range,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
    help: Option<&str>,
) -> Diagnostic {
    let message = match help {
        Some(help) => format!("{message}\nhelp: {help}"),
        None => message,
    };
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some("vermas".into()),
        message,
        data: help.map(|h| serde_json::json!({ "help": h })),
        ..Diagnostic::default()
    }
}

/// Computes and sends the diagnostics of `uri`: a spec's findings and failed runs, one
/// error when the workspace cannot be read, none for other files.
pub fn publish(server: &Server, uri: &Uri) {
    let (diagnostics, version) = match server.spec(uri) {
        Ok(Some(doc)) => (compute(server, &doc), doc.version),
        Ok(None) => (Vec::new(), None),
        Err(e) if server.is_markdown_here(uri) => {
            let range = lsp_types::Range::default();
            let message = format!("vermas cannot read this workspace: {e}");
            let help = miette::Diagnostic::help(&e).map(|h| h.to_string());
            (
                vec![diagnostic(
                    range,
                    DiagnosticSeverity::ERROR,
                    "workspace",
                    message,
                    help.as_deref(),
                )],
                None,
            )
        }
        Err(_) => (Vec::new(), None),
    };
    clear_or_send(server, uri, diagnostics, version);
}

/// Sends `diagnostics` for `uri` (an empty list clears what the client shows).
pub fn clear_or_send(
    server: &Server,
    uri: &Uri,
    diagnostics: Vec<Diagnostic>,
    version: Option<i32>,
) {
    let params = PublishDiagnosticsParams::new(uri.clone(), diagnostics, version);
    server.send(Notification::new(PublishDiagnostics::METHOD.into(), params));
}
