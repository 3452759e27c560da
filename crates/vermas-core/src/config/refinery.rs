//! `refinery.*` settings: where merge requests land, how the target moves, how often a
//! target that moved during verification is verified again, and how many requests are
//! verified together.

use serde::{Deserialize, Serialize};

/// How a verified branch lands on its target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The target moves to the branch itself; refused unless the target's tip is an
    /// ancestor of the branch.
    FfOnly,
    /// A merge commit whose parents are the target's tip and the branch (always, also when
    /// a fast-forward would do).
    #[default]
    Merge,
    /// One commit on the target's tip holding the merged tree.
    Squash,
}

impl Strategy {
    /// The spelling used in config and output.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::FfOnly => "ff-only",
            Strategy::Merge => "merge",
            Strategy::Squash => "squash",
        }
    }
}

/// `refinery.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RefineryConfig {
    /// The branch requests land on when `refinery submit` names none (none: the branch
    /// checked out when submitting).
    pub target: Option<String>,
    /// How a verified branch lands: `ff-only`, `merge` or `squash`.
    pub strategy: Strategy,
    /// Verifications after the first when the target moved during the last one.
    pub max_retries: u32,
    /// How many waiting requests for one target `refinery run` verifies together (their
    /// merges stacked into one candidate); 1: one at a time.
    pub batch: usize,
}

impl Default for RefineryConfig {
    fn default() -> Self {
        RefineryConfig {
            target: None,
            strategy: Strategy::Merge,
            max_retries: 3,
            batch: 1,
        }
    }
}
