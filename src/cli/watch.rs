//! `status --watch`: redraw the status every few seconds; inside tmux, split the window
//! and show the agent log (or recent `.beads` commits and failures) below. The lower pane
//! lives only as long as the watch: the watch closes it when it ends, and the pane itself
//! stops once its owner (the watch) is gone, however that went.

use super::CmdResult;
use super::specs::args::StatusArgs;
use super::ui::Ui;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use vermas_core::error::Error;
use vermas_core::verify::{self, Project};

/// How often the feed pane checks that its owner is still there.
const OWNER_POLL: Duration = Duration::from_millis(200);

/// Runs the watch loop until interrupted (or, for the feed pane, until its owner exits).
pub fn run(ui: &mut Ui, a: &StatusArgs, secs: u64) -> CmdResult {
    if a.watch == Some(0) {
        return Err(Error::invalid_with_help(
            "--watch 0: the interval must be at least 1 second",
            "give the seconds between redraws, e.g. `vermas status --watch 2`",
        ));
    }
    let exe = std::env::current_exe().map_err(|e| Error::io("vermas", e))?;
    let in_tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
    let stdout_tty = std::io::stdout().is_terminal();
    if a.tmux && !in_tmux {
        if !(std::io::stdin().is_terminal() && stdout_tty) {
            return Err(Error::invalid_with_help(
                "--tmux needs a terminal to open tmux in (stdin or stdout is not one)",
                "run it from a terminal or inside tmux, or drop --tmux for plain frames",
            ));
        }
        return start_session(&exe);
    }
    // Inside tmux the window splits when asked to, or by default when drawing on a screen.
    let _pane = if a.tmux || (in_tmux && stdout_tty) {
        Some(split_feed_pane(&exe, secs)?)
    } else {
        None
    };
    let mut frames = Frames::new(stdout_tty);
    loop {
        if !frames.draw(ui, &render(a, ui.colour)?) {
            return Ok(0);
        }
        std::thread::sleep(Duration::from_secs(secs));
    }
}

/// Starts a tmux session whose only pane runs this same command line; being inside tmux,
/// that watch splits its window itself.
fn start_session(exe: &Path) -> CmdResult {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let status = Command::new("tmux")
        .args(["new-session", "-s", "vermas-watch", "-c"])
        .arg(&cwd)
        .arg("--")
        .arg(exe)
        .args(std::env::args_os().skip(1))
        .status()
        .map_err(|e| {
            Error::Invalid(format!(
                "cannot start tmux: {e} (install tmux, or drop --tmux)"
            ))
        })?;
    Ok(status.code().unwrap_or(1))
}

/// One frame of the top pane.
fn render(a: &StatusArgs, colour: bool) -> Result<String, Error> {
    let p = super::project()?;
    let now = vermas_core::time::Timestamp::now();
    let mut screen = format!(
        "vermas status  (every {}s, Ctrl-C to stop)  {now}\n\n",
        a.watch.unwrap_or(5)
    );
    if a.verify || a.judge {
        let kinds = verify::Kinds {
            verify: a.verify,
            judge: a.judge,
        };
        let request = verify::Request {
            jobs: a.jobs,
            use_cache: !a.no_cache,
            ..verify::Request::new(verify::Selection::Named(a.specs.clone()), kinds)
        };
        let done = verify::run(&p, request, &mut ())?;
        screen.push_str(&verify::report::human(
            &done.runs,
            kinds,
            &crate::cli::style::tagger(colour),
        ));
    } else {
        let specs = verify::select(&p, &a.specs, &mut ())?;
        let s = verify::summary::summarise(p.ws.as_ref(), &specs)?;
        screen.push_str(&super::render::summary(&s, p.ws.is_some()));
    }
    Ok(screen)
}

/// Writes successive frames: on a terminal each one replaces the last; anywhere else
/// (a pipe, a file) they follow each other plainly, separated by a `---` line.
pub(super) struct Frames {
    /// Whether stdout is a terminal.
    terminal: bool,
    /// How many frames were written.
    drawn: usize,
}

impl Frames {
    /// Frames for stdout, a terminal or not.
    pub(super) fn new(terminal: bool) -> Frames {
        Frames { terminal, drawn: 0 }
    }

    /// Writes one frame through `ui`; false once its writer refused it (on stdout: the
    /// reader closed the pipe).
    pub(super) fn draw(&mut self, ui: &mut Ui, screen: &str) -> bool {
        let mut text = String::new();
        if self.terminal {
            text.push_str("\x1b[2J\x1b[H");
        } else if self.drawn > 0 {
            text.push_str("---\n");
        }
        text.push_str(screen);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        self.drawn += 1;
        ui.write_frame(text.as_bytes())
    }
}

/// The lower pane: the agent log (`watch.agent_log`) followed with `tail -F` when the file
/// exists, else recent `.beads` commits and recorded failures redrawn every `secs`; either
/// way it ends once the `owner` process (the top pane) is gone.
pub fn feed(ui: &mut Ui, p: &Project, secs: u64, owner: Option<u32>) -> CmdResult {
    let mut note = None;
    if let Some(log) = agent_log(p) {
        match Command::new("tail")
            .args(["-n", "200", "-F"])
            .arg(&log)
            .stdin(Stdio::null())
            .spawn()
        {
            Ok(child) => return follow(child, owner),
            Err(e) => note = Some(format!("(cannot run tail on {}: {e})\n\n", log.display())),
        }
    }
    let mut frames = Frames::new(std::io::stdout().is_terminal());
    loop {
        if owner.is_some_and(|pid| !alive(pid)) {
            return Ok(0);
        }
        let mut screen = note.clone().unwrap_or_default();
        screen.push_str(&commits_screen(p));
        if !frames.draw(ui, &screen) {
            return Ok(0);
        }
        if !pause(Duration::from_secs(secs), owner) {
            return Ok(0);
        }
    }
}

/// The configured agent log, when it names an existing file.
fn agent_log(p: &Project) -> Option<PathBuf> {
    let log = p.root.join(p.config.watch.agent_log.as_ref()?);
    log.is_file().then_some(log)
}

/// Waits for the `tail` child, ending it as soon as the owner is gone.
fn follow(mut child: std::process::Child, owner: Option<u32>) -> CmdResult {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status.code().unwrap_or(1)),
            Ok(None) => {}
            Err(e) => return Err(Error::io("tail", e)),
        }
        if owner.is_some_and(|pid| !alive(pid)) {
            // It may have ended already; either way the feed stops.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(0);
        }
        std::thread::sleep(OWNER_POLL);
    }
}

/// Recent `.beads` commits and the failures on record.
fn commits_screen(p: &Project) -> String {
    let mut screen = String::from("Recent .beads commits\n");
    if let Some(repo) = vermas_core::git::GitRepo::open(&p.root) {
        for c in repo.recent_commits(12, "vermas ").unwrap_or_default() {
            screen.push_str(&format!("  {} {} {}\n", &c.commit[..7], c.at, c.summary));
        }
    }
    screen.push_str("\nFailures on record\n");
    if let Some(ws) = &p.ws {
        for r in vermas_core::verify::results::load_all(ws)
            .into_iter()
            .filter(|r| r.verdict != vermas_core::verify::results::Verdict::Pass)
        {
            screen.push_str(&format!("  {} {} at {}\n", r.verdict, r.key, r.at));
        }
    }
    screen
}

/// Sleeps for `total`, checking on the owner meanwhile; false as soon as it is gone.
fn pause(total: Duration, owner: Option<u32>) -> bool {
    let until = Instant::now() + total;
    loop {
        if owner.is_some_and(|pid| !alive(pid)) {
            return false;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(OWNER_POLL));
    }
}

/// True while process `pid` exists and has not died (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // Signal 0 only checks that the process exists (EPERM: it does, owned by another user).
    let exists = rustix::process::Pid::from_raw(pid).is_some_and(|pid| {
        matches!(
            rustix::process::test_kill_process(pid),
            Ok(()) | Err(rustix::io::Errno::PERM)
        )
    });
    if !exists {
        return false;
    }
    // On Linux a dead process not yet reaped shows state Z (or X) after its name.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        !matches!(state, Some('Z' | 'X'))
    })
}

/// The lower tmux pane of a watch; dropping it closes the pane.
struct FeedPane {
    /// tmux's id of the pane (`%N`).
    id: String,
}

impl Drop for FeedPane {
    fn drop(&mut self) {
        kill_pane(&self.id);
    }
}

/// Closes tmux pane `id` (quietly: it may be gone already).
fn kill_pane(id: &str) {
    let _ = Command::new("tmux")
        .args(["kill-pane", "-t", id])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Splits the current tmux window: the lower pane runs this binary's feed
/// (`status --feed SECS --owner PID`), which tails the agent log named in config
/// (`watch.agent_log`) or shows recent `.beads` commits and failures. The pane closes when
/// the returned guard drops or when vermas ends on a termination signal.
fn split_feed_pane(exe: &Path, secs: u64) -> Result<FeedPane, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let out = Command::new("tmux")
        .args([
            "split-window",
            "-v",
            "-d",
            "-l",
            "40%",
            "-P",
            "-F",
            "#{pane_id}",
        ])
        .arg("-c")
        .arg(&cwd)
        .arg("--")
        .arg(exe)
        .args(["status", "--feed", &secs.to_string(), "--owner"])
        .arg(std::process::id().to_string())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::Invalid(format!("cannot run tmux: {e}")))?;
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || id.is_empty() {
        return Err(Error::Invalid(format!(
            "tmux split-window failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let on_exit = id.clone();
    vermas_core::proc::interrupt::on_signal(move || kill_pane(&on_exit));
    Ok(FeedPane { id })
}
