//! The guard: one long-lived process per thread that runs checks, so a check costs one
//! fork of a small process instead of two of vermas.
//!
//! A thread's first check starts the guard (`vermas --vermas-check-guard PID`, a fresh
//! executable image, single-threaded) on one end of a socket pair. For each check, vermas
//! sends the command line, folder and extra environment, with the output pipe (and the
//! stdin pipe) as passed descriptors; the guard forks the command into a process group of
//! its own and answers with its pid. As the per-check supervisor did, the guard adopts
//! every orphan of the check (a child subreaper), forwards termination signals to the
//! command's group, ends the whole tree when the command ends or on [`STOP`] (also its
//! parent-death signal), and then answers with the command's wait status. It runs one check
//! at a time, so every process it adopted belongs to the check it is running. It exits when
//! vermas closes its end of the socket (the thread ended, or vermas did).
//!
//! A binary opts in with [`serve_or_enable`]; elsewhere (a library's own tests) checks run
//! under the per-check supervisor.

mod serve;
mod spawn;

use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage,
    SendFlags, SocketFlags, SocketType,
};
use rustix::process::Signal;
use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};

/// The argument that starts vermas as a guard (followed by its parent's pid).
const ARG: &str = "--vermas-check-guard";

/// Largest request the guard takes (command line, folder and extra environment).
const MAX_REQUEST: usize = 256 * 1024;

/// Set once the running executable has said it can serve as a guard.
static CAN_SERVE: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's guard, while it is idle.
    static IDLE: RefCell<Option<Guard>> = const { RefCell::new(None) };
}

/// Called first thing by a binary that can be a guard: when started as one, serves until
/// vermas lets go and returns the exit code; otherwise notes that checks may start guards
/// from this executable, and returns `None`.
pub fn serve_or_enable() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(ARG)) {
        CAN_SERVE.store(true, Ordering::Relaxed);
        return None;
    }
    let parent = args.next()?.to_str()?.parse::<i32>().ok()?;
    Some(serve::serve(parent))
}

/// What a guard answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reply {
    /// The command runs with this pid.
    Started(i32),
    /// The command could not be started: this errno.
    Failed(i32),
    /// The command's tree ended; the command's wait status, when it was had.
    Done(Option<i32>),
}

impl Reply {
    /// Eight bytes: a tag and a value.
    fn encode(self) -> [u8; 8] {
        let (tag, value) = match self {
            Reply::Started(pid) => (b'S', pid),
            Reply::Failed(errno) => (b'F', errno),
            Reply::Done(Some(status)) => (b'D', status),
            Reply::Done(None) => (b'N', 0),
        };
        let mut out = [0u8; 8];
        out[0] = tag;
        out[4..].copy_from_slice(&value.to_le_bytes());
        out
    }

    /// The reply eight bytes hold.
    fn decode(bytes: &[u8]) -> Option<Reply> {
        let value = i32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
        match bytes[0] {
            b'S' => Some(Reply::Started(value)),
            b'F' => Some(Reply::Failed(value)),
            b'D' => Some(Reply::Done(Some(value))),
            b'N' => Some(Reply::Done(None)),
            _ => None,
        }
    }
}

/// A command for the guard to run.
pub(super) struct Request<'a> {
    /// The program: a path, or a name looked up on PATH.
    pub program: &'a OsStr,
    /// Its `argv[0]`.
    pub arg0: &'a OsStr,
    /// Its arguments.
    pub args: &'a [String],
    /// Its working folder.
    pub dir: &'a std::path::Path,
    /// Variables set on top of vermas's environment, in order (a later one wins).
    pub env: &'a [(OsString, OsString)],
}

impl Request<'_> {
    /// The request as items, each a tag byte, its bytes and a NUL.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(512);
        let mut item = |tag: u8, parts: &[&[u8]]| {
            out.push(tag);
            for part in parts {
                out.extend_from_slice(part);
            }
            out.push(0);
        };
        item(b'p', &[self.program.as_bytes()]);
        item(b'0', &[self.arg0.as_bytes()]);
        for a in self.args {
            item(b'a', &[a.as_bytes()]);
        }
        item(b'd', &[self.dir.as_os_str().as_bytes()]);
        for (k, v) in self.env {
            item(b'e', &[k.as_bytes(), b"=", v.as_bytes()]);
        }
        out
    }
}

/// A check running under this thread's guard.
pub(super) struct Running {
    /// The guard, given back to the thread when the check ends well.
    guard: Option<Guard>,
    /// Why the command could not be started, once the guard said so.
    pub failed: Option<io::Error>,
    /// The command's pid (and process group).
    pub command: i32,
    /// The guard's pid: [`STOP`] to it ends the check's tree.
    pub guard_pid: i32,
}

/// Why a check did not start under a guard.
pub(super) enum NotStarted {
    /// No guard can be had here: run the check another way.
    Unavailable,
    /// The guard could not start the command: why.
    Failed(io::Error),
    /// The guard took the request and ended without a word: the command may have run (one
    /// that kills what runs it does this), so it must not run again, and how it ended
    /// cannot be told.
    Lost,
}

/// Starts `request` under this thread's guard (starting one first when needed), its
/// output and errors on `out` and its stdin from `stdin` (else `/dev/null`).
pub(super) fn start(
    request: &Request<'_>,
    out: BorrowedFd<'_>,
    stdin: Option<BorrowedFd<'_>>,
) -> Result<Running, NotStarted> {
    if !CAN_SERVE.load(Ordering::Relaxed) {
        return Err(NotStarted::Unavailable);
    }
    let idle = IDLE.with(|g| g.borrow_mut().take());
    let guard = match idle {
        Some(g) => g,
        None => Guard::spawn().map_err(|_| NotStarted::Unavailable)?,
    };
    let payload = request.encode();
    if payload.len() > MAX_REQUEST {
        give_back(Some(guard));
        return Err(NotStarted::Unavailable);
    }
    let fds: Vec<BorrowedFd<'_>> = std::iter::once(out).chain(stdin).collect();
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    control.push(SendAncillaryMessage::ScmRights(&fds));
    let sent = rustix::net::sendmsg(
        &guard.socket,
        &[IoSlice::new(&payload)],
        &mut control,
        SendFlags::NOSIGNAL,
    );
    if sent.is_err() {
        // The guard is gone: a new one next time; this check runs another way.
        return Err(NotStarted::Unavailable);
    }
    match guard.receive(RecvFlags::empty()) {
        Received::Reply(Reply::Started(command)) => Ok(Running {
            failed: None,
            guard_pid: guard.pid(),
            guard: Some(guard),
            command,
        }),
        Received::Reply(Reply::Failed(errno)) => {
            give_back(Some(guard));
            Err(NotStarted::Failed(io::Error::from_raw_os_error(errno)))
        }
        // No answer: the guard ended, before or after starting the command.
        _ => Err(NotStarted::Lost),
    }
}

impl Running {
    /// The descriptor that becomes readable when the guard answers.
    pub fn ready_fd(&self) -> Option<BorrowedFd<'_>> {
        self.guard.as_ref().map(|g| g.socket.as_fd())
    }

    /// The command's status once the guard ended its tree (`Some(None)`: it cannot be
    /// had); `None` while it runs.
    pub fn try_status(&mut self) -> Option<Option<ExitStatus>> {
        let guard = self.guard.as_mut()?;
        match guard.receive(RecvFlags::DONTWAIT) {
            Received::Reply(Reply::Done(status)) => {
                give_back(self.guard.take());
                Some(status.map(ExitStatus::from_raw))
            }
            Received::Reply(Reply::Failed(errno)) => {
                self.failed = Some(io::Error::from_raw_os_error(errno));
                give_back(self.guard.take());
                Some(None)
            }
            Received::Nothing => None,
            // Gone or confused: not used again.
            _ => {
                self.guard = None;
                Some(None)
            }
        }
    }

    /// Kills the guard and the command's group outright (the guard did not end the tree in
    /// time); the guard is not used again.
    pub fn kill(&mut self) {
        super::reap::signal_group(self.command, Signal::KILL);
        // Dropping it closes the socket and waits for it; the kill makes that prompt.
        if let Some(mut g) = self.guard.take() {
            let _ = g.child.kill();
        }
    }
}

/// What a read of the guard's socket found.
enum Received {
    /// A reply.
    Reply(Reply),
    /// Nothing yet (a non-blocking read).
    Nothing,
    /// The guard is gone, or said something that is not a reply: not used again.
    Gone,
}

/// Gives `guard` back to this thread for its next check.
fn give_back(guard: Option<Guard>) {
    IDLE.with(|g| *g.borrow_mut() = guard);
}

/// A guard process and vermas's end of its socket.
struct Guard {
    /// The process.
    child: std::process::Child,
    /// vermas's end of the socket pair.
    socket: OwnedFd,
}

impl Drop for Guard {
    fn drop(&mut self) {
        // Shutting vermas's end ends an idle guard; its exit status is collected so no
        // zombie is left.
        let _ = rustix::net::shutdown(&self.socket, rustix::net::Shutdown::Both);
        let _ = self.child.wait();
    }
}

impl Guard {
    /// Starts a guard: this executable, in a process group of its own, its stdin the
    /// guard's end of a fresh socket pair; `ps` shows it as `vermas-guard`.
    fn spawn() -> io::Result<Guard> {
        // The running image itself, even if its file was replaced or removed since.
        let exe = "/proc/self/exe";
        let (mine, theirs) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )?;
        let child = std::process::Command::new(exe)
            .arg0("vermas-guard")
            .arg(ARG)
            .arg(std::process::id().to_string())
            .stdin(std::process::Stdio::from(theirs))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()?;
        Ok(Guard {
            child,
            socket: mine,
        })
    }

    /// The guard's pid.
    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// The next reply (with `DONTWAIT`, [`Received::Nothing`] when none is there yet).
    fn receive(&self, flags: RecvFlags) -> Received {
        let mut buf = [0u8; 8];
        let mut control = RecvAncillaryBuffer::default();
        loop {
            match rustix::net::recvmsg(
                &self.socket,
                &mut [IoSliceMut::new(&mut buf)],
                &mut control,
                flags,
            ) {
                Ok(r) if r.bytes == buf.len() => {
                    return Reply::decode(&buf).map_or(Received::Gone, Received::Reply);
                }
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::AGAIN) => return Received::Nothing,
                // Closed (zero bytes), a short message or a failed read.
                _ => return Received::Gone,
            }
        }
    }
}
