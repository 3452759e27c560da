//! The page around the sections: the head (charset, the Content-Security-Policy that
//! forbids scripts and any load from elsewhere, the inline style), the heading with where
//! the records come from, the navigation, the sections and the footer.

use super::links::Links;
use super::marks;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use vermas_core::report::{Report, Source};

/// Nothing may load or run: no script at all, styles only from the page itself, images
/// only inline. Same-page SVG `<use>` references need no fetch.
pub(super) const CSP: &str = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; \
     img-src data:; base-uri 'none'; form-action 'none'";

/// The style sheet, inlined.
const STYLE: &str = include_str!("style.css");

/// The whole page.
pub(super) fn render(report: &Report, links: &Links) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="referrer" content="no-referrer";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="generator" content=(format!("vermas {}", env!("CARGO_PKG_VERSION")));
                title { "vermas report: " (report.project) }
                // The style sheet is vermas's own text, compiled in: nothing from the ledger.
                style { (PreEscaped(STYLE)) }
            }
            body {
                (marks::symbols())
                header {
                    h1 { (report.project) ": what is verified" }
                    p.meta { (provenance(report)) }
                    nav aria-label="Sections" {
                        ul {
                            li { a href="#overview" { "Overview" } }
                            li { a href="#specs" { "Live specs" } }
                            li { a href="#inspections" { "Inspections" } }
                            @if !report.problems.is_empty() {
                                li { a href="#problems" { "Unreadable files" } }
                            }
                        }
                    }
                }
                main {
                    (super::overview::section(report))
                    (super::specs::section(report, links))
                    (super::inspections::section(report))
                    @if !report.problems.is_empty() {
                        section #problems aria-labelledby="problems-h" {
                            h2 #problems-h { "Unreadable files" }
                            ul { @for p in &report.problems { li { (p) } } }
                        }
                    }
                }
                footer.muted {
                    "Written by vermas " (env!("CARGO_PKG_VERSION"))
                    " from the committed ledger and its git history; no script, nothing loaded from elsewhere."
                }
            }
        }
    }
}

/// Where the records come from and as of when.
fn provenance(report: &Report) -> Markup {
    html! {
        @match &report.source {
            Source::Committed { commit } => {
                "Committed ledger at "
                code { (super::short(commit)) }
                @if let Some(b) = &report.branch { " on " code { (b) } }
                @if let Some(at) = report.as_of { " (" (at) ")" }
                "."
            }
            Source::Files => {
                "The ledger's files as they are: no git history is recorded here, so no outcome history."
            }
        }
        @if let Some(since) = &report.since {
            " History since " code { (super::short(since)) } "."
        }
    }
}
