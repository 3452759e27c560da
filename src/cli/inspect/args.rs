//! Arguments of the `inspect` commands.

use clap::Subcommand;

/// `inspect` subcommands.
#[derive(Debug, Subcommand)]
pub enum InspectCmd {
    /// Open test specs (waiting for criteria or approval), oldest first.
    Pending {
        /// Redraw whenever a test spec changes, until Ctrl-C.
        #[arg(long)]
        watch: bool,
    },
    /// A bead's test spec: criteria, approval, latest verdict.
    Show {
        /// The work or its test spec.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
    },
    /// Create the test spec of existing work.
    CreateSpec {
        /// The work.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
    },
    /// Add a criterion (ac-N) to a test spec.
    #[command(group = clap::ArgGroup::new("check").required(true).multiple(false))]
    AddCriteria {
        /// The test spec (or its work).
        #[arg(add = crate::cli::complete::bead_id())]
        spec: String,
        /// What must hold.
        #[arg(short, long)]
        description: String,
        /// A shell command whose exit code decides.
        #[arg(long, group = "check")]
        cmd: Option<String>,
        /// A test: `path#function`.
        #[arg(long, group = "check")]
        verify: Option<String>,
        /// An LLM rubric: `path#function`.
        #[arg(long, group = "check")]
        judge: Option<String>,
    },
    /// Approve a test spec (closes it): its work may be slung.
    Approve {
        /// The test spec (or its work).
        #[arg(add = crate::cli::complete::bead_id())]
        spec: String,
        /// Also freeze this file as part of the checks (a helper a `--cmd` criterion runs);
        /// the files the criteria link are frozen without it. Repeatable.
        #[arg(long, value_name = "PATH")]
        freeze: Vec<String>,
    },
    /// The verifier alone: run every criterion (no LLM, writes nothing).
    Verify(StepArgs),
    /// Verifier and auditor: each criterion met, not met or unverifiable (writes nothing).
    Audit(StepArgs),
    /// Verifier, then advocate and critic in parallel, then the judge (writes nothing).
    Review(StepArgs),
    /// The whole pipeline, recorded and routed in one commit.
    Run {
        /// The bead.
        #[command(flatten)]
        step: StepArgs,
        /// On NEEDS_HUMAN, wait this long (e.g. 10m) for the answer and judge again.
        #[arg(long, value_parser = parse_wait)]
        wait: Option<std::time::Duration>,
    },
    /// The latest failure report of a bead.
    Feedback {
        /// Id or unique prefix (the work or its test spec).
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
    },
    /// The Inspector's own loop: act on `inspector/` mail until Ctrl-C (or --once).
    ///
    /// NEW SPEC NEEDED -> the strategist's proposal mailed to mayor/; MERGE REQUEST ->
    /// `refinery run --once`; RE: NEEDS_CLARIFICATION -> inspect again. Other messages
    /// stay unread.
    Loop(super::loop_args::LoopArgs),
    /// Beads with their latest inspection verdict and its age.
    #[command(alias = "status")]
    Verdicts {
        /// Only this bead.
        #[arg(add = crate::cli::complete::bead_id())]
        id: Option<String>,
    },
}

/// What every pipeline step takes.
#[derive(Debug, clap::Args)]
pub struct StepArgs {
    /// Id or unique prefix (the work or its test spec).
    #[arg(add = crate::cli::complete::bead_id())]
    pub id: String,
    /// Diff against this revision (default: the merge-base with the default branch).
    #[arg(long)]
    pub base: Option<String>,
    /// Ask the LLM roles again even for unchanged prompts.
    #[arg(long)]
    pub no_cache: bool,
}

/// `--wait`'s duration.
fn parse_wait(s: &str) -> Result<std::time::Duration, String> {
    vermas_core::time::duration::parse_duration(s)
}
