//! The Inspector: test-spec beads, the gate before work is slung, and the pipeline that
//! turns an agent's "done" into an independent verdict (verifier, auditor, advocate and
//! critic, judge), routed and recorded in one commit, with lifecycle hooks around each step.
//! What comes before the work (the designer, the strategist, `plan`) is `crate::planning`;
//! the Inspector's loop over its mail is `crate::mail_loop`.

pub mod answer;
pub mod assign;
pub mod basis;
pub mod evidence;
pub mod frozen;
pub mod inspection;
pub mod judged;
pub mod lifecycle;
pub mod lifecycle_guard;
pub mod pipeline;
pub mod roles;
pub mod route;
pub mod rules;
pub mod run;
pub mod stand_in;
pub mod testspec;
pub mod verifier;

pub use run::{Observer, Outcome, Request, run};
