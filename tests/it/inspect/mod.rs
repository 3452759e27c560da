//! The Inspector: test specs, the pipeline, roles, judges, lifecycle hooks and what a verdict rests on.

mod basis;
mod frozen_verdicts;
mod judge;
mod lifecycle;
mod lifecycle_payloads;
pub mod lifecycle_support;
mod mail_loop;
mod once;
mod pipeline;
mod role_contexts;
mod role_workspaces;
mod stand_in;
mod test_specs;
