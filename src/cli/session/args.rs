//! Arguments of `start`.

use clap::Args;

/// Options of `start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// Attach to the session (refused without a terminal).
    #[arg(long, conflicts_with = "detach")]
    pub attach: bool,
    /// Leave the session in the background, even on a terminal.
    #[arg(long)]
    pub detach: bool,
}
