//! Cleaning up after a vermas process killed in the middle of a commit.
//!
//! git's lock files (`index.lock`, `HEAD.lock`, the branch's `.lock`) are created with
//! O_EXCL and removed on success; SIGKILL leaves them behind and then every git command
//! fails. Before taking each lock, vermas writes a note (atomically) naming the phase, and
//! after taking `index.lock` it adds that file's inode. The next vermas change holds
//! `.beads/.lock`, so any process named in a note is gone; it removes only the lock files
//! the note proves (or, within its phase's seconds, makes near-certain) were that
//! process's own. A live git command's lock is never the same inode, and git holds ref
//! locks for milliseconds, not the seconds between a crash and the next run.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long after a note a lock file may have been created by the note's writer.
const PHASE_WINDOW: Duration = Duration::from_secs(1);

/// The note a committing process keeps, at `.beads/.cache/commit-in-progress`.
pub struct CrashNote {
    path: PathBuf,
}

/// What the committing process was doing.
pub enum Phase<'a> {
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
    /// A note at `path`.
    pub fn new(path: PathBuf) -> CrashNote {
        CrashNote { path }
    }

    /// Records the phase before entering it (temp file and rename: never half-written).
    pub fn record(&self, phase: &Phase<'_>) {
        let text = match phase {
            Phase::LockingIndex => "locking-index\n".to_string(),
            Phase::Committing {
                index_ino,
                ref_locks,
            } => {
                let mut t = format!("committing\n{index_ino}\n");
                for l in *ref_locks {
                    t.push_str(&l.to_string_lossy());
                    t.push('\n');
                }
                t
            }
        };
        let tmp = self.path.with_extension("tmp");
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, &self.path);
        }
    }

    /// Forgets the note: the commit finished or failed cleanly.
    pub fn clear(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// Removes the lock files a killed predecessor left (see the module notes).
    pub fn recover(&self, index_lock: &Path) {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return;
        };
        let written = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let mut lines = text.lines();
        match lines.next() {
            Some("locking-index") => remove_if_created_after(index_lock, written),
            Some("committing") => {
                let ino = lines.next().and_then(|l| l.parse::<u64>().ok());
                if let (Some(ino), Ok(md)) = (ino, std::fs::metadata(index_lock))
                    && md.ino() == ino
                {
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
    if after_note && changed <= written + PHASE_WINDOW {
        let _ = std::fs::remove_file(lock);
    }
}
