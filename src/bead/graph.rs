//! The dependency graph between beads: readiness, blockers, cycles and trees.

use super::fields::BeadFields;
use super::model::{AWAITING_INPUT, Bead, DepType, IssueType, VERIFIED};
use super::store::BeadSet;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// True for edge types that order work (a loop of them can never be finished).
pub fn is_ordering(t: DepType) -> bool {
    matches!(t, DepType::Blocks | DepType::ParentChild)
}

/// Ids this bead waits on: `blocks` targets that are not closed (missing ones count).
pub fn open_blockers<'a>(set: &'a BeadSet, bead: &'a Bead) -> Vec<&'a str> {
    bead.dependencies
        .iter()
        .filter(|d| d.dep_type == DepType::Blocks)
        .filter(|d| {
            set.beads
                .get(&d.depends_on_id)
                .is_none_or(|t| !t.is_closed())
        })
        .map(|d| d.depends_on_id.as_str())
        .collect()
}

/// Work that can start now: open, nothing open blocking it, not awaiting input, and not a
/// test spec or message; by priority, then oldest first.
pub fn ready(set: &BeadSet) -> Vec<&Bead> {
    ready_of(set, None)
}

/// [`ready`] of one type when `want` names it (test specs and messages only when asked).
pub fn ready_of(set: &BeadSet, want: Option<IssueType>) -> Vec<&Bead> {
    let closed = |id: &str| set.beads.get(id).is_some_and(Bead::is_closed);
    BeadSet::sorted(set.beads.values().filter(|b| is_ready(*b, want, closed)))
}

/// The rule of [`ready_of`] for one bead, full or read from the index: open, of the type
/// `want` names (else neither a test spec nor a message), not awaiting input, not verified
/// already (it waits to be merged, not worked on), and every
/// `blocks` target closed by `closed` (a missing target is not).
pub fn is_ready(
    bead: &impl BeadFields,
    want: Option<IssueType>,
    closed: impl Fn(&str) -> bool,
) -> bool {
    let kind = bead.issue_type();
    bead.status() == super::model::Status::Open
        && want.map_or(
            !matches!(kind, IssueType::TestSpec | IssueType::Message),
            |t| kind == t,
        )
        && !bead.has_label(AWAITING_INPUT)
        && !bead.has_label(VERIFIED)
        && bead.depends_on(DepType::Blocks).all(|id| closed(&id))
}

/// Beads that are not closed but wait on something, with what they wait on.
pub fn blocked(set: &BeadSet) -> Vec<(&Bead, Vec<&str>)> {
    BeadSet::sorted(set.beads.values().filter(|b| !b.is_closed()))
        .into_iter()
        .filter_map(|b| {
            let blockers = open_blockers(set, b);
            let explicit = b.status == super::model::Status::Blocked;
            (!blockers.is_empty() || explicit).then_some((b, blockers))
        })
        .collect()
}

/// The ordering path from `from` to `to` (both included), if one exists.
pub fn ordering_path(set: &BeadSet, from: &str, to: &str) -> Option<Vec<String>> {
    let mut came_from: HashMap<&str, &str> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = HashSet::from([from]);
    while let Some(id) = queue.pop_front() {
        if id == to {
            let mut path = vec![to.to_string()];
            let mut cur = to;
            while let Some(prev) = came_from.get(cur) {
                path.push(prev.to_string());
                cur = prev;
            }
            path.reverse();
            return Some(path);
        }
        let Some(bead) = set.beads.get(id) else {
            continue;
        };
        for d in bead.dependencies.iter().filter(|d| is_ordering(d.dep_type)) {
            let next = d.depends_on_id.as_str();
            if seen.insert(next) {
                came_from.insert(next, id);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Every loop of ordering edges, each as the ids around it (first id repeated at the end).
pub fn cycles(set: &BeadSet) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for component in strongly_connected(set) {
        let first = component[0];
        let self_loop = set.beads[first]
            .dependencies
            .iter()
            .any(|d| is_ordering(d.dep_type) && d.depends_on_id == first);
        if component.len() == 1 && !self_loop {
            continue;
        }
        // Any path between two members of a component stays inside it.
        let members: HashSet<&str> = component.iter().copied().collect();
        let next = set.beads[first]
            .dependencies
            .iter()
            .filter(|d| is_ordering(d.dep_type))
            .map(|d| d.depends_on_id.as_str())
            .find(|n| members.contains(n));
        let mut path = vec![first.to_string()];
        if let Some(back) = next.and_then(|n| ordering_path(set, n, first)) {
            path.extend(back);
        }
        out.push(path);
    }
    out
}

/// Tarjan's algorithm over ordering edges; components in a stable order.
fn strongly_connected(set: &BeadSet) -> Vec<Vec<&str>> {
    struct State<'a> {
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: HashSet<&'a str>,
        out: Vec<Vec<&'a str>>,
        next: usize,
    }
    fn visit<'a>(set: &'a BeadSet, v: &'a str, s: &mut State<'a>) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for d in set.beads[v]
            .dependencies
            .iter()
            .filter(|d| is_ordering(d.dep_type))
        {
            let w = d.depends_on_id.as_str();
            if !set.beads.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(set, w, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort_unstable();
            s.out.push(comp);
        }
    }
    let mut s = State {
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: HashSet::new(),
        out: Vec::new(),
        next: 0,
    };
    for id in set.beads.keys() {
        if !s.index.contains_key(id.as_str()) {
            visit(set, id, &mut s);
        }
    }
    s.out.sort();
    s.out
}

/// One node of a dependency tree.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TreeNode {
    /// The bead id.
    pub id: String,
    /// Its title (empty when the bead is missing).
    pub title: String,
    /// Its status (`missing` when there is no such bead).
    pub status: String,
    /// Its priority.
    pub priority: u8,
    /// How the parent depends on it (none for the root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dep_type: Option<DepType>,
    /// True when this bead was already shown higher up (its children are not repeated).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub repeated: bool,
    /// What it depends on.
    pub children: Vec<TreeNode>,
}

/// The tree of what `id` depends on, transitively.
pub fn tree(set: &BeadSet, id: &str) -> TreeNode {
    fn build(
        set: &BeadSet,
        id: &str,
        dep: Option<DepType>,
        seen: &mut HashSet<String>,
    ) -> TreeNode {
        let bead = set.beads.get(id);
        let repeated = !seen.insert(id.to_string());
        let children = match bead {
            Some(b) if !repeated => b
                .dependencies
                .iter()
                .map(|d| build(set, &d.depends_on_id, Some(d.dep_type), seen))
                .collect(),
            _ => Vec::new(),
        };
        TreeNode {
            id: id.to_string(),
            title: bead.map(|b| b.title.clone()).unwrap_or_default(),
            status: bead.map_or("missing".to_string(), |b| b.status.to_string()),
            priority: bead.map_or(0, |b| b.priority),
            dep_type: dep,
            repeated,
            children,
        }
    }
    build(set, id, None, &mut HashSet::new())
}

/// Beads that depend on `id`, with the edge type.
pub fn dependents<'a>(set: &'a BeadSet, id: &str) -> Vec<(&'a Bead, DepType)> {
    let mut out: BTreeMap<&str, (&Bead, DepType)> = BTreeMap::new();
    for b in set.beads.values() {
        for d in &b.dependencies {
            if d.depends_on_id == id {
                out.insert(&b.id, (b, d.dep_type));
            }
        }
    }
    out.into_values().collect()
}
