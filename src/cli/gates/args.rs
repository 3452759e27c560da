//! Arguments of `gate`.

use clap::Args;
use vermas_core::gate::Phase;

/// Options of `gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// red, green, refactor or implement.
    #[arg(add = crate::cli::complete::phase())]
    pub phase: Phase,
    /// The bead (or its test spec) the gate is for.
    #[arg(add = crate::cli::complete::bead_id())]
    pub id: String,
    /// Acceptance criterion number (1-based) of the test spec.
    #[arg(long, value_name = "N")]
    pub ac: Option<usize>,
    /// The command to run instead of the criterion's or config's.
    #[arg(long, value_name = "CMD")]
    pub cmd: Option<String>,
}
