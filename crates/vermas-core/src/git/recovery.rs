//! Cleaning up after a vermas process killed in the middle of a commit.
//!
//! git's lock files (`index.lock`, `HEAD.lock`, the branch's `.lock`) are created with
//! O_EXCL and removed on success; SIGKILL leaves them behind and then every git command
//! fails. Before taking each lock, vermas writes a note (atomically) naming the phase, and
//! after taking `index.lock` it adds that file's inode. The next vermas change holds
//! `.beads/.lock`, so any process named in a note is gone; it removes only the lock files
//! the note proves (or, within its phase's seconds, makes near-certain) were that
//! process's own. The note names its writer's pid: while that process lives nothing is
//! touched, and a lock file that any live process holds open (a running git command) is
//! never removed, so a read-only command may recover too.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long after a note a lock file may have been created by the note's writer.
const PHASE_WINDOW: Duration = Duration::from_secs(1);

/// The note a committing process keeps, at `.beads/.cache/commit-in-progress`.
pub(super) struct CrashNote {
    path: PathBuf,
    /// The `index.lock` the writer takes.
    index_lock: PathBuf,
}

/// What the committing process was doing.
pub(super) enum Phase<'a> {
    /// About to take `index.lock`.
    LockingIndex,
    /// Holding `index.lock` (this inode); about to move the branch, whose ref locks these are.
    Committing {
        /// Inode of our `index.lock`.
        index_ino: u64,
        /// The ref lock files the branch update may create.
        ref_locks: &'a [PathBuf],
    },
}

impl CrashNote {
    /// A note at `path` for a commit that locks `index_lock`.
    pub(super) fn new(path: PathBuf, index_lock: PathBuf) -> CrashNote {
        CrashNote { path, index_lock }
    }

    /// Records the phase before entering it (temp file and rename: never half-written).
    pub(super) fn record(&self, phase: &Phase<'_>) {
        let pid = std::process::id();
        let head = format!("pid {pid}\nindex {}\n", self.index_lock.to_string_lossy());
        let text = match phase {
            Phase::LockingIndex => format!("{head}locking-index\n"),
            Phase::Committing {
                index_ino,
                ref_locks,
            } => {
                let mut t = format!("{head}committing\n{index_ino}\n");
                for l in *ref_locks {
                    t.push_str(&l.to_string_lossy());
                    t.push('\n');
                }
                t
            }
        };
        let tmp = self.path.with_extension(format!("{pid}.tmp"));
        if std::fs::write(&tmp, text).is_ok() {
            // Best effort: without the note a crash is only cleaned up by hand.
            let _ = std::fs::rename(&tmp, &self.path);
        }
    }

    /// Forgets the note: the commit finished or failed cleanly.
    pub(super) fn clear(&self) {
        // Gone already is fine: a note left behind is checked and dropped by the next commit.
        let _ = std::fs::remove_file(&self.path);
    }

    /// Removes the lock files a killed predecessor left (see the module notes).
    pub(super) fn recover(&self) {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return;
        };
        let written = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let mut lines = text.lines().peekable();
        if let Some(pid) = lines.peek().and_then(|l| l.strip_prefix("pid ")) {
            let pid: i32 = pid.parse().unwrap_or(0);
            if pid == std::process::id() as i32 || process_alive(pid) {
                return; // its writer is still at work
            }
            lines.next();
        }
        let mut index_lock = self.index_lock.as_path();
        if let Some(named) = lines.peek().and_then(|l| l.strip_prefix("index ")) {
            index_lock = Path::new(named);
            lines.next();
        }
        match lines.next() {
            Some("locking-index") => remove_if_created_after(index_lock, written),
            Some("committing") => {
                let ino = lines.next().and_then(|l| l.parse::<u64>().ok());
                if let (Some(ino), Ok(md)) = (ino, std::fs::metadata(index_lock))
                    && md.ino() == ino
                    && !held_open(index_lock)
                {
                    // Best effort: a lock that cannot go is reported by the commit that waits on it.
                    let _ = std::fs::remove_file(index_lock);
                }
                for lock in lines {
                    remove_if_created_after(Path::new(lock), written);
                }
            }
            _ => {}
        }
        self.clear();
    }
}

impl Drop for CrashNote {
    /// A process that returns (success or error) leaves no note; only a killed one does.
    fn drop(&mut self) {
        self.clear();
    }
}

/// Removes `lock` when its status changed within the phase window after `written`.
fn remove_if_created_after(lock: &Path, written: SystemTime) {
    let Ok(md) = std::fs::metadata(lock) else {
        return;
    };
    let changed = SystemTime::UNIX_EPOCH
        + Duration::new(
            md.ctime().max(0) as u64,
            md.ctime_nsec().clamp(0, 999_999_999) as u32,
        );
    let after_note = changed + Duration::from_millis(50) >= written;
    if after_note && changed <= written + PHASE_WINDOW && !held_open(lock) {
        // Best effort: a lock that cannot go is reported by the commit that waits on it.
        let _ = std::fs::remove_file(lock);
    }
}

/// True while process `pid` exists and is not a zombie.
fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| !matches!(state, 'Z' | 'X')),
        // Without /proc, ask the kernel (signal 0 only checks).
        Err(_) => rustix::process::Pid::from_raw(pid)
            .is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok()),
    }
}

/// True when some live process has `path` open (a git command holding its lock file).
pub(crate) fn held_open(path: &Path) -> bool {
    let Ok(target) = std::fs::metadata(path) else {
        return false;
    };
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs
        .flatten()
        .filter(|p| {
            p.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter_map(|p| std::fs::read_dir(p.path().join("fd")).ok())
        .flat_map(|fds| fds.flatten())
        .filter_map(|fd| std::fs::metadata(fd.path()).ok())
        .any(|m| m.dev() == target.dev() && m.ino() == target.ino())
}

/// Removes the lock files a killed vermas left, if the crash note at `note_path` says so;
/// cheap when there is no note (one stat). Safe from any command: nothing is touched while
/// the note's writer lives or while a process holds the lock open.
pub(crate) fn recover_left_locks(note_path: &Path) {
    if note_path.exists() {
        CrashNote::new(note_path.to_path_buf(), PathBuf::new()).recover();
    }
}
