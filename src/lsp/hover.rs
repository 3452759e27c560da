//! `textDocument/hover` on a criterion: its last result (outcome, when, each check with a
//! snippet of its output), or that it has not run yet.

use super::last::{self, LastRun};
use super::position;
use super::state::{Server, SpecDoc};
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use vermas_core::spec::{self, Criterion};

/// Lines of a check's output shown in a hover.
const SNIPPET_LINES: usize = 12;

/// The criterion of `spec` on zero-based `line`: the item's own line or a later line of
/// its links.
pub fn criterion_at(spec: &spec::Spec, line: u32) -> Option<&Criterion> {
    let line = usize::try_from(line).ok()?.checked_add(1)?;
    spec.criteria.iter().find(|c| {
        let last = c.annotations.iter().map(|a| a.line).max().unwrap_or(c.line);
        (c.line..=last.max(c.line)).contains(&line)
    })
}

/// The hover for zero-based `line` of `doc`, when a criterion is there.
pub fn hover(server: &Server, doc: &SpecDoc, line: u32) -> Option<Hover> {
    let spec = spec::parse(&doc.text, &doc.rel);
    let c = criterion_at(&spec, line)?;
    let key = last::key(&doc.rel, c.line);
    let recorded = doc
        .project
        .ws
        .as_ref()
        .and_then(|ws| vermas_core::verify::results::load_spec(ws, &doc.name))
        .and_then(|r| last::from_record(&r, &key));
    let value = match last::newest(server.session_run(&key), recorded) {
        Some(run) => describe(&run),
        None => not_run(c),
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(position::line_range(&doc.text, c.line)),
    })
}

/// Markdown for a criterion that has a result.
fn describe(run: &LastRun) -> String {
    let source = if run.recorded {
        "recorded in .beads/results"
    } else {
        "run in this session, not recorded"
    };
    let mut out = format!("**{}**, last run {} ({source})\n", run.outcome, run.at);
    for c in &run.checks {
        let exit = c.exit_code.map_or(String::new(), |e| format!(", exit {e}"));
        out.push_str(&format!(
            "\n- {} `{}`: {}{exit}, {} ms\n",
            c.kind,
            c.command.replace('`', "'"),
            c.outcome,
            c.duration_ms
        ));
        let snippet: Vec<&str> = c.snippet.lines().take(SNIPPET_LINES).collect();
        if !snippet.is_empty() {
            out.push_str(&format!(
                "\n  ```text\n  {}\n  ```\n",
                snippet.join("\n  ").replace("```", "'''")
            ));
        }
    }
    out
}

/// Markdown for a criterion with no result yet.
fn not_run(c: &Criterion) -> String {
    if c.annotations.is_empty() {
        return "**not run yet**: this criterion has no `[verify]` or `[judge]` link".into();
    }
    "**not run yet**: use *Run this criterion*, or `vermas status --verify --record`".into()
}
