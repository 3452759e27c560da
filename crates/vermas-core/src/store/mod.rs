//! Files under `.beads/`: atomic writes, the write lock, front matter, ids, index caches,
//! and keeping every read and write inside the repository.

mod escape;
pub mod frontmatter;
pub(crate) mod id;
pub(crate) mod index;
pub(crate) mod landing;
mod listing;
mod txn;

pub use txn::{CommitMessage, Recorded, Txn, write_atomic, write_atomic_parts, write_into_special};
