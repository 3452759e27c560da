//! Arguments of `inspect loop` (and of its old spelling, `inspector run`).

use clap::{Args, Subcommand};
use std::time::Duration;

/// `inspect loop`'s options.
#[derive(Debug, Args)]
pub struct LoopArgs {
    /// One pass over the mailbox, then exit.
    #[arg(long)]
    pub once: bool,
    /// The wait between passes, e.g. 5s, 1m.
    #[arg(long, default_value = "5s", value_parser = interval)]
    pub interval: Duration,
}

/// `inspector` (the old spelling of `inspect loop`, kept for scripts).
#[derive(Debug, Subcommand)]
pub enum InspectorCmd {
    /// Now `vermas inspect loop`.
    Run(LoopArgs),
}

/// Parses `--interval`: a duration above zero.
fn interval(text: &str) -> Result<Duration, String> {
    let d = vermas_core::time::duration::parse_duration(text)?;
    if d.is_zero() {
        return Err("the interval must be above zero".into());
    }
    Ok(d)
}
