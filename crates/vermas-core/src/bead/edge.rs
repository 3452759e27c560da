//! Edges between beads: the dependency types (vermas's and bd's), one edge with its type
//! and, for a `waits-for` edge, its gate.

use super::input::{DEP_TYPES, parse_choice};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// How one bead depends on another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DepType {
    /// The target must be closed before this bead is ready.
    Blocks,
    /// The target is this bead's parent.
    ParentChild,
    /// Loosely connected.
    Related,
    /// Found while working on the target.
    DiscoveredFrom,
    // The other types bd knows (kept for `import bd`/`export bd`; the first two hold back
    // `ready` as in bd, see `graph::Others::holds`, the rest order nothing).
    /// bd: runs only if the target fails (ready once it closed with a failure reason).
    ConditionalBlocks,
    /// bd: a fan-out gate waiting for the target's children (ready once none is open).
    WaitsFor,
    /// bd: a reply in the target's conversation.
    RepliesTo,
    /// bd: a loose knowledge-graph link.
    RelatesTo,
    /// bd: a duplicate of the target.
    Duplicates,
    /// bd: replaces the target.
    Supersedes,
    /// bd: the target wrote it.
    AuthoredBy,
    /// bd: assigned to the target.
    AssignedTo,
    /// bd: approved by the target.
    ApprovedBy,
    /// bd: vouches for the target.
    Attests,
    /// bd: follows the target without waiting for it.
    Tracks,
    /// bd: in force until the target closes.
    Until,
    /// bd: triggered by the target.
    CausedBy,
    /// bd: validates the target.
    Validates,
    /// bd: work delegated from the target.
    DelegatedFrom,
}

impl std::str::FromStr for DepType {
    type Err = crate::error::Error;

    /// Parses a dependency type spelling (`blocks`, ...), listing them all on failure.
    fn from_str(text: &str) -> Result<DepType> {
        parse_choice("dependency type", text, DEP_TYPES)
    }
}

/// One dependency edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dependency {
    /// The bead depended on.
    pub depends_on_id: String,
    /// The kind of edge.
    #[serde(rename = "type", default = "default_dep_type")]
    pub dep_type: DepType,
    /// A `waits-for` edge's gate (absent: bd's default, `all-children`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
}

impl Dependency {
    /// An edge of `dep_type` to `target`, without a gate.
    pub fn new(target: impl Into<String>, dep_type: DepType) -> Dependency {
        Dependency {
            depends_on_id: target.into(),
            dep_type,
            gate: None,
        }
    }
}

/// When a `waits-for` edge stops holding its bead back, as bd's gates say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    /// Once none of the target's children is open (bd's default).
    AllChildren,
    /// As soon as one of the target's children is closed.
    AnyChildren,
}

impl std::str::FromStr for Gate {
    type Err = crate::error::Error;

    /// Parses `all-children` or `any-children`.
    fn from_str(text: &str) -> Result<Gate> {
        parse_choice("gate", text, &["all-children", "any-children"])
    }
}

fn default_dep_type() -> DepType {
    DepType::Blocks
}
