//! The Inspector: test-spec beads, the gate before work is slung, and the pipeline that
//! turns an agent's "done" into an independent verdict (verifier, auditor, advocate and
//! critic, judge), routed and recorded in one commit, with lifecycle hooks around each step.
//! Before the work: the designer's requirements, the strategist's criteria, and `plan`,
//! which runs both as a resumable molecule.

pub mod assign;
pub mod design;
pub mod evidence;
pub mod hook_guard;
pub mod hooks;
pub mod inspection;
pub mod pipeline;
pub mod plan;
pub mod roles;
pub mod route;
pub mod rules;
pub mod sequence;
pub mod strategy;
pub mod testspec;
pub mod verifier;

pub use sequence::{Observer, Outcome, Request, run};
