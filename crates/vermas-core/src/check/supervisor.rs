//! The supervisor every check runs under on Linux: vermas's child forks once more before it
//! runs the command, and the first fork stays behind as a small supervisor that adopts every
//! orphan of the check (a child subreaper), and ends the whole tree (whatever its process
//! group, session or environment) when the command ends, when vermas asks, or when vermas
//! dies (its parent-death signal). It then exits as the command did.
//!
//! It runs between `fork` and `exec` of a multi-threaded program, so it uses only
//! async-signal-safe system calls: no allocation, no locks, no Rust I/O.

use std::io;

/// Sent to a supervisor: end the check's whole tree now (also its parent-death signal).
pub const STOP: libc::c_int = libc::SIGUSR1;

/// Signals the supervisor forwards to the command's process group.
const FORWARDED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// The `pre_exec` hook that turns the spawned child into the supervisor of the command it
/// is about to run; `vermas` is the pid of the process that spawns it.
pub fn hook(vermas: libc::pid_t) -> impl FnMut() -> io::Result<()> + Send + Sync + 'static {
    // SAFETY: `start` makes only async-signal-safe calls, as a pre_exec hook must.
    move || unsafe { start(vermas) }
}

/// The signals the supervisor waits for (blocked, then taken with `sigwaitinfo`).
unsafe fn watched() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigemptyset initialises it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in FORWARDED.into_iter().chain([libc::SIGCHLD, STOP]) {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// In the freshly forked child: becomes the supervisor and forks the command, which returns
/// `Ok` to go on to `exec`; the supervisor itself never returns.
unsafe fn start(vermas: libc::pid_t) -> io::Result<()> {
    // SAFETY: only async-signal-safe system calls on this single-threaded child.
    unsafe {
        let set = watched();
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        libc::prctl(libc::PR_SET_PDEATHSIG, STOP, 0, 0, 0);
        if libc::getppid() != vermas {
            // vermas died before the signal was armed: run nothing.
            libc::_exit(126);
        }
        let me = libc::getpid();
        let command = libc::fork();
        if command < 0 {
            let e = io::Error::last_os_error();
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            return Err(e);
        }
        if command == 0 {
            // The command: killed if its supervisor dies, in a process group of its own.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            if libc::getppid() != me {
                libc::_exit(126);
            }
            libc::setpgid(0, 0);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            return Ok(());
        }
        // Make sure the command's group exists before the supervisor signals it.
        libc::setpgid(command, command);
        libc::prctl(libc::PR_SET_NAME, c"vermas-guard".as_ptr(), 0, 0, 0);
        close_all_files();
        let status = supervise(command, vermas, &set);
        exit_as(status)
    }
}

/// Closes every descriptor: the supervisor needs none, and must not hold the output pipe
/// (or `spawn`'s exec-error pipe) open.
unsafe fn close_all_files() {
    // SAFETY: closing descriptors is async-signal-safe.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) == 0 {
            return;
        }
        let mut lim: libc::rlimit = std::mem::zeroed();
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur.min(65536) as libc::c_int
        } else {
            1024
        };
        for fd in 0..max {
            libc::close(fd);
        }
    }
}

/// Waits until the command ends, vermas asks to stop, or vermas dies; forwards termination
/// signals to the command's group; then ends the whole tree. Returns the command's wait
/// status, when it was had.
unsafe fn supervise(
    command: libc::pid_t,
    vermas: libc::pid_t,
    set: &libc::sigset_t,
) -> Option<libc::c_int> {
    // SAFETY: only async-signal-safe system calls.
    unsafe {
        let mut status = None;
        while status.is_none() && libc::getppid() == vermas {
            let sig = libc::sigwaitinfo(set, std::ptr::null_mut());
            match sig {
                libc::SIGCHLD => status = reap(command, libc::WNOHANG),
                STOP => break,
                s if FORWARDED.contains(&s) => {
                    libc::killpg(command, libc::SIGTERM);
                }
                _ => {}
            }
        }
        end_tree(command, status)
    }
}

/// Reaps every child that has ended (waiting for one when `flags` lacks `WNOHANG`); returns
/// the command's status when it was among them.
unsafe fn reap(command: libc::pid_t, flags: libc::c_int) -> Option<libc::c_int> {
    // SAFETY: waitpid is async-signal-safe.
    unsafe {
        let mut found = None;
        let mut flags = flags;
        loop {
            let mut st = 0;
            let pid = libc::waitpid(-1, &mut st, flags);
            if pid <= 0 {
                return found;
            }
            if pid == command {
                found = Some(st);
            }
            flags |= libc::WNOHANG;
        }
    }
}

/// Kills the command's group and every child of the supervisor, round after round (a killed
/// process's children are adopted by the supervisor and killed in the next round), until
/// none is left. Returns the command's status.
unsafe fn end_tree(command: libc::pid_t, mut status: Option<libc::c_int>) -> Option<libc::c_int> {
    // SAFETY: only async-signal-safe system calls.
    unsafe {
        libc::killpg(command, libc::SIGKILL);
        if status.is_none() {
            libc::kill(command, libc::SIGKILL);
        }
        let mut idle_rounds = 0u32;
        loop {
            let listed = for_each_child(|pid| {
                libc::kill(pid, libc::SIGKILL);
            });
            // With the children known and killed, a blocking wait returns soon; without
            // (no /proc), poll so a child that cannot be found cannot hang the supervisor.
            let flags = if listed { 0 } else { libc::WNOHANG };
            let mut st = 0;
            let pid = libc::waitpid(-1, &mut st, flags);
            if pid == command {
                status = Some(st);
            }
            if pid > 0 {
                idle_rounds = 0;
                continue;
            }
            if pid < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            if pid < 0 {
                // ECHILD: the tree is gone.
                return status;
            }
            idle_rounds += 1;
            if idle_rounds > 2000 {
                return status;
            }
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            libc::nanosleep(&pause, std::ptr::null_mut());
        }
    }
}

/// Calls `each` with the pid of every child of this (single-threaded) process, read from
/// `/proc/thread-self/children`, else found by scanning `/proc`. False when neither works.
unsafe fn for_each_child(mut each: impl FnMut(libc::pid_t)) -> bool {
    // SAFETY: open, read and close are async-signal-safe; the buffers are on the stack.
    unsafe {
        let fd = libc::open(
            c"/proc/thread-self/children".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return scan_proc(libc::getpid(), &mut each);
        }
        let mut buf = [0u8; 4096];
        let mut number = Number::default();
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if n <= 0 {
                break;
            }
            for &b in &buf[..n as usize] {
                if let Some(pid) = number.push(b) {
                    each(pid);
                }
            }
        }
        if let Some(pid) = number.push(b' ') {
            each(pid);
        }
        libc::close(fd);
        true
    }
}

/// Calls `each` with every process whose parent is `me`, from `/proc/<pid>/stat`.
unsafe fn scan_proc(me: libc::pid_t, each: &mut impl FnMut(libc::pid_t)) -> bool {
    // SAFETY: raw system calls only; the buffers are on the stack.
    unsafe {
        let dir = libc::open(
            c"/proc".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if dir < 0 {
            return false;
        }
        let mut entries = [0u8; 8192];
        loop {
            let n = libc::syscall(
                libc::SYS_getdents64,
                dir,
                entries.as_mut_ptr(),
                entries.len(),
            );
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            while at < n as usize {
                // struct linux_dirent64: u64 ino, i64 off, u16 reclen, u8 type, name.
                let reclen = u16::from_ne_bytes([entries[at + 16], entries[at + 17]]) as usize;
                let name = &entries[at + 19..at + reclen];
                if let Some(pid) = parse_pid(name)
                    && parent_of(pid) == Some(me)
                {
                    each(pid);
                }
                at += reclen;
            }
        }
        libc::close(dir);
        true
    }
}

/// The parent of `pid`, from `/proc/<pid>/stat` (the field after the last `)`).
unsafe fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    let mut path = [0u8; 32];
    let mut len = 0;
    for &b in b"/proc/" {
        path[len] = b;
        len += 1;
    }
    let mut digits = [0u8; 12];
    let mut d = 0;
    let mut v = pid;
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        path[len] = digits[d];
        len += 1;
    }
    for &b in b"/stat" {
        path[len] = b;
        len += 1;
    }
    // SAFETY: the path is NUL-terminated (the buffer was zeroed); raw calls only.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let mut buf = [0u8; 512];
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        if n <= 0 {
            return None;
        }
        let text = &buf[..n as usize];
        let close = text.iter().rposition(|&b| b == b')')?;
        // ") S 1234 ...": skip the state, read the parent.
        let mut number = Number::default();
        let mut field = 0;
        for &b in &text[close + 1..] {
            if b == b' ' {
                field += 1;
                if field == 3 {
                    return number.push(b' ');
                }
            } else if field == 2 {
                number.push(b);
            }
        }
        None
    }
}

/// `name` as a pid, when it is all digits.
fn parse_pid(name: &[u8]) -> Option<libc::pid_t> {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    let name = &name[..end];
    if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut number = Number::default();
    for &b in name {
        number.push(b);
    }
    number.push(b' ')
}

/// Digits read one byte at a time; a non-digit ends a number.
#[derive(Default)]
struct Number {
    /// The value so far.
    value: libc::pid_t,
    /// Whether any digit was read.
    any: bool,
}

impl Number {
    /// Takes one byte; returns the number a non-digit ends.
    fn push(&mut self, b: u8) -> Option<libc::pid_t> {
        if b.is_ascii_digit() {
            self.value = self
                .value
                .saturating_mul(10)
                .saturating_add(libc::pid_t::from(b - b'0'));
            self.any = true;
            None
        } else if self.any {
            let v = self.value;
            *self = Number::default();
            Some(v)
        } else {
            None
        }
    }
}

/// Ends the supervisor the way the command ended: the same exit code, or the same signal
/// (without a core dump).
unsafe fn exit_as(status: Option<libc::c_int>) -> ! {
    // SAFETY: only async-signal-safe system calls.
    unsafe {
        let sig = match status {
            Some(st) if libc::WIFEXITED(st) => libc::_exit(libc::WEXITSTATUS(st)),
            Some(st) if libc::WIFSIGNALED(st) => libc::WTERMSIG(st),
            _ => libc::SIGKILL,
        };
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), sig);
        libc::_exit(128 + sig)
    }
}
