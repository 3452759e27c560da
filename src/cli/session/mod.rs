//! Handlers of `start`, `stop` and the hidden `status-line`: call `crate::session` and
//! say what was opened, found, attached or stopped.

pub(super) mod args;

use super::output::versioned;
use super::session::args::StartArgs;
use super::ui::{Ui, outln};
use super::{CmdResult, Ctx};
use crate::session::{self, Opened, Plan, status_line::Figures};
use serde_json::json;
use std::io::IsTerminal;
use vermas_core::error::Error;

/// `start [--attach | --detach]`.
pub fn start(ctx: &Ctx, ui: &mut Ui, a: &StartArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    session::check_installed()?;
    let inside = session::inside_tmux();
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if a.attach && !inside && !terminal {
        return Err(Error::invalid_with_help(
            "--attach needs a terminal to attach in (stdin or stdout is not one)",
            "run it from a terminal, or drop --attach: `vermas start` prints the attach command",
        ));
    }
    let exe = std::env::current_exe().map_err(|e| Error::io("vermas", e))?;
    let plan = session::plan(&ws, &exe);
    let size = if terminal { terminal_size() } else { None };
    let opened = session::open(&plan, inside, size)?;
    // Scripts asking for JSON get it, not a terminal taken over, unless they asked.
    let attach = a.attach || (!a.detach && !ui.json && (inside || terminal));
    let attach_command = (!opened.inside).then(|| session::attach_command(&opened.session));
    if ui.json {
        ui.json(&versioned(json!({
            "session": opened.session,
            "window": opened.window,
            "created": opened.created,
            "inside_tmux": opened.inside,
            "attached": attach,
            "attach_command": attach_command,
            "ratio": plan.ratio,
            "panes": [plan.left, plan.right],
        })));
    } else {
        outln!(ui, "{}", opened_line(&plan, &opened));
        if let Some(command) = attach_command.as_deref().filter(|_| !attach) {
            outln!(ui, "Attach with: {command}");
        }
    }
    if attach {
        return session::attach(&opened);
    }
    Ok(0)
}

/// What `start` did, in one line.
fn opened_line(plan: &Plan, o: &Opened) -> String {
    let panes = format!("{} | {}", plan.left.role, plan.right.role);
    match (o.created, o.inside) {
        (true, false) => format!("Started session {} ({panes})", o.session),
        (true, true) => format!(
            "Opened window {} ({}) in session {} ({panes})",
            plan.name, o.window, o.session
        ),
        (false, false) => format!("Session {} is running already", o.session),
        (false, true) => format!(
            "Window {} ({}) in session {} is open already",
            plan.name, o.window, o.session
        ),
    }
}

/// The size of the terminal on stdout as (columns, rows without tmux's status line).
fn terminal_size() -> Option<(u16, u16)> {
    let size = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    (size.ws_col > 0 && size.ws_row > 1).then(|| (size.ws_col, size.ws_row - 1))
}

/// `stop`.
pub fn stop(ctx: &Ctx, ui: &mut Ui) -> CmdResult {
    let ws = ctx.workspace()?;
    session::check_installed()?;
    let name = session::session_name(&ws.root);
    let stopped = session::stop(&ws.root, &name)?;
    if ui.json {
        ui.json(&versioned(json!({ "stopped": stopped })));
        return Ok(0);
    }
    if stopped.is_empty() {
        outln!(
            ui,
            "No vermas session is running for {} (nothing to stop)",
            ws.root.display()
        );
    }
    for s in &stopped {
        if s.kind == "session" {
            outln!(ui, "Stopped session {}", s.session);
        } else {
            outln!(
                ui,
                "Stopped window {} ({}) in session {}",
                name,
                s.window,
                s.session
            );
        }
    }
    Ok(0)
}

/// `status-line` (hidden): the line tmux shows under the session.
pub fn status_line(ctx: &Ctx, ui: &mut Ui) -> CmdResult {
    let ws = ctx.workspace()?;
    let f = session::status_line::figures(&ws)?;
    if ui.json {
        ui.json(&versioned(f));
    } else {
        outln!(ui, "{}", status_text(&f));
    }
    Ok(0)
}

/// `mayor: 2 unread | inspector: 0 unread | pending test specs: 1 | refinery queue: 0`.
fn status_text(f: &Figures) -> String {
    format!(
        "mayor: {} unread | inspector: {} unread | pending test specs: {} | refinery queue: {}",
        f.mayor_unread, f.inspector_unread, f.pending_test_specs, f.refinery_queued
    )
}
