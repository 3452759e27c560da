//! The Refinery: merge only what was verified. Branches are queued as merge requests
//! (`.beads/mq/<id>.yaml`); a run takes them oldest first, builds the commit that would
//! land (the branch onto the target's current tip), inspects exactly that commit in a
//! temporary worktree with the Inspector's pipeline, and only on PASS moves the target by
//! compare-and-swap, mails `mayor/` and closes the bead. Several requests for one target
//! may be verified together as a batch (their merges stacked into one candidate; a failure
//! found by halving the batch).

pub mod batch;
pub mod candidate;
pub mod queue;
pub mod request;
pub mod run;
pub mod settle;
pub mod worker;
