//! Arguments of the `refinery` commands.

use clap::Subcommand;

/// `refinery` subcommands.
#[derive(Debug, Subcommand)]
pub enum RefineryCmd {
    /// Queue a branch to be merged once the Inspector passes the merge result.
    Submit {
        /// The local branch to merge (default: the branch checked out here, in a worker's
        /// worktree).
        branch: Option<String>,
        /// The work whose approved test spec decides (default: the bead named by the
        /// branch's last `/` part, e.g. polecat/vm-k3f9).
        #[arg(long, add = crate::cli::complete::bead_id())]
        bead: Option<String>,
        /// The branch to merge into (default: config refinery.target, else the current
        /// branch).
        #[arg(long, value_name = "TARGET")]
        into: Option<String>,
    },
    /// Verify and land queued requests, oldest first, until none is left.
    Run {
        /// Take only the oldest queued request (with --batch, the oldest batch).
        #[arg(long)]
        once: bool,
        /// Verify up to N waiting requests for one target together: their merges stacked
        /// into one candidate, a failure found by halving (default: config refinery.batch,
        /// 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        batch: Option<u32>,
        /// Ask the LLM again even for unchanged prompts.
        #[arg(long)]
        no_cache: bool,
    },
    /// The queue: every request with its state and last verdict.
    #[command(alias = "status")]
    Queue,
}
