//! `sling.*` settings: whether `sling` gives each worker a worktree of its own, and where.

use crate::text::yaml;
use serde::{Deserialize, Serialize};

/// `sling.*` settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SlingConfig {
    /// Make a worktree for the worker on every sling (as `sling --worktree`).
    pub worktree: bool,
    /// The folder workers' worktrees go in; none: `<repository>-worktrees` beside the
    /// repository.
    pub worktree_dir: Option<String>,
}

/// The `sling:` section of the rendered settings.
pub(super) fn section(s: &SlingConfig) -> String {
    format!(
        "sling:\n\
         \x20 # Give each worker a git worktree of its own on a new branch AGENT/ID (as\n\
         \x20 # `sling --worktree`).\n\
         \x20 worktree: {}\n\
         \x20 # Where those worktrees go; null: <repository>-worktrees beside the repository.\n\
         \x20 worktree_dir: {}\n",
        s.worktree,
        yaml::opt_scalar(s.worktree_dir.as_deref()),
    )
}
