//! `import bd` and `export bd`: call the interop module and say what it did.

pub(super) mod args;

use super::interop::args::{ExportCmd, ImportCmd};
use super::output::{diagnostic, recorded_note, short_commit, versioned};
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx, warn};
use serde_json::json;
use vermas_core::interop::import::PrefixChange;
use vermas_core::interop::{export, import};
use vermas_core::store::Recorded;
use vermas_core::text::words::counted;

/// Bad lines shown with their line quoted; any after these get one line each.
const SHOWN_IN_FULL: usize = 20;

/// `import bd [FILE]`.
pub fn import(ctx: &Ctx, ui: &mut Ui, cmd: ImportCmd) -> CmdResult {
    let ImportCmd::Bd { file } = cmd;
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let (path, shown) = match file {
        Some(f) => {
            let shown = f.display().to_string();
            (f, shown)
        }
        None => {
            let p = ws.bd_jsonl_path();
            let shown = ws.display(&p);
            (p, shown)
        }
    };
    let r = import::import(&ws, &actor, &path, &shown)?;
    recorded_note(&r.recorded);
    let bad_count = counted(r.bad.len(), "bad line", "bad lines");
    if ui.json {
        let bad: Vec<_> = r
            .bad
            .iter()
            .map(|b| json!({"file": shown, "line": b.line, "column": b.column, "message": b.message}))
            .collect();
        ui.json(&versioned(json!({
            "file": shown,
            "created": r.created,
            "updated": r.updated,
            "unchanged": r.unchanged,
            "tombstones_skipped": r.tombstones,
            "other_records_skipped": r.other_records,
            "bad_lines": bad,
            "prefix": match &r.prefix {
                Some(PrefixChange::Adopted { was, now }) => json!({"adopted": now, "was": was}),
                Some(PrefixChange::Differs { ours, theirs }) => json!({"kept": ours, "imported": theirs}),
                None => serde_json::Value::Null,
            },
            "commit": match &r.recorded {
                Recorded::Commit(id) => Some(id.as_str()),
                _ => None,
            },
        })));
    } else {
        for (i, bad) in r.bad.iter().enumerate() {
            if i < SHOWN_IN_FULL {
                diagnostic("error", &bad.diagnostic(&shown));
            } else {
                eprintln!(
                    "error: {shown}:{}:{}: {}",
                    bad.line, bad.column, bad.message
                );
            }
        }
        let commit = short_commit(&r.recorded)
            .map(|c| format!(" in commit {c}"))
            .unwrap_or_default();
        outln!(
            ui,
            "Imported {shown}: {} new, {} updated, {} unchanged{commit}",
            r.created.len(),
            r.updated.len(),
            r.unchanged.len()
        );
        if r.tombstones > 0 {
            let n = counted(r.tombstones, "deleted issue", "deleted issues");
            outln!(ui, "Skipped {n} (bd tombstones)");
        }
        if r.other_records > 0 {
            let n = counted(r.other_records, "non-issue record", "non-issue records");
            outln!(ui, "Skipped {n} (such as bd memories)");
        }
        match &r.prefix {
            Some(PrefixChange::Adopted { was, now }) => outln!(
                ui,
                "Adopted the id prefix '{now}' of the imported issues (was '{was}'; the \
                 repository had no beads of its own): new beads are {now}-..."
            ),
            Some(PrefixChange::Differs { ours, theirs }) => warn(
                false,
                "prefix",
                &format!(
                    "note: the imported issues use the id prefix '{theirs}', new beads get \
                     '{ours}'; `vermas config set prefix {theirs}` makes them match"
                ),
            ),
            None => {}
        }
    }
    if r.created.is_empty() && r.updated.is_empty() && r.bad.is_empty() {
        warn(
            ui.json,
            "unchanged",
            &format!("nothing changed: every issue in {shown} matches its bead already"),
        );
    }
    if r.bad.is_empty() {
        return Ok(0);
    }
    let message = format!("{bad_count} of {shown} not imported; the other issues were");
    super::output::failure(&message, "parse", ui.json);
    Ok(1)
}

/// `export bd [FILE|-]`.
pub fn export(ctx: &Ctx, ui: &mut Ui, cmd: ExportCmd) -> CmdResult {
    let ExportCmd::Bd { file, output } = cmd;
    let target = output.or(file).filter(|p| p.as_os_str() != "-");
    let ws = ctx.workspace()?;
    let exported = export::export(&ws)?;
    for e in &exported.broken {
        if ui.json {
            eprintln!("{}", json!({"warning": e.to_string(), "code": e.code()}));
        } else {
            diagnostic("warning", e);
        }
    }
    match &target {
        None => ui.stream(|out| exported.write_to(&ws, out))?,
        Some(path) => {
            let mut unread = None;
            let written = export::write_file(path, |out| {
                exported.write_to(&ws, out).unwrap_or_else(|e| {
                    unread = Some(e);
                    Err(std::io::Error::other("a bead could not be read"))
                })
            });
            if let Some(e) = unread {
                return Err(e);
            }
            written?;
            if ui.json {
                ui.json(&versioned(json!({
                    "file": path.display().to_string(),
                    "exported": exported.count,
                })));
            } else {
                let n = counted(exported.count, "bead", "beads");
                outln!(ui, "Exported {n} to {}", path.display());
            }
        }
    }
    if exported.broken.is_empty() {
        return Ok(0);
    }
    let n = counted(exported.broken.len(), "bead file", "bead files");
    let message = format!("{n} could not be read and are not in the export");
    super::output::failure(&message, "parse", ui.json);
    Ok(1)
}
