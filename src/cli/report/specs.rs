//! The live specs section: totals, then each spec's criteria with the latest outcome, the
//! history strip, the flaky mark, the checks' `file:line` links and the latest output of a
//! criterion that did not pass.

use super::links::Links;
use super::marks::{badge, legend, outcome_badge, strip};
use maud::{Markup, html};
use vermas_core::check::Outcome;
use vermas_core::report::{LiveCriterion, LiveSpec, Report};

/// The live specs section.
pub(super) fn section(report: &Report, links: &Links) -> Markup {
    let criteria: Vec<&LiveCriterion> = report.specs.iter().flat_map(|s| &s.criteria).collect();
    let count = |o: Option<Outcome>| criteria.iter().filter(|c| c.latest == o).count();
    let flaky = criteria.iter().filter(|c| c.flaky).count();
    html! {
        section #specs aria-labelledby="specs-h" {
            h2 #specs-h { "Live specs" }
            @if report.specs.is_empty() {
                p.muted { "No live specs." }
            } @else {
                ul.cards #spec-totals aria-label="Criteria by latest outcome" {
                    li data-count="specs" { b { (report.specs.len()) } "specs" }
                    li data-count="criteria" { b { (criteria.len()) } "criteria" }
                    @for o in [Outcome::Pass, Outcome::Fail, Outcome::Error, Outcome::Unstable, Outcome::Skip] {
                        li data-count=(o.to_string()) { b { (count(Some(o))) } (badge(&o.to_string())) }
                    }
                    li data-count="unrecorded" { b { (count(None)) } "not recorded" }
                    li data-count="flaky" { b { (flaky) } span.flaky { "flaky" } }
                }
                (legend())
                @for s in &report.specs { (spec(s, links)) }
            }
        }
    }
}

/// One spec.
fn spec(s: &LiveSpec, links: &Links) -> Markup {
    html! {
        article.spec id=(format!("spec-{}", s.name)) aria-labelledby=(format!("spec-{}-h", s.name)) {
            h3 id=(format!("spec-{}-h", s.name)) {
                (s.title) " "
                a.muted href=(links.file(&s.path, None)) { code { (s.path) } }
            }
            p.meta {
                "Latest recorded verdict: "
                @match &s.verdict { Some(v) => (badge(v)), None => "none recorded" }
                @if let Some(at) = s.recorded_at { " at " (at) }
                " · " (s.runs) " recorded runs"
                @if let Some(b) = &s.bead { " · bead " code { (b) } }
            }
            table {
                caption { "Criteria of " (s.path) }
                thead { tr {
                    th scope="col" { "Criterion" } th scope="col" { "Latest" }
                    th scope="col" { "History, oldest to newest" } th scope="col" { "Checks" }
                } }
                tbody { @for c in &s.criteria { (criterion(s, c, links)) } }
            }
        }
    }
}

/// One criterion's row, and its output when it did not pass.
fn criterion(s: &LiveSpec, c: &LiveCriterion, links: &Links) -> Markup {
    html! {
        tr.criterion data-latest=(c.latest.map(|o| o.to_string()).unwrap_or_default()) data-flaky=(c.flaky) {
            th scope="row" {
                (c.text) " "
                a.muted href=(links.file(&s.path, Some(c.line))) { (s.path) ":" (c.line) }
                @if c.flaky { span.flaky title="its outcome flipped and flipped back, or was UNSTABLE" { "flaky" } }
            }
            td { (outcome_badge(c.latest)) }
            td {
                @if c.history.is_empty() { span.muted { "no recorded runs" } }
                @else {
                    (strip(&c.history))
                    @if c.earlier > 0 { span.muted { (c.earlier) " earlier not shown" } }
                }
            }
            td {
                ul {
                    @for k in &c.checks {
                        li {
                            (k.kind) " "
                            a href=(links.file(&k.file, k.line)) {
                                code { (k.file) @if let Some(l) = k.line { ":" (l) } }
                            }
                            @if let Some((_, f)) = k.target.split_once('#') { " " code { (f) } }
                        }
                    }
                }
            }
        }
        @if !c.snippet.trim().is_empty() && c.latest.is_some_and(|o| o != Outcome::Pass) {
            tr.output {
                td colspan="4" {
                    details {
                        summary { "Output of " (c.text) }
                        pre { (c.snippet) }
                    }
                }
            }
        }
    }
}
