//! The process layer: every external command vermas runs (a check, a gate, a lifecycle
//! hook, an LLM call, a molecule step, a `tasks` command) starts here, and none outlives
//! the job that started it, whatever it does.
//!
//! - [`run`] runs one [`Job`]: in a process group of its own, stdin closed or fed, output
//!   merged and capped (`spawn.rs`, `wait.rs`, `capture.rs`, `job.rs`), on a PATH the
//!   checked repository cannot stand in ([`safe_path`]).
//! - [`guard`] is the long-lived process per thread that starts each command and ends its
//!   whole tree; `supervise.rs` is the tree-ending loop it runs, and the per-command
//!   supervisor used where no guard can be started.
//! - [`reap`] knows the running jobs and finds strays by their token.
//! - [`interrupt`] owns the one Ctrl-C and termination-signal registry: whatever must be
//!   undone before vermas exits on a signal registers there.
//!
//! This layer knows nothing of checks, specs or beads: every other module uses it, and it
//! uses none of them.

mod capture;
#[cfg(target_os = "linux")]
pub mod guard;
pub mod interrupt;
mod job;
pub mod reap;
pub mod safe_path;
mod spawn;
#[cfg(target_os = "linux")]
mod supervise;
mod wait;

pub use job::{Finished, Job, SELF_VAR};
pub use spawn::run;

use std::sync::Mutex;

/// Locks `m`, recovering from a poisoned lock.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
