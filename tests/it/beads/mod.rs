//! Beads: the bead commands, records, index and JSON cache.

mod cli;
mod index;
mod json_cache;
