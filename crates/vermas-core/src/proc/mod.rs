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

#[cfg(test)]
mod tests {
    /// Every `.rs` file under `dir`, recursively.
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_process_layer_names_no_other_module_of_the_crate() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/proc");
        let mut files = Vec::new();
        sources(&root, &mut files);
        assert!(files.len() > 5, "{files:?}");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            // The code, without its tests (this one names what it looks for).
            let code_lines = text.lines().take_while(|l| !l.starts_with("#[cfg(test)]"));
            for (n, line) in code_lines.enumerate() {
                let code = line.split("//").next().unwrap_or("");
                let outside = code
                    .match_indices("crate::")
                    .any(|(at, _)| !code[at..].starts_with("crate::proc"));
                assert!(
                    !outside && !code.contains("super::super::"),
                    "{}:{}: the process layer uses only itself: {line}",
                    file.display(),
                    n + 1
                );
            }
        }
    }
}
