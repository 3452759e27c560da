//! The inspections section: each inspected work with its verdict and confidence, what was
//! judged, each criterion's outcome and evidence, the roles' briefs, the question and the
//! answer a person gave, the test spec's approval, its failure reports and earlier verdicts.

use super::marks::badge;
use maud::{Markup, html};
use vermas_core::report::{Inspected, Report};

/// The inspections section.
pub(super) fn section(report: &Report) -> Markup {
    let verdicts = ["PASS", "FAIL", "NEEDS_HUMAN", "ERROR"];
    let count = |v: &str| report.inspections.iter().filter(|i| i.verdict == v).count();
    html! {
        section #inspections aria-labelledby="inspections-h" {
            h2 #inspections-h { "Inspections" }
            @if report.inspections.is_empty() {
                p.muted { "No inspection recorded." }
            } @else {
                ul.cards #inspection-totals aria-label="Inspections by verdict" {
                    li data-count="inspections" { b { (report.inspections.len()) } "inspected" }
                    @for v in verdicts { li data-count=(v) { b { (count(v)) } (badge(v)) } }
                }
                @for i in &report.inspections { (inspected(i, report.approvers_set)) }
            }
        }
    }
}

/// One inspected work item; with `approvers_set`, a recorded answer is said to count only
/// when an approver signed it.
fn inspected(i: &Inspected, approvers_set: bool) -> Markup {
    html! {
        article.inspection id=(format!("work-{}", i.work)) data-verdict=(i.verdict) aria-labelledby=(format!("work-{}-h", i.work)) {
            h3 id=(format!("work-{}-h", i.work)) {
                code { (i.work) } " " (i.title.as_deref().unwrap_or("")) " " (badge(&i.verdict))
            }
            (facts(i))
            @if !i.reasons.is_empty() {
                h4 { "Why" }
                ul.reasons { @for r in &i.reasons { li { (r) } } }
            }
            @if !i.checks.is_empty() {
                table.criteria {
                    caption { "Criteria of " (i.work) }
                    thead { tr {
                        th scope="col" { "Criterion" } th scope="col" { "Outcome" }
                        th scope="col" { "Check" } th scope="col" { "Evidence" }
                    } }
                    tbody { @for c in &i.checks { tr data-outcome=(c.outcome) {
                        th scope="row" { code { (c.criterion) } " " (c.description.as_deref().unwrap_or("")) }
                        td { (badge(&c.outcome)) }
                        td { span.muted { (c.kind) } " " code { (c.command) }
                             @if let Some(code) = c.exit_code { span.muted { " exit " (code) } } }
                        td { @if !c.snippet.trim().is_empty() {
                            details { summary { "Output" } pre { (c.snippet) } }
                        } }
                    } } }
                }
            }
            @if let Some(q) = &i.question {
                h4 { "Question and answer" }
                dl.facts.qa {
                    dt { "Asked" } dd { (q) }
                    dt { "Answer" } dd {
                        @match &i.answer { Some(a) => (a), None => span.muted { "not answered yet" } }
                        @if approvers_set && i.answer.is_some() {
                            " " span.muted { "(as recorded: it counts only if an approver signed the commit that recorded it)" }
                        }
                    }
                }
            }
            @if !i.briefs.is_empty() {
                h4 { "Briefs" }
                @for (role, text) in &i.briefs {
                    details.brief data-role=(role) { summary { (role) } pre { (text) } }
                }
            }
            @if !i.failure_reports.is_empty() {
                h4 { "Failure reports" }
                @for r in &i.failure_reports {
                    details.failure-report id=(format!("report-{}", r.id)) {
                        summary { code { (r.id) } " " (r.title) " (" (if r.closed { "closed, superseded" } else { "open" }) ")" }
                        pre { (r.body) }
                    }
                }
            }
            @if !i.earlier.is_empty() {
                h4 { "Earlier verdicts" }
                ol.earlier { @for p in &i.earlier { li {
                    (badge(&p.verdict)) @if let Some(at) = p.at { " " (at) } " in " code { (super::short(&p.commit)) }
                } } }
            }
        }
    }
}

/// The facts of an inspection: confidence, commit, tree, base, approvals, recording.
fn facts(i: &Inspected) -> Markup {
    let unknown = || html! { span.muted { "not recorded" } };
    html! {
        dl.facts {
            dt { "Verdict" } dd { (badge(&i.verdict)) @if let Some(at) = i.at { " at " (at) } }
            dt { "Confidence" } dd { @match i.confidence { Some(c) => (format!("{c:.2}")), None => (unknown()) } }
            dt { "Commit judged" } dd { @match &i.head { Some(h) => code { (h) }, None => (unknown()) } }
            @if let Some(t) = &i.tree { dt { "Tree judged" } dd { code { (t) } } }
            dt { "Diff base" } dd { @match &i.base { Some(b) => code { (b) }, None => (unknown()) } }
            dt { "Approvals" } dd { @match &i.approval { Some(a) => (a), None => (unknown()) } }
            @if let Some(s) = &i.spec {
                dt { "Test spec" } dd {
                    code { (s.id) } " approved"
                    @if let Some(by) = &s.by { " by " (by) }
                    @if let Some(at) = s.at { " at " (at) }
                    @if let Some(c) = &s.commit { " (HEAD " code { (super::short(c)) } ")" }
                    @if !s.holds { " · pending approval again" }
                }
            }
            @if let Some(c) = &i.recorded_in { dt { "Recorded in" } dd { code { (super::short(c)) } } }
        }
    }
}
