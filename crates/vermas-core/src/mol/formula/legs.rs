//! `[[legs]]`, `[synthesis]` and `[prompts]` of convoy formulas (and the `[[aspects]]` of
//! analysis aspects), as written ([`crate::mol::convoy`] cooks them into steps).

use super::{At, Parser, Value};
use crate::error::Result;
use std::ops::Range;

/// One `[[legs]]` entry (or `[[aspects]]` entry of an analysis aspect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leg {
    /// `id`.
    pub id: At<String>,
    /// `title`.
    pub title: Option<At<String>>,
    /// `focus`: the angle this leg takes.
    pub focus: Option<String>,
    /// `description`.
    pub description: Option<At<String>>,
}

/// A convoy's `[synthesis]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synthesis {
    /// `title`.
    pub title: Option<At<String>>,
    /// `description`.
    pub description: Option<At<String>>,
    /// The table's place.
    pub span: Range<usize>,
}

impl Parser<'_> {
    /// `[[legs]]` (or `[[aspects]]`, `what`): tables with `id`, `title`, `focus`,
    /// `description`.
    pub(super) fn legs(&self, value: &Value<'_>, what: &str) -> Result<Vec<Leg>> {
        let mut out: Vec<Leg> = Vec::new();
        for (t, span) in self.tables(value, what)? {
            let field = |k: &str| -> Result<Option<At<String>>> {
                t.get(k)
                    .map(|v| self.string(v, &format!("{what}.{k}")))
                    .transpose()
            };
            let id = field("id")?.ok_or_else(|| {
                self.src
                    .error(&span, format!("a `[[{what}]]` entry has no `id`"))
            })?;
            if let Some(first) = out.iter().find(|l| l.id.value == id.value) {
                let (line, _) =
                    crate::error::textpos::line_col(&self.src.text, first.id.span.start);
                let msg = format!("duplicate {what} id '{}' (first at line {line})", id.value);
                return Err(self.src.error(&id.span, msg).into());
            }
            out.push(Leg {
                id,
                title: field("title")?,
                focus: field("focus")?.map(|f| f.value),
                description: field("description")?,
            });
        }
        Ok(out)
    }

    /// `[synthesis]`: `title`, `description` (its `depends_on` is every leg, as Gas Town
    /// runs it).
    pub(super) fn synthesis(&self, value: &Value<'_>) -> Result<Synthesis> {
        let t = self.table(value, "synthesis")?;
        let field = |k: &str| -> Result<Option<At<String>>> {
            t.get(k)
                .map(|v| self.string(v, &format!("synthesis.{k}")))
                .transpose()
        };
        Ok(Synthesis {
            title: field("title")?,
            description: field("description")?,
            span: value.span(),
        })
    }

    /// `[prompts]`: the `base` text (other prompts are kept and ignored).
    pub(super) fn base_prompt(&self, value: &Value<'_>) -> Result<Option<At<String>>> {
        let t = self.table(value, "prompts")?;
        t.get("base")
            .map(|v| self.string(v, "prompts.base"))
            .transpose()
    }
}
