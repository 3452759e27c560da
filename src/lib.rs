//! vermas: verifiable work for people and coding agents, with git as the only database.
//!
//! Records live as YAML and markdown files under `.beads/`; every change vermas makes is a
//! git commit made through gix. The `cli` module is the thin command-line layer; every
//! other module is library code that never prints and never exits the process.

pub mod bead;
pub mod check;
pub mod cli;
pub mod config;
pub mod contain;
pub mod discover;
pub mod duration;
pub mod error;
pub mod gate;
pub mod git;
pub mod githooks;
pub mod glob;
pub mod hash;
pub mod inspect;
pub mod inspector;
pub mod interop;
pub mod judge;
pub mod lsp;
pub mod mail;
pub mod merge;
pub mod mol;
pub mod par;
pub mod ralph;
pub mod refinery;
pub mod roles;
pub mod session;
pub mod setup;
mod shell;
pub mod spec;
pub mod store;
pub mod sync;
pub mod tasks;
pub mod textpos;
pub mod time;
pub mod verify;
pub mod words;
pub mod workspace;
pub mod yaml;
