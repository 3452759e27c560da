//! Arguments of the `hooks` commands (vermas's git hooks).

use clap::Subcommand;

/// `hooks` subcommands.
#[derive(Debug, Subcommand)]
pub enum HooksCmd {
    /// Install the hook (an existing hook from another tool is kept and chained).
    Install {
        /// Hook name.
        #[arg(default_value = "pre-push")]
        name: String,
    },
    /// Remove vermas's hook and restore the one it chained, if any.
    Uninstall {
        /// Hook name.
        #[arg(default_value = "pre-push")]
        name: String,
    },
    /// Run the hook as git would (reads git's ref lines on stdin).
    Run {
        /// Hook name.
        name: String,
        /// The arguments git passes (remote name and URL for pre-push).
        args: Vec<String>,
    },
    /// The git hooks vermas provides and the Inspector's lifecycle hooks present.
    List,
}
