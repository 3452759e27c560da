//! `status --watch` (DESIGN 6 "sessions"; issue 3): inside a real tmux server it splits the
//! window (status on top, recent `.beads` commits or the agent log below) and redraws as
//! beads change; outside tmux it redraws in place. Each tmux test runs its own server
//! (`TMUX_TMPDIR` in a temporary folder), killed at the end even when the test fails.

mod common;
mod live_support;

use common::*;
use live_support::*;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// True when tmux can be run here; otherwise prints why the test is skipped.
fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: tmux is not installed; skipping this tmux test");
    }
    ok
}

/// A private tmux server with one session, killed on drop.
struct Tmux {
    dir: tempfile::TempDir,
    session: String,
}

impl Tmux {
    /// Starts a detached 160x50 session in `repo` running `command` (a shell command line).
    fn start(repo: &Repo, command: &str) -> Tmux {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let t = Tmux {
            dir: tempfile::Builder::new()
                .prefix("vermas-tmux")
                .tempdir()
                .expect("tempdir"),
            session: format!(
                "vermas-test-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ),
        };
        let root = repo.path().display().to_string();
        let out = t.tmux(&[
            "new-session",
            "-d",
            "-s",
            &t.session,
            "-x",
            "160",
            "-y",
            "50",
            "-c",
            &root,
            command,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    /// Runs `tmux ARGS` against this server. The server inherits this environment when it
    /// starts: the repository's test identity, no colour, no outer tmux.
    fn tmux(&self, args: &[&str]) -> Output {
        let mut c = Command::new("tmux");
        c.arg("-f")
            .arg("/dev/null")
            .args(args)
            .env("TMUX_TMPDIR", self.dir.path());
        for var in LEAKY_ENV {
            c.env_remove(var);
        }
        c.env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run tmux")
    }

    /// The number of panes in the session's first window.
    fn panes(&self) -> usize {
        let out = self.tmux(&[
            "list-panes",
            "-t",
            &format!("{}:0", self.session),
            "-F",
            "#{pane_index}",
        ]);
        String::from_utf8_lossy(&out.stdout).lines().count()
    }

    /// What pane `index` of the first window shows now.
    fn capture(&self, index: usize) -> String {
        let out = self.tmux(&[
            "capture-pane",
            "-p",
            "-t",
            &format!("{}:0.{index}", self.session),
        ]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls pane `index` until `want` holds of its text, up to `within`; panics showing
    /// both panes otherwise.
    fn wait_for(
        &self,
        index: usize,
        within: Duration,
        what: &str,
        want: impl Fn(&str) -> bool,
    ) -> String {
        let until = Instant::now() + within;
        loop {
            let text = self.capture(index);
            if want(&text) {
                return text;
            }
            if Instant::now() > until {
                panic!(
                    "pane {index} never showed {what} within {within:?}\n--- pane 0:\n{}\n--- pane 1:\n{}",
                    self.capture(0),
                    self.capture(1)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the window has `n` panes.
    fn wait_panes(&self, n: usize, within: Duration) {
        let until = Instant::now() + within;
        while self.panes() != n {
            assert!(
                Instant::now() < until,
                "the window never had {n} panes (has {}):\n{}",
                self.panes(),
                self.capture(0)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// The shell command a pane runs: `vermas status --watch 1` with the test identity, then
/// (should vermas ever exit) its exit code kept on screen for the failure message.
fn watch_command(repo: &Repo) -> String {
    format!(
        "HOME='{}' '{}' status --watch 1; echo \"vermas exited with $?\"; sleep 600",
        repo.path().display(),
        vermas_bin().display()
    )
}

/// The `Ready: N` line of a status screen.
fn ready_line(screen: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.starts_with("Ready: "))
        .map(|l| l.trim().to_string())
}

#[test]
fn watch_in_tmux_splits_the_window_and_follows_changes() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.create("Already here", &[]);
    let tmux = Tmux::start(&repo, &watch_command(&repo));
    tmux.wait_panes(2, Duration::from_secs(15));

    let top = tmux.wait_for(0, Duration::from_secs(10), "the status summary", |s| {
        s.contains("Ready:")
    });
    assert!(top.contains("vermas status"), "{top}");
    assert!(top.contains("Beads: 1"), "{top}");
    assert_eq!(ready_line(&top).as_deref(), Some("Ready: 1"), "{top}");

    let feed = tmux.wait_for(1, Duration::from_secs(10), "the commit feed", |s| {
        s.contains("Recent .beads commits") && s.contains("vermas create:")
    });
    assert!(feed.contains("Already here"), "{feed}");
    assert!(feed.contains("vermas init:"), "{feed}");

    // A new bead shows up in both panes within a few seconds.
    let id = repo.create("Watch me appear", &[]);
    let top = tmux.wait_for(0, Duration::from_secs(8), "the new ready count", |s| {
        ready_line(s).as_deref() == Some("Ready: 2")
    });
    assert!(top.contains("Beads: 2"), "{top}");
    tmux.wait_for(1, Duration::from_secs(8), "the new commit", |s| {
        s.contains(&id) && s.contains("Watch me appear")
    });
    // And a closed one.
    repo.ok(&["close", &id, "-r", "seen"]);
    tmux.wait_for(0, Duration::from_secs(8), "the closed bead", |s| {
        s.contains("(50% done)") && ready_line(s).as_deref() == Some("Ready: 1")
    });
}

#[test]
fn watch_in_tmux_tails_the_agent_log() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "watch.agent_log", "agent.log"]);
    repo.write("agent.log", "agent: starting up\n");
    let tmux = Tmux::start(&repo, &watch_command(&repo));
    tmux.wait_panes(2, Duration::from_secs(15));
    tmux.wait_for(1, Duration::from_secs(10), "the agent log", |s| {
        s.contains("agent: starting up")
    });
    let line = format!("agent: working on step {}", std::process::id());
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(repo.join("agent.log"))
            .expect("open log");
        writeln!(f, "{line}").expect("append");
    }
    tmux.wait_for(1, Duration::from_secs(8), "the appended log line", |s| {
        s.contains(&line)
    });
    let top = tmux.capture(0);
    assert!(
        top.contains("Ready:"),
        "the top pane still shows the status:\n{top}"
    );
}

#[test]
fn watch_outside_tmux_redraws_in_place() {
    let repo = Repo::initialised();
    repo.create("Something to show", &[]);
    let mut child = command(&repo, &["status", "--watch", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    std::thread::sleep(Duration::from_millis(2500));
    let still_running = child.try_wait().expect("wait").is_none();
    let _ = child.kill();
    let status = child.wait().expect("wait");
    let text = String::from_utf8_lossy(&reader.join().expect("reader")).into_owned();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    assert!(
        still_running,
        "--watch ended by itself ({status:?}):\n{text}\nstderr: {err}"
    );
    assert!(
        text.matches("Ready: 1").count() >= 2,
        "the summary is drawn at least twice in 2.5 s:\n{text}\nstderr: {err}"
    );
    assert!(text.matches("Beads: 1").count() >= 2, "{text}");
    assert!(
        !text.contains("Recent .beads commits"),
        "no feed pane outside tmux"
    );
}

#[test]
fn tmux_flag_needs_watch() {
    let repo = Repo::initialised();
    let r = run(&repo, &["status", "--tmux"]);
    r.expect_code(2);
    assert!(r.stderr.contains("--watch"), "{}", r.stderr);
}
