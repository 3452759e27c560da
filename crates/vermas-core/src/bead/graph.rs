//! The dependency graph between beads: readiness, blockers, cycles and trees.

pub(crate) use super::holds::{Others, is_ready, open_blockers};
use super::model::{Bead, DepType, IssueType, Status};
use super::store::BeadSet;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// True for edge types that order work (a loop of them can never be finished).
pub(crate) fn is_ordering(t: DepType) -> bool {
    matches!(t, DepType::Blocks | DepType::ParentChild)
}

/// Work that can start now: open, nothing holding it back, not awaiting input, and not a
/// test spec or message; by priority, then oldest first.
pub(crate) fn ready(set: &BeadSet) -> Vec<&Bead> {
    ready_of(set, None)
}

/// [`ready`] of one type when `want` names it (test specs and messages only when asked).
pub(crate) fn ready_of(set: &BeadSet, want: Option<IssueType>) -> Vec<&Bead> {
    let others = Others::of_set(set);
    BeadSet::sorted(set.beads.values().filter(|b| is_ready(*b, want, &others)))
}

/// Beads that are not closed but wait on something, with what they wait on.
pub fn blocked(set: &BeadSet) -> Vec<(&Bead, Vec<&str>)> {
    let others = Others::of_set(set);
    BeadSet::sorted(
        set.beads
            .values()
            .filter(|b| !b.is_closed() && b.status != Status::Pinned),
    )
    .into_iter()
    .filter_map(|b| {
        let blockers = open_blockers(&others, b);
        let explicit = b.status == Status::Blocked;
        (!blockers.is_empty() || explicit).then_some((b, blockers))
    })
    .collect()
}

/// The ordering path from `from` to `to` (both included), if one exists.
pub(crate) fn ordering_path(set: &BeadSet, from: &str, to: &str) -> Option<Vec<String>> {
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

/// Tarjan's algorithm over ordering edges, with its own stack rather than recursion (a
/// chain of 100,000 beads is as deep as the walk goes); components in a stable order.
fn strongly_connected(set: &BeadSet) -> Vec<Vec<&str>> {
    /// The walk's state: Tarjan's numbers and stack, and the beads being visited, each
    /// with its edges and how many of them were followed.
    #[derive(Default)]
    struct Walk<'a> {
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: HashSet<&'a str>,
        visiting: Vec<(&'a str, Vec<&'a str>, usize)>,
    }
    impl<'a> Walk<'a> {
        fn enter(&mut self, set: &'a BeadSet, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            let edges = set.beads[v]
                .dependencies
                .iter()
                .filter(|d| is_ordering(d.dep_type))
                .map(|d| d.depends_on_id.as_str())
                .filter(|w| set.beads.contains_key(*w))
                .collect();
            self.visiting.push((v, edges, 0));
        }
        fn lower(&mut self, v: &'a str, to: usize) {
            let low = self.low.get_mut(v).expect("entered");
            *low = (*low).min(to);
        }
    }
    let mut s = Walk::default();
    let mut out: Vec<Vec<&str>> = Vec::new();
    for root in set.beads.keys() {
        if s.index.contains_key(root.as_str()) {
            continue;
        }
        s.enter(set, root);
        while let Some((v, edges, followed)) = s.visiting.last_mut() {
            let v = *v;
            if let Some(&w) = edges.get(*followed) {
                *followed += 1;
                if !s.index.contains_key(w) {
                    s.enter(set, w);
                } else if s.on_stack.contains(w) {
                    s.lower(v, s.index[w]);
                }
                continue;
            }
            s.visiting.pop();
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
                out.push(comp);
            }
            if let Some(&(parent, _, _)) = s.visiting.last() {
                s.lower(parent, s.low[v]);
            }
        }
    }
    out.sort();
    out
}

/// Every loop of `parent` fields (a bead that is its own ancestor), each as the ids from
/// child to parent, starting at the least id and repeating it at the end.
pub(crate) fn parent_cycles(set: &BeadSet) -> Vec<Vec<String>> {
    // 1: on the chain being walked; 2: done (on no loop, or its loop is reported).
    let mut state: HashMap<&str, u8> = HashMap::new();
    let mut out = Vec::new();
    for start in set.beads.keys() {
        let mut chain: Vec<&str> = Vec::new();
        let mut cur = Some(start.as_str());
        while let Some(id) = cur {
            match state.get(id) {
                Some(2) => break,
                Some(_) => {
                    // Back on the chain: the loop is the part of it from `id` on.
                    let from = chain.iter().position(|c| *c == id).unwrap_or(0);
                    let ring = &chain[from..];
                    let least = (0..ring.len()).min_by_key(|i| ring[*i]).unwrap_or(0);
                    let mut cycle: Vec<String> = ring[least..]
                        .iter()
                        .chain(&ring[..least])
                        .map(|s| s.to_string())
                        .collect();
                    cycle.push(cycle[0].clone());
                    out.push(cycle);
                    break;
                }
                None => {}
            }
            state.insert(id, 1);
            chain.push(id);
            cur = set
                .beads
                .get(id)
                .and_then(|b| b.parent.as_deref())
                .filter(|p| set.beads.contains_key(*p));
        }
        for id in chain {
            state.insert(id, 2);
        }
    }
    out.sort();
    out
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
    /// True when it has dependencies below the deepest level shown ([`TREE_DEPTH`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// What it depends on.
    pub children: Vec<TreeNode>,
}

/// How many levels below the root [`tree`] shows (bd's `dep tree` stops at the same depth).
pub(crate) const TREE_DEPTH: usize = 50;

/// The tree of what `id` depends on, transitively, down to [`TREE_DEPTH`] levels; built
/// with its own stack rather than recursion.
pub fn tree(set: &BeadSet, id: &str) -> TreeNode {
    let mut seen: HashSet<String> = HashSet::new();
    // Enters one node: the node (children to come) and the edges still to follow.
    let mut enter = |id: &str, dep: Option<DepType>, depth: usize| {
        let bead = set.beads.get(id);
        let deps: Vec<(&str, DepType)> = bead
            .map(|b| {
                b.dependencies
                    .iter()
                    .map(|d| (d.depends_on_id.as_str(), d.dep_type))
                    .collect()
            })
            .unwrap_or_default();
        let truncated = depth >= TREE_DEPTH && !deps.is_empty();
        // A node cut at the bottom is not marked shown: it may be shown whole higher up.
        let repeated = !truncated && !seen.insert(id.to_string());
        let node = TreeNode {
            id: id.to_string(),
            title: bead.map(|b| b.title.clone()).unwrap_or_default(),
            status: bead.map_or("missing".to_string(), |b| b.status.to_string()),
            priority: bead.map_or(0, |b| b.priority),
            dep_type: dep,
            repeated,
            truncated,
            children: Vec::new(),
        };
        let follow = if repeated || truncated {
            Vec::new()
        } else {
            deps
        };
        (node, follow.into_iter())
    };
    let mut walk = vec![enter(id, None, 0)];
    loop {
        let depth = walk.len();
        let next = walk.last_mut().and_then(|(_, rest)| rest.next());
        if let Some((child, dep)) = next {
            walk.push(enter(child, Some(dep), depth));
            continue;
        }
        let (done, _) = walk.pop().expect("the root is on the walk until the end");
        match walk.last_mut() {
            Some((parent, _)) => parent.children.push(done),
            None => return done,
        }
    }
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
