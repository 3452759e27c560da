//! What only an inspection's routing may change on a bead: `verified` set or removed,
//! the status `rejected` set; and closing work whose approved test spec has not passed an
//! inspection, which only a recorded bypass (`close --force --reason`) may do.

use super::model::{Bead, IssueType, Status, VERIFIED};
use crate::error::{Error, Result};
use crate::workspace::Workspace;

/// What a change may do past the Inspector's own rules (see [`inspector_only`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bypass {
    /// Nothing.
    None,
    /// Close work whose approved test spec has not passed (recorded by the caller).
    Close,
}

/// The label of work closed or slung past its test spec's gate.
pub const GATE_BYPASSED: &str = "gate-bypassed";

/// Refuses a change from `before` to `after` that only an inspection's routing may make:
/// setting or removing `verified`, setting the status `rejected`; and closing work whose
/// approved test spec has not passed an inspection, unless `bypass` allows it.
pub(super) fn inspector_only(
    ws: &Workspace,
    before: &Bead,
    after: &Bead,
    bypass: Bypass,
) -> Result<()> {
    routing_only(Some(before), after)?;
    if after.status == Status::Closed
        && before.status != Status::Closed
        && bypass != Bypass::Close
        && !after.has_label(VERIFIED)
        && let Some(spec) = approved_spec_of(ws, &after.id)?
    {
        return Err(Error::wrong_state(format!(
            "{} has an approved test spec ({spec}) and has not passed an inspection",
            after.id
        ))
        .with_help(format!(
            "have it judged (vermas inspect run {id}); or close it anyway, recorded as a \
             bypass: vermas close {id} --force --reason \"...\"",
            id = after.id
        )));
    }
    Ok(())
}

/// Refuses a bead written as `after` (over `before`, when it existed) that carries what only
/// an inspection's routing sets: `verified` set or removed, the status `rejected` set.
pub fn routing_only(before: Option<&Bead>, after: &Bead) -> Result<()> {
    let verified = |b: Option<&Bead>| b.is_some_and(|b| b.has_label(VERIFIED));
    let rejected = |b: Option<&Bead>| b.is_some_and(|b| b.status == Status::Rejected);
    if verified(before) != verified(Some(after)) {
        return Err(Error::invalid_with_help(
            format!(
                "only an inspection sets or removes `{VERIFIED}` (on {})",
                after.id
            ),
            format!("have the work judged: vermas inspect run {}", after.id),
        ));
    }
    if rejected(Some(after)) && !rejected(before) {
        return Err(Error::invalid_with_help(
            format!("only an inspection rejects work (on {})", after.id),
            format!("have the work judged: vermas inspect run {}", after.id),
        ));
    }
    Ok(())
}

/// The approved test spec of work `id`, if it has one.
fn approved_spec_of(ws: &Workspace, id: &str) -> Result<Option<String>> {
    let set = super::store::BeadSet::load(ws)?;
    Ok(set
        .beads
        .values()
        .find(|b| {
            b.issue_type == IssueType::TestSpec
                && b.parent.as_deref() == Some(id)
                && b.status == Status::Closed
        })
        .map(|b| b.id.clone()))
}
