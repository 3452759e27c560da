//! Arguments of the `inspector` commands.

use clap::Subcommand;
use std::time::Duration;

/// `inspector` subcommands.
#[derive(Debug, Subcommand)]
pub enum InspectorCmd {
    /// Act on `inspector/` mail: NEW SPEC NEEDED -> the strategist's proposal mailed to
    /// mayor/; MERGE REQUEST -> `refinery run --once`; RE: NEEDS_CLARIFICATION -> inspect
    /// again. Other messages stay unread. Runs until Ctrl-C unless --once.
    Run {
        /// One pass over the mailbox, then exit.
        #[arg(long)]
        once: bool,
        /// The wait between passes, e.g. 5s, 1m.
        #[arg(long, default_value = "5s", value_parser = interval)]
        interval: Duration,
    },
}

/// Parses `--interval`: a duration above zero.
fn interval(text: &str) -> Result<Duration, String> {
    let d = vermas_core::duration::parse_duration(text)?;
    if d.is_zero() {
        return Err("the interval must be above zero".into());
    }
    Ok(d)
}
