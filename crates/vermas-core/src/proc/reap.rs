//! No process outlives the job that started it. On Linux each job runs under a guard
//! (see [`super::guard`]; else a supervisor of its own, [`super::supervise`]), which ends
//! the job's whole tree; vermas knows the running jobs, and on Ctrl-C or a termination
//! signal (see [`super::interrupt`]) asks each one's guard to end it before vermas exits.
//! As a fallback (neither, or one that was killed), every job carries a token in its
//! environment, vermas adopts orphaned descendants (a child subreaper), and sweeps the
//! token's processes.

use super::{interrupt, lock};
use rustix::process::{Pid, Signal, WaitOptions};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// The environment variable that carries the tokens of the checks a process belongs to,
/// as `:TOKEN:TOKEN:` (a vermas run inside a check adds its own).
pub const TOKEN_VAR: &str = "VERMAS_CHECK_TOKENS";

/// True where checks run under a supervisor that ends their whole tree.
pub const SUPERVISED: bool = cfg!(target_os = "linux");

/// The checks running now: each one's process group, the process that ends its tree when
/// stopped (its guard or supervisor), and its token.
static RUNNING: Mutex<Vec<(i32, i32, String)>> = Mutex::new(Vec::new());
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
        interrupt::install(end_all_checks);
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
/// [`STOP`]: super::supervise::STOP
pub fn stop(stopper: i32) {
    #[cfg(target_os = "linux")]
    if stopper > 1 {
        signal_process(stopper, super::supervise::STOP);
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
