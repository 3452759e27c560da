//! Helpers of the session tests: a tmux server of each test's own, vermas on a
//! pseudo-terminal, and a watch read through a pipe.
#![allow(dead_code)]

pub use crate::common::pty::Terminal;
use crate::common::*;
use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// True when tmux can be run here; otherwise prints why the test is skipped.
pub fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: tmux is not installed; skipping this tmux test");
    }
    ok
}

/// `tmux` against the server whose sockets are in `sockets`, in a clean environment: none
/// of the caller's git or vermas variables, no outer tmux, no colour, no system git config.
pub fn tmux_command(sockets: &std::path::Path) -> Command {
    let mut c = Command::new("tmux");
    c.env("TMUX_TMPDIR", sockets);
    for var in LEAKY_ENV {
        c.env_remove(var);
    }
    c.env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null());
    c
}

/// A tmux server of the test's own, killed on drop.
pub struct Server {
    pub dir: tempfile::TempDir,
}

impl Server {
    /// A fresh socket folder; the server starts with the first session made in it.
    pub fn new() -> Server {
        Server {
            dir: tempfile::Builder::new()
                .prefix("vermas-tmux")
                .tempdir()
                .expect("tempdir"),
        }
    }

    /// `tmux ARGS` against this server, with the repository's clean environment.
    pub fn tmux(&self, repo: &Repo, args: &[&str]) -> Output {
        tmux_command(self.dir.path())
            .args(args)
            .current_dir(repo.path())
            .env("HOME", repo.path())
            .output()
            .expect("run tmux")
    }

    /// `tmux ARGS`, asserted to succeed; its stdout.
    pub fn ok(&self, repo: &Repo, args: &[&str]) -> String {
        let out = self.tmux(repo, args);
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    }

    /// `vermas ARGS` in `repo`, talking to this server (stdin is not a terminal).
    pub fn vermas(&self, repo: &Repo, args: &[&str]) -> Output {
        repo.cmd(args)
            .env("TMUX_TMPDIR", self.dir.path())
            .output()
            .expect("run vermas")
    }

    /// `vermas ARGS`, asserted to succeed; its stdout.
    pub fn vermas_ok(&self, repo: &Repo, args: &[&str]) -> String {
        let out = self.vermas(repo, args);
        assert!(
            out.status.success(),
            "vermas {args:?} failed ({:?}):\nstdout: {}\nstderr: {}",
            out.status.code(),
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    /// The socket the server listens on.
    pub fn socket(&self) -> String {
        // SAFETY: getuid has no preconditions.
        let uid = unsafe { libc::getuid() };
        format!("{}/tmux-{uid}/default", self.dir.path().display())
    }

    /// Every session's name.
    pub fn sessions(&self, repo: &Repo) -> Vec<String> {
        let out = self.tmux(repo, &["list-sessions", "-F", "#{session_name}"]);
        stdout(&out).lines().map(str::to_string).collect()
    }

    /// The panes of window `target`, left to right.
    pub fn panes(&self, repo: &Repo, target: &str) -> Vec<PaneInfo> {
        let format = "#{pane_left}\t#{pane_width}\t#{window_width}\t#{pane_current_command}\t#{pane_start_command}\t#{@vermas-role}";
        let text = self.ok(repo, &["list-panes", "-t", target, "-F", format]);
        let mut panes: Vec<PaneInfo> = text
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                PaneInfo {
                    left: f[0].parse().expect("left"),
                    width: f[1].parse().expect("width"),
                    window_width: f[2].parse().expect("window width"),
                    current: f[3].to_string(),
                    start: f[4].to_string(),
                    role: f[5].to_string(),
                }
            })
            .collect();
        panes.sort_by_key(|p| p.left);
        panes
    }

    /// Waits until both panes of `target` run vermas (their watches started; a pane
    /// whose watch an agent follows shows its shell instead).
    pub fn wait_running(&self, repo: &Repo, target: &str) -> Vec<PaneInfo> {
        let until = Instant::now() + Duration::from_secs(15);
        loop {
            let panes = self.panes(repo, target);
            let running = |p: &PaneInfo| p.current == "vermas" || p.start.contains("; ");
            if panes.len() == 2 && panes.iter().all(running) {
                return panes;
            }
            assert!(
                Instant::now() < until,
                "the panes never both ran vermas: {panes:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Polls what pane `target` shows until `want` holds, up to 15 s.
    pub fn wait_for_text(&self, repo: &Repo, target: &str, want: &str) -> String {
        let until = Instant::now() + Duration::from_secs(15);
        loop {
            let text = self.ok(repo, &["capture-pane", "-p", "-J", "-t", target]);
            if text.contains(want) {
                return text;
            }
            assert!(
                Instant::now() < until,
                "pane {target} never showed {want:?}:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("kill-server")
            .env("TMUX_TMPDIR", self.dir.path())
            .env_remove("TMUX")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// One pane as tmux lists it.
#[derive(Debug, Clone)]
pub struct PaneInfo {
    pub left: u32,
    pub width: u32,
    pub window_width: u32,
    pub current: String,
    pub start: String,
    pub role: String,
}

/// `vermas-<folder name>`: the session a repository gets.
pub fn session_of(repo: &Repo) -> String {
    format!(
        "vermas-{}",
        repo.path()
            .file_name()
            .expect("name")
            .to_string_lossy()
            .replace('.', "_")
    )
}

/// `vermas ARGS` in `repo` on a new 100x30 pseudo-terminal, talking to `server`.
pub fn terminal(server: &Server, repo: &Repo, args: &[&str]) -> Terminal {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vermas"));
    cmd.current_dir(repo.path()).args(args);
    for var in LEAKY_ENV {
        cmd.env_remove(var);
    }
    cmd.env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env("TERM", "xterm")
        .env("TMUX_TMPDIR", server.dir.path());
    Terminal::spawn(cmd)
}

/// Waits until a tmux client is attached to session `name`.
pub fn wait_attached(server: &Server, repo: &Repo, name: &str, term: &Terminal) {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let clients = stdout(&server.tmux(repo, &["list-clients", "-F", "#{client_session}"]));
        if clients.lines().any(|c| c == name) {
            return;
        }
        assert!(
            Instant::now() < until,
            "no client attached to {name}: {clients:?}\n{}",
            term.text()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A vermas command left running with its stdout in a pipe, read as it comes.
pub struct Watch {
    child: Child,
    seen: Arc<Mutex<String>>,
}

impl Watch {
    /// Starts `vermas ARGS` in `repo`.
    pub fn start(repo: &Repo, args: &[&str]) -> Watch {
        let mut c = Command::new(env!("CARGO_BIN_EXE_vermas"));
        c.args(args).current_dir(repo.path());
        for var in LEAKY_ENV {
            c.env_remove(var);
        }
        let mut child = c
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", repo.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn vermas");
        let seen = Arc::new(Mutex::new(String::new()));
        let mut out = child.stdout.take().expect("stdout");
        let sink = Arc::clone(&seen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("lock")
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Watch { child, seen }
    }

    /// Everything written so far.
    pub fn text(&self) -> String {
        self.seen.lock().expect("lock").clone()
    }

    /// Waits until `want` holds of the output, up to 10 s; returns it.
    pub fn wait_for(&self, what: &str, want: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.text();
            if want(&text) {
                return text;
            }
            assert!(Instant::now() < until, "never saw {what}:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends Ctrl-C's signal and asserts it ends within 3 s without a panic; its stderr.
    pub fn interrupt(mut self) -> String {
        let pid = i32::try_from(self.child.id()).expect("pid");
        // SAFETY: kill only sends a signal, to the child this test started.
        unsafe {
            libc::kill(pid, libc::SIGINT);
        }
        let until = Instant::now() + Duration::from_secs(3);
        loop {
            if self.child.try_wait().expect("wait").is_some() {
                break;
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!("the watch did not end on Ctrl-C:\n{}", self.text());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        assert!(!err.contains("panicked"), "{err}");
        err
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The number of frames in plain output (`---` lines between them).
pub fn frames(text: &str) -> usize {
    1 + text.lines().filter(|l| *l == "---").count()
}
