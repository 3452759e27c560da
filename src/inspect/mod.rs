//! The Inspector: test-spec beads, the gate before work is slung, and the pipeline that
//! turns an agent's "done" into an independent verdict (verifier, auditor, advocate and
//! critic, judge), routed and recorded in one commit, with lifecycle hooks around each step.

pub mod assign;
pub mod hooks;
pub mod pipeline;
pub mod roles;
pub mod route;
pub mod testspec;
pub mod verifier;
