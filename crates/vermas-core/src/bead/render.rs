//! The text of a bead file as vermas writes it ([`Bead::render`]): front matter with one
//! `key: value` line per field of [`super::table::FIELDS`] (flow lists, plain or
//! JSON-quoted scalars), then the description. [`super::canonical`] reads exactly this
//! shape without the YAML parser.

use super::model::Bead;
use super::table::{FIELDS, Ref};
use crate::text::yaml::{flow_list, opt_scalar, scalar};
use crate::time::Timestamp;

impl Bead {
    /// The file text: front matter, one line per field in [`FIELDS`] order (the empty ones
    /// the table omits left out), then the description.
    pub fn render(&self) -> String {
        debug_assert!(!self.partial, "a partial bead must not be written back");
        let mut out = String::with_capacity(512 + self.description.len());
        out.push_str("---\n");
        for (field, value) in FIELDS.iter().zip(self.fields()) {
            if !(field.omit_empty && value.is_empty()) {
                render_field(&mut out, field.name, value);
            }
        }
        out.push_str("---\n");
        if !self.description.is_empty() {
            out.push_str(&self.description);
            out.push('\n');
        }
        out
    }
}

/// Appends field `key`'s line (or lines) of the front matter; the body is written after it.
fn render_field(out: &mut String, key: &str, value: Ref<'_>) {
    use std::fmt::Write;
    let ts = |t: &Option<Timestamp>| t.map_or("null".to_string(), |t| t.to_string());
    // Writing into a String cannot fail.
    let _ = match value {
        Ref::Text(s) => writeln!(out, "{key}: {}", scalar(s)),
        Ref::Status(s) => writeln!(out, "{key}: {s}"),
        Ref::Priority(p) => writeln!(out, "{key}: {p}"),
        Ref::Type(t) => writeln!(out, "{key}: {t}"),
        Ref::Labels(l) => writeln!(out, "{key}: {}", flow_list(l)),
        Ref::OptText(s) => writeln!(out, "{key}: {}", opt_scalar(s.as_deref())),
        Ref::Time(t) => writeln!(out, "{key}: {}", ts(t)),
        Ref::Deps(deps) => {
            push_list(out, key, deps, |d| match d.gate {
                Some(gate) => format!(
                    "{{depends_on_id: {}, type: {}, gate: {gate}}}",
                    scalar(&d.depends_on_id),
                    d.dep_type
                ),
                None => format!(
                    "{{depends_on_id: {}, type: {}}}",
                    scalar(&d.depends_on_id),
                    d.dep_type
                ),
            });
            Ok(())
        }
        Ref::Notes(notes) => {
            push_list(out, key, notes, |n| {
                format!(
                    "{{at: {}, by: {}, text: {}}}",
                    n.at,
                    scalar(&n.by),
                    scalar(&n.text)
                )
            });
            Ok(())
        }
        Ref::Criteria(criteria) => {
            push_list(out, key, criteria, |c| {
                let mut s = format!(
                    "{{id: {}, description: {}",
                    scalar(&c.id),
                    scalar(&c.description)
                );
                for (key, v) in c.checks() {
                    s.push_str(&format!(", {key}: {}", scalar(v)));
                }
                s.push('}');
                s
            });
            Ok(())
        }
        Ref::Approval(None) => writeln!(out, "{key}: null"),
        Ref::Approval(Some(a)) => {
            let _ = write!(out, "{key}: {{criteria: {}", scalar(&a.criteria));
            if !a.files.is_empty() {
                let files: Vec<String> = a
                    .files
                    .iter()
                    .map(|(path, blob)| format!("{}: {}", scalar(path), scalar(blob)))
                    .collect();
                let _ = write!(out, ", files: {{{}}}", files.join(", "));
            }
            if let Some(spec) = &a.spec {
                let _ = write!(out, ", spec: {}", scalar(spec));
            }
            writeln!(
                out,
                ", commit: {}, by: {}, at: {}}}",
                opt_scalar(a.commit.as_deref()),
                opt_scalar(a.by.as_deref()),
                ts(&a.at)
            )
        }
        // After the front matter.
        Ref::Body(_) => Ok(()),
    };
}

/// Appends `key:` and one flow mapping per item (or `key: []`).
fn push_list<T>(out: &mut String, key: &str, items: &[T], render: impl Fn(&T) -> String) {
    if items.is_empty() {
        out.push_str(&format!("{key}: []\n"));
        return;
    }
    out.push_str(&format!("{key}:\n"));
    for item in items {
        out.push_str("  - ");
        out.push_str(&render(item));
        out.push('\n');
    }
}
