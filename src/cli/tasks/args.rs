//! Arguments of the `tasks` commands.

use clap::Subcommand;

/// `tasks` subcommands.
#[derive(Debug, Subcommand)]
pub enum TasksCmd {
    /// Run the commands of every `[VERIFY]` item; end with VERIFICATION_PASS, _FAIL or _ERROR.
    Verify {
        /// The tasks file (markdown).
        file: std::path::PathBuf,
        /// Tick passing items `[x]` in the file.
        #[arg(long)]
        mark: bool,
        /// requirements.md holding the AC-x.y items an "AC checklist" item checks.
        #[arg(long, value_name = "FILE")]
        requirements: Option<std::path::PathBuf>,
    },
}
