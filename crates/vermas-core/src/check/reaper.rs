//! No process outlives the check that started it. On Linux each check runs under a guard
//! (see [`super::guard`]; else a supervisor of its own, [`super::supervisor`]), which ends
//! the check's whole tree; vermas knows the running checks, and on Ctrl-C or a termination
//! signal asks each one's guard to end it before vermas exits. As a fallback (neither, or one
//! that was killed), every
//! check carries a token in its environment, vermas adopts orphaned descendants (a child
//! subreaper), and sweeps the token's processes.

use rustix::process::{Pid, Signal, WaitOptions};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// The environment variable that carries the tokens of the checks a process belongs to,
/// as `:TOKEN:TOKEN:` (a vermas run inside a check adds its own).
pub const TOKEN_VAR: &str = "VERMAS_CHECK_TOKENS";

/// Signals after which vermas ends its checks, then itself.
const TERMINATING: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// True where checks run under a supervisor that ends their whole tree.
pub const SUPERVISED: bool = cfg!(target_os = "linux");

/// The checks running now: each one's process group, the process that ends its tree when
/// stopped (its guard or supervisor), and its token.
static RUNNING: Mutex<Vec<(i32, i32, String)>> = Mutex::new(Vec::new());
/// Work to do before vermas exits on a signal (e.g. closing a tmux pane).
static ON_SIGNAL: Mutex<Vec<Box<dyn Fn() + Send>>> = Mutex::new(Vec::new());
/// The write end of the pipe the signal handler wakes the cleanup thread through.
static WAKE: std::sync::OnceLock<std::io::PipeWriter> = std::sync::OnceLock::new();
/// How the front end ends the process after a terminating signal, when re-raising it did
/// not (see [`set_terminator`]).
static TERMINATOR: std::sync::OnceLock<fn(i32)> = std::sync::OnceLock::new();
/// Set once a terminating signal arrived: finished checks then wait for the end.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Numbers the checks of this process.
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

/// One check's identity: its token and the environment value its process gets.
#[derive(Debug, Clone)]
pub struct Token {
    /// `<vermas pid>.<n>`, unique among the processes alive now.
    pub id: String,
    /// The value of [`TOKEN_VAR`] for the check's process.
    pub env_value: String,
}

impl Token {
    /// A fresh token, added to the tokens this process inherited.
    pub fn new() -> Token {
        let id = format!(
            "{}.{}",
            std::process::id(),
            NEXT_TOKEN.fetch_add(1, Ordering::Relaxed)
        );
        let inherited = std::env::var(TOKEN_VAR).unwrap_or_default();
        let base = if inherited.ends_with(':') {
            inherited
        } else {
            ":".to_string()
        };
        Token {
            env_value: format!("{base}{id}:"),
            id,
        }
    }
}

impl Default for Token {
    fn default() -> Self {
        Token::new()
    }
}

/// Makes vermas the parent of orphaned descendants and installs the signal cleanup; both
/// happen once per process.
pub fn prepare() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // Without it, orphans go to init and are found by their token instead.
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
        install_signal_cleanup();
    });
}

/// Records a running check's process group and the process that ends its tree when
/// stopped (see [`stop`]); [`release`] forgets it.
pub fn track(pgid: i32, stopper: i32, token: &Token) {
    lock(&RUNNING).push((pgid, stopper, token.id.clone()));
}

/// Forgets a check's process group once it has ended.
pub fn release(pgid: i32) {
    lock(&RUNNING).retain(|(p, _, _)| *p != pgid);
}

/// After a terminating signal, parks the calling thread for good (vermas is ending), so a
/// check killed by the cleanup is never reported as a result.
pub fn halt_if_interrupted() {
    while INTERRUPTED.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Runs `work` before vermas exits on a termination signal.
pub fn on_signal(work: impl Fn() + Send + 'static) {
    lock(&ON_SIGNAL).push(Box::new(work));
}

/// Kills every process that carries `token` (the check's descendants, also those that left
/// its process group), repeating until none is left or two seconds pass. Returns how many
/// were killed.
pub fn sweep(token: &Token) -> usize {
    sweep_matching(&format!(":{}:", token.id))
}

/// Kills every process carrying a token of this vermas process.
fn sweep_all() -> usize {
    sweep_matching(&format!(":{}.", std::process::id()))
}

/// Kills processes whose [`TOKEN_VAR`] contains `needle`, round after round.
fn sweep_matching(needle: &str) -> usize {
    let until = Instant::now() + Duration::from_secs(2);
    let mut killed = 0;
    loop {
        let found = carriers(needle);
        if found.is_empty() || Instant::now() >= until {
            return killed;
        }
        for pid in &found {
            signal_process(*pid, Signal::KILL);
        }
        killed += found.len();
        reap_adopted(&found);
    }
}

/// Pids (other than this process) whose environment carries `needle` in [`TOKEN_VAR`].
fn carriers(needle: &str) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id() as i32;
    let prefix = format!("{TOKEN_VAR}=");
    let mut found = Vec::new();
    let mut buf = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        buf.clear();
        let Ok(mut f) = std::fs::File::open(entry.path().join("environ")) else {
            continue;
        };
        if f.read_to_end(&mut buf).is_err() {
            continue;
        }
        let carries = buf.split(|b| *b == 0).any(|var| {
            var.strip_prefix(prefix.as_bytes())
                .is_some_and(|v| contains(v, needle.as_bytes()))
        });
        if carries {
            found.push(pid);
        }
    }
    found
}

/// True when `needle` occurs in `hay`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Collects the exit status of killed processes that were adopted by vermas, so none is
/// left a zombie. Check leaders are left to their own waiters.
fn reap_adopted(pids: &[i32]) {
    let leaders: Vec<i32> = lock(&RUNNING)
        .iter()
        .flat_map(|(p, s, _)| [*p, *s])
        .collect();
    let me = std::process::id() as i32;
    for &pid in pids.iter().filter(|p| !leaders.contains(p)) {
        if parent_of(pid) == Some(me)
            && let Some(pid) = Pid::from_raw(pid)
        {
            // Gone already (reaped by another waiter): nothing is left to collect.
            let _ = rustix::process::waitpid(Some(pid), WaitOptions::empty());
        }
    }
}

/// The parent pid of `pid`, from `/proc/<pid>/stat`.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses; fields resume after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Ends every running check: TERM to each group, then after a short grace the end of each
/// whole tree, then a sweep for descendants that carry a token of this process.
fn end_all_checks() {
    let running: Vec<(i32, i32)> = lock(&RUNNING).iter().map(|(p, s, _)| (*p, *s)).collect();
    let groups: Vec<i32> = running.iter().map(|(p, _)| *p).collect();
    for &g in &groups {
        signal_group(g, Signal::TERM);
    }
    let wait_for_groups = |ms| {
        let until = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < until && groups.iter().any(|&g| group_alive(g)) {
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    wait_for_groups(300);
    for &(_, stopper) in &running {
        stop(stopper);
    }
    wait_for_groups(1000);
    sweep_all();
}

/// Ends the whole tree of a check: the [`STOP`] signal to `stopper`, its guard or
/// supervisor, on Linux; elsewhere KILL to the group `stopper` leads.
///
/// [`STOP`]: super::supervisor::STOP
pub fn stop(stopper: i32) {
    #[cfg(target_os = "linux")]
    if stopper > 1 {
        signal_process(stopper, super::supervisor::STOP);
    }
    #[cfg(not(target_os = "linux"))]
    signal_group(stopper, Signal::KILL);
}

/// Sends `sig` to process group `pgid`.
pub fn signal_group(pgid: i32, sig: Signal) {
    if let Some(group) = Pid::from_raw(pgid).filter(|_| pgid > 1) {
        // A stale or empty group yields ESRCH: nothing is left to signal.
        let _ = rustix::process::kill_process_group(group, sig);
    }
}

/// Sends `sig` to process `pid`.
fn signal_process(pid: i32, sig: Signal) {
    if let Some(pid) = Pid::from_raw(pid).filter(|_| pid > 1) {
        // A process that is gone yields ESRCH: nothing is left to signal.
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// True while any process of group `pgid` exists.
fn group_alive(pgid: i32) -> bool {
    Pid::from_raw(pgid)
        .filter(|_| pgid > 1)
        .is_some_and(|g| rustix::process::test_kill_process_group(g).is_ok())
}

/// Names how the front end ends the process with an exit code after a terminating signal
/// whose re-raise did not end it: the library itself never exits.
pub fn set_terminator(end: fn(i32)) {
    // Set once at start; a second call keeps the first.
    let _ = TERMINATOR.set(end);
}

/// Installs handlers for the terminating signals that wake a cleanup thread, which ends the
/// checks, runs [`on_signal`] work, then lets the signal end vermas as it would have.
fn install_signal_cleanup() {
    let Ok((mut wake, writer)) = std::io::pipe() else {
        return;
    };
    if WAKE.set(writer).is_err() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("vermas-signals".into())
        .spawn(move || {
            let mut sig = [0u8; 1];
            if wake.read_exact(&mut sig).is_ok() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                end_all_checks();
                for work in lock(&ON_SIGNAL).iter() {
                    work();
                }
                let sig = libc::c_int::from(sig[0]);
                // SAFETY: restoring the default action and re-raising ends the process as
                // the signal would have without vermas's handler.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    libc::raise(sig);
                }
                // Still here (the signal was held off): the front end ends the process;
                // the library never does.
                if let Some(end) = TERMINATOR.get() {
                    end(128 + sig);
                }
            }
        });
    if spawned.is_err() {
        return;
    }
    for sig in TERMINATING {
        // SAFETY: the action only loads an initialised OnceLock (an atomic read) and writes
        // one byte to a pipe (write(2), no allocation, no lock): async-signal-safe.
        let _ = unsafe {
            signal_hook_registry::register(sig, move || {
                if let Some(mut wake) = WAKE.get() {
                    // A full pipe already holds a wake-up.
                    let _ = wake.write(&[sig as u8]);
                }
            })
        };
    }
}

/// Locks `m`, recovering from a poisoned lock.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
