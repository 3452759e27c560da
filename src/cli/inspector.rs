//! `inspector run [--once] [--interval 5s]`: the Inspector's own loop over `inspector/`
//! mail (see [`crate::inspector`]), one line per message it acts on.

use super::output::{outln, versioned};
use super::{Ctx, Outcome};
use crate::inspector::{self, Event, LoopOptions};
use clap::Subcommand;
use std::time::Duration;

/// `inspector` subcommands.
#[derive(Debug, Subcommand)]
pub enum InspectorCmd {
    /// Act on `inspector/` mail: NEW SPEC NEEDED -> the strategist's proposal mailed to
    /// mayor/; MERGE REQUEST -> `refinery run --once`; RE: NEEDS_CLARIFICATION -> inspect
    /// again. Other messages stay unread. Runs until Ctrl-C unless --once.
    Run {
        /// One pass over the mailbox, then exit.
        #[arg(long)]
        once: bool,
        /// The wait between passes, e.g. 5s, 1m.
        #[arg(long, default_value = "5s", value_parser = interval)]
        interval: Duration,
    },
}

/// Parses `--interval`: a duration above zero.
fn interval(text: &str) -> Result<Duration, String> {
    let d = crate::duration::parse_duration(text)?;
    if d.is_zero() {
        return Err("the interval must be above zero".into());
    }
    Ok(d)
}

/// `inspector ...`.
pub fn inspector(ctx: &Ctx, cmd: InspectorCmd) -> Outcome {
    match cmd {
        InspectorCmd::Run { once, interval } => run(ctx, LoopOptions { once, interval }),
    }
}

/// `inspector run`: exit 0, or 3 when an action failed (its message stays taken).
fn run(ctx: &Ctx, opts: LoopOptions) -> Outcome {
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let json = ctx.json;
    if !opts.once {
        crate::check::reaper::on_signal(|| eprintln!("inspector: stopped"));
        if !json {
            eprintln!(
                "inspector: reading inspector/ every {}s (Ctrl-C stops)",
                opts.interval.as_secs_f64()
            );
        }
    }
    let events = inspector::run(&ws, &actor, opts, |e| show(e, json))?;
    if opts.once && events.is_empty() && !json {
        outln!("nothing to do");
    }
    let failed = events
        .iter()
        .any(|e| e.outcome == inspector::Outcome::Failed);
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
        inspector::Outcome::Failed | inspector::Outcome::Unreadable
    ) {
        eprintln!("{line}");
    } else {
        outln!("{line}");
    }
}
