//! Command-line grammar (clap). Parsing only; no behaviour.

use clap::{Args, Parser, Subcommand};

pub use super::agent_args::{FormulaCmd, MailCmd, MolCmd};
pub use super::bead_args::*;

/// vermas: verifiable work for people and coding agents, with git as the only database.
#[derive(Debug, Parser)]
#[command(name = "vermas", version, about, propagate_version = true)]
pub struct Cli {
    /// Print machine-readable JSON (errors go to stderr as JSON too).
    #[arg(long, global = true)]
    pub json: bool,
    /// Who is acting (default: VERMAS_ACTOR, git user.name, $USER).
    #[arg(long, global = true, value_name = "NAME", value_parser = actor_name)]
    pub actor: Option<String>,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// `--actor`: one line without control characters (it goes into commit trailers).
fn actor_name(text: &str) -> Result<String, String> {
    crate::bead::model::check_single_line("actor", text).map(|()| text.to_string())
}

/// Every command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create .beads/ in this repository (idempotent) and commit it.
    Init {
        /// Prefix of bead ids, e.g. `vm` for vm-k3f9 (default: the folder name).
        #[arg(long)]
        prefix: Option<String>,
        /// Also install the pre-push gate (`vermas hooks install pre-push`).
        #[arg(long)]
        hooks: bool,
        /// Also write each role's context to .beads/roles/<role>.md (existing files kept).
        #[arg(long)]
        roles: bool,
        /// With --roles: write the role files over existing ones.
        #[arg(long, requires = "roles")]
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
        question: String,
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
        /// Store them as gates.* in config and commit.
        #[arg(long)]
        write: bool,
    },
    /// Run [VERIFY] tasks of a tasks file.
    #[command(subcommand)]
    Tasks(TasksCmd),
    /// Install, remove or run vermas's git hooks (the pre-push gate).
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
        /// Bypass the test-spec gate (recorded; needs --reason).
        #[arg(long, requires = "reason")]
        force: bool,
        /// Why the gate is bypassed (only with --force).
        #[arg(long, requires = "force")]
        reason: Option<String>,
    },
    /// The Inspector: verify, audit, review and judge a bead's work; record and route it.
    #[command(subcommand)]
    Inspect(super::inspect_args::InspectCmd),
    /// The designer turns a request into requirements; approved, they become the work's
    /// description (a new feature unless --bead).
    Design(super::design_args::DesignArgs),
    /// The strategist proposes acceptance criteria; approved, they go on the work's test spec.
    Strategize(super::design_args::StrategizeArgs),
    /// design -> create -> strategize as the mol-spec-planning molecule; the same request
    /// again (or --resume MOL) continues an unfinished plan where it stopped.
    Plan(super::design_args::PlanArgs),
    /// The Refinery: merge a branch only once the Inspector passed the merge result.
    #[command(subcommand)]
    Refinery(super::refinery_args::RefineryCmd),
    /// The Inspector's own loop: act on `inspector/` mail (`inspector run`).
    #[command(subcommand)]
    Inspector(super::inspector::InspectorCmd),
    /// wrapix's ralph front end: `ralph spec`, `ralph status` (also as a symlink named ralph).
    #[command(subcommand)]
    Ralph(super::ralph::RalphCmd),
    /// A language server on stdin/stdout for spec markdown (links, diagnostics, hover,
    /// "Run this criterion"); an editor starts it.
    Lsp,
    /// Import another tracker's export into beads (`import bd [FILE]`), in one commit.
    #[command(subcommand)]
    Import(ImportCmd),
    /// Write every bead in another tracker's format (`export bd [FILE]`).
    #[command(subcommand)]
    Export(ExportCmd),
    /// Open the two-pane tmux session: the mayor's pane left, the inspector's right
    /// (config `layout`); a second `start` finds the running one.
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

/// Options of `start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// Attach to the session (refused without a terminal).
    #[arg(long, conflicts_with = "detach")]
    pub attach: bool,
    /// Leave the session in the background, even on a terminal.
    #[arg(long)]
    pub detach: bool,
}

/// Options of `status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Run the [verify] checks of the specs' success criteria.
    #[arg(long)]
    pub verify: bool,
    /// Run the [judge] checks (asks the LLM; replies are cached).
    #[arg(long)]
    pub judge: bool,
    /// Only this spec (name or path; repeatable).
    #[arg(long = "spec", value_name = "NAME", add = super::complete::spec())]
    pub specs: Vec<String>,
    /// Checks run at once (default: verify.jobs, else the number of cores).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
    /// Print TAP instead of the human report.
    #[arg(long)]
    pub tap: bool,
    /// Write .beads/results/spec-<name>.yaml and commit it.
    #[arg(long)]
    pub record: bool,
    /// Ask the LLM again even when a reply to the same prompt is cached.
    #[arg(long)]
    pub no_cache: bool,
    /// Redraw every SECS seconds (default 5) until interrupted.
    #[arg(long, value_name = "SECS", num_args = 0..=1, default_missing_value = "5")]
    pub watch: Option<u64>,
    /// With --verify: also run the checks on REV (default: the merge-base with upstream) in a
    /// temporary worktree and flag criteria that passed there already.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "")]
    pub baseline: Option<String>,
    /// With --watch: split the tmux window (status on top, agent log below).
    #[arg(long)]
    pub tmux: bool,
    /// Internal: the lower watch pane (recent .beads commits and failures every SECS).
    #[arg(long, value_name = "SECS", hide = true)]
    pub feed: Option<u64>,
    /// Internal: the feed stops when this process ends.
    #[arg(long, value_name = "PID", hide = true)]
    pub owner: Option<u32>,
}

/// `spec` subcommands.
#[derive(Debug, Subcommand)]
pub enum SpecCmd {
    /// Every spec with its counts of verify, judge and unannotated criteria.
    List,
    /// One spec's criteria and annotations, each as path:line.
    Show {
        /// Spec name or path.
        #[arg(add = super::complete::spec())]
        name: String,
    },
    /// Check every link: file exists, function defined; warn on unreferenced tests and on
    /// links GitHub would not open (`::`, a path read from the wrong folder).
    Check {
        /// Rewrite those links to `../tests/x.sh#fn` from the spec's folder (prints the diff).
        #[arg(long)]
        fix: bool,
    },
}

/// Options of `gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// red, green, refactor or implement.
    pub phase: String,
    /// The bead (or its test spec) the gate is for.
    #[arg(add = super::complete::bead_id())]
    pub id: String,
    /// Acceptance criterion number (1-based) of the test spec.
    #[arg(long, value_name = "N")]
    pub ac: Option<usize>,
    /// The command to run instead of the criterion's or config's.
    #[arg(long, value_name = "CMD")]
    pub cmd: Option<String>,
}

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

/// `import` subcommands.
#[derive(Debug, Subcommand)]
pub enum ImportCmd {
    /// bd's JSONL (one issue per line): each issue becomes or updates the bead of its id.
    Bd {
        /// The file (default: .beads/issues.jsonl, where bd keeps it).
        file: Option<std::path::PathBuf>,
    },
}

/// `export` subcommands.
#[derive(Debug, Subcommand)]
pub enum ExportCmd {
    /// bd's JSONL: one issue per line, sorted by id, that `bd import` reads.
    Bd {
        /// Write to FILE instead of standard output (`-`: standard output).
        #[arg(conflicts_with = "output")]
        file: Option<std::path::PathBuf>,
        /// Write to FILE (bd's spelling of the same).
        #[arg(short, long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
}
