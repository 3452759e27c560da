//! Running one external command safely: its own process group, stdin closed or fed,
//! stdout and stderr merged and capped, a deadline that kills the whole group, and no
//! descendant left running when it ends (see [`super::reaper`]).

use super::reaper::{self, Token};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// The first `output_cap` bytes of stdout and stderr, interleaved as written.
    pub output: Vec<u8>,
    /// Bytes it wrote in all.
    pub output_total: u64,
    /// Wall time.
    pub duration: Duration,
}

impl Finished {
    /// True when output was cut at the cap.
    pub fn truncated(&self) -> bool {
        self.output_total > self.output.len() as u64
    }

    /// The kept output as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }
}

/// Runs `job` to completion or its deadline. Never panics on the child's behaviour; every
/// process the child started (in its group or not) is killed when the child ends.
pub fn run(job: &Job) -> Finished {
    reaper::prepare();
    let start = Instant::now();
    let token = Token::new();
    let reader = match command(job, &token).reader() {
        Ok(r) => Arc::new(r),
        Err(e) => {
            return Finished {
                spawn_error: Some(format!("cannot start {}: {e}", job.program)),
                duration: start.elapsed(),
                ..Finished::default()
            };
        }
    };
    let pgid = reader.pids().first().copied().unwrap_or(0) as i32;
    reaper::track(pgid, &token);
    let kept: Arc<Mutex<(Vec<u8>, u64)>> = Arc::new(Mutex::new((Vec::new(), 0)));
    let drain = drain(Arc::clone(&reader), Arc::clone(&kept), job.output_cap);
    let (status, timed_out) = wait(&reader, start + job.timeout, pgid, &token);
    // Anything the child left running goes too, in its group or not, so the pipe closes.
    reaper::signal_group(pgid, libc::SIGKILL);
    reaper::sweep(&token);
    reaper::release(pgid);
    reaper::halt_if_interrupted();
    join_with_grace(drain, Duration::from_secs(2));
    let (output, output_total) =
        std::mem::take(&mut *kept.lock().unwrap_or_else(|p| p.into_inner()));
    Finished {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        timed_out,
        spawn_error: None,
        output,
        output_total,
        duration: start.elapsed(),
    }
}

/// The command of `job`, in a process group of its own (killed with vermas on Linux),
/// output and errors on one pipe, tagged with `token` so its strays can be found.
fn command(job: &Job, token: &Token) -> duct::Expression {
    let mut expr = duct::cmd(&job.program, &job.args)
        .dir(&job.dir)
        .stderr_to_stdout()
        .unchecked()
        .env(reaper::TOKEN_VAR, &token.env_value)
        .before_spawn(|c| {
            c.process_group(0);
            #[cfg(target_os = "linux")]
            // SAFETY: prctl is async-signal-safe; it asks the kernel to kill the child if
            // the thread that started it dies (vermas killed with SIGKILL).
            unsafe {
                c.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                    Ok(())
                });
            }
            Ok(())
        });
    for (k, v) in &job.env {
        expr = expr.env(k, v);
    }
    match &job.stdin {
        Some(bytes) => expr.stdin_bytes(bytes.clone()),
        None => expr.stdin_null(),
    }
}

/// Reads the child's output on a thread until the pipe closes, keeping the first `cap`
/// bytes and the total count in `kept`.
fn drain(
    reader: Arc<duct::ReaderHandle>,
    kept: Arc<Mutex<(Vec<u8>, u64)>>,
    cap: usize,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match (&*reader).read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let mut k = kept.lock().unwrap_or_else(|p| p.into_inner());
                    let room = cap.saturating_sub(k.0.len());
                    k.0.extend_from_slice(&buf[..n.min(room)]);
                    k.1 += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    })
}

/// Waits for the child to end; at `deadline` its group and strays are killed. Returns its
/// exit status (`None` when it cannot be had) and whether the deadline passed.
fn wait(
    reader: &duct::ReaderHandle,
    deadline: Instant,
    pgid: i32,
    token: &Token,
) -> (Option<std::process::ExitStatus>, bool) {
    let mut timed_out = false;
    let mut pause = Duration::from_millis(1);
    loop {
        match reader.try_wait() {
            Ok(Some(out)) => return (Some(out.status), timed_out),
            Ok(None) => {}
            Err(_) => return (None, timed_out),
        }
        if Instant::now() >= deadline && !timed_out {
            timed_out = true;
            reaper::signal_group(pgid, libc::SIGKILL);
            reaper::sweep(token);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Waits for the output reader, giving up after `grace` (a process that left the group
/// may hold the pipe open; what was read so far is kept).
fn join_with_grace(handle: std::thread::JoinHandle<()>, grace: Duration) {
    let until = Instant::now() + grace;
    while !handle.is_finished() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    if handle.is_finished() {
        // The reader thread only collected output: its panic must not end the check.
        let _ = handle.join();
    }
}
