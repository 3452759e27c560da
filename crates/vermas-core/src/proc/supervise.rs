//! Ending a check's whole tree, and the per-check supervisor. The loop that waits for the
//! command, forwards termination signals to its group and then kills every process left
//! (whatever its process group, session or environment) is shared by the guard (see
//! [`super::guard`]), which runs one check after another, and by the supervisor used where
//! no guard can be started: vermas's child forks once more before it runs the command, and
//! the first fork stays behind, adopts every orphan of the check (a child subreaper), ends
//! the tree when the command ends, when vermas asks, or when vermas dies (its parent-death
//! signal), and exits as the command did.
//!
//! The supervisor runs between `fork` and `exec` of a multi-threaded program, so this code
//! uses only async-signal-safe system calls: no allocation, no locks, no Rust I/O.

use rustix::fs::{Mode, OFlags, open};
use rustix::process::{Pid, Signal, WaitOptions, kill_process, kill_process_group, wait};
use std::io;

/// Sent to a supervisor: end the check's whole tree now (also its parent-death signal).
pub const STOP: Signal = Signal::USR1;

/// [`STOP`] as the number signal sets hold.
const STOP_RAW: libc::c_int = STOP.as_raw();

/// Signals the supervisor forwards to the command's process group.
const FORWARDED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// The `pre_exec` hook that turns the spawned child into the supervisor of the command it
/// is about to run; `vermas` is the pid of the process that spawns it.
///
/// # Safety
///
/// The closure may be called only as a `pre_exec` hook (in the child, between `fork` and
/// `exec`) of a command `vermas` spawns: see [`start`].
pub(super) unsafe fn hook(
    vermas: libc::pid_t,
) -> impl FnMut() -> io::Result<()> + Send + Sync + 'static {
    // SAFETY: the caller runs the closure only as a pre_exec hook, where `start` may run.
    move || unsafe { start(vermas) }
}

/// The signals the supervisor waits for (blocked, then taken with `sigwaitinfo`).
pub(super) fn watched() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data, for which all zeroes is a valid value; sigemptyset
    // and sigaddset write only into the set they are given, and every number added is a
    // valid signal.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in FORWARDED.into_iter().chain([libc::SIGCHLD, STOP_RAW]) {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// In the freshly forked child: becomes the supervisor and forks the command, which returns
/// `Ok` to go on to `exec`; the supervisor itself never returns.
///
/// # Safety
///
/// Call only in a child just forked from `vermas` and about to `exec` (a `pre_exec` hook):
/// the child of a multi-threaded program may make async-signal-safe calls only, which is
/// all this does, and the supervisor it becomes closes every descriptor (see
/// [`close_all_files`]) and ends with `_exit`, never returning into Rust code that could
/// use them.
unsafe fn start(vermas: libc::pid_t) -> io::Result<()> {
    use rustix::process::{Pid, getpid, getppid, set_parent_process_death_signal};
    let set = watched();
    // SAFETY: only async-signal-safe system calls on this single-threaded child (rustix's
    // make no allocation and take no lock), as the caller's contract requires.
    unsafe {
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        let me = getpid();
        // Both fail only on an invalid argument; the getppid check below covers the race.
        let _ = rustix::process::set_child_subreaper(Some(me));
        let _ = set_parent_process_death_signal(Some(STOP));
        if Pid::as_raw(getppid()) != vermas {
            // vermas died before the signal was armed: run nothing.
            libc::_exit(126);
        }
        let command = libc::fork();
        if command < 0 {
            let e = io::Error::last_os_error();
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            return Err(e);
        }
        let Some(command) = Pid::from_raw(command) else {
            // The command: killed if its supervisor dies, in a process group of its own.
            let _ = set_parent_process_death_signal(Some(Signal::KILL));
            if getppid() != Some(me) {
                libc::_exit(126);
            }
            let _ = rustix::process::setpgid(None, None);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            return Ok(());
        };
        // Make sure the command's group exists before the supervisor signals it (the
        // command may have made it already, or exec'd: either way the group is there).
        let _ = rustix::process::setpgid(Some(command), Some(command));
        // Only the name shown in `ps`.
        let _ = rustix::thread::set_name(c"vermas-guard");
        close_all_files();
        let status = supervise(command, vermas, &set);
        exit_as(status)
    }
}

/// Closes every descriptor: the supervisor needs none, and must not hold the output pipe
/// (or `spawn`'s exec-error pipe) open.
///
/// # Safety
///
/// Descriptors that Rust objects own (an `OwnedFd`, a `File`, the standard streams) are
/// closed under them: call only in a process that uses or drops none of those again, as
/// the supervisor does, which ends with `_exit`.
unsafe fn close_all_files() {
    // SAFETY: closing descriptors is async-signal-safe; the caller promises no owner of
    // one is used again.
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
pub(super) fn supervise(command: Pid, vermas: libc::pid_t, set: &libc::sigset_t) -> Option<i32> {
    let mut status = None;
    while status.is_none() && Pid::as_raw(rustix::process::getppid()) == vermas {
        // SAFETY: `set` is an initialised signal set; sigwaitinfo accepts a null info.
        let sig = unsafe { libc::sigwaitinfo(set, std::ptr::null_mut()) };
        match sig {
            libc::SIGCHLD => status = reap(command),
            STOP_RAW => break,
            s if FORWARDED.contains(&s) => {
                // The group may be gone already.
                let _ = kill_process_group(command, Signal::TERM);
            }
            _ => {}
        }
    }
    end_tree(command, status)
}

/// Takes every pending signal of `set` without acting on it: a stop meant for a check that
/// has ended must not end the next one.
pub(super) fn drain(set: &libc::sigset_t) {
    let now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `set` is an initialised signal set; sigtimedwait accepts a null info.
    while unsafe { libc::sigtimedwait(set, std::ptr::null_mut(), &now) } > 0 {}
}

/// Reaps every child that has ended, without waiting; returns the command's wait status
/// when it was among them.
fn reap(command: Pid) -> Option<i32> {
    let mut found = None;
    while let Ok(Some((pid, status))) = wait(WaitOptions::NOHANG) {
        if pid == command {
            found = Some(status.as_raw());
        }
    }
    found
}

/// Kills the command's group and every child of the supervisor, round after round (a killed
/// process's children are adopted by the supervisor and killed in the next round), until
/// none is left. Returns the command's status.
pub(super) fn end_tree(command: Pid, mut status: Option<i32>) -> Option<i32> {
    // Each kill may find its target gone already (ESRCH): nothing to do then.
    let _ = kill_process_group(command, Signal::KILL);
    if status.is_none() {
        let _ = kill_process(command, Signal::KILL);
    }
    let mut idle_rounds = 0u32;
    loop {
        let listed = for_each_child(|pid| {
            let _ = kill_process(pid, Signal::KILL);
        });
        // With the children known and killed, a blocking wait returns soon; without
        // (no /proc), poll so a child that cannot be found cannot hang the supervisor.
        let flags = if listed {
            WaitOptions::empty()
        } else {
            WaitOptions::NOHANG
        };
        match wait(flags) {
            Ok(Some((pid, st))) => {
                if pid == command {
                    status = Some(st.as_raw());
                }
                idle_rounds = 0;
                continue;
            }
            Err(rustix::io::Errno::INTR) => continue,
            // ECHILD: the tree is gone.
            Err(_) => return status,
            Ok(None) => {}
        }
        idle_rounds += 1;
        if idle_rounds > 2000 {
            return status;
        }
        let pause = rustix::thread::Timespec {
            tv_sec: 0,
            tv_nsec: 1_000_000,
        };
        // Woken early by a signal: the next round looks again.
        let _ = rustix::thread::nanosleep(&pause);
    }
}

/// Calls `each` with the pid of every child of this (single-threaded) process, read from
/// `/proc/thread-self/children`, else found by scanning `/proc`. False when neither works.
/// Raw system calls into stack buffers only: no allocation.
fn for_each_child(mut each: impl FnMut(Pid)) -> bool {
    let Ok(fd) = open(c"/proc/thread-self/children", read_only(), Mode::empty()) else {
        return scan_proc(rustix::process::getpid(), &mut each);
    };
    let mut buf = [0u8; 4096];
    let mut number = Number::default();
    while let Ok(n @ 1..) = rustix::io::read(&fd, &mut buf[..]) {
        for &b in &buf[..n] {
            if let Some(pid) = number.push(b).and_then(Pid::from_raw) {
                each(pid);
            }
        }
    }
    if let Some(pid) = number.push(b' ').and_then(Pid::from_raw) {
        each(pid);
    }
    true
}

/// Flags to open a file for reading, not inherited by a command.
fn read_only() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC
}

/// Calls `each` with every process whose parent is `me`, from `/proc/<pid>/stat`.
fn scan_proc(me: Pid, each: &mut impl FnMut(Pid)) -> bool {
    let Ok(dir) = open(c"/proc", read_only() | OFlags::DIRECTORY, Mode::empty()) else {
        return false;
    };
    let mut space = [std::mem::MaybeUninit::<u8>::uninit(); 8192];
    let mut entries = rustix::fs::RawDir::new(&dir, &mut space);
    while let Some(Ok(entry)) = entries.next() {
        if let Some(pid) = parse_pid(entry.file_name().to_bytes())
            && parent_of(pid) == Some(me)
        {
            each(pid);
        }
    }
    true
}

/// The parent of `pid`, from `/proc/<pid>/stat` (the field after the last `)`).
fn parent_of(pid: Pid) -> Option<Pid> {
    let mut path = [0u8; 32];
    let mut len = 0;
    for &b in b"/proc/" {
        path[len] = b;
        len += 1;
    }
    let mut digits = [0u8; 12];
    let mut d = 0;
    let mut v = pid.as_raw_nonzero().get();
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
    // The buffer was zeroed: the path ends with a NUL.
    let path = std::ffi::CStr::from_bytes_until_nul(&path).ok()?;
    let fd = open(path, read_only(), Mode::empty()).ok()?;
    let mut buf = [0u8; 512];
    let n = rustix::io::read(&fd, &mut buf[..]).ok()?;
    let text = &buf[..n];
    let close = text.iter().rposition(|&b| b == b')')?;
    // ") S 1234 ...": skip the state, read the parent.
    let mut number = Number::default();
    let mut field = 0;
    for &b in &text[close + 1..] {
        if b == b' ' {
            field += 1;
            if field == 3 {
                return number.push(b' ').and_then(Pid::from_raw);
            }
        } else if field == 2 {
            number.push(b);
        }
    }
    None
}

/// `name` as a pid, when it is all digits.
fn parse_pid(name: &[u8]) -> Option<Pid> {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    let name = &name[..end];
    if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut number = Number::default();
    for &b in name {
        number.push(b);
    }
    number.push(b' ').and_then(Pid::from_raw)
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
/// (without a core dump). Safe to call anywhere (ending a process without running its
/// destructors is, as `std::process::exit` is), though meant for the supervisor alone.
fn exit_as(status: Option<libc::c_int>) -> ! {
    // SAFETY: only async-signal-safe system calls, on a signal set built here; each either
    // changes this process's own settings or ends it.
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
