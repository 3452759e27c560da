//! `inspector run [--once] [--interval 5s]`: the Inspector's own loop over `inspector/`
//! mail (see [`vermas_core::mail_loop`]), one line per message it acts on.

pub(super) mod args;

use super::inspector::args::InspectorCmd;
use super::output::{outln, versioned};
use super::{CmdResult, Ctx};
use vermas_core::mail_loop::{self, Event, LoopOptions};

/// `inspector ...`.
pub fn inspector(ctx: &Ctx, cmd: InspectorCmd) -> CmdResult {
    match cmd {
        InspectorCmd::Run { once, interval } => run(ctx, LoopOptions { once, interval }),
    }
}

/// `inspector run`: exit 0, or 3 when an action failed (its message stays taken).
fn run(ctx: &Ctx, opts: LoopOptions) -> CmdResult {
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let json = ctx.json;
    if !opts.once {
        vermas_core::check::reaper::on_signal(|| eprintln!("inspector: stopped"));
        if !json {
            eprintln!(
                "inspector: reading inspector/ every {}s (Ctrl-C stops)",
                opts.interval.as_secs_f64()
            );
        }
    }
    let events = mail_loop::run(&ws, &actor, opts, |e| show(e, json))?;
    if opts.once && events.is_empty() && !json {
        outln!("nothing to do");
    }
    let failed = events
        .iter()
        .any(|e| e.outcome == mail_loop::Disposition::Failed);
    Ok(if failed { 3 } else { 0 })
}

/// One line per event: `<outcome> <message> <subject>: <note>`, or a JSON object.
fn show(e: &Event, json: bool) {
    if json {
        outln!("{}", versioned(e));
        return;
    }
    let line = format!(
        "{:<10} {} {}: {}",
        e.outcome.as_str(),
        e.message,
        e.subject,
        e.note
    );
    if matches!(
        e.outcome,
        mail_loop::Disposition::Failed | mail_loop::Disposition::Unreadable
    ) {
        eprintln!("{line}");
    } else {
        outln!("{line}");
    }
}
