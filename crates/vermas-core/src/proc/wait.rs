//! Waiting for a started job: what runs it (this thread's guard, or a child of vermas),
//! its output pipe read meanwhile, and its deadline, at which its whole tree is ended.

use super::capture::Capture;
use super::reap;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

/// A started job: under this thread's guard, or a child of vermas (under its own
/// supervisor on Linux).
pub(super) enum Running {
    /// Run by the guard.
    #[cfg(target_os = "linux")]
    Guarded(super::guard::Running),
    /// vermas's child, and a descriptor readable once it ended (where the kernel has one).
    Child(std::process::Child, Option<OwnedFd>),
}

impl Running {
    /// The process group a termination signal goes to.
    pub(super) fn group(&self) -> i32 {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.command,
            Running::Child(c, _) => c.id() as i32,
        }
    }

    /// The process that ends the job's whole tree when stopped (see [`reap::stop`]).
    pub(super) fn stopper(&self) -> i32 {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.guard_pid,
            Running::Child(c, _) => c.id() as i32,
        }
    }

    /// Readable when the job may have ended; `None`: look now and then.
    pub(super) fn ready_fd(&self) -> Option<BorrowedFd<'_>> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.ready_fd(),
            Running::Child(_, exited) => exited.as_ref().map(AsFd::as_fd),
        }
    }

    /// Its exit status once it ended (`Some(None)`: it cannot be had); `None` while it runs.
    pub(super) fn try_status(&mut self) -> Option<Option<std::process::ExitStatus>> {
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
    pub(super) fn spawn_error(&mut self) -> Option<std::io::Error> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => g.failed.take(),
            Running::Child(..) => None,
        }
    }

    /// Kills what runs it and its group outright; the status, when it can be had.
    pub(super) fn kill(&mut self) -> Option<std::process::ExitStatus> {
        match self {
            #[cfg(target_os = "linux")]
            Running::Guarded(g) => {
                g.kill();
                None
            }
            Running::Child(c, _) => {
                reap::signal_group(c.id() as i32, rustix::process::Signal::KILL);
                c.wait().ok()
            }
        }
    }
}

/// The read end of a child's output pipe and what was kept of it.
pub(super) struct Output {
    /// The pipe.
    reader: std::io::PipeReader,
    /// False once the pipe closed (or failed).
    open: bool,
    /// The output kept so far.
    kept: Capture,
}

impl Output {
    /// Reads `reader`, keeping up to `cap` bytes.
    pub(super) fn new(reader: std::io::PipeReader, cap: usize) -> Output {
        Output {
            reader,
            open: true,
            kept: Capture::new(cap),
        }
    }

    /// True until the pipe closed (or failed).
    pub(super) fn is_open(&self) -> bool {
        self.open
    }

    /// The output kept, the bytes written in all, and how many were left out.
    pub(super) fn finish(self) -> (Vec<u8>, u64, u64) {
        self.kept.finish()
    }

    /// Waits up to `timeout` (`None`: no limit) until output can be read or `other` becomes
    /// readable, and reads once what is there. True when `other` is readable.
    pub(super) fn pump(
        &mut self,
        other: Option<BorrowedFd<'_>>,
        timeout: Option<Duration>,
    ) -> bool {
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
pub(super) fn wait(
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
                reap::stop(running.stopper());
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
pub(super) fn pidfd(pid: i32) -> Option<OwnedFd> {
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
