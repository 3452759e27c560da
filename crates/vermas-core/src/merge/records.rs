//! Three-way merges of the records other than beads: mail (created once; read marks from
//! either side), molecules (a step's state only moves forward; outputs from both sides),
//! results and merge requests (the later run wins). A tie (the same time on both sides)
//! goes to the side whose text sorts last, so either order of the sides gives one result.

use crate::error::{Error, Result};
use crate::mail::Message;
use crate::mol::molecule::{Molecule, Step, StepStatus};
use crate::time::Timestamp;

/// A message merged: created once, so one side's text (the one that changed it), read
/// when either side read it.
pub fn mail(base: Option<&str>, ours: &str, theirs: &str, file: &str) -> Result<String> {
    if let Some(b) = base {
        Message::parse(b, file)?;
    }
    let o = Message::parse(ours, file)?;
    let t = Message::parse(theirs, file)?;
    if o.id != t.id {
        return super::named_by_path(
            file,
            ".md",
            [(o.id.as_str(), ours), (t.id.as_str(), theirs)],
        )
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{file}: the two sides are different messages ({} and {})",
                o.id, t.id
            ))
        });
    }
    // The driver settled a side alone changing it: both changed it here.
    let mut out = if ours >= theirs { o.clone() } else { t.clone() };
    out.read = o.read || t.read;
    Ok(out.render())
}

/// A molecule merged: each step at the further of its two states, outputs from both
/// sides, steps either side added kept; the rest from the side changed last.
pub fn molecule(base: Option<&str>, ours: &str, theirs: &str, file: &str) -> Result<String> {
    if let Some(b) = base {
        parse::<Molecule>(b, file)?;
    }
    let o: Molecule = parse(ours, file)?;
    let t: Molecule = parse(theirs, file)?;
    if o.id != t.id {
        return super::named_by_path(
            file,
            ".yaml",
            [(o.id.as_str(), ours), (t.id.as_str(), theirs)],
        )
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{file}: the two sides are different molecules ({} and {})",
                o.id, t.id
            ))
        });
    }
    let ours_later = (o.updated_at, ours) >= (t.updated_at, theirs);
    let (win, other) = if ours_later { (&o, &t) } else { (&t, &o) };
    let mut out = win.clone();
    out.updated_at = o.updated_at.max(t.updated_at);
    for (k, v) in &other.vars {
        out.vars.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for step in &mut out.steps {
        if let Some(theirs) = other.steps.iter().find(|s| s.id == step.id) {
            *step = further(step, theirs);
        }
    }
    for step in &other.steps {
        if !out.steps.iter().any(|s| s.id == step.id) {
            out.steps.push(step.clone());
        }
    }
    crate::mol::molecule::render(&out)
}

/// How far along a step state is: it only moves forward.
fn rank(status: StepStatus) -> u8 {
    match status {
        StepStatus::Pending => 0,
        StepStatus::InProgress => 1,
        StepStatus::Blocked => 2,
        StepStatus::Completed | StepStatus::Skipped => 3,
    }
}

/// The further of two versions of one step (`a`, the later molecule's, on a tie), with
/// both outputs (`a`'s first).
fn further(a: &Step, b: &Step) -> Step {
    let (mut out, other) = if rank(b.status) > rank(a.status) {
        (b.clone(), a)
    } else {
        (a.clone(), b)
    };
    out.started_at = match (a.started_at, b.started_at) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    out.output = match (out.output.take(), other.output.clone()) {
        (Some(x), Some(y)) if x.contains(&y) => Some(x),
        (Some(x), Some(y)) if y.contains(&x) => Some(y),
        (Some(x), Some(y)) => Some(format!("{x}\n{y}")),
        (x, y) => x.or(y),
    };
    out
}

/// A result record merged: the later run (by `at`) wins whole.
pub fn result(base: Option<&str>, ours: &str, theirs: &str, file: &str) -> Result<String> {
    later::<crate::verify::results::ResultRecord>(base, ours, theirs, file, |r| r.at)
}

/// A merge request merged: the later update (by `updated_at`) wins whole.
pub fn merge_request(base: Option<&str>, ours: &str, theirs: &str, file: &str) -> Result<String> {
    later::<crate::refinery::request::MergeRequest>(base, ours, theirs, file, |r| r.updated_at)
}

/// The side whose record is later by `time` (on a tie the text that sorts last), once all
/// three parse.
fn later<T: serde::de::DeserializeOwned>(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    file: &str,
    time: impl Fn(&T) -> Timestamp,
) -> Result<String> {
    if let Some(b) = base {
        parse::<T>(b, file)?;
    }
    let o: T = parse(ours, file)?;
    let t: T = parse(theirs, file)?;
    Ok(if (time(&t), theirs) > (time(&o), ours) {
        theirs
    } else {
        ours
    }
    .to_string())
}

/// A YAML record, errors naming `file`.
fn parse<T: serde::de::DeserializeOwned>(text: &str, file: &str) -> Result<T> {
    Ok(crate::text::yaml::parse(text, file, text, 1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(status: StepStatus, output: Option<&str>) -> Step {
        Step {
            id: "s".into(),
            title: "S".into(),
            description: String::new(),
            needs: Vec::new(),
            status,
            started_at: None,
            completed_at: None,
            output: output.map(str::to_string),
            reason: None,
        }
    }

    #[test]
    fn a_step_only_moves_forward_and_keeps_both_outputs() {
        let a = step(StepStatus::InProgress, Some("from a"));
        let b = step(StepStatus::Completed, Some("from b"));
        let m = further(&a, &b);
        assert_eq!(m.status, StepStatus::Completed);
        assert_eq!(m.output.as_deref(), Some("from b\nfrom a"));
        assert_eq!(further(&b, &a).status, StepStatus::Completed);
    }
}
