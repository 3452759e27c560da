//! Helpers close to the machine: threads sized to the cores, memory made present at once,
//! paths kept inside the
//! repository, and the hashes and MACs records and caches carry.

pub mod contain;
pub mod hash;
pub mod mem;
pub mod par;
