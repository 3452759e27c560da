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

use super::supervisor::{self, STOP};
use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
};
use rustix::process::{Pid, Signal};
use std::cell::RefCell;
use std::ffi::{CString, OsStr, OsString};
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
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
    Some(serve(parent))
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
    let mut guard = match idle {
        Some(g) => g,
        None => Guard::spawn().map_err(|_| NotStarted::Unavailable)?,
    };
    let payload = request.encode();
    if payload.len() > MAX_REQUEST {
        IDLE.with(|g| *g.borrow_mut() = Some(guard));
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
        Some(Reply::Started(command)) => Ok(Running {
            failed: None,
            guard_pid: guard.pid(),
            guard: Some(guard),
            command,
        }),
        Some(Reply::Failed(errno)) => {
            IDLE.with(|g| *g.borrow_mut() = Some(guard));
            Err(NotStarted::Failed(io::Error::from_raw_os_error(errno)))
        }
        // No answer: the guard died before the command started (its child dies with it).
        _ => Err(NotStarted::Unavailable),
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
            Some(Reply::Done(status)) => {
                let status = status.map(ExitStatus::from_raw);
                let guard = self.guard.take();
                IDLE.with(|g| *g.borrow_mut() = guard);
                Some(status)
            }
            Some(Reply::Failed(errno)) => {
                self.failed = Some(io::Error::from_raw_os_error(errno));
                let guard = self.guard.take();
                IDLE.with(|g| *g.borrow_mut() = guard);
                Some(None)
            }
            None if guard.would_block => None,
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
        super::reaper::signal_group(self.command, Signal::KILL);
        // Dropping it closes the socket and waits for it; the kill makes that prompt.
        if let Some(mut g) = self.guard.take() {
            let _ = g.child.kill();
        }
    }
}

/// A guard process and vermas's end of its socket.
struct Guard {
    /// The process.
    child: std::process::Child,
    /// vermas's end of the socket pair.
    socket: OwnedFd,
    /// Set when the last non-blocking receive found nothing.
    would_block: bool,
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
            would_block: false,
        })
    }

    /// The guard's pid.
    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// The next reply; `None` when there is none (see `would_block`) or the guard is gone.
    fn receive(&mut self, flags: RecvFlags) -> Option<Reply> {
        let mut buf = [0u8; 8];
        let mut control = RecvAncillaryBuffer::default();
        loop {
            self.would_block = false;
            match rustix::net::recvmsg(
                &self.socket,
                &mut [IoSliceMut::new(&mut buf)],
                &mut control,
                flags,
            ) {
                Ok(r) if r.bytes == buf.len() => return Reply::decode(&buf),
                Ok(_) => return None,
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::AGAIN) => {
                    self.would_block = true;
                    return None;
                }
                Err(_) => return None,
            }
        }
    }
}

/// The guard's life: takes requests on stdin until vermas (`vermas`, its parent) closes it,
/// runs each, and answers; the exit code.
fn serve(vermas: i32) -> i32 {
    use rustix::process::{getpid, getppid, set_child_subreaper, set_parent_process_death_signal};
    // SAFETY: `watched` builds a signal set; blocking signals is sound at any point.
    let set = unsafe {
        let set = supervisor::watched();
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    // Both fail only on an invalid argument; the getppid check covers the race.
    let _ = set_child_subreaper(Some(getpid()));
    let _ = set_parent_process_death_signal(Some(STOP));
    if Pid::as_raw(getppid()) != vermas {
        return 126;
    }
    let _ = rustix::thread::set_name(c"vermas-guard");
    let socket = std::io::stdin();
    let mut buf = vec![0u8; MAX_REQUEST];
    let base: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    loop {
        let Some((request, fds)) = receive_request(socket.as_fd(), &mut buf) else {
            return 0;
        };
        supervisor::drain(&set);
        let reply = run_one(&request, fds, &base, vermas, &set, socket.as_fd());
        if send_reply(socket.as_fd(), reply).is_err() {
            return 0;
        }
    }
}

/// Reads the next request and its descriptors; `None` when vermas let go.
fn receive_request(socket: BorrowedFd<'_>, buf: &mut [u8]) -> Option<(Vec<u8>, Vec<OwnedFd>)> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    loop {
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let got = match rustix::net::recvmsg(
            socket,
            &mut [IoSliceMut::new(buf)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Ok(r) => r,
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        };
        if got.bytes == 0 {
            return None;
        }
        let mut fds = Vec::new();
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(rights) = message {
                fds.extend(rights);
            }
        }
        return Some((buf[..got.bytes.min(buf.len())].to_vec(), fds));
    }
}

/// Sends one reply.
fn send_reply(socket: BorrowedFd<'_>, reply: Reply) -> io::Result<()> {
    rustix::net::send(socket, &reply.encode(), SendFlags::NOSIGNAL)?;
    Ok(())
}

/// A request taken apart, ready for `exec`.
struct Prepared {
    /// The program.
    program: CString,
    /// `argv`, `arg0` first.
    argv: Vec<CString>,
    /// The working folder.
    dir: CString,
    /// The whole environment.
    envp: Vec<CString>,
    /// The PATH the program is looked up on, when the request sets one.
    path: Option<CString>,
}

/// Takes a request apart; `None` when it is malformed.
fn prepare(request: &[u8], base: &[(OsString, OsString)]) -> Option<Prepared> {
    let mut program = None;
    let mut argv = vec![CString::default()];
    let mut dir = None;
    let mut env = base.to_vec();
    let mut path = None;
    for item in request.split(|b| *b == 0).filter(|i| !i.is_empty()) {
        let (tag, body) = (item[0], &item[1..]);
        let text = CString::new(body).ok()?;
        match tag {
            b'p' => program = Some(text),
            b'0' => argv[0] = text,
            b'a' => argv.push(text),
            b'd' => dir = Some(text),
            b'e' => {
                let eq = body.iter().position(|b| *b == b'=')?;
                let (k, v) = (&body[..eq], &body[eq + 1..]);
                if k == b"PATH" {
                    path = CString::new(v).ok();
                }
                let k = OsString::from_vec(k.to_vec());
                let v = OsString::from_vec(v.to_vec());
                match env.iter_mut().find(|(key, _)| *key == k) {
                    Some(slot) => slot.1 = v,
                    None => env.push((k, v)),
                }
            }
            _ => return None,
        }
    }
    let envp = env
        .into_iter()
        .filter_map(|(k, v)| {
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend(v.into_vec());
            CString::new(kv).ok()
        })
        .collect();
    Some(Prepared {
        program: program?,
        argv,
        dir: dir?,
        envp,
        path,
    })
}

/// Runs one request to the end of its tree; the reply for vermas (the `Started` one is
/// sent from here, on `socket`, as soon as the command runs).
fn run_one(
    request: &[u8],
    fds: Vec<OwnedFd>,
    base: &[(OsString, OsString)],
    vermas: i32,
    set: &libc::sigset_t,
    socket: BorrowedFd<'_>,
) -> Reply {
    let (Some(prepared), Some(out)) = (prepare(request, base), fds.first()) else {
        return Reply::Failed(libc::EINVAL);
    };
    let stdin = fds.get(1);
    let Ok((mut errors, error_writer)) = std::io::pipe() else {
        return Reply::Failed(libc::EMFILE);
    };
    let command = match fork_command(&prepared, out, stdin, &error_writer, set) {
        Ok(pid) => pid,
        Err(e) => return Reply::Failed(e.raw_os_error().unwrap_or(libc::EIO)),
    };
    // The descriptors now live in the command only.
    drop(error_writer);
    drop(fds);
    // Make sure the group exists before it is signalled (the command may have made it).
    let _ = rustix::process::setpgid(Some(command), Some(command));
    // Answered at once, not after the exec: vermas goes on while the command starts.
    let status = if send_reply(socket, Reply::Started(command.as_raw_nonzero().get())).is_err() {
        // vermas is gone: end the tree, then the next read ends the guard.
        supervisor::end_tree(command, None)
    } else {
        supervisor::supervise(command, vermas, set)
    };
    // The command is gone, so the pipe is closed: it holds an errno only if exec failed.
    let mut errno = [0u8; 4];
    if std::io::Read::read_exact(&mut errors, &mut errno).is_ok() {
        return Reply::Failed(i32::from_le_bytes(errno));
    }
    Reply::Done(status)
}

/// Forks the command: in a process group of its own, killed if the guard dies, with its
/// descriptors, folder, environment and an empty signal mask, then `exec`. An `exec`
/// failure's errno comes back on `errors`.
fn fork_command(
    p: &Prepared,
    out: &OwnedFd,
    stdin: Option<&OwnedFd>,
    errors: &std::io::PipeWriter,
    set: &libc::sigset_t,
) -> io::Result<Pid> {
    let argv: Vec<*const libc::c_char> = p
        .argv
        .iter()
        .map(|a| a.as_ptr())
        .chain([std::ptr::null()])
        .collect();
    let envp: Vec<*const libc::c_char> = p
        .envp
        .iter()
        .map(|a| a.as_ptr())
        .chain([std::ptr::null()])
        .collect();
    let guard = rustix::process::getpid();
    // SAFETY: the guard is single-threaded, so the child may run any code; it touches only
    // what was built before the fork and ends in exec or _exit.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(pid) = Pid::from_raw(pid) {
            return Ok(pid);
        }
        let _ = rustix::process::set_parent_process_death_signal(Some(Signal::KILL));
        if rustix::process::getppid() != Some(guard) {
            libc::_exit(126);
        }
        libc::setpgid(0, 0);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        let input = stdin.map_or(null, |s| s.as_raw_fd());
        let failed = libc::dup2(input, 0) < 0
            || libc::dup2(out.as_raw_fd(), 1) < 0
            || libc::dup2(out.as_raw_fd(), 2) < 0
            || libc::chdir(p.dir.as_ptr()) < 0;
        if !failed {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::sigprocmask(libc::SIG_UNBLOCK, set, std::ptr::null_mut());
            if let Some(path) = &p.path {
                libc::setenv(c"PATH".as_ptr(), path.as_ptr(), 1);
            }
            libc::execvpe(p.program.as_ptr(), argv.as_ptr(), envp.as_ptr());
        }
        let errno = io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        libc::write(errors.as_raw_fd(), errno.to_le_bytes().as_ptr().cast(), 4);
        libc::_exit(127)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_and_requests_survive_their_encoding() {
        for r in [
            Reply::Started(4242),
            Reply::Failed(libc::ENOENT),
            Reply::Done(Some(256)),
            Reply::Done(None),
        ] {
            assert_eq!(Reply::decode(&r.encode()), Some(r));
        }
        let env = [(OsString::from("A"), OsString::from("1=2"))];
        let args = ["-c".to_string(), "echo hi".to_string()];
        let request = Request {
            program: OsStr::new("/bin/sh"),
            arg0: OsStr::new("sh"),
            args: &args,
            dir: std::path::Path::new("/tmp"),
            env: &env,
        };
        let p = prepare(&request.encode(), &[]).expect("well formed");
        assert_eq!(p.program.as_bytes(), b"/bin/sh");
        let argv: Vec<&[u8]> = p.argv.iter().map(|a| a.as_bytes()).collect();
        assert_eq!(argv, [&b"sh"[..], b"-c", b"echo hi"]);
        assert_eq!(p.dir.as_bytes(), b"/tmp");
        assert!(p.envp.iter().any(|e| e.as_bytes() == b"A=1=2"));
        assert!(prepare(b"qbad\0", &[]).is_none(), "an unknown item");
    }
}
