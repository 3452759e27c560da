//! The refinery: the queue, single and batched runs, recovery, workers' worktrees.

mod batch;
mod queue;
mod recovery;
mod run;
pub mod support;
mod worker_worktrees;
