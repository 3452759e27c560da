//! Files under `.beads/`: atomic writes, the write lock, front matter, ids, index caches.

pub mod frontmatter;
pub mod id;
pub mod index;
mod txn;

pub use txn::{CommitMessage, Recorded, Txn, write_atomic};
