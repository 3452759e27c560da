//! Helpers close to the machine: threads sized to the cores, memory made present at once,
//! file ranges copied out by the kernel, paths kept inside the repository, and the hashes
//! and MACs records and caches carry.

pub mod contain;
pub(crate) mod hash;
pub mod mem;
pub mod par;
pub mod send;
