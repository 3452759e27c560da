//! `[[advice]]` and `[[pointcuts]]` of aspect formulas, as written ([`crate::mol::aspect`]
//! weaves them).

use super::{At, Formula, Parser, StepDef, Value};
use crate::error::Result;

/// One `[[advice]]` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdviceRule {
    /// `target`: a glob over step ids.
    pub target: At<String>,
    /// `before` then `around.before`: steps inserted before each match, in order.
    pub before: Vec<StepDef>,
    /// `after` then `around.after`: steps inserted after each match, in order.
    pub after: Vec<StepDef>,
}

impl Parser<'_> {
    /// `[[advice]]`: `target`, `before`, `after` and `[advice.around]` with `[[before]]` and
    /// `[[after]]` lists.
    pub(super) fn advice(&self, value: &Value<'_>) -> Result<Vec<AdviceRule>> {
        let mut out = Vec::new();
        for (t, span) in self.tables(value, "advice")? {
            let target = t.get("target").ok_or_else(|| {
                self.src
                    .error(&span, "an `[[advice]]` entry has no `target`")
                    .with_help("name the steps it advises: target = 'implement' (a glob)")
            })?;
            let mut rule = AdviceRule {
                target: self.string(target, "advice.target")?,
                before: Vec::new(),
                after: Vec::new(),
            };
            for (key, side) in [("before", true), ("after", false)] {
                if let Some(v) = t.get(key) {
                    let steps = self.advice_steps(v, &format!("advice.{key}"))?;
                    push_side(&mut rule, side, steps);
                }
            }
            if let Some(around) = t.get("around") {
                let around_t = self.table(around, "advice.around")?;
                for (key, side) in [("before", true), ("after", false)] {
                    if let Some(v) = around_t.get(key) {
                        let steps = self.advice_steps(v, &format!("advice.around.{key}"))?;
                        push_side(&mut rule, side, steps);
                    }
                }
            }
            out.push(rule);
        }
        Ok(out)
    }

    /// Advice steps at `path`: one table or a list of them, each with an `id`.
    fn advice_steps(&self, value: &Value<'_>, path: &str) -> Result<Vec<StepDef>> {
        self.tables(value, path)?
            .into_iter()
            .map(|(t, span)| self.step(t, span, path))
            .collect()
    }

    /// `[[pointcuts]]`: the `glob`s an aspect advises; `type` and `label` pointcuts match
    /// fields vermas's steps do not have and are recorded as unsupported.
    pub(super) fn pointcuts(&self, value: &Value<'_>, f: &mut Formula) -> Result<()> {
        for (t, _) in self.tables(value, "pointcuts")? {
            for (key, v) in t.iter() {
                match key.get_ref().as_ref() {
                    "glob" => f.pointcuts.push(self.string(v, "pointcuts.glob")?),
                    other => f.unsupported.push(At {
                        value: format!("pointcuts.{other}"),
                        span: key.span(),
                    }),
                }
            }
        }
        Ok(())
    }
}

fn push_side(rule: &mut AdviceRule, before: bool, steps: Vec<StepDef>) {
    if before {
        rule.before.extend(steps);
    } else {
        rule.after.extend(steps);
    }
}
