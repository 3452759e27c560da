//! Arguments of the `mol` commands.

use clap::Subcommand;

/// `mol` subcommands.
#[derive(Debug, Subcommand)]
pub enum MolCmd {
    /// Validate a formula and print the proto (steps in order); writes nothing.
    Cook {
        /// Formula name.
        #[arg(add = crate::cli::complete::formula())]
        name: String,
        /// A variable as key=value (repeatable).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
    },
    /// Cook and store a molecule for a bead (.beads/mols/, committed).
    Pour {
        /// Formula name.
        #[arg(add = crate::cli::complete::formula())]
        name: String,
        /// The bead the molecule works on.
        #[arg(long, add = crate::cli::complete::bead_id())]
        bead: String,
        /// A variable as key=value (repeatable).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
    },
    /// Cook an ephemeral molecule (.beads/wisps/, never committed, expires).
    Wisp {
        /// Formula name.
        #[arg(add = crate::cli::complete::formula())]
        name: String,
        /// Lifetime, e.g. 30m or 1h.
        #[arg(long, default_value = "1h")]
        ttl: String,
        /// A variable as key=value (repeatable).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
    },
    /// Every molecule with its progress.
    List,
    /// A molecule's steps with their status.
    Show {
        /// Molecule id or unique prefix.
        id: String,
    },
    /// Steps whose needs are complete.
    Ready {
        /// Molecule id or unique prefix.
        id: String,
    },
    /// Mark a step in progress.
    Start {
        /// Molecule id or unique prefix.
        id: String,
        /// Step id.
        step: String,
    },
    /// Complete a step (refused while its needs are incomplete).
    Done {
        /// Molecule id or unique prefix.
        id: String,
        /// Step id.
        step: String,
        /// What the step produced.
        #[arg(long)]
        output: Option<String>,
    },
    /// Block a step.
    Block {
        /// Molecule id or unique prefix.
        id: String,
        /// Step id.
        step: String,
        /// Why.
        #[arg(long)]
        reason: String,
    },
    /// Mark a step skipped (not needed): the steps that need it go on as after `done`.
    Skip {
        /// Molecule id or unique prefix.
        id: String,
        /// Step id.
        step: String,
        /// Why it is not needed.
        #[arg(long)]
        reason: String,
    },
    /// Archive a molecule as a digest (.beads/mols/archive/) and remove the live file.
    Squash {
        /// Molecule id or unique prefix.
        id: String,
        /// A summary for the digest.
        #[arg(long)]
        summary: Option<String>,
    },
    /// Delete a molecule.
    Burn {
        /// Molecule id or unique prefix.
        id: String,
        /// Also when steps are in progress or done.
        #[arg(long)]
        force: bool,
    },
    /// Run ready steps with a handler command (step JSON on stdin) until done or stuck; a
    /// mol-inspect molecule runs without one, through the Inspector (as `inspect run`).
    Run {
        /// Molecule id or unique prefix.
        id: String,
        /// Command run per step: exit 0 completes it (stdout = output), else blocks it.
        #[arg(long)]
        handler: Option<String>,
        /// Independent ready steps run at once.
        #[arg(short, long)]
        jobs: Option<usize>,
    },
}
