//! Beads: work items stored one per file under `.beads/issues/`.

pub(crate) mod approval;
mod cache;
mod canonical;
pub mod catalog;
pub mod comments;
pub mod delete;
pub(crate) mod edge;
pub mod fields;
mod file;
pub mod graph;
pub mod history;
pub(crate) mod holds;
pub(crate) mod idmap;
pub(crate) mod input;
mod json_cache;
pub mod model;
pub mod ops;
pub mod query;
mod render;
pub mod routing;
pub mod store;
pub(crate) mod table;

pub(crate) use file::parse_text;
pub use model::{Bead, DepType, IssueType, Status};
pub use store::BeadSet;
