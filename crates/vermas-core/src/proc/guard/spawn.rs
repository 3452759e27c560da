//! Starting a request's command from the guard.

use rustix::process::{Pid, Signal};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};

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
    let (argv, envp) = (pointers(&p.argv), pointers(&p.envp));
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

/// What the child of [`clone_command`] needs, all made before the clone: it runs in the
/// guard's memory until its `exec` and may allocate nothing.
struct CloneChild {
    /// The program, an absolute path.
    program: *const libc::c_char,
    /// `argv`, ending with a null pointer.
    argv: *const *const libc::c_char,
    /// `envp`, ending with a null pointer.
    envp: *const *const libc::c_char,
    /// The working folder.
    dir: *const libc::c_char,
    /// Its input, or -1 for `/dev/null`.
    stdin: libc::c_int,
    /// Its output and errors.
    out: libc::c_int,
    /// The errno of a step that failed (0 while none did), read by the guard after the
    /// clone returns.
    errno: AtomicI32,
}

/// Starts the command `p` (an absolute program) as `posix_spawn` would, without glibc's
/// round of two `sigaction` calls for every signal (the guard has no handler a child could
/// run): a clone sharing the guard's memory, the guard waiting until it has `exec`'d
/// (`CLONE_VFORK`), in a process group of its own, with its descriptors, folder,
/// environment, an empty signal mask and SIGPIPE's default action. Its errors come back at
/// once (`ENOEXEC`, a script without a `#!` line, asks for [`fork_command`] instead). The
/// command is not killed by the guard's death here; should the guard die, vermas ends the
/// command's group and finds its strays by their token.
pub(super) fn clone_command(
    p: &Prepared,
    out: &OwnedFd,
    stdin: Option<&OwnedFd>,
) -> io::Result<Pid> {
    let (argv, envp) = (pointers(&p.argv), pointers(&p.envp));
    let child = CloneChild {
        program: p.program.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        dir: p.dir.as_ptr(),
        stdin: stdin.map_or(-1, AsRawFd::as_raw_fd),
        out: out.as_raw_fd(),
        errno: AtomicI32::new(0),
    };
    let mut stack = vec![0u8; 64 * 1024];
    // SAFETY: the stack outlives the child's use of it (CLONE_VFORK suspends this thread
    // until the child has exec'd or exited), its top is 16-byte aligned, and `child`, with
    // everything it points to, lives until then too.
    let pid = unsafe {
        let top = stack.as_mut_ptr().add(stack.len());
        let top = top.sub(top as usize % 16);
        libc::clone(
            start_child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&raw const child).cast_mut().cast(),
        )
    };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    let errno = child.errno.load(Ordering::Acquire);
    if errno != 0 {
        let mut status = 0;
        // SAFETY: reaps the child that failed before its exec.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(io::Error::from_raw_os_error(errno));
    }
    Pid::from_raw(pid).ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))
}

/// The child of [`clone_command`]: sets itself up and `exec`s, with system calls only.
extern "C" fn start_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `CloneChild` the guard keeps alive until this exec's or exits;
    // only async-signal-safe system calls follow, on memory made before the clone.
    unsafe {
        let c = &*(arg as *const CloneChild);
        let input = if c.stdin >= 0 {
            c.stdin
        } else {
            libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC)
        };
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        let ready = libc::setpgid(0, 0) == 0
            && input >= 0
            && libc::dup2(input, 0) >= 0
            && libc::dup2(c.out, 1) >= 0
            && libc::dup2(c.out, 2) >= 0
            && libc::chdir(c.dir) == 0
            && libc::signal(libc::SIGPIPE, libc::SIG_DFL) != libc::SIG_ERR
            && libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) == 0;
        if ready {
            libc::execve(c.program, c.argv, c.envp);
        }
        let errno = *libc::__errno_location();
        c.errno.store(
            if errno == 0 { libc::EIO } else { errno },
            Ordering::Release,
        );
        libc::_exit(127)
    }
}

/// The null-terminated array of pointers `execve` takes for `strings` (valid while they are).
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|a| a.as_ptr())
        .chain([std::ptr::null()])
        .collect()
}
