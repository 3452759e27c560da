//! Beads: work items stored one per file under `.beads/issues/`.

pub mod approval;
mod cache;
mod canonical;
pub mod catalog;
pub mod comments;
pub mod delete;
pub mod edge;
pub mod fields;
mod file;
mod front;
pub mod graph;
pub mod history;
pub mod holds;
pub mod idmap;
pub mod input;
pub mod model;
pub mod ops;
pub mod query;
mod render;
pub mod routing;
pub mod store;
pub mod table;
pub mod tails;

pub use file::parse_text;
pub use model::{Bead, DepType, IssueType, Status};
pub use store::BeadSet;
