//! The ledger in git: commits, locks, crashes, worktrees, sync between clones and the merge driver.

mod concurrency;
mod crash;
mod merge_driver;
mod recording;
pub mod sync;
mod sync_kill;
mod sync_rules;
mod worktrees;
