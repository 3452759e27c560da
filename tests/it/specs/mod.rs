//! Live specs: links, runs, reports, baselines, CI shards and annotations, the pre-push hook.

mod baseline;
mod ci_annotations;
mod ci_shards;
mod hostile;
mod links;
mod live;
mod pre_push;
mod progress;
mod reports;
pub mod support;
mod verdicts;
