//! What the rules about beads read of one (readiness, the filters of `list` and `ready`,
//! their order): a full [`Bead`], or a bead as its index line holds it
//! ([`crate::bead::catalog::IndexedBead`]), so a listing of many beads never has to build
//! them all.

use super::model::{Bead, DepType, Gate, IssueType, Status};
use crate::time::Timestamp;
use std::borrow::Cow;
use std::cmp::Ordering;

/// The fields of a bead the rules read.
pub trait BeadFields {
    /// Its id.
    fn id(&self) -> &str;
    /// Its title.
    fn title(&self) -> Cow<'_, str>;
    /// Its status.
    fn status(&self) -> Status;
    /// Its priority, 0 (critical) to 4.
    fn priority(&self) -> u8;
    /// Its type.
    fn issue_type(&self) -> IssueType;
    /// When it was created.
    fn created_at(&self) -> Option<Timestamp>;
    /// Who works on it.
    fn assignee(&self) -> Option<Cow<'_, str>>;
    /// True when it carries `label`.
    fn has_label(&self, label: &str) -> bool;
    /// The ids it depends on through edges of type `kind`.
    fn depends_on(&self, kind: DepType) -> impl Iterator<Item = Cow<'_, str>>;
    /// Why it was closed.
    fn close_reason(&self) -> Option<Cow<'_, str>>;
    /// Its parent bead.
    fn parent(&self) -> Option<Cow<'_, str>>;
    /// The targets of its `waits-for` edges whose gate is `any-children`.
    fn waits_for_any(&self) -> impl Iterator<Item = Cow<'_, str>>;

    /// True when it is finished (closed).
    fn is_closed(&self) -> bool {
        self.status() == Status::Closed
    }
}

/// The order `ready` and `list` show beads in: priority, then oldest first, then id.
pub(crate) fn display_order(a: &impl BeadFields, b: &impl BeadFields) -> Ordering {
    (a.priority(), a.created_at(), a.id()).cmp(&(b.priority(), b.created_at(), b.id()))
}

/// Puts the first `limit` of `beads` (all of them for 0) in front in display order,
/// without ordering the rest: a listing that shows ten of thousands sorts ten.
pub fn first_in_order<B: BeadFields + Copy>(beads: &mut [B], limit: usize) {
    if limit > 0 && limit < beads.len() {
        beads.select_nth_unstable_by(limit - 1, |a, b| display_order(a, b));
        beads[..limit].sort_by(|a, b| display_order(a, b));
        return;
    }
    // Sorted by keys gathered once, side by side: a comparison reads two small records
    // rather than two beads, and their ids only on a tie (ids are unique: the order is
    // total, so an unstable sort gives the same order).
    let mut keyed: Vec<(u8, Option<Timestamp>, u32)> = (0..beads.len())
        .map(|i| (beads[i].priority(), beads[i].created_at(), i as u32))
        .collect();
    keyed.sort_unstable_by(|x, y| {
        (x.0, x.1)
            .cmp(&(y.0, y.1))
            .then_with(|| beads[x.2 as usize].id().cmp(beads[y.2 as usize].id()))
    });
    let sorted: Vec<B> = keyed.iter().map(|k| beads[k.2 as usize]).collect();
    beads.copy_from_slice(&sorted);
}

impl BeadFields for Bead {
    fn id(&self) -> &str {
        &self.id
    }
    fn title(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.title)
    }
    fn status(&self) -> Status {
        self.status
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn issue_type(&self) -> IssueType {
        self.issue_type
    }
    fn created_at(&self) -> Option<Timestamp> {
        self.created_at
    }
    fn assignee(&self) -> Option<Cow<'_, str>> {
        self.assignee.as_deref().map(Cow::Borrowed)
    }
    fn has_label(&self, label: &str) -> bool {
        Bead::has_label(self, label)
    }
    fn depends_on(&self, kind: DepType) -> impl Iterator<Item = Cow<'_, str>> {
        self.dependencies
            .iter()
            .filter(move |d| d.dep_type == kind)
            .map(|d| Cow::Borrowed(d.depends_on_id.as_str()))
    }
    fn close_reason(&self) -> Option<Cow<'_, str>> {
        self.close_reason.as_deref().map(Cow::Borrowed)
    }
    fn parent(&self) -> Option<Cow<'_, str>> {
        self.parent.as_deref().map(Cow::Borrowed)
    }
    fn waits_for_any(&self) -> impl Iterator<Item = Cow<'_, str>> {
        self.dependencies
            .iter()
            .filter(|d| d.dep_type == DepType::WaitsFor && d.gate == Some(Gate::AnyChildren))
            .map(|d| Cow::Borrowed(d.depends_on_id.as_str()))
    }
}

impl<T: BeadFields + ?Sized> BeadFields for &T {
    fn id(&self) -> &str {
        (**self).id()
    }
    fn title(&self) -> Cow<'_, str> {
        (**self).title()
    }
    fn status(&self) -> Status {
        (**self).status()
    }
    fn priority(&self) -> u8 {
        (**self).priority()
    }
    fn issue_type(&self) -> IssueType {
        (**self).issue_type()
    }
    fn created_at(&self) -> Option<Timestamp> {
        (**self).created_at()
    }
    fn assignee(&self) -> Option<Cow<'_, str>> {
        (**self).assignee()
    }
    fn has_label(&self, label: &str) -> bool {
        (**self).has_label(label)
    }
    fn depends_on(&self, kind: DepType) -> impl Iterator<Item = Cow<'_, str>> {
        (**self).depends_on(kind)
    }
    fn close_reason(&self) -> Option<Cow<'_, str>> {
        (**self).close_reason()
    }
    fn parent(&self) -> Option<Cow<'_, str>> {
        (**self).parent()
    }
    fn waits_for_any(&self) -> impl Iterator<Item = Cow<'_, str>> {
        (**self).waits_for_any()
    }
}
