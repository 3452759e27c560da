//! vermas: verifiable work for people and coding agents, with git as the only database.
//!
//! Records live as YAML and markdown files under `.beads/`; every change vermas makes is a
//! git commit made through gix. This crate is the domain: it returns values and errors,
//! and never prints or ends the process (the workspace's clippy lints deny both here); the
//! `vermas` binary crate is the command line and the terminal front ends.

pub mod bead;
pub mod check;
pub mod config;
pub mod discover;
pub mod error;
pub mod gate;
pub mod git;
pub mod githooks;
pub mod inspect;
pub mod interop;
pub mod judge;
pub mod mail;
pub mod mail_loop;
pub mod merge;
pub mod mol;
pub mod planning;
pub mod proc;
pub mod ralph;
pub mod refinery;
pub mod report;
pub mod roles;
pub mod setup;
pub mod spec;
pub mod store;
pub mod sync;
pub mod sys;
pub mod tasks;
pub mod text;
pub mod time;
pub mod trusted;
pub mod verify;
pub mod workspace;
