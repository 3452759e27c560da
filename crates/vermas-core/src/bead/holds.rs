//! What holds a bead back, as bd's `ready` and `blocked` read it: `blocks`,
//! `conditional-blocks` and `waits-for` edges (with the edge's gate, `all-children` or
//! `any-children`), a parent that is held back itself (its `parent-child` edge carries the
//! parent's state down, to every generation), and `pinned` beads, which never hold
//! anything back and are never ready work.

use super::fields::BeadFields;
use super::idmap::{IdMap, IdSet};
use super::model::{AWAITING_INPUT, Bead, DepType, IssueType, Status, VERIFIED};
use super::store::BeadSet;
use std::borrow::Cow;
use std::collections::HashMap;

/// Words of a close reason bd reads as a failure (case-insensitive, anywhere in the
/// reason): a `conditional-blocks` dependent runs only once its target closed so.
pub(crate) const FAILURE_WORDS: [&str; 11] = [
    "failed",
    "rejected",
    "wontfix",
    "won't fix",
    "canceled",
    "cancelled",
    "abandoned",
    "blocked",
    "error",
    "timeout",
    "aborted",
];

/// True when `reason` says the bead failed (it holds one of [`FAILURE_WORDS`]).
pub(crate) fn is_failure_close(reason: &str) -> bool {
    if !reason.is_ascii() {
        let lower = reason.to_lowercase();
        return FAILURE_WORDS.iter().any(|w| lower.contains(w));
    }
    // Every word is ASCII: compared byte by byte, ignoring case, without a copy.
    let bytes = reason.as_bytes();
    FAILURE_WORDS.iter().any(|w| {
        bytes
            .windows(w.len())
            .any(|window| window.eq_ignore_ascii_case(w.as_bytes()))
    })
}

/// The edge types that hold a bead back, as bd's `ready` and `blocked` read them.
pub(crate) const HOLDING: [DepType; 3] = [
    DepType::Blocks,
    DepType::ConditionalBlocks,
    DepType::WaitsFor,
];

/// What the rules read of the other beads: which are closed and how, which are pinned,
/// which have children still open or already closed, and which parents are held back.
/// Fill it with [`Others::add`] for every bead, then [`Others::settle`] over them again.
#[derive(Debug, Default)]
pub(crate) struct Others<'a> {
    /// Closed beads, each with true when it closed as a failure.
    closed: IdMap<&'a str, bool>,
    /// Pinned beads: nothing waits on them.
    pinned: IdSet<String>,
    /// Beads with a child (by `parent` or a `parent-child` edge) neither closed nor pinned.
    open_parents: IdSet<String>,
    /// Beads with a closed child.
    closed_parents: IdSet<String>,
    /// Parents held back (by an edge, or through their own parent): their children wait.
    held_parents: IdSet<String>,
}

/// A bead's parents: its `parent` and the targets of its `parent-child` edges.
fn parents_of(bead: &impl BeadFields) -> impl Iterator<Item = Cow<'_, str>> {
    bead.parent()
        .into_iter()
        .chain(bead.depends_on(DepType::ParentChild))
}

impl<'a> Others<'a> {
    /// Notes `bead` (whose id is `id`).
    pub(crate) fn add(&mut self, id: &'a str, bead: &impl BeadFields) {
        if bead.is_closed() {
            let failed = bead.close_reason().is_some_and(|r| is_failure_close(&r));
            self.closed.insert(id, failed);
            note_parents(&mut self.closed_parents, bead);
            return;
        }
        if bead.status() == Status::Pinned {
            self.pinned.insert(id.to_string());
            return;
        }
        note_parents(&mut self.open_parents, bead);
    }

    /// After every bead was added, works out which parents are held back, from the beads
    /// that have open children (`beads` is every bead again, with its id).
    pub(crate) fn settle<'b, B: BeadFields + 'b>(
        &mut self,
        beads: impl IntoIterator<Item = (&'b str, B)>,
    ) {
        if self.open_parents.is_empty() {
            return;
        }
        // Each open parent: whether an edge holds it, and its own parents.
        let mut parents: HashMap<String, (bool, Vec<String>)> = HashMap::new();
        for (id, b) in beads {
            if !self.open_parents.contains(id) || b.is_closed() || b.status() == Status::Pinned {
                continue;
            }
            let held = HOLDING
                .into_iter()
                .any(|kind| b.depends_on(kind).any(|t| self.edge_holds(&b, kind, &t)));
            let up = parents_of(&b).map(Cow::into_owned).collect();
            parents.insert(id.to_string(), (held, up));
        }
        // A parent is held when an edge holds it or any of its ancestors is.
        let mut memo: HashMap<&str, bool> = HashMap::new();
        for id in parents.keys() {
            if held_up(id, &parents, &mut memo, &mut Vec::new()) {
                self.held_parents.insert(id.clone());
            }
        }
    }

    /// Every bead of `set`, settled.
    pub(crate) fn of_set(set: &'a BeadSet) -> Others<'a> {
        let mut others = Others::default();
        for (id, b) in &set.beads {
            others.add(id, b);
        }
        others.settle(set.beads.iter().map(|(id, b)| (id.as_str(), b)));
        others
    }

    /// True when an edge of type `kind` to `target` holds its bead back: nothing held by a
    /// pinned bead; `blocks` until the target is closed (a missing one never is),
    /// `conditional-blocks` until it closed as a failure (it runs only if the target
    /// fails), `waits-for` while the target has a child that is neither closed nor pinned
    /// (bd's `all-children` gate); other types never.
    pub(crate) fn holds(&self, kind: DepType, target: &str) -> bool {
        if self.pinned.contains(target) {
            return false;
        }
        match kind {
            DepType::Blocks => !self.closed.contains_key(target),
            DepType::ConditionalBlocks => self.closed.get(target) != Some(&true),
            DepType::WaitsFor => self.open_parents.contains(target),
            _ => false,
        }
    }

    /// A `waits-for` edge with bd's `any-children` gate: it holds while the target has an
    /// open child and none closed yet (a target without children holds nothing).
    pub(crate) fn holds_any(&self, target: &str) -> bool {
        !self.pinned.contains(target)
            && self.open_parents.contains(target)
            && !self.closed_parents.contains(target)
    }

    /// True when `parent` is held back, so its children wait too.
    pub(crate) fn holds_children_of(&self, parent: &str) -> bool {
        self.held_parents.contains(parent)
    }

    /// True when `bead`'s edge of type `kind` to `target` holds it back, with the edge's
    /// gate (read only for a `waits-for` edge).
    fn edge_holds(&self, bead: &impl BeadFields, kind: DepType, target: &str) -> bool {
        if kind == DepType::WaitsFor && bead.waits_for_any().any(|t| t == target) {
            self.holds_any(target)
        } else {
            self.holds(kind, target)
        }
    }

    /// The targets of `bead`'s edges that hold it back, with each edge's type.
    fn held_by_edges<'b>(&self, bead: &'b impl BeadFields) -> Vec<(Cow<'b, str>, DepType)> {
        HOLDING
            .into_iter()
            .flat_map(|kind| bead.depends_on(kind).map(move |id| (id, kind)))
            .filter(|(id, kind)| self.edge_holds(bead, *kind, id))
            .collect()
    }

    /// True when anything holds `bead` back (what [`holding`] lists), found without
    /// listing it.
    fn holds_back(&self, bead: &impl BeadFields) -> bool {
        HOLDING.into_iter().any(|kind| {
            bead.depends_on(kind)
                .any(|id| self.edge_holds(bead, kind, &id))
        }) || (bead.issue_type() != IssueType::TestSpec
            && !self.held_parents.is_empty()
            && parents_of(bead).any(|p| self.holds_children_of(&p)))
    }
}

/// Adds `bead`'s parents to `set`.
fn note_parents(set: &mut IdSet<String>, bead: &impl BeadFields) {
    for p in parents_of(bead) {
        if !set.contains(p.as_ref()) {
            set.insert(p.into_owned());
        }
    }
}

/// Whether open parent `id` is held, directly or through an ancestor (a loop of parents
/// holds nothing by itself).
fn held_up<'p>(
    id: &'p str,
    parents: &'p HashMap<String, (bool, Vec<String>)>,
    memo: &mut HashMap<&'p str, bool>,
    path: &mut Vec<&'p str>,
) -> bool {
    if let Some(known) = memo.get(id) {
        return *known;
    }
    let Some((direct, up)) = parents.get(id) else {
        return false;
    };
    if *direct {
        memo.insert(id, true);
        return true;
    }
    if path.contains(&id) {
        return false;
    }
    path.push(id);
    let held = up.iter().any(|p| held_up(p, parents, memo, path));
    path.pop();
    memo.insert(id, held);
    held
}

/// What holds `bead` back: each edge's target that holds it (see [`Others::holds`] and
/// [`Others::holds_any`]) with the edge's type, then each parent held back, as a
/// `parent-child` edge. A test spec is a record about its parent, not part of its work:
/// its parent's state is not carried down to it (the work waits for its spec).
pub(crate) fn holding<'b>(
    bead: &'b impl BeadFields,
    others: &Others<'_>,
) -> Vec<(Cow<'b, str>, DepType)> {
    let mut out = others.held_by_edges(bead);
    if bead.issue_type() == IssueType::TestSpec {
        return out;
    }
    for p in parents_of(bead) {
        if others.holds_children_of(&p) && !out.iter().any(|(id, _)| *id == p) {
            out.push((p, DepType::ParentChild));
        }
    }
    out
}

/// Ids this bead waits on (see [`holding`]).
pub(crate) fn open_blockers<'a>(others: &Others<'_>, bead: &'a Bead) -> Vec<&'a str> {
    holding(bead, others)
        .into_iter()
        .map(|(id, _)| match id {
            Cow::Borrowed(id) => id,
            // Every id a full bead names is borrowed from it.
            Cow::Owned(id) => bead
                .dependencies
                .iter()
                .map(|d| d.depends_on_id.as_str())
                .chain(bead.parent.as_deref())
                .find(|d| *d == id)
                .unwrap_or_default(),
        })
        .collect()
}

/// The rule of `ready` for one bead, full or read from the index: open (a pinned bead
/// never is), of the type `want` names (else neither a test spec nor a message), not
/// awaiting input, not verified already (it waits to be merged, not worked on), and
/// nothing holding it back (see [`holding`]).
pub(crate) fn is_ready(
    bead: &impl BeadFields,
    want: Option<IssueType>,
    others: &Others<'_>,
) -> bool {
    let kind = bead.issue_type();
    bead.status() == Status::Open
        && want.map_or(
            !matches!(kind, IssueType::TestSpec | IssueType::Message),
            |t| kind == t,
        )
        && !bead.has_label(AWAITING_INPUT)
        && !bead.has_label(VERIFIED)
        && !others.holds_back(bead)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::{Dependency, Gate};

    fn bead(id: &str) -> Bead {
        Bead::new(id.to_string(), id.to_string())
    }

    fn set(beads: Vec<Bead>) -> BeadSet {
        let mut s = BeadSet::default();
        for b in beads {
            s.beads.insert(b.id.clone(), b);
        }
        s
    }

    fn ready_ids(s: &BeadSet) -> Vec<String> {
        let others = Others::of_set(s);
        let mut ids: Vec<String> = s
            .beads
            .values()
            .filter(|b| is_ready(*b, None, &others))
            .map(|b| b.id.clone())
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_held_parent_holds_every_generation_below_it() {
        let blocker = bead("vm-b");
        let mut parent = bead("vm-p");
        parent
            .dependencies
            .push(Dependency::new("vm-b", DepType::Blocks));
        let mut kid = bead("vm-k");
        kid.parent = Some("vm-p".into());
        let mut grandkid = bead("vm-g");
        grandkid
            .dependencies
            .push(Dependency::new("vm-k", DepType::ParentChild));
        let mut s = set(vec![blocker, parent, kid, grandkid]);
        assert_eq!(ready_ids(&s), ["vm-b"]);
        s.beads.get_mut("vm-b").unwrap().status = Status::Closed;
        assert_eq!(ready_ids(&s), ["vm-g", "vm-k", "vm-p"]);
    }

    #[test]
    fn pinned_beads_are_not_ready_and_hold_nothing() {
        let mut pin = bead("vm-pin");
        pin.status = Status::Pinned;
        let mut after = bead("vm-a");
        after
            .dependencies
            .push(Dependency::new("vm-pin", DepType::Blocks));
        let mut kid = bead("vm-k");
        kid.parent = Some("vm-pin".into());
        let s = set(vec![pin, after, kid]);
        assert_eq!(ready_ids(&s), ["vm-a", "vm-k"]);
        assert!(super::super::graph::blocked(&s).is_empty());
    }

    #[test]
    fn any_children_opens_at_the_first_closed_child() {
        let spawner = bead("vm-s");
        let mut a = bead("vm-s.1");
        a.parent = Some("vm-s".into());
        let mut b = bead("vm-s.2");
        b.parent = Some("vm-s".into());
        let mut any = bead("vm-any");
        any.dependencies.push(Dependency {
            gate: Some(Gate::AnyChildren),
            ..Dependency::new("vm-s", DepType::WaitsFor)
        });
        let mut all = bead("vm-all");
        all.dependencies
            .push(Dependency::new("vm-s", DepType::WaitsFor));
        let mut s = set(vec![spawner, a, b, any, all]);
        assert_eq!(ready_ids(&s), ["vm-s", "vm-s.1", "vm-s.2"]);
        s.beads.get_mut("vm-s.1").unwrap().status = Status::Closed;
        assert_eq!(ready_ids(&s), ["vm-any", "vm-s", "vm-s.2"]);
        s.beads.get_mut("vm-s.2").unwrap().status = Status::Closed;
        assert_eq!(ready_ids(&s), ["vm-all", "vm-any", "vm-s"]);
    }
}
