//! Helpers shared by the live-spec, judge and watch tests: running the real binary with a
//! deadline and stdin held open, extra environment, executable files, process liveness.
#![allow(dead_code)]

use crate::common::Repo;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `vermas` binary under test.
pub fn vermas_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_vermas"))
}

/// How one vermas run ended.
#[derive(Debug)]
pub struct Run {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    /// Stdout bytes as written.
    pub raw: Vec<u8>,
    /// Stdout as text (invalid UTF-8 replaced).
    pub stdout: String,
    /// Stderr as text.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
    /// The arguments, for messages.
    pub args: Vec<String>,
}

impl Run {
    /// Stdout parsed as JSON (panics with the text when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.raw).unwrap_or_else(|e| {
            panic!(
                "vermas {:?}: stdout is not JSON ({e}); exit {:?}, signal {:?}:\n{}\nstderr: {}",
                self.args, self.code, self.signal, self.stdout, self.stderr
            )
        })
    }

    /// Asserts the exit code, showing both streams when it differs.
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "vermas {:?}: expected exit {code} (signal: {:?})\nstdout:\n{}\nstderr:\n{}",
            self.args,
            self.signal,
            self.stdout,
            self.stderr
        );
        self
    }

    /// Stdout and stderr together.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// The last non-empty line of stdout.
    pub fn last_line(&self) -> &str {
        self.stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
    }
}

/// Options of one run.
#[derive(Default)]
pub struct Opts<'a> {
    /// Extra environment.
    pub env: Vec<(&'a str, String)>,
    /// Working directory (default: the repository root).
    pub dir: Option<PathBuf>,
    /// Longest the run may take before it is killed and the test fails (default 90 s).
    pub deadline: Option<Duration>,
}

/// The real binary run in the root of `repo`, with the same clean environment as
/// `Repo::cmd` (and outside any tmux).
pub fn command(repo: &Repo, args: &[&str]) -> Command {
    let mut c = Command::new(vermas_bin());
    c.current_dir(repo.path()).args(args);
    for var in crate::common::LEAKY_ENV {
        c.env_remove(var);
    }
    c.env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path());
    c
}

/// Runs the real binary in `repo` with the same clean environment as `Repo::cmd`, stdin a
/// pipe that stays open (so a check that inherited it would block), both streams read
/// concurrently, and a deadline after which the run is killed and the test fails.
pub fn vermas(repo: &Repo, args: &[&str], opts: Opts<'_>) -> Run {
    let mut c = command(repo, args);
    if let Some(dir) = &opts.dir {
        c.current_dir(dir);
    }
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &opts.env {
        c.env(k, v);
    }
    let start = Instant::now();
    let mut child = c.spawn().expect("spawn vermas");
    // Held open until the run ends: a check that read vermas's stdin would wait forever.
    let stdin = child.stdin.take();
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let deadline = opts.deadline.unwrap_or(Duration::from_secs(90));
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("vermas {args:?} did not finish within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    drop(stdin);
    let raw = out_t.join().expect("stdout reader");
    let errb = err_t.join().expect("stderr reader");
    Run {
        code: status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
        stdout: String::from_utf8_lossy(&raw).into_owned(),
        raw,
        stderr: String::from_utf8_lossy(&errb).into_owned(),
        elapsed,
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

/// `vermas(repo, args)` with default options.
pub fn run(repo: &Repo, args: &[&str]) -> Run {
    vermas(repo, args, Opts::default())
}

/// `vermas(repo, args)` with extra environment.
pub fn run_env(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Run {
    vermas(
        repo,
        args,
        Opts {
            env: env.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            ..Opts::default()
        },
    )
}

/// Writes an executable file (mode 755).
pub fn write_exec(repo: &Repo, rel: &str, content: &str) {
    use std::os::unix::fs::PermissionsExt;
    repo.write(rel, content);
    std::fs::set_permissions(repo.join(rel), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
}

/// True while process `pid` exists and is not a zombie (a killed process whose parent has
/// not reaped it yet is gone for our purposes).
pub fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state is the first field after the command name in parentheses.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// Polls until every pid in `pids` is gone, up to `within`; returns those still alive.
pub fn wait_gone(pids: &[i32], within: Duration) -> Vec<i32> {
    let until = Instant::now() + within;
    loop {
        let left: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills leftover processes so a failing test does not leave them running.
pub fn kill_all(pids: &[i32]) {
    for p in pids {
        let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
    }
}

/// Reads pid files (one pid per line) written by a test script.
pub fn read_pids(repo: &Repo, files: &[&str]) -> Vec<i32> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(repo.join(f))
            .unwrap_or_else(|e| panic!("pid file {f} was not written: {e}"));
        for l in text.lines().filter(|l| !l.trim().is_empty()) {
            out.push(
                l.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("pid in {f}: {l}")),
            );
        }
    }
    out
}

/// The criteria of spec number `i` in a `status --json` report.
pub fn criteria(report: &serde_json::Value, i: usize) -> Vec<serde_json::Value> {
    report["specs"][i]["criteria"]
        .as_array()
        .unwrap_or_else(|| panic!("no specs[{i}].criteria in {report:#}"))
        .clone()
}

/// The criterion whose text is `text` in a `status --json` report (any spec).
pub fn criterion(report: &serde_json::Value, text: &str) -> serde_json::Value {
    report["specs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["criteria"].as_array().cloned().unwrap_or_default())
        .find(|c| c["text"] == text)
        .unwrap_or_else(|| panic!("no criterion {text:?} in {report:#}"))
}

/// The outcome of criterion `text`.
pub fn outcome(report: &serde_json::Value, text: &str) -> String {
    criterion(report, text)["outcome"]
        .as_str()
        .unwrap_or_else(|| panic!("criterion {text:?} has no outcome"))
        .to_string()
}

/// The reason of criterion `text` ("" when none).
pub fn reason(report: &serde_json::Value, text: &str) -> String {
    criterion(report, text)["reason"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Number of lines in a file (0 when it does not exist).
pub fn line_count(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}
