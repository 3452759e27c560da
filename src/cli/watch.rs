//! `status --watch`: redraw the status every few seconds; inside tmux, split the window
//! and show the agent log (or recent `.beads` commits and failures) below.

use super::args::StatusArgs;
use super::specs::{project, render_summary};
use super::{Ctx, Outcome};
use crate::error::Error;
use std::io::Write;
use std::time::Duration;

/// Runs the watch loop until interrupted (or, for the feed pane, until its owner exits).
pub fn run(ctx: &Ctx, a: &StatusArgs, secs: u64) -> Outcome {
    let exe = std::env::current_exe().map_err(|e| Error::io("vermas", e))?;
    let in_tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
    if a.tmux && !in_tmux {
        // Start a tmux session whose first pane is this same watch; it splits itself.
        let status = std::process::Command::new("tmux")
            .args(["new-session", "-s", "vermas-watch"])
            .arg(format!(
                "{} status --watch {secs} --tmux",
                shell_quote(&exe.to_string_lossy())
            ))
            .status()
            .map_err(|e| {
                Error::Invalid(format!(
                    "cannot start tmux: {e} (install tmux, or drop --tmux)"
                ))
            })?;
        return Ok(status.code().unwrap_or(1));
    }
    if (in_tmux || a.tmux) && std::env::var_os("VERMAS_WATCH_FEED").is_none() {
        split_feed_pane(&exe, secs)?;
    }
    loop {
        let screen = render(ctx, a)?;
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "\x1b[2J\x1b[H{screen}");
        let _ = out.flush();
        drop(out);
        std::thread::sleep(Duration::from_secs(secs));
    }
}

/// One frame of the top pane.
fn render(ctx: &Ctx, a: &StatusArgs) -> Result<String, Error> {
    let p = project()?;
    let specs = crate::spec::select(
        crate::spec::discover(&p.root, &p.config.specs.dir)?,
        &a.specs,
    )?;
    let now = crate::time::Timestamp::now();
    let mut screen = format!(
        "vermas status  (every {}s, Ctrl-C to stop)  {now}\n\n",
        a.watch.unwrap_or(5)
    );
    if a.verify || a.judge {
        let kinds = crate::live::Kinds {
            verify: a.verify,
            judge: a.judge,
        };
        let settings = crate::live::RunSettings {
            kinds,
            jobs: a
                .jobs
                .or(p.config.verify.jobs)
                .unwrap_or_else(crate::check::default_jobs),
            verify: crate::check::VerifySettings::from_config(&p.config),
            judge: crate::judge::JudgeSettings::from_config(&p.config, p.cache_dir(), !a.no_cache),
        };
        let runs = crate::live::run(&p.root, &specs, &settings, |_, _| {});
        screen.push_str(&crate::report::human(&runs, kinds, super::specs::colour()));
    } else {
        let s = crate::summary::summarise(p.ws.as_ref(), &specs)?;
        screen.push_str(&render_summary(&s, p.ws.is_some()));
    }
    let _ = ctx;
    Ok(screen)
}

/// The lower pane: recent `.beads` commits and recorded failures, redrawn every `secs`
/// until the `owner` process (the top pane) is gone.
pub fn feed(p: &super::specs::Project, secs: u64, owner: Option<u32>) -> Outcome {
    loop {
        if let Some(pid) = owner
            && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            return Ok(0);
        }
        let mut screen = String::from("Recent .beads commits\n");
        if let Some(repo) = crate::git::GitRepo::open(&p.root) {
            for c in repo.recent_commits(12, "vermas ").unwrap_or_default() {
                screen.push_str(&format!("  {} {} {}\n", &c.commit[..7], c.at, c.summary));
            }
        }
        screen.push_str("\nFailures on record\n");
        if let Some(ws) = &p.ws {
            for r in crate::results::load_all(ws)
                .into_iter()
                .filter(|r| r.verdict != "PASS")
            {
                screen.push_str(&format!("  {} {} at {}\n", r.verdict, r.key, r.at));
            }
        }
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "\x1b[2J\x1b[H{screen}");
        let _ = out.flush();
        drop(out);
        std::thread::sleep(Duration::from_secs(secs));
    }
}

/// Splits the current tmux window: the lower pane tails the agent log named in config
/// (`watch.agent_log`) when it exists, else shows recent `.beads` commits and failures.
fn split_feed_pane(exe: &std::path::Path, secs: u64) -> Result<(), Error> {
    let p = project()?;
    let log = p
        .config
        .watch
        .agent_log
        .as_ref()
        .map(|l| p.root.join(l))
        .filter(|l| l.is_file())
        .map(|l| l.to_string_lossy().into_owned());
    let command = match log {
        Some(l) => format!("tail -n 200 -F {}", shell_quote(&l)),
        None => format!(
            "VERMAS_WATCH_FEED=1 exec {} status --feed {secs} --owner {}",
            shell_quote(&exe.to_string_lossy()),
            std::process::id()
        ),
    };
    let ok = std::process::Command::new("tmux")
        .args(["split-window", "-v", "-d", "-l", "40%", &command])
        .status()
        .map_err(|e| Error::Invalid(format!("cannot run tmux: {e}")))?
        .success();
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid("tmux split-window failed".into()))
    }
}

/// Quotes a word for `sh`.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
