//! The overview section: work by state (counts, then each state's list), what waits for a
//! person, and the refinery's queue, recent merges and stopped requests.

use super::marks::badge;
use maud::{Markup, html};
use vermas_core::report::{MergeItem, Overview, Report, WorkGroup};

/// The overview section.
pub(super) fn section(report: &Report) -> Markup {
    let o = &report.overview;
    html! {
        section #overview aria-labelledby="overview-h" {
            h2 #overview-h { "Overview" }
            table.counts #work-counts {
                caption { "Work by state (" (o.work) " work items)" }
                thead { tr { th scope="col" { "State" } th scope="col" { "Work items" } } }
                tbody {
                    @for g in &o.groups {
                        tr data-state=(g.state.slug()) {
                            th scope="row" {
                                @if g.count > 0 { a href=(format!("#state-{}", g.state.slug())) { (g.state.label()) } }
                                @else { (g.state.label()) }
                            }
                            td { (g.count) }
                        }
                    }
                }
            }
            (waiting(o))
            h3 #work-lists { "Work by state" }
            @for g in o.groups.iter().filter(|g| g.count > 0) { (group(g)) }
            (refinery(o))
        }
    }
}

/// One state's list, folded.
fn group(g: &WorkGroup) -> Markup {
    html! {
        details id=(format!("state-{}", g.state.slug())) {
            summary { (g.state.label()) " (" (g.count) ")" }
            table {
                caption { (g.state.label()) ": the first " (g.items.len()) " by priority" }
                thead { tr {
                    th scope="col" { "Id" } th scope="col" { "Title" } th scope="col" { "Priority" }
                    th scope="col" { "Assignee" } th scope="col" { "Blocked by" }
                } }
                tbody {
                    @for w in &g.items {
                        tr {
                            th scope="row" { code { (w.id) } }
                            td { (w.title) }
                            td { "P" (w.priority) }
                            td { (w.assignee.as_deref().unwrap_or("")) }
                            td { (w.blocked_by.join(", ")) }
                        }
                    }
                }
            }
            @if g.count > g.items.len() {
                p.muted { "and " (g.count - g.items.len()) " more (vermas list shows them all)" }
            }
        }
    }
}

/// What waits for a person: test specs to approve, questions, gate bypasses.
fn waiting(o: &Overview) -> Markup {
    html! {
        h3 #waiting { "Waiting for a person" }
        ul.cards {
            li { b { (o.pending_specs.len()) } "test specs pending approval" }
            li { b { (o.questions.len()) } "questions (NEEDS_HUMAN)" }
            li { b { (o.bypasses.len()) } "gate bypasses" }
        }
        @if !o.pending_specs.is_empty() {
            table #pending-specs {
                caption { "Test specs pending approval (vermas inspect approve ID)" }
                thead { tr { th scope="col" { "Test spec" } th scope="col" { "Work" } th scope="col" { "Criteria" } th scope="col" { "Why" } } }
                tbody { @for s in &o.pending_specs { tr {
                    th scope="row" { code { (s.id) } }
                    td { (s.work.as_deref().unwrap_or("")) }
                    td { (s.criteria) }
                    td { @if s.changed_since_approval { "criteria changed since approval" } @else { "never approved" } }
                } } }
            }
        }
        @if !o.questions.is_empty() {
            table #questions {
                caption { "Questions the Inspector asked (vermas answer ID \"...\")" }
                thead { tr { th scope="col" { "Work" } th scope="col" { "Question" } th scope="col" { "Asked" } } }
                tbody { @for q in &o.questions { tr {
                    th scope="row" { a href=(format!("#work-{}", q.work)) { code { (q.work) } } " " (q.title) }
                    td { (badge("NEEDS_HUMAN")) " " (q.question) }
                    td {
                        @if let Some(at) = q.asked_at { (at) }
                        @if let Some(m) = &q.asked_in { " in " code { (m) } }
                    }
                } } }
            }
        }
        @if !o.bypasses.is_empty() {
            table #bypasses {
                caption { "Work slung past its test-spec gate" }
                thead { tr { th scope="col" { "Work" } th scope="col" { "Reason" } th scope="col" { "When" } } }
                tbody { @for b in &o.bypasses { tr {
                    th scope="row" { code { (b.work) } " " (b.title) }
                    td { (b.reason) }
                    td { @if let Some(at) = b.at { (at) } }
                } } }
            }
        }
    }
}

/// The refinery: waiting, merged, stopped.
fn refinery(o: &Overview) -> Markup {
    html! {
        h3 #refinery { "Refinery" }
        @if o.queue.is_empty() && o.merged.is_empty() && o.stopped.is_empty() {
            p.muted { "No merge requests." }
        }
        (requests("queue", "Queue (waiting to be verified and merged)", &o.queue))
        (requests("merged", "Recent merges", &o.merged))
        (requests("stopped", "Stopped (not landed)", &o.stopped))
    }
}

/// One table of merge requests.
fn requests(id: &str, caption: &str, items: &[MergeItem]) -> Markup {
    html! {
        @if !items.is_empty() {
            table id=(format!("mq-{id}")) {
                caption { (caption) " (" (items.len()) ")" }
                thead { tr {
                    th scope="col" { "Request" } th scope="col" { "Branch" } th scope="col" { "Work" }
                    th scope="col" { "State" } th scope="col" { "Verdict" } th scope="col" { "Why" } th scope="col" { "Changed" }
                } }
                tbody { @for r in items { tr {
                    th scope="row" { code { (r.id) } }
                    td { code { (r.branch) } " → " code { (r.target) } }
                    td { code { (r.bead) } }
                    td { (r.state) @if let Some(c) = &r.merged_commit { " as " code { (super::short(c)) } } }
                    td { @if let Some(v) = &r.last_verdict { (badge(v)) } }
                    td { (r.reason.as_deref().unwrap_or("")) }
                    td { @if let Some(at) = r.updated_at { (at) } }
                } } }
            }
        }
    }
}
