//! Dynamic shell completion: bead ids, statuses, types, spec names and formula names,
//! read from the repository each time the shell asks (clap_complete's engine, which keeps
//! the candidates that start with the word typed).

use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use vermas_core::bead::model::{DEP_TYPES, STATUSES, TYPES};

/// `words` as candidates, sorted, each once.
fn candidates(words: impl IntoIterator<Item = String>) -> Vec<CompletionCandidate> {
    let mut words: Vec<String> = words.into_iter().collect();
    words.sort();
    words.dedup();
    words.into_iter().map(CompletionCandidate::new).collect()
}

/// The fixed spellings in `list`, as a completer.
fn fixed(list: &'static [&'static str]) -> ArgValueCandidates {
    ArgValueCandidates::new(move || candidates(list.iter().map(|s| s.to_string())))
}

/// The workspace around the current folder, if there is one.
fn workspace() -> Option<vermas_core::workspace::Workspace> {
    let cwd = std::env::current_dir().ok()?;
    vermas_core::workspace::Workspace::discover(&cwd).ok()
}

/// Ids of the beads in this workspace: the file names under `.beads/issues/`, none read.
fn bead_ids() -> Vec<CompletionCandidate> {
    let ids = workspace()
        .and_then(|ws| ws.bead_ids().ok())
        .unwrap_or_default();
    candidates(ids)
}

/// Names of the specs in this repository.
fn spec_names() -> Vec<CompletionCandidate> {
    let names = std::env::current_dir()
        .ok()
        .and_then(|cwd| vermas_core::verify::Project::locate(&cwd).ok())
        .and_then(|p| p.specs().ok())
        .map(|specs| specs.into_iter().map(|s| s.name).collect::<Vec<_>>())
        .unwrap_or_default();
    candidates(names)
}

/// Names of the formulas (the workspace's and the built-ins).
fn formula_names() -> Vec<CompletionCandidate> {
    let ws = workspace();
    let names = vermas_core::mol::list_formulas(ws.as_ref().map(|w| w.beads_dir.as_path()))
        .map(|list| list.into_iter().map(|f| f.head.name).collect::<Vec<_>>())
        .unwrap_or_default();
    candidates(names)
}

/// Completes bead ids.
pub fn bead_id() -> ArgValueCandidates {
    ArgValueCandidates::new(bead_ids)
}

/// Completes statuses.
pub fn status() -> ArgValueCandidates {
    fixed(STATUSES)
}

/// Completes bead types.
pub fn issue_type() -> ArgValueCandidates {
    fixed(TYPES)
}

/// Completes dependency types.
pub fn dep_type() -> ArgValueCandidates {
    fixed(DEP_TYPES)
}

/// Completes gate phases.
pub fn phase() -> ArgValueCandidates {
    fixed(vermas_core::gate::classify::PHASES)
}

/// Completes message types.
pub fn msg_type() -> ArgValueCandidates {
    fixed(vermas_core::mail::message::MSG_TYPES)
}

/// Completes message priorities.
pub fn msg_priority() -> ArgValueCandidates {
    fixed(vermas_core::mail::message::PRIORITIES)
}

/// Completes spec names.
pub fn spec() -> ArgValueCandidates {
    ArgValueCandidates::new(spec_names)
}

/// Completes formula names.
pub fn formula() -> ArgValueCandidates {
    ArgValueCandidates::new(formula_names)
}
