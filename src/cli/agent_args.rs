//! Command-line grammar of what agents use to coordinate: mail, formulas and molecules.

use clap::Subcommand;

/// `mail` subcommands.
#[derive(Debug, Subcommand)]
pub enum MailCmd {
    /// Send a message (one commit; --ephemeral: never committed).
    Send {
        /// Address: mayor/, inspector/, inspector/ROLE, NAME/, RIG/refinery, RIG/AGENT or @group.
        to: String,
        /// Subject line.
        #[arg(short, long)]
        subject: String,
        /// Body text.
        #[arg(short, long, conflicts_with = "stdin")]
        message: Option<String>,
        /// Read the body from standard input.
        #[arg(long)]
        stdin: bool,
        /// Sender (default: config mail.from, else your own mailbox ACTOR/).
        #[arg(long)]
        from: Option<String>,
        /// task, notification, escalation or reply.
        #[arg(short = 't', long = "type", default_value = "notification")]
        msg_type: String,
        /// urgent, high, normal or low.
        #[arg(short, long, default_value = "normal")]
        priority: String,
        /// Also send to (repeatable).
        #[arg(long)]
        cc: Vec<String>,
        /// The message this answers (same thread).
        #[arg(long, value_name = "MSG")]
        reply_to: Option<String>,
        /// Keep it under .beads/wisps/mail/, never committed.
        #[arg(long)]
        ephemeral: bool,
    },
    /// Messages for an address: unread first, then by priority, newest first.
    Inbox {
        /// Address (default: config mail.from, else your own mailbox ACTOR/).
        addr: Option<String>,
        /// Only unread ones.
        #[arg(long)]
        unread: bool,
        /// Redraw whenever the mailbox changes, until Ctrl-C.
        #[arg(long)]
        watch: bool,
    },
    /// Show a message and mark it read.
    Read {
        /// Message id or unique prefix.
        msg: String,
    },
    /// Answer a message: to its sender, in its thread.
    Reply {
        /// Message id or unique prefix.
        msg: String,
        /// Body text.
        #[arg(short, long)]
        message: String,
        /// Sender (default: config mail.from, else your own mailbox ACTOR/).
        #[arg(long)]
        from: Option<String>,
    },
    /// Every message of a message's thread, oldest first.
    Thread {
        /// Message id or unique prefix.
        msg: String,
    },
    /// Archive a message.
    Archive {
        /// Message id or unique prefix.
        msg: String,
    },
    /// Block until a reply to MSG exists (exit 1 on timeout).
    Wait {
        /// Message id or unique prefix.
        msg: String,
        /// Longest to wait, e.g. 30s or 5m.
        #[arg(long, default_value = "5m")]
        timeout: String,
    },
}

/// `formula` subcommands.
#[derive(Debug, Subcommand)]
pub enum FormulaCmd {
    /// Formulas in .beads/formulas/, then the built-ins.
    List,
    /// One formula: its variables and steps.
    Show {
        /// Formula name.
        #[arg(add = super::complete::formula())]
        name: String,
    },
}

/// `mol` subcommands.
#[derive(Debug, Subcommand)]
pub enum MolCmd {
    /// Validate a formula and print the proto (steps in order); writes nothing.
    Cook {
        /// Formula name.
        #[arg(add = super::complete::formula())]
        name: String,
        /// A variable as key=value (repeatable).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
    },
    /// Cook and store a molecule for a bead (.beads/mols/, committed).
    Pour {
        /// Formula name.
        #[arg(add = super::complete::formula())]
        name: String,
        /// The bead the molecule works on.
        #[arg(long, add = super::complete::bead_id())]
        bead: String,
        /// A variable as key=value (repeatable).
        #[arg(long = "var", value_name = "KEY=VALUE")]
        vars: Vec<String>,
    },
    /// Cook an ephemeral molecule (.beads/wisps/, never committed, expires).
    Wisp {
        /// Formula name.
        #[arg(add = super::complete::formula())]
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
    /// Run ready steps with a handler command (step JSON on stdin) until done or stuck.
    Run {
        /// Molecule id or unique prefix.
        id: String,
        /// Command run per step: exit 0 completes it (stdout = output), else blocks it.
        #[arg(long)]
        handler: String,
        /// Independent ready steps run at once.
        #[arg(short, long)]
        jobs: Option<usize>,
    },
}
