//! Arguments of the `formula` commands.

use clap::Subcommand;

/// `formula` subcommands.
#[derive(Debug, Subcommand)]
pub enum FormulaCmd {
    /// Formulas in .beads/formulas/, then the built-ins.
    List,
    /// One formula: its variables and steps.
    Show {
        /// Formula name.
        #[arg(add = crate::cli::complete::formula())]
        name: String,
    },
}
