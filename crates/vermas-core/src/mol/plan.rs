//! The step graph of a resolved formula: children flattened, expansions applied, `needs`
//! resolved, then ordered (Kahn's algorithm, ties in the formula's order).
//!
//! Children: a `[[steps.children]]` entry `c` of step `p` becomes step `p.c`. It needs what
//! `p` needs (and its own `needs`, looked up among its siblings first), and `p` itself needs
//! all its children: the parent is the join point that completes after them, so a step that
//! needs `p` waits for the whole group.
//!
//! Expansion (`[[compose.expand]]`, `[[compose.map]]`, a step's own `expand`): the target is
//! replaced by the expansion's `[[template]]` steps with `{target}`, `{target.id}`,
//! `{target.title}`, `{target.description}` and `{name}` (the expansion's vars, then the
//! rule's `vars`) substituted. Template steps needing no other template step get the
//! target's needs; steps that needed the target need the template steps nothing else in the
//! template needs (its last steps).

use super::formula::{At, ExpandRule, Formula, FormulaType, Loc, Source, StepDef, VarDef};
use super::template::{Text, placeholders};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

/// A value with the file it was read from.
pub type Sourced<T> = (T, Arc<Source>);

/// One step of the ordered graph.
#[derive(Debug, Clone)]
pub struct PlanStep {
    /// Full id (`parent.child` for children).
    pub id: String,
    /// Title (the id when the formula gives none).
    pub title: Text,
    /// Description.
    pub description: Text,
    /// Resolved ids of the steps it needs, without repeats.
    pub needs: Vec<String>,
}

/// Loads an expansion formula by name (`None`: no such formula).
pub type LoadFn<'a> = dyn FnMut(&str) -> Result<Option<Arc<Formula>>> + 'a;

/// A `needs` entry before resolution.
#[derive(Debug, Clone)]
pub(super) struct Need {
    /// The id as written.
    pub(super) raw: String,
    /// The parent whose children are looked up first.
    pub(super) scope: Option<String>,
    /// Where it was written.
    pub(super) at: Loc,
}

/// A step of the graph being built.
#[derive(Debug, Clone)]
pub(super) struct Node {
    /// Full id.
    pub(super) id: String,
    /// The id as written (a child's own part).
    pub(super) local: String,
    /// The parent's id, for children.
    pub(super) scope: Option<String>,
    /// Title.
    pub(super) title: Text,
    /// Description.
    pub(super) description: Text,
    /// What it needs, unresolved.
    pub(super) needs: Vec<Need>,
    /// Full ids of the steps it joins (its children).
    pub(super) children: Vec<String>,
    /// Where its id was written.
    pub(super) id_at: Loc,
    /// Its own `expand`, not applied yet.
    pub(super) expand: Option<ExpandRule>,
}

/// The graph being built.
pub struct Graph<'l, 'a> {
    pub(super) nodes: Vec<Node>,
    gone: HashMap<String, Vec<String>>,
    gone_locals: Vec<(String, String)>,
    ids: HashSet<String>,
    locals: HashMap<String, Vec<String>>,
    load: &'l mut LoadFn<'a>,
}

impl<'l, 'a> Graph<'l, 'a> {
    /// Flattens `steps` (each with the file it came from).
    pub fn new(steps: &[Sourced<StepDef>], load: &'l mut LoadFn<'a>) -> Result<Self> {
        let mut g = Graph {
            nodes: Vec::with_capacity(steps.len()),
            gone: HashMap::new(),
            gone_locals: Vec::new(),
            ids: HashSet::new(),
            locals: HashMap::new(),
            load,
        };
        let mut seen = HashMap::new();
        let mut out = Vec::new();
        for (def, src) in steps {
            g.push(&mut out, def, src, None, None, &[], &mut seen)?;
        }
        g.nodes = out;
        g.reindex();
        Ok(g)
    }

    /// Rebuilds the id and local-id indexes after the steps changed.
    pub(super) fn reindex(&mut self) {
        self.ids = self.nodes.iter().map(|n| n.id.clone()).collect();
        self.locals.clear();
        let all = self.nodes.iter().map(|n| (&n.local, &n.id));
        for (local, id) in all.chain(self.gone_locals.iter().map(|(l, i)| (l, i))) {
            let ids = self.locals.entry(local.clone()).or_default();
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }

    /// Appends `def` and its children to `out`; returns its full id.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        out: &mut Vec<Node>,
        def: &StepDef,
        src: &Arc<Source>,
        prefix: Option<&str>,
        scope: Option<&str>,
        inherited: &[Need],
        seen: &mut HashMap<String, Loc>,
    ) -> Result<String> {
        let id = prefix.map_or_else(|| def.id.value.clone(), |p| format!("{p}.{}", def.id.value));
        let id_at = (src.clone(), def.id.span.clone());
        if let Some((first_src, first)) = seen.get(&id) {
            let (line, _) = crate::error::textpos::line_col(&first_src.text, first.start);
            let msg = format!(
                "duplicate step id '{id}' (first at {}:{line})",
                first_src.name
            );
            return Err(src.error(&def.id.span, msg).into());
        }
        seen.insert(id.clone(), id_at.clone());
        let mut needs = inherited.to_vec();
        needs.extend(def.needs.iter().map(|n| Need {
            raw: n.value.clone(),
            scope: scope.map(str::to_string),
            at: (src.clone(), n.span.clone()),
        }));
        let idx = out.len();
        out.push(Node {
            id: id.clone(),
            local: def.id.value.clone(),
            scope: scope.map(str::to_string),
            title: text(def.title.as_ref(), src, &def.id.value),
            description: text(def.description.as_ref(), src, ""),
            needs: needs.clone(),
            children: Vec::new(),
            id_at,
            expand: def.expand.clone(),
        });
        let mut children = Vec::with_capacity(def.children.len());
        for child in &def.children {
            children.push(self.push(out, child, src, Some(&id), Some(&id), &needs, seen)?);
        }
        out[idx].children = children;
        Ok(id)
    }

    /// Applies the steps' own `expand`, then `[[compose.expand]]`, then `[[compose.map]]`.
    pub fn expand_all(
        &mut self,
        expand: &[Sourced<ExpandRule>],
        map: &[Sourced<ExpandRule>],
    ) -> Result<()> {
        let inline: Vec<_> = self
            .nodes
            .iter()
            .filter_map(|n| Some((n.id.clone(), n.expand.clone()?, n.id_at.0.clone())))
            .collect();
        for (id, rule, src) in inline {
            if let Some(idx) = self.nodes.iter().position(|n| n.id == id) {
                self.apply(idx, &rule, &src)?;
            }
        }
        for (rule, src) in expand {
            let need = Need {
                raw: rule.target.value.clone(),
                scope: None,
                at: (src.clone(), rule.target.span.clone()),
            };
            let id = match self.find(&need)? {
                Some(id) if self.ids.contains(&id) => id,
                Some(_) => continue, // already expanded
                None => {
                    let msg = format!("expand target '{}' is not a step of this formula", need.raw);
                    return Err(src.error(&rule.target.span, msg).into());
                }
            };
            let idx = self.nodes.iter().position(|n| n.id == id).unwrap_or(0);
            self.apply(idx, rule, src)?;
        }
        for (rule, src) in map {
            let ids: Vec<String> = self
                .nodes
                .iter()
                .filter(|n| crate::text::glob::matches(&rule.target.value, &n.id))
                .map(|n| n.id.clone())
                .collect();
            for id in ids {
                if let Some(idx) = self.nodes.iter().position(|n| n.id == id) {
                    self.apply(idx, rule, src)?;
                }
            }
        }
        Ok(())
    }

    /// Replaces node `idx` (and its children) by the template of `rule.with`.
    fn apply(&mut self, idx: usize, rule: &ExpandRule, src: &Arc<Source>) -> Result<()> {
        let with = &rule.with;
        let exp = self.expansion(with, src)?;
        let target = self.nodes[idx].clone();
        let vars = template_vars(&exp, rule, &target);
        let template: Vec<StepDef> = exp.template.iter().map(|t| instantiate(t, &vars)).collect();
        let (roots, sinks) = roots_and_sinks(&template, &target);
        let mut seen: HashMap<String, Loc> = self
            .nodes
            .iter()
            .filter(|n| !replaced(n, &target.id))
            .map(|n| (n.id.clone(), n.id_at.clone()))
            .collect();
        let mut fresh = Vec::new();
        for (t, root) in template.iter().zip(roots) {
            let inherited = if root { target.needs.as_slice() } else { &[] };
            let scope = target.scope.as_deref();
            self.push(
                &mut fresh,
                t,
                &exp.source,
                None,
                scope,
                inherited,
                &mut seen,
            )
            .map_err(|e| match e {
                Error::Parse(p) => Error::Parse(Box::new(p.with_help(format!(
                    "made by expansion '{}' of step '{}'",
                    with.value, target.id
                )))),
                other => other,
            })?;
        }
        for n in fresh.iter_mut() {
            n.expand = None;
        }
        self.splice(idx, fresh, &target.id, &sinks);
        Ok(())
    }

    /// The expansion formula `with` names, refused when there is none or it is not an
    /// expansion (a convoy, or no `[[template]]`).
    fn expansion(&mut self, with: &At<String>, src: &Arc<Source>) -> Result<Arc<Formula>> {
        let exp = (self.load)(&with.value)?
            .ok_or_else(|| src.error(&with.span, format!("no formula named '{}'", with.value)))?;
        if exp.kind.value != FormulaType::Expansion || exp.template.is_empty() {
            let msg = match exp.kind.value {
                FormulaType::Convoy => format!(
                    "'{}' is a convoy formula: expanding into convoys is not supported by vermas",
                    with.value
                ),
                _ => format!(
                    "'{}' is not an expansion formula (no [[template]])",
                    with.value
                ),
            };
            return Err(src.error(&with.span, msg).into());
        }
        Ok(exp)
    }

    /// Puts `fresh` where step `idx` was and drops the steps the expansion of `target`
    /// replaces (it and everything inside it); a step that needed one of them needs
    /// `sinks` instead.
    fn splice(&mut self, idx: usize, fresh: Vec<Node>, target: &str, sinks: &[String]) {
        let mut kept = Vec::with_capacity(self.nodes.len() + fresh.len());
        let mut fresh = Some(fresh);
        for (i, n) in std::mem::take(&mut self.nodes).into_iter().enumerate() {
            if i == idx {
                kept.extend(fresh.take().unwrap_or_default());
            }
            if replaced(&n, target) {
                self.gone.insert(n.id.clone(), sinks.to_vec());
                self.gone_locals.push((n.local.clone(), n.id.clone()));
            } else {
                kept.push(n);
            }
        }
        self.nodes = kept;
        self.reindex();
    }

    /// The id a `needs` entry names, current or expanded away.
    fn find(&self, need: &Need) -> Result<Option<String>> {
        let scoped = need.scope.as_ref().map(|s| format!("{s}.{}", need.raw));
        for c in scoped.iter().chain(std::iter::once(&need.raw)) {
            if self.ids.contains(c) || self.gone.contains_key(c) {
                return Ok(Some(c.clone()));
            }
        }
        let hits = self.locals.get(&need.raw).map_or(&[][..], Vec::as_slice);
        match hits {
            [] => Ok(None),
            [one] => Ok(Some(one.to_string())),
            many => {
                let msg = format!("'{}' is ambiguous: it names {}", need.raw, many.join(", "));
                Err(need
                    .at
                    .0
                    .error(&need.at.1, msg)
                    .with_help("give the full step id")
                    .into())
            }
        }
    }

    /// Resolves every `needs` and orders the steps.
    pub fn finish(self) -> Result<Vec<PlanStep>> {
        let ids: Vec<String> = self.nodes.iter().map(|n| n.id.clone()).collect();
        let index: HashMap<&str, usize> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        let follow = |id: &str| -> Vec<usize> {
            let mut out = Vec::new();
            let mut stack = vec![id.to_string()];
            let mut visited = HashSet::new();
            while let Some(id) = stack.pop() {
                if let Some(&i) = index.get(id.as_str()) {
                    out.push(i);
                } else if let Some(next) = self.gone.get(&id)
                    && visited.insert(id)
                {
                    stack.extend(next.iter().rev().cloned());
                }
            }
            out
        };
        let mut edges: Vec<Vec<(usize, Option<Loc>)>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let mut e: Vec<(usize, Option<Loc>)> = Vec::new();
            for need in &n.needs {
                let id = self
                    .find(need)?
                    .ok_or_else(|| unknown(n, need, &self.nodes))?;
                for i in follow(&id) {
                    if !e.iter().any(|(j, _)| *j == i) {
                        e.push((i, Some(need.at.clone())));
                    }
                }
            }
            for child in &n.children {
                for i in follow(child) {
                    if !e.iter().any(|(j, _)| *j == i) {
                        e.push((i, None));
                    }
                }
            }
            edges.push(e);
        }
        let order = toposort(&self.nodes, &edges)?;
        let mut steps: Vec<Option<Node>> = self.nodes.into_iter().map(Some).collect();
        Ok(order
            .into_iter()
            .filter_map(|i| {
                let n = steps[i].take()?;
                let needs = edges[i].iter().map(|(j, _)| ids[*j].clone()).collect();
                Some(PlanStep {
                    id: n.id,
                    title: n.title,
                    description: n.description,
                    needs,
                })
            })
            .collect())
    }
}

/// Kahn's algorithm; among ready steps the one first in the formula goes first.
fn toposort(nodes: &[Node], edges: &[Vec<(usize, Option<Loc>)>]) -> Result<Vec<usize>> {
    let mut pending: Vec<usize> = edges.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, e) in edges.iter().enumerate() {
        for (j, _) in e {
            dependents[*j].push(i);
        }
    }
    let mut ready: BinaryHeap<std::cmp::Reverse<usize>> = (0..nodes.len())
        .filter(|&i| pending[i] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        for &d in &dependents[i] {
            pending[d] -= 1;
            if pending[d] == 0 {
                ready.push(std::cmp::Reverse(d));
            }
        }
    }
    if order.len() == nodes.len() {
        return Ok(order);
    }
    // Walk unfinished steps along their unfinished needs until one repeats.
    let start = (0..nodes.len()).find(|&i| pending[i] > 0).unwrap_or(0);
    let mut path = vec![start];
    let mut on_path: HashMap<usize, usize> = HashMap::from([(start, 0)]);
    let cycle = loop {
        let cur = *path.last().unwrap_or(&start);
        let next = edges[cur]
            .iter()
            .map(|(j, _)| *j)
            .find(|&j| pending[j] > 0)
            .unwrap_or(start);
        if let Some(&pos) = on_path.get(&next) {
            break path[pos..].to_vec();
        }
        on_path.insert(next, path.len());
        path.push(next);
    };
    // Start the report at a `needs` entry written in a file, when the cycle has one.
    let located = |k: usize| {
        let (from, to) = (cycle[k], cycle[(k + 1) % cycle.len()]);
        edges[from].iter().any(|(j, at)| *j == to && at.is_some())
    };
    let k = (0..cycle.len()).find(|&k| located(k)).unwrap_or(0);
    let cycle: Vec<usize> = cycle[k..].iter().chain(&cycle[..k]).copied().collect();
    let first = cycle[0];
    let second = *cycle.get(1).unwrap_or(&first);
    let names: Vec<&str> = cycle
        .iter()
        .chain(std::iter::once(&first))
        .map(|&i| nodes[i].id.as_str())
        .collect();
    let msg = format!("needs cycle: {}", names.join(" -> "));
    let at = edges[first]
        .iter()
        .find(|(j, _)| *j == second)
        .and_then(|(_, at)| at.clone())
        .unwrap_or_else(|| nodes[first].id_at.clone());
    Err(at
        .0
        .error(&at.1, msg)
        .with_help(
            "a step cannot wait, directly or through others, for itself: remove one of these needs",
        )
        .into())
}

fn unknown(n: &Node, need: &Need, nodes: &[Node]) -> Error {
    let mut known: Vec<&str> = nodes.iter().take(12).map(|n| n.id.as_str()).collect();
    if nodes.len() > 12 {
        known.push("...");
    }
    let msg = format!(
        "step '{}' needs '{}', which is not a step of this formula",
        n.id, need.raw
    );
    need.at
        .0
        .error(&need.at.1, msg)
        .with_help(format!("steps: {}", known.join(", ")))
        .into()
}

fn text(value: Option<&At<String>>, src: &Arc<Source>, fallback: &str) -> Text {
    match value {
        Some(v) => Text {
            value: v.value.clone(),
            at: Some((src.clone(), v.span.clone())),
        },
        None => Text {
            value: fallback.to_string(),
            at: None,
        },
    }
}

/// True for the step `target` itself and every step inside it: what its expansion replaces.
fn replaced(n: &Node, target: &str) -> bool {
    let inner = format!("{target}.");
    n.id == target
        || n.scope
            .as_ref()
            .is_some_and(|s| *s == target || s.starts_with(&inner))
}

/// The `{name}` values of an expansion of `target`: the expansion's var defaults, then the
/// rule's `vars`, then `{target}`, `{target.id}`, `{target.title}`, `{target.description}`.
fn template_vars(exp: &Formula, rule: &ExpandRule, target: &Node) -> HashMap<String, String> {
    let mut vars: HashMap<String, String> = HashMap::new();
    for v in &exp.vars {
        if let Some(d) = &v.default {
            vars.insert(v.name.clone(), d.clone());
        }
    }
    vars.extend(rule.vars.clone());
    vars.insert("target".into(), target.id.clone());
    vars.insert("target.id".into(), target.id.clone());
    vars.insert("target.title".into(), target.title.value.clone());
    vars.insert(
        "target.description".into(),
        target.description.value.clone(),
    );
    vars
}

/// For each template step, whether it needs no other template step (it then gets the
/// target's needs); and the template steps no other one needs (its last steps).
fn roots_and_sinks(template: &[StepDef], target: &Node) -> (Vec<bool>, Vec<String>) {
    let ids: HashSet<&str> = template.iter().map(|t| t.id.value.as_str()).collect();
    let within = |n: &At<String>| {
        ids.contains(n.value.as_str())
            || target
                .scope
                .as_ref()
                .is_some_and(|s| ids.contains(format!("{s}.{}", n.value).as_str()))
    };
    let roots: Vec<bool> = template
        .iter()
        .map(|t| !t.needs.iter().any(within))
        .collect();
    let needed: HashSet<&str> = template
        .iter()
        .flat_map(|t| t.needs.iter().filter(|n| within(n)))
        .map(|n| n.value.as_str())
        .collect();
    let sinks: Vec<String> = template
        .iter()
        .map(|t| t.id.value.clone())
        .filter(|id| {
            !needed.contains(id.as_str())
                && !target.scope.as_ref().is_some_and(|s| {
                    id.strip_prefix(s.as_str())
                        .and_then(|r| r.strip_prefix('.'))
                        .is_some_and(|l| needed.contains(l))
                })
        })
        .collect();
    (roots, sinks)
}

/// A template step with its `{...}` placeholders substituted (spans kept).
fn instantiate(t: &StepDef, vars: &HashMap<String, String>) -> StepDef {
    let sub = |a: &At<String>| At {
        value: placeholders(&a.value, vars),
        span: a.span.clone(),
    };
    StepDef {
        id: sub(&t.id),
        title: t.title.as_ref().map(sub),
        description: t.description.as_ref().map(sub),
        needs: t.needs.iter().map(sub).collect(),
        children: t.children.iter().map(|c| instantiate(c, vars)).collect(),
        expand: None,
        span: t.span.clone(),
    }
}

/// Variables declared by `vars`, by name (the first declaration wins).
pub fn var_map(vars: &[Sourced<VarDef>]) -> BTreeMap<String, Sourced<VarDef>> {
    let mut out = BTreeMap::new();
    for (v, src) in vars {
        out.entry(v.name.clone())
            .or_insert_with(|| (v.clone(), src.clone()));
    }
    out
}
