//! Running one external command safely: under a supervisor in its own process group, stdin
//! closed or fed, stdout and stderr merged and capped (the start and the end kept, where
//! test runners print their verdicts), a deadline that ends its whole tree, and no
//! descendant left running when it ends (see [`super::supervisor`], [`super::reaper`]).

use super::reaper::{self, Token};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The variable every job vermas runs finds vermas's own path in.
pub const SELF_VAR: &str = "VERMAS_BIN";

/// What to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub dir: PathBuf,
    /// Bytes for stdin; `None` closes it.
    pub stdin: Option<Vec<u8>>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Longest it may run.
    pub timeout: Duration,
    /// Bytes of output kept.
    pub output_cap: usize,
}

impl Job {
    /// Runs `program` with `args` in `dir`, stdin closed, no extra environment, killed
    /// with its whole process group after `timeout`, keeping `output_cap` bytes of output.
    pub fn new(
        program: impl Into<String>,
        args: Vec<String>,
        dir: impl Into<PathBuf>,
        timeout: Duration,
        output_cap: usize,
    ) -> Job {
        Job {
            program: program.into(),
            args,
            dir: dir.into(),
            stdin: None,
            env: Vec::new(),
            timeout,
            output_cap,
        }
    }

    /// Runs the shell command `command` (`sh -c`), as [`Job::new`] does a program.
    pub fn shell(
        command: impl Into<String>,
        dir: impl Into<PathBuf>,
        timeout: Duration,
        output_cap: usize,
    ) -> Job {
        Job::new(
            "sh",
            vec!["-c".into(), command.into()],
            dir,
            timeout,
            output_cap,
        )
    }

    /// The same job with `bytes` on its stdin.
    pub fn with_stdin(mut self, bytes: impl Into<Vec<u8>>) -> Job {
        self.stdin = Some(bytes.into());
        self
    }

    /// The same job with one more environment variable.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Job {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub struct Finished {
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Killed at the deadline.
    pub timed_out: bool,
    /// It could not be started: why.
    pub spawn_error: Option<String>,
    /// Stdout and stderr, interleaved as written: all of it when it fits the cap, else its
    /// first and last bytes (half the cap each) around a line saying how much was left out.
    pub output: Vec<u8>,
    /// Bytes it wrote in all.
    pub output_total: u64,
    /// Bytes of output left out in the middle.
    pub dropped: u64,
    /// Wall time.
    pub duration: Duration,
}

impl Finished {
    /// True when output was left out to keep within the cap.
    pub fn truncated(&self) -> bool {
        self.dropped > 0
    }

    /// The kept output as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }
}

/// Output kept within a cap: the first half of it, and a rolling window of the last.
#[derive(Debug, Default)]
struct Capture {
    /// The first bytes, up to `head_cap`.
    head: Vec<u8>,
    /// The latest bytes after the head, up to `tail_cap`, as a ring.
    tail: std::collections::VecDeque<u8>,
    /// Room for the head.
    head_cap: usize,
    /// Room for the tail.
    tail_cap: usize,
    /// Bytes written in all.
    total: u64,
}

impl Capture {
    /// Keeps up to `cap` bytes: half from the start, half from the end.
    fn new(cap: usize) -> Capture {
        Capture {
            head_cap: cap - cap / 2,
            tail_cap: cap / 2,
            ..Capture::default()
        }
    }

    /// Takes the next bytes of output.
    fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap.saturating_sub(self.head.len());
        let into_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
            return;
        }
        let over = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..over);
        self.tail.extend(bytes);
    }

    /// The kept output, within the cap (with a line marking what was left out), the bytes
    /// written in all, and how many were left out.
    fn finish(mut self) -> (Vec<u8>, u64, u64) {
        let cap = self.head_cap + self.tail_cap;
        let mut dropped = self.total - (self.head.len() + self.tail.len()) as u64;
        let mut marker = String::new();
        while dropped > 0 {
            let sep = if self.head.ends_with(b"\n") { "" } else { "\n" };
            marker = format!("{sep}... [vermas: {dropped} bytes of output left out here] ...\n");
            let over = (self.head.len() + marker.len() + self.tail.len()).saturating_sub(cap);
            // Room for the marker comes out of the head's last bytes and the tail's first.
            let cut_head = (over / 2).min(self.head.len());
            self.head.truncate(self.head.len() - cut_head);
            let cut = (over - cut_head).min(self.tail.len());
            self.tail.drain(..cut);
            if cut + cut_head == 0 {
                break;
            }
            dropped += (cut + cut_head) as u64;
        }
        let mut out = self.head;
        out.extend_from_slice(marker.as_bytes());
        out.extend(self.tail);
        (out, self.total, dropped)
    }
}

/// Runs `job` to completion or its deadline. Never panics on the child's behaviour; every
/// process the child started (in its group or not, whatever its environment) is killed
/// when the child ends, and when vermas is killed.
pub fn run(job: &Job) -> Finished {
    reaper::prepare();
    let start = Instant::now();
    let token = Token::new();
    let fail = |e: std::io::Error| Finished {
        spawn_error: Some(format!("cannot start {}: {e}", job.program)),
        duration: start.elapsed(),
        ..Finished::default()
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let mut cmd = match command(job, &token, writer) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let spawned = cmd.spawn();
    // The command holds our copies of the pipe's write end: drop it so the pipe can close.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let pid = child.id() as i32;
    reaper::track(pid, &token);
    if let (Some(bytes), Some(mut stdin)) = (job.stdin.clone(), child.stdin.take()) {
        std::thread::spawn(move || {
            use std::io::Write;
            // A command that does not read its input is not an error.
            let _ = stdin.write_all(&bytes);
        });
    }
    let kept = Arc::new(Mutex::new(Capture::new(job.output_cap)));
    let drain = drain(reader, Arc::clone(&kept));
    let (status, timed_out) = wait(child, start.checked_add(job.timeout), pid);
    if !reaper::SUPERVISED || status.is_none_or(|s| s.signal().is_some()) {
        // Without a supervisor, or when it was killed, its strays are found by the token.
        reaper::signal_group(pid, libc::SIGKILL);
        reaper::sweep(&token);
    }
    reaper::release(pid);
    reaper::halt_if_interrupted();
    join_with_grace(drain, Duration::from_secs(2));
    let capture = std::mem::take(&mut *kept.lock().unwrap_or_else(|p| p.into_inner()));
    let (output, output_total, dropped) = capture.finish();
    Finished {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        timed_out,
        spawn_error: None,
        output,
        output_total,
        dropped,
        duration: start.elapsed(),
    }
}

/// The command of `job`: run under a supervisor on Linux (see [`super::supervisor`]), in
/// a process group of its own, output and errors on `out`, tagged with `token` so its
/// strays can be found where there is no supervisor.
fn command(
    job: &Job,
    token: &Token,
    out: std::io::PipeWriter,
) -> std::io::Result<std::process::Command> {
    let mut cmd = std::process::Command::new(&job.program);
    cmd.args(&job.args)
        .current_dir(&job.dir)
        .env(reaper::TOKEN_VAR, &token.env_value)
        .stdout(out.try_clone()?)
        .stderr(out)
        .stdin(if job.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .process_group(0);
    // The vermas running this job, so a check (or hook) runs the vermas being verified,
    // not whichever one is on PATH; a job's own environment may still say otherwise.
    if let Ok(exe) = std::env::current_exe() {
        cmd.env(SELF_VAR, exe);
    }
    for (k, v) in &job.env {
        cmd.env(k, v);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: the hook makes only async-signal-safe calls (see supervisor).
    unsafe {
        cmd.pre_exec(super::supervisor::hook(std::process::id() as libc::pid_t));
    }
    Ok(cmd)
}

/// Reads the child's output on a thread until the pipe closes, into `kept`.
fn drain(
    mut reader: std::io::PipeReader,
    kept: Arc<Mutex<Capture>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => kept
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    })
}

/// Waits (blocking, on a thread) for the child to end; at `deadline` its tree is ended.
/// Returns its exit status (`None` when it cannot be had) and whether the deadline passed.
fn wait(
    mut child: std::process::Child,
    deadline: Option<Instant>,
    pid: i32,
) -> (Option<std::process::ExitStatus>, bool) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // The receiver may have given up; nothing is lost then.
        let _ = tx.send(child.wait().ok());
    });
    let first = match deadline {
        Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
    };
    match first {
        Ok(status) => (status, false),
        Err(RecvTimeoutError::Disconnected) => (None, false),
        Err(RecvTimeoutError::Timeout) => {
            reaper::stop(pid);
            let status = rx.recv_timeout(Duration::from_secs(2)).unwrap_or_else(|_| {
                // The supervisor itself did not end: kill it and its group outright.
                reaper::signal_group(pid, libc::SIGKILL);
                rx.recv().ok().flatten()
            });
            (status, true)
        }
    }
}

/// Waits for the output reader, giving up after `grace` (a process outside the check's
/// tree may hold the pipe open; what was read so far is kept).
fn join_with_grace(handle: std::thread::JoinHandle<()>, grace: Duration) {
    let until = Instant::now() + grace;
    while !handle.is_finished() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
    if handle.is_finished() {
        // The reader thread only collected output: its panic must not end the check.
        let _ = handle.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_and_the_tail_and_counts_what_it_left_out() {
        let mut c = Capture::new(100);
        c.push(b"start\n");
        c.push(&[b'a'; 300]);
        c.push(b"--- FAIL: TestFoo\n");
        let (out, total, dropped) = c.finish();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(total, 324);
        assert!(text.len() <= 100, "{}", text.len());
        assert!(text.starts_with("start\naaa"), "{text}");
        assert!(text.ends_with("aaa--- FAIL: TestFoo\n"), "{text}");
        let marker = format!("\n... [vermas: {dropped} bytes of output left out here] ...\n");
        assert!(text.contains(&marker), "{text}");
        assert_eq!(text.len() - marker.len() + dropped as usize, 324);
        let mut small = Capture::new(10);
        small.push(b"0123456789");
        assert_eq!(small.finish(), (b"0123456789".to_vec(), 10, 0));
    }
}
