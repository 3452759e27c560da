//! Files under `.beads/`: atomic writes, the write lock, front matter, ids.

pub mod frontmatter;
pub mod id;
mod txn;

pub use txn::{CommitMessage, Recorded, Txn, write_atomic};
