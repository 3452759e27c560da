//! Handler of `discover`: find the project's quality commands.

use super::output::{diagnostic, recorded_note, short_commit, versioned};
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use serde_json::{Value, json};
use vermas_core::discover::{self, Discovery, research};
use vermas_core::error::Error;
use vermas_core::git::GitRepo;
use vermas_core::store::Recorded;

/// `discover [--write [--spec NAME]]`: prints the Quality Commands table; with `--write`
/// stores them as `gates.*` and commits, and writes smart-ralph's Quality Commands section
/// into the spec's `research.md` when there is a smart-ralph spec. A malformed source is
/// a warning (the rest is still reported); the exit code is 2 only when sources exist and
/// none of them could be read.
pub fn discover(ctx: &Ctx, ui: &mut Ui, write: bool, spec: Option<&str>) -> CmdResult {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let ws = match ctx.workspace() {
        Ok(ws) => Some(ws),
        Err(Error::NoWorkspace(_)) if !write => None,
        Err(e) => return Err(e),
    };
    let root = match &ws {
        Some(ws) => ws.root.clone(),
        None => GitRepo::open(&cwd).map_or(cwd, |r| r.workdir().to_path_buf()),
    };
    let found = discover::discover(&root);
    for w in &found.warnings {
        if ui.json {
            eprintln!("{}", json!({"warning": w.to_string(), "code": w.code()}));
        } else {
            diagnostic("warning", w);
        }
    }
    if found.nothing_read() {
        return Err(Error::invalid_with_help(
            "no quality-command source could be read",
            "fix the files named in the warnings above",
        ));
    }
    let mut stored = None;
    let mut research = None;
    if write {
        let ws = ws.ok_or_else(|| Error::NoWorkspace(root.clone()))?;
        let target = research_target(&root, spec)?;
        let settings = found.gate_settings();
        let (_, recorded) = discover::write_gates(&ws, &settings, &ctx.actor(&ws)?)?;
        recorded_note(&recorded);
        stored = Some((settings, recorded));
        if let Some((rel, path)) = target {
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            let text = research::with_section(&old, &research::section(&found));
            vermas_core::store::write_atomic(&ws.cache_dir(), &path, text.as_bytes())?;
            research = Some(rel);
        }
    }
    if ui.json {
        let mut v = versioned(json!({
            "root": found.root,
            "commands": found.commands,
            "missing": found.missing,
            "sources": found.sources,
            "warnings": found.warnings.iter().map(warning_json).collect::<Vec<_>>(),
        }));
        if let Some((settings, recorded)) = &stored {
            let gates: serde_json::Map<String, Value> = settings
                .iter()
                .map(|(k, cmd)| (k.to_string(), json!(cmd)))
                .collect();
            v["gates"] = Value::Object(gates);
            v["commit"] = json!(short_commit(recorded));
            v["research"] = json!(research);
        }
        ui.json(&v);
    } else {
        print_table(ui, &found);
        if let Some((settings, recorded)) = &stored {
            let commit = match recorded {
                Recorded::Unchanged => " (already set: nothing to commit)".to_string(),
                _ => short_commit(recorded).map_or(String::new(), |c| format!(" (commit {c})")),
            };
            outln!(ui);
            outln!(ui, "Stored in .beads/vermas.yaml{commit}:");
            for (key, cmd) in settings {
                outln!(ui, "  {key} = {cmd}");
            }
            if let Some(rel) = &research {
                outln!(
                    ui,
                    "Recorded in {rel} as smart-ralph's Quality Commands section (not committed: it is your spec's file)."
                );
            }
        }
    }
    Ok(0)
}

/// The research.md `--write` records the commands in (repository-relative, and checked to
/// stay inside the repository): `--spec`'s, else smart-ralph's current spec's; none when
/// there is no smart-ralph spec. A named spec whose folder is missing is refused.
fn research_target(
    root: &std::path::Path,
    spec: Option<&str>,
) -> Result<Option<(String, std::path::PathBuf)>, Error> {
    let Some(rel) = research::research_path(root, spec) else {
        return Ok(None);
    };
    let path = vermas_core::sys::contain::resolve(root, &root.join(&rel))?;
    let folder = rel.parent().unwrap_or(std::path::Path::new(""));
    if !path.parent().is_some_and(std::path::Path::is_dir) {
        return Err(Error::invalid_with_help(
            format!(
                "the smart-ralph spec folder {} does not exist",
                folder.display()
            ),
            "name an existing spec with --spec NAME (a folder under specs/), or create it with smart-ralph first",
        ));
    }
    Ok(Some((rel.to_string_lossy().into_owned(), path)))
}

/// A warning as JSON: the parse position when known.
fn warning_json(e: &Error) -> Value {
    match e {
        Error::Parse(p) => json!({
            "file": p.file, "line": p.line, "column": p.column, "message": p.message,
        }),
        other => json!({"message": other.to_string()}),
    }
}

/// The Quality Commands table: one row per command, then one per kind not found.
fn print_table(ui: &mut Ui, found: &Discovery) {
    let rows: Vec<(&str, &str, String)> = found
        .commands
        .iter()
        .map(|f| {
            (
                f.kind.name(),
                f.command.as_str(),
                format!("{}:{}", f.source, f.line),
            )
        })
        .chain(
            found
                .missing
                .iter()
                .map(|k| (k.name(), "not found", String::new())),
        )
        .collect();
    let w_type = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(4);
    let w_cmd = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).max(7);
    outln!(ui, "Quality Commands ({})", found.root.display());
    outln!(ui, "{:<w_type$}  {:<w_cmd$}  SOURCE", "TYPE", "COMMAND");
    for (kind, cmd, source) in rows {
        outln!(
            ui,
            "{}",
            format!("{kind:<w_type$}  {cmd:<w_cmd$}  {source}").trim_end()
        );
    }
    if found.sources.is_empty() && found.warnings.is_empty() {
        outln!(
            ui,
            "(no package.json, Makefile, justfile, CI configuration, Cargo.toml, go.mod or pyproject.toml here)"
        );
    }
}
