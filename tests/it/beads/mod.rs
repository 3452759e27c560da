//! Beads: the bead commands, records, index and tails.

mod cli;
mod index;
mod tails;
