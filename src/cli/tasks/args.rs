//! Arguments of the `tasks` commands.

use clap::Subcommand;

/// `tasks` subcommands.
#[derive(Debug, Subcommand)]
pub enum TasksCmd {
    /// Run the commands of every `[VERIFY]` item; end with VERIFICATION_PASS or _FAIL.
    Verify {
        /// The tasks file (markdown).
        file: std::path::PathBuf,
        /// Tick passing items `[x]` in the file.
        #[arg(long)]
        mark: bool,
        /// requirements.md holding the AC-x.y items an "AC checklist" item checks.
        #[arg(long, value_name = "FILE")]
        requirements: Option<std::path::PathBuf>,
        /// vermas's rules, not smart-ralph's table: a missing program, a timeout or nothing
        /// verified fails (exit 3 when that is all).
        #[arg(long)]
        strict: bool,
    },
}
