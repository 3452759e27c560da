//! Arguments of `status` and the `spec` commands.

use clap::{Args, Subcommand};

/// Options of `status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Run the [verify] checks of the specs' success criteria.
    #[arg(long)]
    pub verify: bool,
    /// Run the [judge] checks (asks the LLM; replies are cached).
    #[arg(long)]
    pub judge: bool,
    /// Only this spec (name or path; repeatable).
    #[arg(long = "spec", value_name = "NAME", add = crate::cli::complete::spec())]
    pub specs: Vec<String>,
    /// Checks run at once, at least 1 (default: verify.jobs, else the number of cores).
    #[arg(short, long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub jobs: Option<usize>,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
    /// Print TAP instead of the human report.
    #[arg(long)]
    pub tap: bool,
    /// `github`: a GitHub Actions annotation per FAIL or ERROR before the human report (the
    /// default when GITHUB_ACTIONS=true); `human`: the report alone.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
    /// With --verify/--judge: run only the K-th of N slices of the criteria (e.g. 2/4), the
    /// same slices on every machine, for a CI matrix.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<vermas_core::spec::shard::Shard>,
    /// Write .beads/results/spec-<name>.yaml and commit it.
    #[arg(long)]
    pub record: bool,
    /// Ask the LLM again even when a reply to the same prompt is cached.
    #[arg(long)]
    pub no_cache: bool,
    /// Redraw every SECS seconds (default 5) until interrupted.
    #[arg(long, value_name = "SECS", num_args = 0..=1, default_missing_value = "5")]
    pub watch: Option<u64>,
    /// With --verify: also run the checks on REV (default: the merge-base with upstream) in a
    /// temporary worktree and flag criteria that passed there already.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "")]
    pub baseline: Option<String>,
    /// With --watch: split the tmux window (status on top, agent log below).
    #[arg(long)]
    pub tmux: bool,
    /// Internal: the lower watch pane (recent .beads commits and failures every SECS).
    #[arg(long, value_name = "SECS", hide = true)]
    pub feed: Option<u64>,
    /// Internal: the feed stops when this process ends.
    #[arg(long, value_name = "PID", hide = true)]
    pub owner: Option<u32>,
}

/// How `status` reports to people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// The report alone.
    Human,
    /// Workflow annotations (`::error file=...,line=...::...`), then the report.
    Github,
}

/// `spec` subcommands.
#[derive(Debug, Subcommand)]
pub enum SpecCmd {
    /// Every spec with its counts of verify, judge and unannotated criteria.
    List {
        /// Only the criteria of the K-th of N slices, as `status --verify --shard K/N`
        /// runs them.
        #[arg(long, value_name = "K/N")]
        shard: Option<vermas_core::spec::shard::Shard>,
    },
    /// One spec's criteria and annotations, each as path:line.
    Show {
        /// Spec name or path.
        #[arg(add = crate::cli::complete::spec())]
        name: String,
    },
    /// Check every link: file exists, function defined; warn on unreferenced tests and on
    /// links GitHub would not open (`::`, a path read from the wrong folder).
    Check {
        /// Rewrite those links to `../tests/x.sh#fn` from the spec's folder (prints the diff).
        #[arg(long)]
        fix: bool,
    },
}
