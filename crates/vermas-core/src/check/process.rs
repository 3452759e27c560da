//! Running one external command safely: under a guard in its own process group, stdin
//! closed or fed, stdout and stderr merged and capped (the start and the end kept, where
//! test runners print their verdicts), a deadline that ends its whole tree, and no
//! descendant left running when it ends (see [`super::guard`], [`super::reaper`]).

use super::reaper::{self, Token};
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::Stdio;
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
/// when the child ends, and when vermas is killed. The calling thread does all the waiting
/// (a poll on the output pipe and on the guard's socket or the child's pidfd): no thread
/// per check.
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
    let (mut running, stdin) = match launch(job, &token, writer) {
        Ok(Some(r)) => r,
        Ok(None) => {
            // What ran it is gone before saying it started: whatever of the command is
            // left is found by its token; no exit status can be had. A guard ended by
            // vermas's own cleanup on Ctrl-C gives no result at all.
            reaper::sweep(&token);
            reaper::halt_if_interrupted();
            return Finished {
                duration: start.elapsed(),
                ..Finished::default()
            };
        }
        Err(e) => return fail(e),
    };
    let group = running.group();
    reaper::track(group, running.stopper(), &token);
    if let (Some(bytes), Some(mut stdin)) = (job.stdin.clone(), stdin) {
        std::thread::spawn(move || {
            use std::io::Write;
            // A command that does not read its input is not an error.
            let _ = stdin.write_all(&bytes);
        });
    }
    let mut output = Output {
        reader,
        open: true,
        kept: Capture::new(job.output_cap),
    };
    let (status, timed_out) = wait(&mut running, &mut output, start.checked_add(job.timeout));
    if !reaper::SUPERVISED || status.is_none_or(|s| s.signal().is_some()) {
        // Without a supervisor, or when it was killed, its strays are found by the token.
        reaper::signal_group(group, rustix::process::Signal::KILL);
        reaper::sweep(&token);
    }
    reaper::release(group);
    reaper::halt_if_interrupted();
    if let Some(e) = running.spawn_error() {
        return fail(e);
    }
    // A process outside the check's tree may hold the pipe open: what was read is kept.
    let grace_end = Instant::now() + Duration::from_secs(2);
    while output.open && Instant::now() < grace_end {
        output.pump(
            None,
            Some(grace_end.saturating_duration_since(Instant::now())),
        );
    }
    let (output, output_total, dropped) = output.kept.finish();
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

/// A started job: under this thread's guard, or a child of vermas (under its own
/// supervisor on Linux).
enum Running {
    /// Run by the guard.
    #[cfg(target_os = "linux")]
    Guarded(super::guard::Running),
    /// vermas's child, and a descriptor readable once it ended (where the kernel has one).
    Child(std::process::Child, Option<OwnedFd>),
}

impl Running {
    /// The process group a termination signal goes to.
    fn group(&self) -> i32 {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.command,
            Running::Child(c, _) => c.id() as i32,
        }
    }

    /// The process that ends the job's whole tree when stopped (see [`reaper::stop`]).
    fn stopper(&self) -> i32 {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.guard_pid,
            Running::Child(c, _) => c.id() as i32,
        }
    }

    /// Readable when the job may have ended; `None`: look now and then.
    fn ready_fd(&self) -> Option<BorrowedFd<'_>> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.ready_fd(),
            Running::Child(_, exited) => exited.as_ref().map(AsFd::as_fd),
        }
    }

    /// Its exit status once it ended (`Some(None)`: it cannot be had); `None` while it runs.
    fn try_status(&mut self) -> Option<Option<std::process::ExitStatus>> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.try_status(),
            Running::Child(c, _) => match c.try_wait() {
                Ok(Some(status)) => Some(Some(status)),
                Ok(None) => None,
                Err(_) => Some(None),
            },
        }
    }

    /// Why it could not be started, when that was found out only after it was launched.
    fn spawn_error(&mut self) -> Option<std::io::Error> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.failed.take(),
            Running::Child(..) => None,
        }
    }

    /// Kills what runs it and its group outright; the status, when it can be had.
    fn kill(&mut self) -> Option<std::process::ExitStatus> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => {
                g.kill();
                None
            }
            Running::Child(c, _) => {
                reaper::signal_group(c.id() as i32, rustix::process::Signal::KILL);
                c.wait().ok()
            }
        }
    }
}

/// The write end of a job's stdin pipe.
type StdinWriter = Box<dyn std::io::Write + Send>;

/// Starts `job`, output and errors on `out`: under this thread's guard where there is one,
/// else as vermas's child. Also the pipe to its stdin, when it takes one. `None`: the guard
/// took the job and ended without saying it started (see [`super::guard`]'s `Lost`).
fn launch(
    job: &Job,
    token: &Token,
    out: std::io::PipeWriter,
) -> std::io::Result<Option<(Running, Option<StdinWriter>)>> {
    let path = super::safe_path::for_job(&job.env, &job.dir);
    let found = super::safe_path::find(&job.program, &path);
    #[cfg(target_os = "linux")]
    {
        use super::guard::{self, NotStarted, Request};
        let stdin = match job.stdin {
            Some(_) => Some(std::io::pipe()?),
            None => None,
        };
        let program = found
            .as_deref()
            .map_or(std::ffi::OsStr::new(&job.program), |p| p.as_os_str());
        let env = environment(job, token);
        let request = Request {
            program,
            arg0: std::ffi::OsStr::new(&job.program),
            args: &job.args,
            dir: &job.dir,
            env: &env,
        };
        let input = stdin.as_ref().map(|(r, _)| r.as_fd());
        match guard::start(&request, out.as_fd(), input) {
            Ok(running) => {
                let writer = stdin.map(|(_, w)| Box::new(w) as StdinWriter);
                return Ok(Some((Running::Guarded(running), writer)));
            }
            Err(NotStarted::Failed(e)) => return Err(e),
            Err(NotStarted::Lost) => return Ok(None),
            Err(NotStarted::Unavailable) => {}
        }
    }
    let mut cmd = command(job, found, token, out)?;
    let spawned = cmd.spawn();
    // The command holds our copies of the pipe's write end: drop it so the pipe can close.
    drop(cmd);
    let mut child = spawned?;
    let exited = pidfd(child.id() as i32);
    let stdin = child.stdin.take().map(|s| Box::new(s) as StdinWriter);
    Ok(Some((Running::Child(child, exited), stdin)))
}

/// The variables a job's process gets on top of vermas's: its check token, vermas's own
/// path, then the job's own (which may override both).
fn environment(job: &Job, token: &Token) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut env = vec![(reaper::TOKEN_VAR.into(), token.env_value.clone().into())];
    if let Some(exe) = own_exe() {
        env.push((SELF_VAR.into(), exe.as_os_str().to_owned()));
    }
    env.extend(job.env.iter().map(|(k, v)| (k.into(), v.into())));
    env.push(("PATH".into(), super::safe_path::for_job(&job.env, &job.dir)));
    env
}

/// The path of the running vermas, read once.
fn own_exe() -> Option<&'static PathBuf> {
    static EXE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| std::env::current_exe().ok()).as_ref()
}

/// The command of `job` where no guard runs it: under a supervisor on Linux (see
/// [`super::supervisor`]), in a process group of its own, `found` (its program on PATH,
/// when looked up) run, output and errors on `out`, tagged with `token` so its strays can
/// be found where there is no supervisor.
fn command(
    job: &Job,
    found: Option<PathBuf>,
    token: &Token,
    out: std::io::PipeWriter,
) -> std::io::Result<std::process::Command> {
    let mut cmd = match found {
        Some(found) => {
            let mut cmd = std::process::Command::new(found);
            cmd.arg0(&job.program);
            cmd
        }
        None => std::process::Command::new(&job.program),
    };
    cmd.args(&job.args)
        .current_dir(&job.dir)
        .envs(environment(job, token))
        .stdout(out.try_clone()?)
        .stderr(out)
        .stdin(if job.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: the hook makes only async-signal-safe calls (see supervisor).
    unsafe {
        cmd.pre_exec(super::supervisor::hook(std::process::id() as libc::pid_t));
    }
    Ok(cmd)
}

/// The read end of a child's output pipe and what was kept of it.
struct Output {
    /// The pipe.
    reader: std::io::PipeReader,
    /// False once the pipe closed (or failed).
    open: bool,
    /// The output kept so far.
    kept: Capture,
}

impl Output {
    /// Waits up to `timeout` (`None`: no limit) until output can be read or `other` becomes
    /// readable, and reads once what is there. True when `other` is readable.
    fn pump(&mut self, other: Option<BorrowedFd<'_>>, timeout: Option<Duration>) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec};
        let mut fds = Vec::with_capacity(2);
        if self.open {
            fds.push(PollFd::new(&self.reader, PollFlags::IN));
        }
        let other_at = fds.len();
        if let Some(fd) = &other {
            fds.push(PollFd::new(fd, PollFlags::IN));
        }
        if fds.is_empty() {
            if let Some(t) = timeout {
                std::thread::sleep(t);
            }
            return false;
        }
        let limit = timeout.map(|t| Timespec {
            tv_sec: i64::try_from(t.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(t.subsec_nanos()),
        });
        if rustix::event::poll(&mut fds, limit.as_ref()).is_err() {
            // Interrupted by a signal: the caller looks again.
            return false;
        }
        // Readable, closed (HUP) or failed (ERR): a read tells which.
        let output_ready = self.open && !fds[0].revents().is_empty();
        let other_ready = fds.get(other_at).is_some_and(|f| !f.revents().is_empty());
        drop(fds);
        if output_ready {
            let mut buf = [0u8; 64 * 1024];
            match self.reader.read(&mut buf) {
                Ok(0) => self.open = false,
                Ok(n) => self.kept.push(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.open = false,
            }
        }
        other_ready
    }
}

/// How often a job with nothing to poll for its end is looked at.
const NO_PIDFD_TICK: Duration = Duration::from_millis(10);

/// Waits for the job to end, reading its output meanwhile; at `deadline` its tree is
/// ended. Returns its exit status (`None` when it cannot be had) and whether the deadline
/// passed.
fn wait(
    running: &mut Running,
    output: &mut Output,
    deadline: Option<Instant>,
) -> (Option<std::process::ExitStatus>, bool) {
    let mut stopped_at: Option<Instant> = None;
    loop {
        if let Some(status) = running.try_status() {
            return (status, stopped_at.is_some());
        }
        let now = Instant::now();
        let until = match stopped_at {
            Some(at) => Some(at + Duration::from_secs(2)),
            None => deadline,
        };
        if until.is_some_and(|u| now >= u) {
            if stopped_at.is_none() {
                reaper::stop(running.stopper());
                stopped_at = Some(now);
                continue;
            }
            // What runs it did not end the tree: kill it and its group outright.
            return (running.kill(), true);
        }
        let mut timeout = until.map(|u| u - now);
        let ready = running.ready_fd();
        if ready.is_none() {
            timeout = Some(timeout.map_or(NO_PIDFD_TICK, |t| t.min(NO_PIDFD_TICK)));
        }
        output.pump(ready, timeout);
    }
}

/// A descriptor that becomes readable when process `pid` (a child of vermas) has ended,
/// where the kernel has them.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        let pid = rustix::process::Pid::from_raw(pid)?;
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
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
