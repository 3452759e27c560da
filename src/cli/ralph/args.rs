//! Arguments of the `ralph` commands.

use clap::{Args, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

/// The ralph commands vermas provides.
#[derive(Debug, Subcommand)]
pub enum RalphCmd {
    /// Spec annotations: the index (instant, nothing runs), or run the [verify] and
    /// [judge] checks (all specs, or --spec NAME).
    Spec(RalphSpecArgs),
    /// Workflow progress of the current spec; with --verify/--judge, its checks too.
    Status(RalphStatusArgs),
    /// Print ralph's annotation records of a spec file, one per criterion:
    /// criterion, kind, file, function, checked (tab-separated).
    Annotations {
        /// The spec file.
        file: PathBuf,
    },
    /// Any other ralph command (refused: it belongs to wrapix's ralph).
    #[command(external_subcommand)]
    Other(Vec<OsString>),
}

/// Flags of `ralph spec`.
#[derive(Debug, Args)]
pub struct RalphSpecArgs {
    /// Show each criterion with its annotation kind and test (no short flag).
    #[arg(long)]
    pub verbose: bool,
    /// Run the [verify] shell tests.
    #[arg(short = 'v', long)]
    pub verify: bool,
    /// Run the [judge] LLM evaluations.
    #[arg(short = 'j', long)]
    pub judge: bool,
    /// Run both --verify and --judge.
    #[arg(short = 'a', long)]
    pub all: bool,
    /// Only this spec (by name, without .md).
    #[arg(short = 's', long = "spec", value_name = "NAME", add = crate::cli::complete::spec())]
    pub spec: Option<String>,
    /// Ask the LLM again even when a reply to the same judge prompt is cached.
    #[arg(long)]
    pub no_cache: bool,
}

/// Flags of `ralph status`.
#[derive(Debug, Args)]
pub struct RalphStatusArgs {
    /// Also run the spec's [verify] shell tests.
    #[arg(long)]
    pub verify: bool,
    /// Also run the spec's [judge] LLM evaluations.
    #[arg(long)]
    pub judge: bool,
    /// The workflow (spec name) to show instead of the current one.
    #[arg(short = 's', long = "spec", value_name = "NAME", add = crate::cli::complete::spec())]
    pub spec: Option<String>,
    /// Show each check's output, passing ones included.
    #[arg(long)]
    pub verbose: bool,
    /// Ask the LLM again even when a reply to the same judge prompt is cached.
    #[arg(long)]
    pub no_cache: bool,
    /// Redraw the status whenever the beads or ralph's state change (Ctrl-C stops).
    #[arg(short = 'w', long)]
    pub watch: bool,
}
