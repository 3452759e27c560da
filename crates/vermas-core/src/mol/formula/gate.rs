//! A step's `gate` table (`gate = { type = "timer", id = "...", timeout = "1h" }`): an async
//! wait the step must not start before. Gas Town's cook makes it a gate bead `gate-<step>`
//! that blocks the step; here it becomes a step of that id (title `Gate: <type> <id>`) that
//! the gated step needs, and that is ready at once, as the gate bead is open from the start.

use super::{At, Parser, StepDef};
use crate::error::Result;
use toml::de::DeTable;

impl Parser<'_> {
    /// Pushes `step` onto `out`, preceded by the gate step of its table `t`'s `gate`, if any.
    pub(super) fn push_gated(
        &self,
        out: &mut Vec<StepDef>,
        t: &DeTable<'_>,
        mut step: StepDef,
        path: &str,
    ) -> Result<()> {
        if let Some(value) = t.get("gate") {
            let what = format!("{path}.gate");
            let gate = self.table(value, &what)?;
            let field = |k: &str| -> Result<Option<String>> {
                gate.get(k)
                    .map(|v| self.string(v, &format!("{what}.{k}")).map(|s| s.value))
                    .transpose()
            };
            let kind = field("type")?.unwrap_or_default();
            let title = match field("id")? {
                Some(id) if !id.is_empty() => format!("Gate: {kind} {id}"),
                _ => format!("Gate: {kind}"),
            };
            let span = value.span();
            let at = |value: String| At {
                value,
                span: span.clone(),
            };
            let id = at(format!("gate-{}", step.id.value));
            out.push(StepDef {
                id: id.clone(),
                title: Some(at(title)),
                description: Some(at(format!("Async gate for step {}", step.id.value))),
                needs: Vec::new(),
                children: Vec::new(),
                expand: None,
                span: span.clone(),
            });
            step.needs.push(id);
        }
        out.push(step);
        Ok(())
    }
}
