//! `inspect loop [--once] [--interval 5s]` (once `inspector run`, still understood): the
//! Inspector's own loop over `inspector/` mail (see [`vermas_core::mail_loop`]), one line
//! per message it acts on.

use super::loop_args::LoopArgs;
use crate::cli::output::versioned;
use crate::cli::ui::{Ui, outln};
use crate::cli::{CmdResult, Ctx};
use vermas_core::mail_loop::{self, Event, LoopOptions};

/// `inspect loop`: exit 0, or 3 when an action failed (its message stays taken).
pub fn run(ctx: &Ctx, ui: &mut Ui, args: LoopArgs) -> CmdResult {
    let opts = LoopOptions {
        once: args.once,
        interval: args.interval,
    };
    let ws = ctx.workspace()?;
    let actor = ctx.actor(&ws)?;
    let json = ui.json;
    if !opts.once {
        vermas_core::proc::interrupt::on_signal(|| eprintln!("inspector: stopped"));
        if !json {
            eprintln!(
                "inspector: reading inspector/ every {}s (Ctrl-C stops)",
                opts.interval.as_secs_f64()
            );
        }
    }
    let events = mail_loop::run(&ws, &actor, opts, |e| show(ui, e))?;
    if opts.once && events.is_empty() && !json {
        outln!(ui, "nothing to do");
    }
    let failed = events
        .iter()
        .any(|e| e.outcome == mail_loop::Disposition::Failed);
    Ok(if failed { 3 } else { 0 })
}

/// One line per event: `<outcome> <message> <subject>: <note>`, or a JSON object.
fn show(ui: &mut Ui, e: &Event) {
    if ui.json {
        outln!(ui, "{}", versioned(e));
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
        outln!(ui, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ui::Captured;
    use mail_loop::Disposition;

    fn event(outcome: Disposition) -> Event {
        Event {
            message: "msg-1".into(),
            subject: "inspect vm-7".into(),
            kind: None,
            outcome,
            note: "verified".into(),
        }
    }

    #[test]
    fn an_event_is_one_aligned_line_for_people() {
        let (mut ui, captured) = Captured::ui(false);
        show(&mut ui, &event(Disposition::Done));
        assert_eq!(captured.text(), "done       msg-1 inspect vm-7: verified\n");
    }

    #[test]
    fn an_event_is_one_json_object_per_line_for_scripts() {
        let (mut ui, captured) = Captured::ui(true);
        show(&mut ui, &event(Disposition::Done));
        show(&mut ui, &event(Disposition::Refused));
        let text = captured.text();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
            .collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0]["message"], "msg-1");
        assert_eq!(lines[0]["schema_version"], 1);
        assert_eq!(lines[1]["note"], "verified");
    }

    #[test]
    fn a_failed_event_goes_to_stderr_not_to_the_output() {
        let (mut ui, captured) = Captured::ui(false);
        show(&mut ui, &event(Disposition::Failed));
        assert_eq!(captured.text(), "");
    }
}
