//! The clap arguments of the bead commands (`create`, `ready`, `search`, `comments`, `list`,
//! `update`, `dep`, `label`).

use clap::{Args, Subcommand};
use vermas_core::bead::{DepType, IssueType, Status};

/// Options of `create` and `q`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// One-line summary.
    pub title: String,
    /// Type: task, feature, bug, epic, chore, test-spec, ...
    #[arg(short = 't', long = "type", default_value = "task", add = crate::cli::complete::issue_type())]
    pub issue_type: IssueType,
    /// Priority 0 (critical) to 4, or P0 to P4.
    #[arg(short, long, default_value = "2", value_parser = vermas_core::bead::model::parse_priority)]
    pub priority: u8,
    /// Description (markdown).
    #[arg(short, long, conflicts_with = "body_file")]
    pub description: Option<String>,
    /// Read the description from a file (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<String>,
    /// Label (repeatable, or comma-separated).
    #[arg(short, long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Parent bead: the new one becomes PARENT.N.
    #[arg(long, add = crate::cli::complete::bead_id())]
    pub parent: Option<String>,
    /// Dependencies as TYPE:ID or ID (blocks), comma-separated.
    #[arg(long, value_name = "TYPE:ID,...")]
    pub deps: Vec<String>,
    /// The live spec this work is judged by.
    #[arg(long, add = crate::cli::complete::spec())]
    pub spec: Option<String>,
    /// Assignee.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Do not create a test spec with it (see specs.auto_create).
    #[arg(long)]
    pub no_spec: bool,
}

/// Options of `ready`.
#[derive(Debug, Args)]
pub struct ReadyArgs {
    /// Show at most N (default 10; 0: all).
    #[arg(short = 'n', long)]
    pub limit: Option<usize>,
    /// Only this type (test specs and messages are shown only when asked).
    #[arg(short = 't', long = "type", add = crate::cli::complete::issue_type())]
    pub issue_type: Option<IssueType>,
    /// Only beads assigned to this name.
    #[arg(short, long, conflicts_with = "unassigned")]
    pub assignee: Option<String>,
    /// Only beads assigned to no one.
    #[arg(short, long)]
    pub unassigned: bool,
    /// Only beads with this label (repeatable or comma-separated: all must match).
    #[arg(short, long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Only this priority (0-4 or P0-P4).
    #[arg(short, long, value_parser = vermas_core::bead::model::parse_priority)]
    pub priority: Option<u8>,
}

/// Options of `search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The text to find (several words are searched as one phrase).
    #[arg(required = true)]
    pub text: Vec<String>,
    /// Only this status (closed beads are searched too).
    #[arg(short, long, add = crate::cli::complete::status())]
    pub status: Option<Status>,
    /// Only this type.
    #[arg(short = 't', long = "type", add = crate::cli::complete::issue_type())]
    pub issue_type: Option<IssueType>,
    /// Only beads with this label (repeatable: all must match).
    #[arg(short, long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Only beads assigned to this name.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Show at most N (default 50; 0: all).
    #[arg(short = 'n', long)]
    pub limit: Option<usize>,
}

/// `comments`: list a bead's comments, or add one.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CommentsArgs {
    /// `add ID TEXT`.
    #[command(subcommand)]
    pub command: Option<CommentsCmd>,
    /// The bead whose comments to list.
    #[arg(required = true, add = crate::cli::complete::bead_id())]
    pub id: Option<String>,
}

/// `comments` subcommands.
#[derive(Debug, Subcommand)]
pub enum CommentsCmd {
    /// Add a comment (a note, as `update --notes` adds).
    Add {
        /// Id or unique prefix.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
        /// The comment.
        text: String,
    },
}

/// Options of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this status.
    #[arg(short, long, add = crate::cli::complete::status())]
    pub status: Option<Status>,
    /// Only this type.
    #[arg(short = 't', long = "type", add = crate::cli::complete::issue_type())]
    pub issue_type: Option<IssueType>,
    /// Only beads with this label (repeatable: all must match).
    #[arg(short, long = "label")]
    pub labels: Vec<String>,
    /// Only beads assigned to this name.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Include closed beads.
    #[arg(long)]
    pub all: bool,
    /// Show at most N (default 50; 0: all).
    #[arg(short = 'n', long)]
    pub limit: Option<usize>,
    /// Only this priority (0-4 or P0-P4).
    #[arg(short, long, value_parser = vermas_core::bead::model::parse_priority)]
    pub priority: Option<u8>,
    /// Only beads whose title holds this text (any case).
    #[arg(long)]
    pub title: Option<String>,
}

/// Options of `update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Ids or unique prefixes.
    #[arg(required = true, add = crate::cli::complete::bead_id())]
    pub ids: Vec<String>,
    /// New status.
    #[arg(short, long, add = crate::cli::complete::status())]
    pub status: Option<Status>,
    /// New title.
    #[arg(long)]
    pub title: Option<String>,
    /// New priority (0-4 or P0-P4).
    #[arg(short, long, value_parser = vermas_core::bead::model::parse_priority)]
    pub priority: Option<u8>,
    /// New assignee (empty string clears it).
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// New type.
    #[arg(short = 't', long = "type", add = crate::cli::complete::issue_type())]
    pub issue_type: Option<IssueType>,
    /// New description.
    #[arg(short, long)]
    pub description: Option<String>,
    /// Link a live spec (empty string clears it).
    #[arg(long, add = crate::cli::complete::spec())]
    pub spec: Option<String>,
    /// Add a label (repeatable).
    #[arg(long = "add-label", value_name = "LABEL")]
    pub add_labels: Vec<String>,
    /// Remove a label (repeatable).
    #[arg(long = "remove-label", value_name = "LABEL")]
    pub remove_labels: Vec<String>,
    /// Append a note.
    #[arg(long)]
    pub notes: Option<String>,
    /// Take it: assign to yourself and mark in_progress (refused if someone else has it).
    #[arg(long)]
    pub claim: bool,
}

/// `dep` subcommands.
#[derive(Debug, Subcommand)]
pub enum DepCmd {
    /// ID depends on DEPENDS_ON (a cycle is refused).
    Add {
        /// The dependent bead.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
        /// The bead it depends on.
        #[arg(add = crate::cli::complete::bead_id())]
        depends_on: String,
        /// blocks (the default), parent-child, related, discovered-from, or another of bd's
        /// types.
        #[arg(short = 't', long = "type", add = crate::cli::complete::dep_type())]
        dep_type: Option<DepType>,
        /// A waits-for edge's gate: all-children (the default: ready once none of the
        /// target's children is open) or any-children (ready once one is closed); implies
        /// -t waits-for.
        #[arg(long, value_name = "GATE")]
        gate: Option<vermas_core::bead::model::Gate>,
    },
    /// Remove a dependency.
    #[command(visible_alias = "remove")]
    Rm {
        /// The dependent bead.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
        /// The bead it depends on.
        #[arg(add = crate::cli::complete::bead_id())]
        depends_on: String,
        /// Only this type (default: any).
        #[arg(short = 't', long = "type", add = crate::cli::complete::dep_type())]
        dep_type: Option<DepType>,
    },
    /// What a bead depends on, transitively.
    Tree {
        /// Id or unique prefix.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
    },
    /// Every dependency cycle.
    Cycles,
}

/// `label` subcommands.
#[derive(Debug, Subcommand)]
pub enum LabelCmd {
    /// Add a label.
    Add {
        /// Id or unique prefix.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
        /// The label.
        label: String,
    },
    /// Remove a label.
    #[command(visible_alias = "remove")]
    Rm {
        /// Id or unique prefix.
        #[arg(add = crate::cli::complete::bead_id())]
        id: String,
        /// The label.
        label: String,
    },
    /// The labels of a bead; without ID, every label in use with how many beads carry it.
    #[command(visible_alias = "list-all")]
    List {
        /// Id or unique prefix.
        #[arg(add = crate::cli::complete::bead_id())]
        id: Option<String>,
    },
}
