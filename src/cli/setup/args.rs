//! Arguments of the `config` commands.

use clap::Subcommand;

/// `config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCmd {
    /// Print one setting, e.g. `git.commit`.
    Get {
        /// Dotted key.
        key: String,
    },
    /// Change one setting and commit vermas.yaml.
    Set {
        /// Dotted key.
        key: String,
        /// New value (`null` clears an optional one).
        value: String,
    },
    /// Put one setting back to its default (or remove a `llm.roles.ROLE` entry) and commit.
    Unset {
        /// Dotted key.
        key: String,
    },
    /// Print every setting.
    List,
}
