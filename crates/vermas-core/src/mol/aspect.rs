//! Aspects: `[[advice]]` steps woven before and after the steps a formula's
//! `compose.aspects` (or its own `[[advice]]`) target, as Gas Town's cook weaves them.
//!
//! A rule's `target` is a glob over step ids; an aspect's `[[pointcuts]]` globs, when it has
//! any, narrow the steps it may advise. `before`, then `around.before`, steps are inserted
//! before each matching step, chained in order, and the step needs the last of them;
//! `after`, then `around.after`, steps come after it, the first needing it and each
//! next one the one before. Steps that needed the advised step still need it alone, and the
//! first `before` step needs nothing (as in Gas Town). `{step.id}` and `{step.title}` in an
//! advice step's id, title and description are the advised step's. Only the steps present
//! before an aspect is applied are advised, so advice never advises its own steps.

use super::formula::{AdviceRule, At, Source, StepDef};
use super::plan::{Graph, Need, Node, Sourced};
use super::template::Text;
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::sync::Arc;

/// `s` with `{step.id}` and `{step.title}` replaced by the advised step's.
fn step_ref(s: &str, target: &Node) -> String {
    s.replace("{step.id}", &target.id)
        .replace("{step.title}", &target.title.value)
}

impl Graph<'_, '_> {
    /// Weaves `rules` (each with the file it came from) around the steps they target;
    /// `pointcuts`, when not empty, limit the steps advised. `aspect` names the formula
    /// for errors.
    pub fn weave(
        &mut self,
        rules: &[Sourced<AdviceRule>],
        pointcuts: &[At<String>],
        aspect: &str,
    ) -> Result<()> {
        if rules.is_empty() {
            return Ok(());
        }
        let original: HashSet<String> = self.nodes.iter().map(|n| n.id.clone()).collect();
        let mut seen: HashSet<String> = original.clone();
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut joins: Vec<(String, Vec<String>)> = Vec::new();
        for mut node in std::mem::take(&mut self.nodes) {
            let advised = pointcuts.is_empty()
                || pointcuts
                    .iter()
                    .any(|p| crate::text::glob::matches(&p.value, &node.id));
            let mut before = Vec::new();
            let mut after = Vec::new();
            for (rule, src) in rules {
                if !advised || !crate::text::glob::matches(&rule.target.value, &node.id) {
                    continue;
                }
                for s in &rule.before {
                    before.push(advice_node(s, src, &node, &mut seen, aspect)?);
                }
                for s in &rule.after {
                    after.push(advice_node(s, src, &node, &mut seen, aspect)?);
                }
            }
            for i in 1..before.len() {
                let prev = need_on(&before[i - 1]);
                before[i].needs.push(prev);
            }
            if let Some(last) = before.last() {
                node.needs.push(need_on(last));
            }
            for i in 0..after.len() {
                let prev = if i == 0 { &node } else { &after[i - 1] };
                let need = need_on(prev);
                after[i].needs.push(need);
            }
            if let Some(parent) = &node.scope {
                let ids = before.iter().chain(&after).map(|n| n.id.clone()).collect();
                joins.push((parent.clone(), ids));
            }
            out.extend(before);
            out.push(node);
            out.extend(after);
        }
        // Steps woven around a child join its parent, which completes after them.
        for (parent, ids) in joins {
            if let Some(p) = out.iter_mut().find(|n| n.id == parent) {
                p.children.extend(ids);
            }
        }
        self.nodes = out;
        self.reindex();
        Ok(())
    }
}

/// The step advice step `s` makes for `target`; its id must be new.
fn advice_node(
    s: &StepDef,
    src: &Arc<Source>,
    target: &Node,
    seen: &mut HashSet<String>,
    aspect: &str,
) -> Result<Node> {
    let id = step_ref(&s.id.value, target);
    if !seen.insert(id.clone()) {
        let msg = format!(
            "advice of '{aspect}' on step '{}' makes step '{id}', which already exists",
            target.id
        );
        return Err(Error::from(src.error(&s.id.span, msg).with_help(
            "put {step.id} in the advice step's id so each advised step gets its own",
        )));
    }
    let text = |v: Option<&At<String>>, fallback: &str| match v {
        Some(a) => Text {
            value: step_ref(&a.value, target),
            at: Some((src.clone(), a.span.clone())),
        },
        None => Text {
            value: fallback.to_string(),
            at: None,
        },
    };
    Ok(Node {
        local: id.clone(),
        scope: target.scope.clone(),
        title: text(s.title.as_ref(), &id),
        description: text(s.description.as_ref(), ""),
        needs: Vec::new(),
        children: Vec::new(),
        id_at: (src.clone(), s.id.span.clone()),
        expand: None,
        id,
    })
}

/// A need on step `n` (by its full id), located where `n` was written.
fn need_on(n: &Node) -> Need {
    Need {
        raw: n.id.clone(),
        scope: None,
        at: n.id_at.clone(),
    }
}
