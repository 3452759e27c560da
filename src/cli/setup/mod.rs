//! Handlers of the setup commands: init, config, completions, doctor.

pub(super) mod args;

use super::output::{recorded_note, short_commit, versioned};
use super::setup::args::ConfigCmd;
use super::ui::{Ui, out, outln};
use super::{CmdResult, Ctx};
use serde_json::{Value, json};
use vermas_core::config::Config;
use vermas_core::error::Error;
use vermas_core::setup;
use vermas_core::store::Recorded;
use vermas_core::workspace::Workspace;

/// Moves an older vermas's settings from `.beads/config.yaml` to `.beads/vermas.yaml`
/// (once, one commit) and says so in one line on stderr; returns the workspace as it is
/// then. A move that fails is a warning: the settings are still read where they are.
pub(crate) fn settle_settings(ctx: &Ctx, ws: Workspace) -> Workspace {
    if ws.legacy_config.is_none() {
        return ws;
    }
    let moved = ctx
        .actor_name(&ws)
        .and_then(|actor| setup::migrate_legacy_config(&ws, &actor));
    match moved {
        Ok(Some(m)) => {
            super::warn(ctx.json, "migrated", &migrated_line(&m));
            Workspace::open(ws.beads_dir.clone()).unwrap_or(ws)
        }
        Ok(None) => ws,
        Err(e) => {
            let msg = format!(
                "warning: could not move vermas's settings out of {}: {e}; they are read \
                 from there until they move",
                ws.display(&ws.shared_config_path())
            );
            super::warn(ctx.json, "migration_failed", &msg);
            ws
        }
    }
}

/// The one line telling a person the settings moved.
fn migrated_line(m: &setup::Migration) -> String {
    let how = match &m.recorded {
        Recorded::Commit(_) => format!(" [{}]", short_commit(&m.recorded).unwrap_or("")),
        Recorded::Disabled => " (git.commit is false: not committed)".to_string(),
        Recorded::NotARepository => " (not inside a git repository: not recorded)".to_string(),
        Recorded::Unchanged => String::new(),
    };
    format!(
        "moved vermas's settings from {} to {}: {} is bd's file{how}",
        m.from, m.to, m.from
    )
}

/// `init`.
pub fn init(
    ctx: &Ctx,
    ui: &mut Ui,
    prefix: Option<&str>,
    hooks: bool,
    roles: Option<vermas_core::roles::Existing>,
    workspaces: bool,
) -> CmdResult {
    // With --hooks, a missing git repository is refused before anything is written.
    let repo = hooks.then(super::githooks::git_repo).transpose()?;
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let report = setup::init(&cwd, prefix, ctx.actor.as_deref(), roles, workspaces)?;
    let base = report.beads_dir.parent().map(std::path::Path::to_path_buf);
    let shown = |p: &std::path::Path| {
        base.as_deref()
            .and_then(|b| p.strip_prefix(b).ok())
            .unwrap_or(p)
            .display()
            .to_string()
    };
    if let Some(m) = &report.migrated {
        super::warn(ui.json, "migrated", &migrated_line(m));
    }
    recorded_note(&report.recorded);
    let installed = repo
        .map(|r| super::githooks::install(&r, "pre-push"))
        .transpose()?;
    if ui.json {
        let mut v = json!({
            "beads_dir": report.beads_dir,
            "prefix": report.prefix,
            "written": report.written,
            "commit": short_commit(&report.recorded),
        });
        if roles.is_some() {
            v["roles"] = report
                .roles
                .iter()
                .map(|f| json!({"role": f.role, "path": shown(&f.path), "written": f.written}))
                .collect();
        }
        if !report.workspaces.is_empty() {
            v["workspaces"] = report
                .workspaces
                .iter()
                .map(|w| {
                    json!({
                        "role": w.role,
                        "dir": shown(&w.dir),
                        "written": w.written.iter().map(|p| shown(p)).collect::<Vec<_>>(),
                        "kept": w.kept.iter().map(|p| shown(p)).collect::<Vec<_>>(),
                    })
                })
                .collect();
        }
        if let Some(i) = &installed {
            v["hook"] = super::githooks::installed_json(i);
        }
        ui.json(&versioned(v));
    } else if report.written.is_empty() {
        outln!(
            ui,
            "{} is already set up (prefix {})",
            report.beads_dir.display(),
            report.prefix
        );
    } else {
        outln!(
            ui,
            "Initialised {} (prefix {})",
            report.beads_dir.display(),
            report.prefix
        );
        for w in &report.written {
            outln!(ui, "  wrote {w}");
        }
        match short_commit(&report.recorded) {
            Some(c) => outln!(ui, "  committed them as {c} (`git log` is the audit trail)"),
            None => outln!(ui, "  not committed (see above)"),
        }
        outln!(
            ui,
            "Next: track work with `vermas create \"TITLE\"`, or write a live spec \
             (specs/NAME.md, a \"Success Criteria\" section with [verify](tests/x.sh#fn) \
             links) and run `vermas status --verify`"
        );
    }
    if !ui.json {
        for f in report.roles.iter().filter(|f| !f.written) {
            outln!(
                ui,
                "  kept {} (it exists; --force writes over it)",
                shown(&f.path)
            );
        }
        for p in report.workspaces.iter().flat_map(|w| &w.kept) {
            outln!(
                ui,
                "  kept {} (it was changed; --force writes over it)",
                shown(p)
            );
        }
    }
    if !ui.json {
        for line in installed.iter().flat_map(super::githooks::installed_lines) {
            outln!(ui, "{line}");
        }
    }
    Ok(0)
}

/// `config get|set|list`.
pub fn config(ctx: &Ctx, ui: &mut Ui, cmd: ConfigCmd) -> CmdResult {
    let ws = ctx.workspace()?;
    match cmd {
        ConfigCmd::Get { key } => {
            let value = ws.config.get(&key)?;
            if ui.json {
                ui.json(&versioned(json!({"key": key, "value": value})));
            } else {
                outln!(ui, "{}", plain(&value));
            }
        }
        ConfigCmd::Set { key, value } => {
            // set_config checks the identity against the new settings (git.author may be
            // what is being set).
            let (config, recorded) = setup::set_config(&ws, &key, &value, &ctx.actor_name(&ws)?)?;
            config_changed(ui, &key, &config, &recorded)?;
        }
        ConfigCmd::Unset { key } => {
            let (config, recorded) = setup::unset_config(&ws, &key, &ctx.actor_name(&ws)?)?;
            config_changed(ui, &key, &config, &recorded)?;
        }
        ConfigCmd::List => {
            if ui.json {
                ui.json(&versioned(&ws.config));
            } else {
                out!(ui, "{}", ws.config.render());
            }
        }
    }
    Ok(0)
}

/// Reports a config change: the key's value now, or "nothing changed" on stderr.
fn config_changed(ui: &mut Ui, key: &str, config: &Config, recorded: &Recorded) -> CmdResult {
    if *recorded == Recorded::Unchanged {
        let msg = format!("nothing changed: {key} already as asked");
        super::warn(ui.json, "unchanged", &msg);
        if !ui.json {
            return Ok(0);
        }
    } else {
        recorded_note(recorded);
    }
    // A removed map entry (`llm.roles.judge`) has no value left: null.
    let value = config.get(key).unwrap_or(Value::Null);
    if ui.json {
        ui.json(&versioned(json!({"key": key, "value": value})));
    } else {
        outln!(ui, "{key} = {}", plain(&value));
    }
    Ok(0)
}

/// A config value as a person types it: strings bare, everything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `completions SHELL`: the shell's registration of vermas's dynamic completion (bead
/// ids, statuses, types, specs and formulas are asked of vermas as you type).
pub fn completions(ui: &mut Ui, shell: clap_complete::Shell) -> CmdResult {
    let name = shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let completer = shells
        .completer(&name)
        .ok_or_else(|| Error::Invalid(format!("no dynamic completion for {name}")))?;
    let mut script = Vec::new();
    completer
        .write_registration("COMPLETE", "vermas", "vermas", "vermas", &mut script)
        .map_err(|e| Error::io("<completion script>", e))?;
    out!(ui, "{}", String::from_utf8_lossy(&script));
    Ok(0)
}

/// `doctor [--fix]`: with --fix, first commits the unrecorded record files.
pub fn doctor(ctx: &Ctx, ui: &mut Ui, fix: bool) -> CmdResult {
    let ws = ctx.workspace()?;
    if fix {
        let actor = ctx.actor(&ws)?;
        let (paths, recorded) = setup::commit_unrecorded(&ws, &actor)?;
        match (short_commit(&recorded), &recorded) {
            (Some(commit), _) => {
                for p in &paths {
                    eprintln!("committed {p} ({commit})");
                }
            }
            (None, Recorded::Unchanged) => eprintln!("nothing unrecorded to commit"),
            (None, _) => recorded_note(&recorded),
        }
    }
    let findings = setup::doctor(&ws)?;
    let errors = findings.iter().filter(|f| f.level == "error").count();
    if ui.json {
        ui.json(&findings);
    } else {
        for f in &findings {
            let mark = match f.level {
                "ok" => "ok     ",
                "warning" => "warning",
                _ => "error  ",
            };
            outln!(ui, "{mark} {}", f.message);
        }
    }
    Ok(if errors > 0 { 1 } else { 0 })
}
