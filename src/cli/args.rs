//! Command-line grammar (clap). Parsing only; no behaviour.

use clap::{Parser, Subcommand};

use super::beads::args::*;
use super::formula::args::FormulaCmd;
use super::gates::args::GateArgs;
use super::githooks::args::HooksCmd;
use super::interop::args::{ExportCmd, ImportCmd};
use super::mail::args::MailCmd;
use super::mol::args::MolCmd;
use super::session::args::StartArgs;
use super::setup::args::ConfigCmd;
use super::specs::args::{SpecCmd, StatusArgs};
use super::tasks::args::TasksCmd;

/// vermas: verifiable work for people and coding agents, with git as the only database.
#[derive(Debug, Parser)]
#[command(name = "vermas", version, about)]
pub struct Cli {
    /// Print machine-readable JSON (errors go to stderr as JSON too).
    #[arg(long, global = true, display_order = 900)]
    pub json: bool,
    /// Who is acting (default: VERMAS_ACTOR, git user.name, $USER).
    #[arg(
        long,
        global = true,
        value_name = "NAME",
        value_parser = actor_name,
        display_order = 901
    )]
    pub actor: Option<String>,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The command line the shell completes: vermas's, without the long names of the internal
/// flags the watch passes to its own pane (`status --feed/--owner`). They are `hide = true`
/// already, but clap_complete still offers a hidden flag when no visible one matches the
/// word typed (`--f`); without a long name they can never be offered.
pub fn completion_command() -> clap::Command {
    <Cli as clap::CommandFactory>::command().mut_subcommand("status", |s| {
        s.mut_arg("feed", |a| a.long(None))
            .mut_arg("owner", |a| a.long(None))
    })
}

/// `--actor`: one line without control characters (it goes into commit trailers).
fn actor_name(text: &str) -> Result<String, String> {
    vermas_core::bead::model::check_single_line("actor", text).map(|()| text.to_string())
}

/// Every command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create .beads/ in this repository (idempotent) and commit it.
    Init {
        /// Prefix of bead ids, e.g. `vm` for vm-k3f9 (default: the folder name).
        #[arg(long)]
        prefix: Option<String>,
        /// Also install the pre-push gate (`vermas git-hooks install pre-push`).
        #[arg(long)]
        hooks: bool,
        /// Also write each role's context to .beads/roles/<role>.md (existing files kept).
        #[arg(long)]
        roles: bool,
        /// Also give each role a workspace, .beads/roles/<role>/ with its CLAUDE.md and
        /// .claude/settings.json (implies --roles; also the `roles.workspaces` setting).
        #[arg(long)]
        workspaces: bool,
        /// With --roles: write the role files (and workspace settings) over existing ones.
        #[arg(long)]
        force: bool,
    },
    /// Read or change settings in .beads/vermas.yaml.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Check the workspace: records parse, dependencies resolve, git records.
    Doctor {
        /// Commit the record files under .beads that are not in HEAD (as they are).
        #[arg(long)]
        fix: bool,
    },
    /// Create a bead.
    Create(CreateArgs),
    /// Create a bead and print only its id.
    Q(CreateArgs),
    /// List beads (closed ones only with --all or --status closed).
    List(ListArgs),
    /// Show beads in full.
    Show {
        /// Ids or unique prefixes.
        #[arg(required = true, add = super::complete::bead_id())]
        ids: Vec<String>,
    },
    /// Change fields of beads.
    Update(UpdateArgs),
    /// Close beads.
    Close {
        /// Ids or unique prefixes.
        #[arg(required = true, add = super::complete::bead_id())]
        ids: Vec<String>,
        /// Why it is closed.
        #[arg(short, long)]
        reason: Option<String>,
        /// Close work whose approved test spec has not passed an inspection, recorded as a
        /// bypass (needs --reason).
        #[arg(long)]
        force: bool,
    },
    /// Reopen closed beads.
    Reopen {
        /// Ids or unique prefixes.
        #[arg(required = true, add = super::complete::bead_id())]
        ids: Vec<String>,
    },
    /// Manage dependencies between beads.
    #[command(subcommand)]
    Dep(DepCmd),
    /// Beads ready to work on: open, unblocked, not awaiting input; by priority then age.
    Ready(ReadyArgs),
    /// Beads waiting on others, with what blocks each.
    Blocked,
    /// Add, remove or list labels.
    #[command(subcommand)]
    Label(LabelCmd),
    /// Find beads whose id, title, description or notes hold TEXT (any case).
    Search(SearchArgs),
    /// Counts of beads by status and type; how many are ready and blocked.
    Stats,
    /// Delete beads and every dependency on them (only with --force; else show what would go).
    Delete {
        /// Ids or unique prefixes.
        #[arg(required = true, add = super::complete::bead_id())]
        ids: Vec<String>,
        /// Really delete (without it: show what would be removed and exit 2).
        #[arg(short, long)]
        force: bool,
    },
    /// A bead's comments (its notes); `comments add ID TEXT` adds one.
    Comments(CommentsArgs),
    /// Commits that changed a bead, newest first, with the fields changed.
    History {
        /// Id or unique prefix.
        #[arg(add = super::complete::bead_id())]
        id: String,
    },
    /// Ask a question about a bead: labels it awaiting:input.
    Clarify {
        /// Id or unique prefix.
        #[arg(add = super::complete::bead_id())]
        id: String,
        /// The question.
        #[arg(required_unless_present = "from_output")]
        question: Option<String>,
        /// Take the question from an agent's output (`-` for stdin): its first
        /// `RALPH_CLARIFY: <question>` line.
        #[arg(long, value_name = "FILE", conflicts_with = "question")]
        from_output: Option<std::path::PathBuf>,
    },
    /// Where the work stands; with --verify or --judge, run the live specs' checks.
    Status(StatusArgs),
    /// Live specs: list, show, check their links.
    #[command(subcommand)]
    Spec(SpecCmd),
    /// Run a deterministic gate (shell command + exit code, never an LLM) for a bead.
    Gate(GateArgs),
    /// Find the project's real quality commands (lint, typecheck, test, build, ci).
    Discover {
        /// Store them as gates.* in config and commit, and in smart-ralph's research.md
        /// (the current spec's, or --spec's) as its Quality Commands section.
        #[arg(long)]
        write: bool,
        /// The smart-ralph spec whose research.md gets the section (default: the one
        /// `specs/.current-spec` names).
        #[arg(long, value_name = "NAME", requires = "write")]
        spec: Option<String>,
    },
    /// Run [VERIFY] tasks of a tasks file.
    #[command(subcommand)]
    Tasks(TasksCmd),
    /// Install, remove or run vermas's git hooks (the pre-push check).
    ///
    /// Not the Inspector's lifecycle hooks under .beads/hooks/.
    #[command(name = "git-hooks", alias = "hooks")]
    #[command(subcommand)]
    Hooks(HooksCmd),
    /// Agent mail: send, inbox, read, reply, thread, archive, wait.
    #[command(subcommand)]
    Mail(MailCmd),
    /// Workflow templates (Gas Town formulas).
    #[command(subcommand)]
    Formula(FormulaCmd),
    /// Molecules: workflow instances cooked from formulas.
    #[command(subcommand)]
    Mol(MolCmd),
    /// Assign work to an agent; refused until its test spec is approved.
    Sling {
        /// The work.
        #[arg(add = super::complete::bead_id())]
        id: String,
        /// The agent (default: you).
        agent: Option<String>,
        /// The branch the work is done on (default: AGENT/ID); the refinery judges it as
        /// this work and no other.
        #[arg(long, value_name = "NAME")]
        branch: Option<String>,
        /// Give the worker a git worktree of its own on that branch (config
        /// `sling.worktree: true` does it every time); its path is in WORK ASSIGNED.
        #[arg(long)]
        worktree: bool,
        /// Bypass the test-spec gate (recorded; needs --reason).
        #[arg(long, requires = "reason")]
        force: bool,
        /// Why the gate is bypassed (only with --force).
        #[arg(long, requires = "force")]
        reason: Option<String>,
    },
    /// The Inspector: verify, audit, review and judge a bead's work; record and route it.
    #[command(subcommand)]
    Inspect(super::inspect::args::InspectCmd),
    /// The designer turns a request into requirements for a person to approve.
    ///
    /// Approved, they become the work's description (a new feature unless --bead).
    Design(super::design::args::DesignArgs),
    /// The strategist proposes acceptance criteria; approved, they go on the work's test spec.
    Strategize(super::design::args::StrategizeArgs),
    /// design -> create -> strategize, as one resumable molecule.
    ///
    /// The mol-spec-planning molecule; the same request again (or --resume MOL) continues
    /// an unfinished plan where it stopped.
    Plan(super::design::args::PlanArgs),
    /// Write one self-contained HTML page of the committed ledger and its history.
    ///
    /// Work by state, live specs and each criterion's outcomes over time, inspections and
    /// why (default .beads/.cache/report.html; prints its file:// link).
    Report(super::report::args::ReportArgs),
    /// The Refinery: merge a branch only once the Inspector passed the merge result.
    #[command(subcommand)]
    Refinery(super::refinery::args::RefineryCmd),
    /// The old spelling of `inspect loop`.
    #[command(hide = true)]
    #[command(subcommand)]
    Inspector(super::inspect::loop_args::InspectorCmd),
    /// wrapix's ralph front end: `ralph spec`, `ralph status` (also as a symlink named ralph).
    #[command(subcommand)]
    Ralph(super::ralph::args::RalphCmd),
    /// git's merge driver for vermas's records (`merge.vermas.driver`).
    ///
    /// Merges BASE, OURS and THEIRS of the record at PATH by meaning into OURS; non-zero
    /// leaves the conflict to git.
    MergeFile {
        /// The common ancestor's version (git's `%O`).
        base: std::path::PathBuf,
        /// Our version, replaced by the result (git's `%A`).
        ours: std::path::PathBuf,
        /// Their version (git's `%B`).
        theirs: std::path::PathBuf,
        /// The record's path in the repository (git's `%P`).
        path: String,
    },
    /// A language server for spec markdown; an editor starts it.
    ///
    /// On stdin/stdout: links, diagnostics, hover, "Run this criterion".
    Lsp,
    /// A stand-in for a model, to try the Inspector without one.
    ///
    /// Answers each role's prompt on stdin from the checks alone, labelled as a stand-in
    /// (never the default: `vermas config set llm.command "vermas stand-in"`).
    StandIn,
    /// Share the ledger: fetch, merge (records by meaning), push.
    ///
    /// Fetches REMOTE, merges its branch and pushes, retrying while someone else pushes.
    Sync {
        /// The remote (default: the ledger branch's upstream remote, else `origin`).
        remote: Option<String>,
    },
    /// Import another tracker's export into beads (`import bd [FILE]`), in one commit.
    #[command(subcommand)]
    Import(ImportCmd),
    /// Write every bead in another tracker's format (`export bd [FILE]`).
    #[command(subcommand)]
    Export(ExportCmd),
    /// Open the two-pane tmux session: the mayor's pane and the inspector's.
    ///
    /// Laid out by config `layout`; a second `start` finds the running one.
    Start(StartArgs),
    /// Close the session `start` opened (inside tmux: its window).
    Stop,
    /// Internal: the session's status line, run by tmux every few seconds.
    #[command(hide = true)]
    StatusLine,
    /// Answer a bead's question: removes awaiting:input.
    Answer {
        /// Id or unique prefix.
        #[arg(add = super::complete::bead_id())]
        id: String,
        /// The answer.
        text: String,
    },
}
