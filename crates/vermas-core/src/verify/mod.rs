//! Verifying live specs, in one place: `run` is the one entry point every front end calls
//! (`status --verify`, the pre-push hook, the watch, the ralph front end, the language
//! server and the Inspector's verifier). It plans (which specs, which shard), runs every
//! check in one pool (`live`), compares with a baseline revision (`baseline`) and records
//! the results (`results`); the caller hears progress through an `Observer` and renders the
//! `Verification` with `report`. Plain `status` reads recorded results alone (`summary`).

pub(crate) mod baseline;
pub mod live;
pub(crate) mod project;
pub mod report;
pub mod results;
mod run;
pub mod summary;

pub use live::{Counts, Kinds, RunSettings, SpecRun};
pub use project::Project;
pub use run::{Observer, Request, Selection, Verification, run, select, shard};
