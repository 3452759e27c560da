//! Beads: the bead commands, records, index and JSON cache.

mod cli;
mod index;
mod json_cache;

use crate::common::Repo;
use std::process::Command;

/// Sets the modification time of a repository file to a fixed day in the past.
fn touch_old(repo: &Repo, rel: &str) {
    let ok = Command::new("touch")
        .args(["-d", "2020-01-01 00:00:00"])
        .arg(repo.join(rel))
        .status()
        .expect("touch")
        .success();
    assert!(ok, "touch {rel}");
}
