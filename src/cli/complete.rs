//! Dynamic shell completion: bead ids, statuses, types, spec names and formula names,
//! read from the repository each time the shell asks (clap_complete's engine).

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use std::ffi::OsStr;

/// The candidates among `words` that start with what was typed.
fn matching(current: &OsStr, words: impl IntoIterator<Item = String>) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let mut out: Vec<String> = words
        .into_iter()
        .filter(|w| w.starts_with(&*typed))
        .collect();
    out.sort();
    out.dedup();
    out.into_iter().map(CompletionCandidate::new).collect()
}

/// The workspace around the current folder, if there is one.
fn workspace() -> Option<crate::workspace::Workspace> {
    let cwd = std::env::current_dir().ok()?;
    crate::workspace::Workspace::discover(&cwd).ok()
}

/// Ids of the beads in this workspace.
fn bead_ids(current: &OsStr) -> Vec<CompletionCandidate> {
    let ids = workspace()
        .and_then(|ws| crate::bead::store::list_ids(&ws).ok())
        .unwrap_or_default();
    matching(current, ids)
}

/// Every bead status.
fn statuses(current: &OsStr) -> Vec<CompletionCandidate> {
    let all = [
        "open",
        "in_progress",
        "blocked",
        "deferred",
        "hooked",
        "closed",
        "rejected",
    ];
    matching(current, all.map(String::from))
}

/// Every bead type.
fn types(current: &OsStr) -> Vec<CompletionCandidate> {
    let all = [
        "task",
        "feature",
        "bug",
        "epic",
        "chore",
        "test-spec",
        "verification-result",
        "message",
        "molecule",
        "gate",
    ];
    matching(current, all.map(String::from))
}

/// Names of the specs in this repository.
fn spec_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let names = std::env::current_dir()
        .ok()
        .and_then(|cwd| crate::verification::Project::locate(&cwd).ok())
        .and_then(|p| p.specs().ok())
        .map(|specs| specs.into_iter().map(|s| s.name).collect::<Vec<_>>())
        .unwrap_or_default();
    matching(current, names)
}

/// Names of the formulas (the workspace's and the built-ins).
fn formula_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let ws = workspace();
    let names = crate::mol::cook::list_formulas(ws.as_ref().map(|w| w.beads_dir.as_path()))
        .map(|list| list.into_iter().map(|f| f.name).collect::<Vec<_>>())
        .unwrap_or_default();
    matching(current, names)
}

/// The command line the shell completes: vermas's, without the internal flags the watch
/// passes to its own pane (`status --feed/--owner`), which are never offered.
pub fn command() -> clap::Command {
    <super::args::Cli as clap::CommandFactory>::command().mut_subcommand("status", |s| {
        s.mut_arg("feed", |a| a.long(None))
            .mut_arg("owner", |a| a.long(None))
    })
}

/// Completes bead ids.
pub fn bead_id() -> ArgValueCompleter {
    ArgValueCompleter::new(bead_ids)
}

/// Completes statuses.
pub fn status() -> ArgValueCompleter {
    ArgValueCompleter::new(statuses)
}

/// Completes bead types.
pub fn issue_type() -> ArgValueCompleter {
    ArgValueCompleter::new(types)
}

/// Completes spec names.
pub fn spec() -> ArgValueCompleter {
    ArgValueCompleter::new(spec_names)
}

/// Completes formula names.
pub fn formula() -> ArgValueCompleter {
    ArgValueCompleter::new(formula_names)
}
