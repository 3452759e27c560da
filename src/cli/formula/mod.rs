//! Handler of `formula` (`list`, `show`), and [`render_proto`], the human form of a cooked
//! proto that `mol cook` prints.

pub(super) mod args;

use super::formula::args::FormulaCmd;
use super::output::versioned;
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use vermas_core::error::Error;
use vermas_core::mol::{self, FormulaInfo, FormulaSummary, Proto, ProtoStep};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write as _;

/// `formula list` / `formula show NAME` (built-ins work outside a workspace too).
pub fn formula(ctx: &Ctx, ui: &mut Ui, cmd: FormulaCmd) -> CmdResult {
    let ws = match ctx.workspace() {
        Ok(ws) => Some(ws),
        Err(Error::NoWorkspace(_)) => None,
        Err(e) => return Err(e),
    };
    let beads = ws.as_ref().map(|w| w.beads_dir.as_path());
    match cmd {
        FormulaCmd::List => {
            let rows = mol::list_formulas(beads)?;
            if ui.json {
                ui.json(&rows);
            } else {
                outln!(ui, "{}", render_list(&rows).trim_end());
            }
        }
        FormulaCmd::Show { name } => {
            let info = mol::formula_info(beads, &name)?;
            if ui.json {
                ui.json(&versioned(&info));
            } else {
                outln!(ui, "{}", render_info(&info).trim_end());
            }
        }
    }
    Ok(0)
}

/// The `formula list` table: name, type, steps, source, description.
fn render_list(rows: &[FormulaSummary]) -> String {
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let source = match (&r.head.path, r.overrides_builtin) {
                (Some(p), true) => format!("{p} (overrides built-in)"),
                (Some(p), false) => p.clone(),
                (None, _) => "built-in".to_string(),
            };
            let (kind, steps, about) = match &r.error {
                Some(e) => (
                    "-".to_string(),
                    "-".to_string(),
                    format!("error: {}", e.lines().next().unwrap_or("")),
                ),
                None => (
                    r.head.kind.clone(),
                    r.steps.to_string(),
                    r.head.description.clone(),
                ),
            };
            [r.head.name.clone(), kind, steps, source, about]
        })
        .collect();
    let header = ["NAME", "TYPE", "STEPS", "SOURCE", "DESCRIPTION"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&cells) {
        let line = format!(
            "{:<w0$}  {:<w1$}  {:>w2$}  {:<w3$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// `formula show`: name, description, variables (required or default), steps with needs.
fn render_info(info: &FormulaInfo) -> String {
    let mut out = String::new();
    let mut about = vec![info.head.kind.clone()];
    if let Some(v) = &info.head.version {
        about.push(format!("version {v}"));
    }
    about.push(info.head.path.clone().unwrap_or_else(|| "built-in".into()));
    let _ = writeln!(out, "{} ({})", info.head.name, about.join(", "));
    if !info.extends.is_empty() {
        let _ = writeln!(out, "Extends: {}", info.extends.join(", "));
    }
    if !info.head.description.trim().is_empty() {
        let _ = writeln!(out, "\n{}", info.head.description.trim_end());
    }
    let _ = writeln!(out, "\nVariables:");
    if info.vars.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    let width = info
        .vars
        .iter()
        .map(|v| v.name.chars().count())
        .max()
        .unwrap_or(0);
    for v in &info.vars {
        let need = match (&v.default, v.required) {
            (Some(d), _) => format!("default {d:?}"),
            (None, true) => "required".into(),
            (None, false) => "optional".into(),
        };
        let line = format!("  {:<width$}  {need}  {}", v.name, v.description);
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if info.steps.is_empty() && !info.advice.is_empty() {
        let _ = writeln!(
            out,
            "\nSteps: none of its own; a workflow applies it with `[compose] aspects = ['{}']`",
            info.head.name
        );
    } else {
        let _ = writeln!(out, "\nSteps ({}, in order):", info.steps.len());
        out.push_str(&render_steps(&info.steps));
    }
    if !info.aspects.is_empty() {
        let _ = writeln!(out, "\nAspects woven in: {}", info.aspects.join(", "));
    }
    out.push_str(&render_advice(info));
    if !info.unknown_keys.is_empty() {
        let _ = writeln!(out, "\nIgnored keys: {}", info.unknown_keys.join(", "));
    }
    out
}

/// An aspect's advice: per target glob, the steps it adds before and after.
fn render_advice(info: &FormulaInfo) -> String {
    let mut out = String::new();
    if info.advice.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\nAdvice ({{step.id}} is the advised step):");
    for a in &info.advice {
        let mut sides = Vec::new();
        if !a.before.is_empty() {
            sides.push(format!("before {}", a.before.join(", ")));
        }
        if !a.after.is_empty() {
            sides.push(format!("after {}", a.after.join(", ")));
        }
        let _ = writeln!(out, "  {}: {}", a.target, sides.join("; "));
    }
    if !info.pointcuts.is_empty() {
        let _ = writeln!(out, "Pointcuts: {}", info.pointcuts.join(", "));
    }
    out
}

/// Numbered steps: id, title and what each needs.
fn render_steps(steps: &[ProtoStep]) -> String {
    let num = steps.len().to_string().len();
    let width = steps
        .iter()
        .map(|s| s.id.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, s) in steps.iter().enumerate() {
        let title = s.title.lines().next().unwrap_or("");
        let mut line = format!("  {:>num$}. {:<width$}  {title}", i + 1, s.id);
        if !s.needs.is_empty() {
            line.push_str(&format!("  (needs {})", s.needs.join(", ")));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The human form of a cooked proto (`mol cook` without `--json`): formula, variables,
/// then the steps in order with their needs.
pub fn render_proto(p: &Proto) -> String {
    let mut out = String::new();
    let version = p
        .version
        .as_ref()
        .map(|v| format!(" version {v}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "Cooked {}{version}: {} step{}, nothing written",
        p.formula,
        p.steps.len(),
        if p.steps.len() == 1 { "" } else { "s" }
    );
    if !p.vars.is_empty() {
        let vars: Vec<String> = p.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(out, "Vars: {}", vars.join(" "));
    }
    out.push_str(&render_steps(&p.steps));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proto_lists_steps_with_needs() {
        let step = |id: &str, needs: &[&str]| ProtoStep {
            id: id.into(),
            title: format!("Do {id}\nmore"),
            description: String::new(),
            needs: needs.iter().map(|s| s.to_string()).collect(),
        };
        let p = Proto {
            formula: "f".into(),
            version: Some("1".into()),
            description: String::new(),
            vars: [("a".to_string(), "b".to_string())].into(),
            steps: vec![step("x", &[]), step("y", &["x"])],
        };
        let text = render_proto(&p);
        assert!(text.starts_with("Cooked f version 1: 2 steps"), "{text}");
        assert!(text.contains("Vars: a=b"), "{text}");
        assert!(text.contains("2. y  Do y  (needs x)"), "{text}");
    }
}
