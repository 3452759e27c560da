//! Beads: work items stored one per file under `.beads/issues/`.

mod cache;
pub mod graph;
pub mod history;
pub mod model;
pub mod ops;
pub mod store;

pub use model::{Bead, DepType, IssueType, Status};
pub use store::BeadSet;
