//! The command line: parse arguments, call the library, render results and errors.

pub mod args;
mod beads;
mod complete;
mod design;
mod discover;
#[cfg(test)]
mod docs;
mod formula;
mod gates;
mod githooks;
mod help;
mod inspect;
mod interop;
mod mail;
mod merge_file;
mod mol;
mod output;
mod progress;
mod ralph;
mod redraw;
mod refinery;
mod render;
mod report;
mod session;
mod setup;
mod sling;
mod specs;
mod style;
mod sync;
mod tasks;
mod ui;
mod watch;

use args::{Cli, Command};
use vermas_core::error::Error;
use vermas_core::workspace::Workspace;

/// What a command handler returns: the process exit code.
type CmdResult = Result<i32, Error>;

/// Runs vermas with the process arguments and returns the exit code.
pub fn main() -> i32 {
    // A shell asking for completions (COMPLETE=bash vermas -- ...) is answered and exits.
    clap_complete::CompleteEnv::with_factory(args::completion_command).complete();
    vermas_core::proc::interrupt::set_terminator(|code| std::process::exit(code));
    vermas_core::git::install_interrupt_cleanup();
    // A binary named `ralph` (a symlink to vermas) is `vermas ralph`.
    let parsed = help::command(<Cli as clap::CommandFactory>::command())
        .try_get_matches_from(ralph::command_line())
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                // clap's message to a closed stream: the exit code still says it.
                let _ = e.print();
                return 0;
            }
            let json = std::env::args().any(|a| a == "--json");
            let hint = help::near_miss(&std::env::args().collect::<Vec<_>>());
            // A value the domain's own parser refused is reported as that error (its code,
            // message and hint), as if the handler had parsed it.
            if let Some(refused) =
                std::error::Error::source(&e).and_then(|s| s.downcast_ref::<Error>())
            {
                output::error(refused, json);
                return refused.exit_code();
            }
            if json {
                // The message up to clap's usage block, on one line: a missing argument's
                // name sits on the line after "were not provided:".
                let detail = e.to_string();
                let first = detail
                    .lines()
                    .take_while(|l| !l.trim().is_empty())
                    .map(|l| l.trim().trim_start_matches("error: "))
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut obj =
                    serde_json::json!({"schema_version": 1, "error": first, "code": "usage"});
                // clap's tips ("a similar subcommand exists: 'list'") say the fix.
                let mut tips: Vec<&str> = detail
                    .lines()
                    .filter_map(|l| l.trim().strip_prefix("tip: "))
                    .collect();
                tips.extend(hint.as_deref());
                if !tips.is_empty() {
                    obj["help"] = serde_json::json!(tips.join("; "));
                }
                eprintln!("{obj}");
            } else {
                // clap's message to a closed stream: the exit code still says it.
                let _ = e.print();
                if let Some(h) = &hint {
                    eprintln!("  help: {h}");
                }
            }
            return 2;
        }
    };
    let json = cli.json;
    let result = dispatch(cli);
    if vermas_core::git::detached_commits() > 0 {
        warn(
            json,
            "detached_head",
            "warning: HEAD is detached: the change was committed on no branch \
             (`git switch -c NAME` puts it on a new branch)",
        );
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            output::error(&e, json);
            e.exit_code()
        }
    }
}

/// Prints a note on stderr: the text as is, or with `--json` one JSON object carrying it
/// and `code`.
pub(crate) fn warn(json: bool, code: &str, text: &str) {
    if json {
        let msg = text.strip_prefix("warning: ").unwrap_or(text);
        eprintln!("{}", serde_json::json!({"warning": msg, "code": code}));
    } else {
        eprintln!("{text}");
    }
}

/// Runs one parsed command.
fn dispatch(cli: Cli) -> CmdResult {
    let ui = &mut ui::Ui::stdout(cli.json);
    let ctx = Ctx {
        json: cli.json,
        actor: cli.actor,
    };
    match cli.command {
        Command::Init {
            prefix,
            hooks,
            roles,
            workspaces,
            force,
        } => {
            if force && !roles && !workspaces {
                return Err(vermas_core::error::Error::usage(
                    "--force writes the role files over existing ones: give it with --roles",
                )
                .with_help("vermas init --roles --force"));
            }
            let roles = (roles || workspaces).then_some(if force {
                vermas_core::roles::Existing::Overwrite
            } else {
                vermas_core::roles::Existing::Keep
            });
            setup::init(&ctx, ui, prefix.as_deref(), hooks, roles, workspaces)
        }
        Command::Config(cmd) => setup::config(&ctx, ui, cmd),
        Command::Completions { shell } => setup::completions(ui, shell),
        Command::Doctor { fix } => setup::doctor(&ctx, ui, fix),
        Command::Create(a) => beads::create(&ctx, ui, a, false),
        Command::Q(a) => beads::create(&ctx, ui, a, true),
        Command::List(a) => beads::list(&ctx, ui, a),
        Command::Show { ids } => beads::show(&ctx, ui, &ids),
        Command::Update(a) => beads::update(&ctx, ui, a),
        Command::Close { ids, reason, force } => {
            beads::close(&ctx, ui, &ids, reason.as_deref(), force)
        }
        Command::Reopen { ids } => beads::reopen(&ctx, ui, &ids),
        Command::Dep(cmd) => beads::dep(&ctx, ui, cmd),
        Command::Ready(a) => beads::ready(&ctx, ui, a),
        Command::Blocked => beads::blocked(&ctx, ui),
        Command::Label(cmd) => beads::bd::label(&ctx, ui, cmd),
        Command::Search(a) => beads::bd::search(&ctx, ui, a),
        Command::Stats => beads::bd::stats(&ctx, ui),
        Command::Delete { ids, force } => beads::delete::delete(&ctx, ui, &ids, force),
        Command::Comments(a) => beads::bd::comments(&ctx, ui, a),
        Command::History { id } => beads::history(&ctx, ui, &id),
        Command::Clarify {
            id,
            question,
            from_output,
        } => beads::clarify(&ctx, ui, &id, question, from_output.as_deref()),
        Command::Answer { id, text } => beads::answer(&ctx, ui, &id, &text),
        Command::Status(a) => specs::status(&ctx, ui, a),
        Command::Gate(a) => gates::gate(&ctx, ui, a),
        Command::Discover { write, spec } => discover::discover(&ctx, ui, write, spec.as_deref()),
        Command::Tasks(cmd) => tasks::tasks(ui, cmd),
        Command::Hooks(cmd) => githooks::hooks(&ctx, ui, cmd),
        Command::Mail(cmd) => mail::mail(&ctx, ui, cmd),
        Command::Formula(cmd) => formula::formula(&ctx, ui, cmd),
        Command::Mol(cmd) => mol::mol(&ctx, ui, cmd),
        Command::Spec(cmd) => specs::spec(ui, cmd),
        Command::Inspect(cmd) => inspect::inspect(&ctx, ui, cmd),
        Command::Design(a) => design::design(&ctx, ui, a),
        Command::Strategize(a) => design::strategize(&ctx, ui, a),
        Command::Plan(a) => design::plan(&ctx, ui, a),
        Command::Report(a) => report::report(ui, a),
        Command::Refinery(cmd) => refinery::refinery(&ctx, ui, cmd),
        Command::Inspector(inspect::loop_args::InspectorCmd::Run(args)) => {
            inspect::mail_loop::run(&ctx, ui, args)
        }
        Command::MergeFile {
            base,
            ours,
            theirs,
            path,
        } => merge_file::merge_file(&base, &ours, &theirs, &path),
        Command::StandIn => {
            let mut prompt = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut prompt)
                .map_err(|e| Error::io("stdin", e))?;
            ui::out!(ui, "{}", vermas_core::inspect::stand_in::reply(&prompt));
            Ok(0)
        }
        Command::Lsp => {
            let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
            crate::lsp::serve_stdio(&cwd)
        }
        Command::Ralph(cmd) => ralph::ralph(ui, cmd),
        Command::Sync { remote } => sync::sync(&ctx, ui, remote.as_deref()),
        Command::Import(cmd) => interop::import(&ctx, ui, cmd),
        Command::Export(cmd) => interop::export(&ctx, ui, cmd),
        Command::Start(a) => session::start(&ctx, ui, &a),
        Command::Stop => session::stop(&ctx, ui),
        Command::StatusLine => session::status_line(&ctx, ui),
        Command::Sling {
            id,
            agent,
            branch,
            worktree,
            force,
            reason,
        } => sling::sling(
            &ctx,
            ui,
            &id,
            (agent.as_deref(), branch.as_deref(), worktree),
            force,
            reason.as_deref(),
        ),
    }
}

/// Finds the project around the current directory; specs work without `.beads`.
pub(crate) fn project() -> Result<vermas_core::verify::Project, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    vermas_core::verify::Project::locate(&cwd)
}

/// Options every handler sees.
pub(crate) struct Ctx {
    /// `--json` was given: for notes and errors on stderr where no [`ui::Ui`] is at hand
    /// (stdout rendering asks the Ui's `json`).
    pub json: bool,
    /// `--actor` was given.
    pub actor: Option<String>,
}

impl Ctx {
    /// The workspace around the current directory.
    pub fn workspace(&self) -> Result<Workspace, Error> {
        let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
        // An older vermas's settings move out of bd's config.yaml on first use.
        let ws = setup::settle_settings(self, Workspace::discover(&cwd)?);
        if ws.config.git.commit {
            // A clone gets the merge driver with its first vermas command, read or write.
            vermas_core::setup::driver::ensure(&ws);
        }
        Ok(ws)
    }

    /// Who is acting in a change to `ws` about to be recorded. Refused (exit 2) when the
    /// name cannot go into a commit, or when git would refuse the commit (no identity,
    /// signing vermas cannot do).
    pub fn actor(&self, ws: &Workspace) -> Result<String, Error> {
        let actor = self.actor_name(ws)?;
        if ws.config.git.commit {
            vermas_core::setup::check_recordable(ws, ws.config.git.author.as_deref())?;
        }
        Ok(actor)
    }

    /// Who is acting in `ws`, refused (exit 2) when the name cannot go into a commit.
    pub fn actor_name(&self, ws: &Workspace) -> Result<String, Error> {
        vermas_core::setup::checked_actor(ws, self.actor.as_deref())
    }
}
