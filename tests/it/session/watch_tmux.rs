//! `status --watch` (issue 3): inside a real tmux server it splits the
//! window (status on top, recent `.beads` commits or the agent log below) and redraws as
//! beads change; the lower pane closes with the watch, however it ends. Each tmux test runs
//! its own server (`TMUX_TMPDIR` in a temporary folder), killed at the end even when the test
//! fails. The watch outside tmux is tested in `watch_plain.rs`.

use crate::common::*;
use crate::session::support::{have_tmux, tmux_command};
use crate::specs::support::*;
use std::process::Output;
use std::time::{Duration, Instant};

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
        tmux_command(self.dir.path())
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Runs `tmux ARGS` and asserts it succeeded.
    fn ok(&self, args: &[&str]) {
        let out = self.tmux(args);
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
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

    /// The id (`%N`) and process id of each pane of the session's first window, top first.
    fn pane_ids(&self) -> Vec<(String, i32)> {
        let out = self.tmux(&[
            "list-panes",
            "-t",
            &format!("{}:0", self.session),
            "-F",
            "#{pane_id} #{pane_pid}",
        ]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (id, pid) = l.split_once(' ')?;
                Some((id.to_string(), pid.parse().ok()?))
            })
            .collect()
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
    watch_command_with(repo, "")
}

/// `watch_command` with `more` (further arguments, redirections) after `--watch 1`.
fn watch_command_with(repo: &Repo, more: &str) -> String {
    format!(
        "HOME='{}' '{}' status --watch 1{more}; echo \"vermas exited with $?\"; sleep 600",
        repo.path().display(),
        vermas_bin().display()
    )
}

/// Waits until `frames.txt` in `repo` holds at least two frames; returns its text.
fn two_frames_in_file(repo: &Repo) -> String {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(repo.join("frames.txt")).unwrap_or_default();
        if text.contains("\n---\n") {
            return text;
        }
        let err = std::fs::read_to_string(repo.join("err.txt")).unwrap_or_default();
        assert!(
            Instant::now() < until,
            "two frames in frames.txt: {text:?}\nstderr: {err}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The command line of process `pid`, one string per argument.
fn cmdline(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
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

/// Pids of `tail` processes following the agent log of `repo`.
fn tails_of(repo: &Repo) -> Vec<i32> {
    let marker = repo
        .path()
        .file_name()
        .expect("temp name")
        .to_string_lossy()
        .into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let argv = cmdline(pid);
        let is_tail = argv
            .first()
            .is_some_and(|a| a == "tail" || a.ends_with("/tail"));
        let follows = argv
            .iter()
            .any(|a| a.contains(&marker) && a.ends_with("agent.log"));
        if is_tail && follows && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// The `--owner` pid on a feed pane's command line (the watch in the top pane).
fn owner_of_feed(feed_pid: i32) -> i32 {
    let argv = cmdline(feed_pid);
    let at = argv
        .iter()
        .position(|a| a == "--owner")
        .unwrap_or_else(|| panic!("no --owner in the feed pane's command: {argv:?}"));
    argv[at + 1].parse().expect("owner pid")
}

/// Starts a watch in tmux with `watch.agent_log` set, waits for the log in the lower pane,
/// ends the watch with `end` and asserts the lower pane and its `tail` are gone within a
/// few seconds.
fn assert_feed_closes_when_the_watch_ends(end: impl FnOnce(&Tmux, i32)) {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "watch.agent_log", "agent.log"]);
    repo.write("agent.log", "agent: starting up\n");
    let tmux = Tmux::start(&repo, &watch_command(&repo));
    tmux.wait_panes(2, Duration::from_secs(15));
    tmux.wait_for(1, Duration::from_secs(10), "the agent log", |s| {
        s.contains("agent: starting up")
    });
    tmux.wait_for(0, Duration::from_secs(10), "the status", |s| {
        s.contains("Ready:")
    });
    let panes = tmux.pane_ids();
    assert_eq!(panes.len(), 2, "{panes:?}");
    let (feed_id, feed_pid) = panes[1].clone();
    let watch_pid = owner_of_feed(feed_pid);
    assert!(alive(watch_pid), "the watch {watch_pid} runs");
    assert_eq!(tails_of(&repo).len(), 1, "one tail follows the log");

    end(&tmux, watch_pid);

    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let panes = tmux.pane_ids();
        let feed_open = panes.iter().any(|(id, _)| *id == feed_id);
        let tails = tails_of(&repo);
        if !feed_open && tails.is_empty() {
            break;
        }
        if Instant::now() > until {
            kill_all(&tails);
            panic!(
                "5 s after the watch ended: panes {panes:?} (feed {feed_id}), tails {tails:?}\n--- pane 0:\n{}",
                tmux.capture(0)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        tmux.pane_ids().len() <= 1,
        "at most the top pane is left: {:?}",
        tmux.pane_ids()
    );
    assert!(
        wait_gone(&[feed_pid, watch_pid], Duration::from_secs(3)).is_empty(),
        "neither the watch nor its feed is still running"
    );
}

#[test]
fn feed_pane_closes_on_ctrl_c_in_the_watch() {
    if !have_tmux() {
        return;
    }
    assert_feed_closes_when_the_watch_ends(|tmux, _| {
        tmux.ok(&["send-keys", "-t", &format!("{}:0.0", tmux.session), "C-c"]);
    });
}

#[test]
fn feed_pane_closes_on_sigterm_of_the_watch() {
    if !have_tmux() {
        return;
    }
    // SAFETY: kill only sends a signal, to the watch this test started.
    assert_feed_closes_when_the_watch_ends(|_, pid| unsafe {
        libc::kill(pid, libc::SIGTERM);
    });
}

#[test]
fn feed_pane_closes_when_the_watch_is_killed_outright() {
    if !have_tmux() {
        return;
    }
    // SIGKILL leaves the watch no chance to clean up: the feed notices its owner is gone.
    assert_feed_closes_when_the_watch_ends(|_, pid| kill_all(&[pid]));
}

#[test]
fn feed_pane_closes_when_the_watch_pane_is_closed() {
    if !have_tmux() {
        return;
    }
    // Closing the top pane hangs up on the watch (SIGHUP).
    assert_feed_closes_when_the_watch_ends(|tmux, _| {
        tmux.ok(&["kill-pane", "-t", &format!("{}:0.0", tmux.session)]);
    });
}

#[test]
fn tmux_flag_inside_tmux_splits_without_a_terminal_on_stdin_or_stdout() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.create("Already here", &[]);
    let command = watch_command_with(&repo, " --tmux </dev/null >frames.txt 2>err.txt");
    let tmux = Tmux::start(&repo, &command);
    tmux.wait_panes(2, Duration::from_secs(15));
    tmux.wait_for(1, Duration::from_secs(10), "the commit feed", |s| {
        s.contains("Recent .beads commits") && s.contains("Already here")
    });
    let frames = two_frames_in_file(&repo);
    assert!(frames.contains("Ready: 1"), "{frames}");
    assert!(
        !frames.contains('\x1b'),
        "no escapes into a file: {frames:?}"
    );
}

#[test]
fn watch_inside_tmux_with_piped_stdout_does_not_split() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let tmux = Tmux::start(&repo, &watch_command_with(&repo, " >frames.txt 2>err.txt"));
    two_frames_in_file(&repo);
    assert_eq!(
        tmux.panes(),
        1,
        "no feed pane for a watch writing to a file"
    );
}
