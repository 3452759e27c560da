//! Redrawing a view whenever the records under it change (`mail inbox --watch`,
//! `inspect pending --watch`), with the frames `status --watch` draws: on a terminal each
//! frame replaces the last (and is redrawn every minute so ages stay right); into a pipe
//! or file a new frame follows a `---` line only when something changed. Ctrl-C ends it,
//! and so does the reader of a pipe going away.

use super::ui::Ui;
use super::watch::Frames;
use super::{CmdResult, Ctx};
use crate::session::changes::Fingerprint;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use vermas_core::error::Error;

/// How often the folders are looked at.
const POLL: Duration = Duration::from_millis(250);
/// How long a frame stays on a terminal without a change.
const REFRESH: Duration = Duration::from_secs(60);

/// Refuses `--watch` together with `--json`: frames are for people.
pub(super) fn refuse_json(ctx: &Ctx, command: &str) -> Result<(), Error> {
    if ctx.json {
        return Err(Error::usage(format!(
            "`{command} --watch` redraws for people and does not combine with --json"
        ))
        .with_help(format!(
            "drop --json, or run `{command} --json` again whenever you need it"
        )));
    }
    Ok(())
}

/// Draws `render`'s screen under `title` through `ui`, again each time a file under `folders`
/// changes, until interrupted or until stdout is closed. An error on the first frame is
/// returned; later ones are shown in the frame until the files change again.
pub(super) fn on_change(
    ui: &mut Ui,
    title: &str,
    folders: &[PathBuf],
    mut render: impl FnMut() -> Result<String, Error>,
) -> CmdResult {
    let terminal = std::io::stdout().is_terminal();
    let mut frames = Frames::new(terminal);
    let mut last: Option<Fingerprint> = None;
    let mut drawn_at = Instant::now();
    loop {
        // Looked at before rendering: a change made while rendering shows next time.
        let now = Fingerprint::of(folders);
        let stale = terminal && drawn_at.elapsed() >= REFRESH;
        if last.as_ref() != Some(&now) || stale {
            let body = match render() {
                Ok(body) => body,
                Err(e) if last.is_none() => return Err(e),
                Err(e) => format!("error: {e}\n(shown again when the files change)\n"),
            };
            let at = vermas_core::time::Timestamp::now().to_string();
            let clock = at.get(11..19).unwrap_or(&at);
            let screen = format!("{title}  {clock}  (Ctrl-C stops)\n\n{body}");
            if !frames.draw(ui, &screen) {
                return Ok(0);
            }
            last = Some(now);
            drawn_at = Instant::now();
        }
        if !terminal && reader_gone() {
            return Ok(0);
        }
        std::thread::sleep(POLL);
    }
}

/// True when stdout is a pipe whose reader has gone (`... --watch | head -1`), which a
/// watch that only writes on change would otherwise notice only at the next change.
fn reader_gone() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).is_ok_and(|ready| ready > 0)
        && fds[0].revents().contains(PollFlags::ERR)
}
