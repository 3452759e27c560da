//! Outcomes and verdicts as text and shape (never colour alone): the inline SVG shapes,
//! defined once per page, a badge (shape + word) and a history strip of shapes whose
//! hover text gives the commit and date.

use maud::{Markup, html};
use vermas_core::check::Outcome;
use vermas_core::report::Mark;

/// The shapes, once per page: PASS a disc, FAIL a cross, SKIP a bar, ERROR a triangle,
/// UNSTABLE a diamond, NEEDS_HUMAN a ring with a dot, anything else a hollow square.
pub(super) fn symbols() -> Markup {
    html! {
        svg.defs width="0" height="0" aria-hidden="true" focusable="false" {
            symbol #s-pass viewBox="0 0 16 16" { circle cx="8" cy="8" r="6.5" fill="currentColor" {} }
            symbol #s-fail viewBox="0 0 16 16" {
                path d="M3 3 L13 13 M13 3 L3 13" stroke="currentColor" stroke-width="3.2" stroke-linecap="round" {}
            }
            symbol #s-skip viewBox="0 0 16 16" { rect x="2" y="6.5" width="12" height="3" rx="1.5" fill="currentColor" {} }
            symbol #s-error viewBox="0 0 16 16" {
                path d="M8 1.5 L15 14.5 H1 Z" fill="currentColor" {}
                rect x="7.1" y="5.5" width="1.8" height="5" fill="Canvas" {}
                rect x="7.1" y="11.4" width="1.8" height="1.8" fill="Canvas" {}
            }
            symbol #s-unstable viewBox="0 0 16 16" { path d="M8 1 L15 8 L8 15 L1 8 Z" fill="currentColor" {} }
            symbol #s-ask viewBox="0 0 16 16" {
                circle cx="8" cy="8" r="5.8" fill="none" stroke="currentColor" stroke-width="2.4" {}
                circle cx="8" cy="8" r="2" fill="currentColor" {}
            }
            symbol #s-unknown viewBox="0 0 16 16" {
                rect x="2.5" y="2.5" width="11" height="11" fill="none" stroke="currentColor" stroke-width="2" {}
            }
        }
    }
}

/// The class and shape of a verdict or outcome word.
fn look(word: &str) -> &'static str {
    match word {
        "PASS" => "pass",
        "FAIL" => "fail",
        "SKIP" => "skip",
        "ERROR" => "error",
        "UNSTABLE" => "unstable",
        "NEEDS_HUMAN" => "ask",
        _ => "unknown",
    }
}

/// A shape alone, hidden from screen readers (the word beside it says it).
fn shape(class: &str) -> Markup {
    html! {
        svg aria-hidden="true" focusable="false" { use href=(format!("#s-{class}")) {} }
    }
}

/// A badge: the shape and the word, e.g. `✕ FAIL`.
pub(super) fn badge(word: &str) -> Markup {
    let class = look(word);
    html! { span class=(format!("oc {class}")) { (shape(class)) (word) } }
}

/// The badge of an outcome, or "not recorded".
pub(super) fn outcome_badge(outcome: Option<Outcome>) -> Markup {
    match outcome {
        Some(o) => badge(&o.to_string()),
        None => html! { span.oc.unknown { (shape("unknown")) "not recorded" } },
    }
}

/// A criterion's recorded outcomes, oldest first, each a shape whose title (shown on
/// hover) and accessible name give the outcome, the commit and the date.
pub(super) fn strip(marks: &[Mark]) -> Markup {
    html! {
        ol.strip aria-label="Recorded outcomes, oldest first" {
            @for m in marks {
                @let word = m.outcome.to_string();
                @let class = look(&word);
                @let said = format!("{word} at {} on {}", super::short(&m.commit), m.at);
                li {
                    svg class=(format!("mk {class}")) role="img" aria-label=(said) {
                        title { (said) }
                        use href=(format!("#s-{class}")) {}
                    }
                }
            }
        }
    }
}

/// The legend of the shapes.
pub(super) fn legend() -> Markup {
    html! {
        ul.legend aria-label="What the shapes mean" {
            @for word in ["PASS", "FAIL", "SKIP", "ERROR", "UNSTABLE"] {
                li { (badge(word)) }
            }
        }
    }
}
