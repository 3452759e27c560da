//! Starting a request's command from the guard.

use rustix::process::{Pid, Signal};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

/// A request taken apart, ready for `exec`.
pub(super) struct Prepared {
    /// The program.
    pub program: CString,
    /// `argv`, `arg0` first.
    pub argv: Vec<CString>,
    /// The working folder.
    pub dir: CString,
    /// The whole environment.
    pub envp: Vec<CString>,
    /// The PATH the program is looked up on, when the request sets one.
    pub path: Option<CString>,
}

/// Forks the command: in a process group of its own, killed if the guard dies, with its
/// descriptors, folder, environment and an empty signal mask, then `exec`. An `exec`
/// failure's errno comes back on `errors`.
pub(super) fn fork_command(
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

/// Starts the command with `posix_spawnp` (a vfork: the guard's memory is not copied,
/// which makes this cheaper than [`fork_command`]): in a process group of its own, with its
/// descriptors, folder, environment, an empty signal mask and SIGPIPE's default action.
/// Its errors come back at once; `ENOEXEC` (a script without a `#!` line, which `exec`'s
/// shell fallback runs) asks for [`fork_command`] instead. The command is not killed by
/// the guard's death here; should the guard die, vermas ends the command's group and finds
/// its strays by their token.
#[cfg(target_env = "gnu")]
pub(super) fn spawn_command(
    p: &Prepared,
    out: &OwnedFd,
    stdin: Option<&OwnedFd>,
) -> io::Result<Pid> {
    let argv: Vec<*mut libc::c_char> = p
        .argv
        .iter()
        .map(|a| a.as_ptr().cast_mut())
        .chain([std::ptr::null_mut()])
        .collect();
    let envp: Vec<*mut libc::c_char> = p
        .envp
        .iter()
        .map(|a| a.as_ptr().cast_mut())
        .chain([std::ptr::null_mut()])
        .collect();
    // SAFETY: the attribute and action objects are initialised before use and destroyed
    // after; every pointer handed over (program, argv, envp, folder, signal sets) outlives
    // the call, and argv and envp end with a null pointer.
    unsafe {
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        libc::posix_spawnattr_init(&mut attr);
        libc::posix_spawn_file_actions_init(&mut actions);
        let flags = libc::POSIX_SPAWN_SETPGROUP
            | libc::POSIX_SPAWN_SETSIGMASK
            | libc::POSIX_SPAWN_SETSIGDEF;
        libc::posix_spawnattr_setflags(&mut attr, flags as libc::c_short);
        libc::posix_spawnattr_setpgroup(&mut attr, 0);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::posix_spawnattr_setsigmask(&mut attr, &none);
        let mut default: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut default);
        libc::sigaddset(&mut default, libc::SIGPIPE);
        libc::posix_spawnattr_setsigdefault(&mut attr, &default);
        match stdin {
            Some(fd) => libc::posix_spawn_file_actions_adddup2(&mut actions, fd.as_raw_fd(), 0),
            None => libc::posix_spawn_file_actions_addopen(
                &mut actions,
                0,
                c"/dev/null".as_ptr(),
                libc::O_RDONLY,
                0,
            ),
        };
        libc::posix_spawn_file_actions_adddup2(&mut actions, out.as_raw_fd(), 1);
        libc::posix_spawn_file_actions_adddup2(&mut actions, out.as_raw_fd(), 2);
        libc::posix_spawn_file_actions_addchdir_np(&mut actions, p.dir.as_ptr());
        let mut pid: libc::pid_t = 0;
        let rc = libc::posix_spawnp(
            &mut pid,
            p.program.as_ptr(),
            &actions,
            &attr,
            argv.as_ptr(),
            envp.as_ptr(),
        );
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attr);
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
        Pid::from_raw(pid).ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))
    }
}
