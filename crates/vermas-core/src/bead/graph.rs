//! The dependency graph between beads: readiness, blockers, cycles and trees.

use super::fields::BeadFields;
use super::model::{AWAITING_INPUT, Bead, DepType, IssueType, VERIFIED};
use super::store::BeadSet;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// A quick hash for bead ids (short keys, read from the workspace's own files: no
/// flooding to guard against), eight bytes per multiply.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHasher(u64);

/// The multiplier of [`IdHasher`] (odd, its bits well spread).
const ID_HASH_FACTOR: u64 = 0x9e37_79b9_7f4a_7c15;

impl IdHasher {
    /// Mixes one word in.
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(ID_HASH_FACTOR);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.mix(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        // The high bits of a product are its best: fold them into the low ones too.
        self.0 ^ (self.0 >> 32)
    }
}

/// A map keyed by bead ids, hashed with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// True for edge types that order work (a loop of them can never be finished).
pub fn is_ordering(t: DepType) -> bool {
    matches!(t, DepType::Blocks | DepType::ParentChild)
}

/// Words of a close reason bd reads as a failure (case-insensitive, anywhere in the
/// reason): a `conditional-blocks` dependent runs only once its target closed so.
pub const FAILURE_WORDS: [&str; 11] = [
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
pub fn is_failure_close(reason: &str) -> bool {
    let lower = reason.to_lowercase();
    FAILURE_WORDS.iter().any(|w| lower.contains(w))
}

/// The edge types that hold a bead back, as bd's `ready` and `blocked` read them.
pub const HOLDING: [DepType; 3] = [
    DepType::Blocks,
    DepType::ConditionalBlocks,
    DepType::WaitsFor,
];

/// What the rules of [`HOLDING`] edges read of the other beads: which are closed and how,
/// and which have children still open.
#[derive(Debug, Default)]
pub struct Others<'a> {
    /// Closed beads, each with true when it closed as a failure.
    closed: IdMap<&'a str, bool>,
    /// Beads with a child (by `parent` or a `parent-child` edge) that is not closed.
    open_parents: HashSet<String>,
}

impl<'a> Others<'a> {
    /// Notes `bead` (whose id is `id`).
    pub fn add(&mut self, id: &'a str, bead: &impl BeadFields) {
        if bead.is_closed() {
            let failed = bead.close_reason().is_some_and(|r| is_failure_close(&r));
            self.closed.insert(id, failed);
            return;
        }
        let parents = bead
            .parent()
            .into_iter()
            .chain(bead.depends_on(DepType::ParentChild));
        for p in parents {
            if !self.open_parents.contains(p.as_ref()) {
                self.open_parents.insert(p.into_owned());
            }
        }
    }

    /// Every bead of `set`.
    pub fn of_set(set: &'a BeadSet) -> Others<'a> {
        let mut others = Others::default();
        for (id, b) in &set.beads {
            others.add(id, b);
        }
        others
    }

    /// True when an edge of type `kind` to `target` holds its bead back: `blocks` until the
    /// target is closed (a missing one never is), `conditional-blocks` until it closed as a
    /// failure (it runs only if the target fails), `waits-for` while the target has a
    /// child that is not closed (bd's `all-children` gate); other types never.
    pub fn holds(&self, kind: DepType, target: &str) -> bool {
        match kind {
            DepType::Blocks => !self.closed.contains_key(target),
            DepType::ConditionalBlocks => self.closed.get(target) != Some(&true),
            DepType::WaitsFor => self.open_parents.contains(target),
            _ => false,
        }
    }
}

/// What holds `bead` back: each [`HOLDING`] edge's target that [`Others::holds`], with the
/// edge's type.
pub fn holding<'b>(
    bead: &'b impl BeadFields,
    others: &Others<'_>,
) -> Vec<(std::borrow::Cow<'b, str>, DepType)> {
    HOLDING
        .into_iter()
        .flat_map(|kind| bead.depends_on(kind).map(move |id| (id, kind)))
        .filter(|(id, kind)| others.holds(*kind, id))
        .collect()
}

/// Ids this bead waits on (see [`holding`]).
pub fn open_blockers<'a>(others: &Others<'_>, bead: &'a Bead) -> Vec<&'a str> {
    bead.dependencies
        .iter()
        .filter(|d| others.holds(d.dep_type, &d.depends_on_id))
        .map(|d| d.depends_on_id.as_str())
        .collect()
}

/// Work that can start now: open, nothing holding it back, not awaiting input, and not a
/// test spec or message; by priority, then oldest first.
pub fn ready(set: &BeadSet) -> Vec<&Bead> {
    ready_of(set, None)
}

/// [`ready`] of one type when `want` names it (test specs and messages only when asked).
pub fn ready_of(set: &BeadSet, want: Option<IssueType>) -> Vec<&Bead> {
    let others = Others::of_set(set);
    BeadSet::sorted(set.beads.values().filter(|b| is_ready(*b, want, &others)))
}

/// The rule of [`ready_of`] for one bead, full or read from the index: open, of the type
/// `want` names (else neither a test spec nor a message), not awaiting input, not verified
/// already (it waits to be merged, not worked on), and nothing holding it back (see
/// [`Others::holds`]: `blocks`, `conditional-blocks` and `waits-for`, as bd reads them).
pub fn is_ready(bead: &impl BeadFields, want: Option<IssueType>, others: &Others<'_>) -> bool {
    let kind = bead.issue_type();
    bead.status() == super::model::Status::Open
        && want.map_or(
            !matches!(kind, IssueType::TestSpec | IssueType::Message),
            |t| kind == t,
        )
        && !bead.has_label(AWAITING_INPUT)
        && !bead.has_label(VERIFIED)
        && HOLDING
            .into_iter()
            .all(|k| bead.depends_on(k).all(|id| !others.holds(k, &id)))
}

/// Beads that are not closed but wait on something, with what they wait on.
pub fn blocked(set: &BeadSet) -> Vec<(&Bead, Vec<&str>)> {
    let others = Others::of_set(set);
    BeadSet::sorted(set.beads.values().filter(|b| !b.is_closed()))
        .into_iter()
        .filter_map(|b| {
            let blockers = open_blockers(&others, b);
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
pub fn parent_cycles(set: &BeadSet) -> Vec<Vec<String>> {
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
pub const TREE_DEPTH: usize = 50;

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

#[cfg(test)]
mod tests {
    use super::{IdHasher, IdMap};
    use std::hash::{BuildHasher, BuildHasherDefault};

    #[test]
    fn id_hashes_differ_by_any_byte_and_by_length() {
        let hash = |s: &str| BuildHasherDefault::<IdHasher>::default().hash_one(s);
        let ids = [
            "vm-1",
            "vm-2",
            "vm-10",
            "vm-1v1e1j",
            "vm-1v1e1k",
            "vm-1v1e1j.1",
            "",
        ];
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                assert_ne!(hash(a), hash(b), "{a} and {b}");
            }
        }
        assert_ne!(hash("a\0"), hash("a"));
    }

    #[test]
    fn id_map_finds_every_key() {
        let keys: Vec<String> = (0..50_000).map(|n| format!("vm-{n:x}")).collect();
        let mut map: IdMap<&str, usize> = IdMap::default();
        for (n, k) in keys.iter().enumerate() {
            map.insert(k, n);
        }
        assert_eq!(map.len(), keys.len());
        assert!(keys.iter().enumerate().all(|(n, k)| map[k.as_str()] == n));
        assert!(!map.contains_key("vm-zz"));
    }
}
