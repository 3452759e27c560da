//! `vermas report`'s arguments.

use clap::Args;
use std::path::PathBuf;

/// `report [--out FILE] [--since REV]`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Where to write the page (default: .beads/.cache/report.html).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Show the history recorded after REV only (a commit, branch or tag).
    #[arg(long, value_name = "REV")]
    pub since: Option<String>,
}
