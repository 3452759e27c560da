//! Handler of `hooks install|uninstall|run|list`: the pre-push gate, and the list of git
//! and lifecycle hooks.

pub(super) mod args;

use super::githooks::args::HooksCmd;
use super::output::versioned;
use super::ui::{Ui, out, outln};
use super::{CmdResult, Ctx};
use serde_json::{Value, json};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use vermas_core::error::Error;
use vermas_core::git::GitRepo;
use vermas_core::githooks::{self, Installed, Scope, Uninstalled};
use vermas_core::verify::{self, Kinds, Project, SpecRun, Verification};

/// `hooks ...`.
pub fn hooks(ctx: &Ctx, ui: &mut Ui, cmd: HooksCmd) -> CmdResult {
    match cmd {
        HooksCmd::List => list(ctx, ui),
        HooksCmd::Install { name } => {
            let installed = install(&git_repo()?, &name)?;
            if ui.json {
                ui.json(&versioned(installed_json(&installed)));
            } else {
                for line in installed_lines(&installed) {
                    outln!(ui, "{line}");
                }
            }
            Ok(0)
        }
        HooksCmd::Uninstall { name } => {
            let done = githooks::uninstall(&git_repo()?, &name)?;
            let (action, path) = match &done {
                Uninstalled::Restored(p) => ("restored", p),
                Uninstalled::Removed(p) => ("removed", p),
                Uninstalled::NotInstalled(p) => ("not_installed", p),
            };
            if ui.json {
                ui.json(&versioned(json!({"hook": path, "action": action})));
            } else {
                match &done {
                    Uninstalled::Restored(p) => outln!(
                        ui,
                        "Removed vermas's {name} hook; restored the hook it had kept at {}",
                        p.display()
                    ),
                    Uninstalled::Removed(p) => outln!(ui, "Removed {}", p.display()),
                    Uninstalled::NotInstalled(p) if p.exists() => outln!(
                        ui,
                        "No vermas {name} hook installed ({} belongs to another tool; left alone)",
                        p.display()
                    ),
                    Uninstalled::NotInstalled(p) => {
                        outln!(ui, "No vermas {name} hook installed in {}", dir_of(p))
                    }
                }
            }
            Ok(0)
        }
        HooksCmd::Run { name, args } => {
            githooks::hook_name(&name)?;
            pre_push(ui, &args)
        }
    }
}

/// `hooks list`: git hooks vermas provides, then every lifecycle hook file present.
fn list(ctx: &Ctx, ui: &mut Ui) -> CmdResult {
    let git = githooks::git_hooks(&git_repo()?)?;
    // (point, path as shown, executable)
    let lifecycle: Vec<(&str, String, bool)> = match ctx.workspace() {
        Ok(ws) => vermas_core::inspect::lifecycle::present(&ws)
            .into_iter()
            .map(|h| (h.point.name(), ws.display(&h.path), h.executable))
            .collect(),
        // Outside a vermas repository there are only git hooks to show.
        Err(Error::NoWorkspace(_)) => Vec::new(),
        Err(e) => return Err(e),
    };
    if ui.json {
        let lifecycle: Vec<Value> = lifecycle
            .iter()
            .map(|(point, path, x)| json!({"point": point, "path": path, "executable": x}))
            .collect();
        ui.json(&versioned(json!({"git": git, "lifecycle": lifecycle})));
        return Ok(0);
    }
    for h in &git {
        let state = match (h.installed, h.chained) {
            (true, true) => "installed (chains the hook that was there)",
            (true, false) => "installed",
            (false, _) => "not installed (`vermas git-hooks install`)",
        };
        outln!(ui, "git       {:<18} {state}  {}", h.name, h.path.display());
    }
    for (point, path, executable) in &lifecycle {
        let note = if *executable {
            ""
        } else {
            "  (not executable: passed over)"
        };
        outln!(ui, "lifecycle {point:<18} {path}{note}");
    }
    if lifecycle.is_empty() {
        outln!(
            ui,
            "no lifecycle hooks (.beads/hooks/<Point> or <Point>.d/*)"
        );
    }
    Ok(0)
}

/// The git repository around the current directory, or a clear error.
pub(super) fn git_repo() -> Result<GitRepo, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    GitRepo::open(&cwd).ok_or_else(|| {
        Error::invalid_with_help(
            format!("{} is not inside a git work tree", cwd.display()),
            "git hooks belong to a git repository: run this inside one",
        )
    })
}

/// Installs hook `name`, running this very binary.
pub(super) fn install(repo: &GitRepo, name: &str) -> Result<Installed, Error> {
    let exe = std::env::current_exe()
        .ok()
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p));
    githooks::install(repo, name, exe.as_deref())
}

/// An install as JSON.
pub(super) fn installed_json(i: &Installed) -> Value {
    json!({"hook": i.hook, "chained": i.chained, "changed": i.changed})
}

/// An install for people.
pub(super) fn installed_lines(i: &Installed) -> Vec<String> {
    let name = i
        .hook
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut lines = vec![if i.changed {
        format!("Installed the {name} hook: {}", i.hook.display())
    } else {
        format!("The {name} hook is already installed: {}", i.hook.display())
    }];
    if let Some(c) = &i.chained {
        lines.push(format!(
            "  the hook that was there is kept as {} and runs first; its failure blocks the push",
            c.display()
        ));
    }
    lines
}

/// The folder of a path, for messages.
fn dir_of(p: &Path) -> String {
    p.parent()
        .map(Path::display)
        .map_or_else(String::new, |d| d.to_string())
}

/// True when `VERMAS_SKIP` asks to skip the checks (set, not empty, not `0`).
fn skip_requested() -> bool {
    std::env::var("VERMAS_SKIP").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Prints a line of the gate's own commentary on stderr.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("vermas pre-push: {}", format_args!($($arg)*))
    };
}

/// `hooks run pre-push [REMOTE [URL]]`: reads git's ref lines on stdin and runs the
/// verify checks of the specs the push touches on each pushed commit (in place when the
/// checkout is that commit, clean; else in a temporary worktree of it), refusing the push
/// (non-zero) on FAIL or ERROR.
fn pre_push(ui: &mut Ui, args: &[String]) -> CmdResult {
    if skip_requested() {
        say!("VERMAS_SKIP is set: checks skipped, push allowed");
        return Ok(0);
    }
    let refs = pushed_refs()?;
    let p = super::project()?;
    let repo = GitRepo::open(&p.root).ok_or_else(|| {
        Error::git(format!(
            "{} is not inside a git work tree",
            p.root.display()
        ))
    })?;
    let remote = args.first().map_or("", String::as_str);
    let scope = Scope::from_config(&p.config.hooks.pre_push.scope);
    let judge = p.config.hooks.pre_push.judge;
    let plan = githooks::plan_push(&repo, &p.root, remote, &refs, scope)?;
    for note in &plan.notes {
        say!("{note}");
    }
    if plan.targets.is_empty() {
        say!("nothing to check");
        return Ok(0);
    }
    let kinds = Kinds {
        verify: true,
        judge,
    };
    let gate = Gate {
        p: &p,
        repo: &repo,
        plan: &plan,
        kinds,
        judge,
    };
    let mut runs = Vec::new();
    let mut code = 0;
    for target in &plan.targets {
        code = gate.verify(ui, target, &mut runs)?;
        if code != 0 {
            break;
        }
    }
    if ui.json {
        ui.json(&verify::report::json(&runs));
    }
    Ok(code)
}

/// What every pushed commit is verified with.
struct Gate<'a> {
    p: &'a Project,
    repo: &'a GitRepo,
    plan: &'a githooks::PushPlan,
    kinds: Kinds,
    judge: bool,
}

impl Gate<'_> {
    /// Verifies one pushed commit (its runs added to `all`); the hook's exit code for it.
    fn verify(
        &self,
        ui: &mut Ui,
        target: &githooks::PushTarget,
        all: &mut Vec<SpecRun>,
    ) -> Result<i32, Error> {
        let names = target.refs.join(", ");
        let short: String = target.commit.chars().take(7).collect();
        let tree = githooks::PushedTree::open(self.repo, &self.p.root, target)?;
        // The commit's own specs and files, with this checkout's settings.
        let at = Project {
            root: tree.root().to_path_buf(),
            ws: None,
            config: self.p.config.clone(),
        };
        let found = vermas_core::spec::checkable(super::specs::specs_of(&at)?);
        let (specs, notes) = githooks::specs_to_run(self.plan, found);
        for note in &notes {
            say!("{note}");
        }
        if specs.is_empty() {
            say!(
                "{names}: no spec to run for this push (scope {}); nothing to check",
                self.plan.scope.as_str()
            );
            return Ok(0);
        }
        let key = githooks::stamp_key(&target.tree, &specs, self.judge);
        let cache = self.p.cache_dir();
        if let Some(dir) = &cache
            && githooks::stamp_matches(dir, &key)
        {
            say!(
                "{names}: this tree already passed these {} (stamp {}); nothing run",
                vermas_core::text::words::plural(specs.len(), "spec"),
                stamp_display(&self.p.root, dir)
            );
            return Ok(0);
        }
        if let Some(dir) = tree.temporary() {
            say!(
                "{names}: the work tree is not the pushed commit; checking {short} in a temporary worktree ({})",
                dir.display()
            );
        }
        let count = specs.len();
        let request = verify::Request::new(verify::Selection::Given(specs), self.kinds);
        let done = verify::run(&at, request, &mut super::specs::Terminal::new(ui.json))?;
        drop(tree);
        if !ui.json {
            out!(
                ui,
                "{}",
                verify::report::human(
                    &done.runs,
                    self.kinds,
                    &crate::cli::style::tagger(ui.colour)
                )
            );
        }
        let code = push_verdict(&done, count);
        all.extend(done.runs);
        if code == 0
            && let Some(dir) = &cache
            && let Err(e) = githooks::write_stamp(dir, &key)
        {
            say!("could not write the stamp: {e}");
        }
        Ok(code)
    }
}

/// The refs being pushed, from git's lines on stdin (refused on a terminal).
fn pushed_refs() -> Result<Vec<githooks::PushRef>, Error> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::usage("`git-hooks run pre-push` reads the refs being pushed on stdin, as git gives them").with_help("git runs it on `git push`; by hand: echo \"refs/heads/main $(git rev-parse HEAD) refs/heads/main $(git rev-parse origin/main)\" | vermas git-hooks run pre-push origin"));
    }
    let mut input = String::new();
    stdin
        .read_to_string(&mut input)
        .map_err(|e| Error::io("<stdin>", e))?;
    githooks::parse_refs(&input)
}

/// The hook's exit code for the checks of `specs` specs: 3 when nothing was verified, the
/// checks' code when one failed or could not run (saying the push is refused), else 0.
fn push_verdict(done: &Verification, specs: usize) -> i32 {
    let total = done.counts();
    if total.nothing_verified() {
        say!(
            "push refused: nothing was verified (no criterion of the {} run has a check that ran). Bypass once with `git push --no-verify` (or VERMAS_SKIP=1).",
            vermas_core::text::words::plural(specs, "spec")
        );
        return 3;
    }
    let code = total.exit_code();
    if code != 0 {
        say!(
            "push refused ({}). Fix the checks, or bypass once with `git push --no-verify` (or VERMAS_SKIP=1).",
            total.line()
        );
    }
    code
}

/// The stamp file as the user should see it.
fn stamp_display(root: &Path, cache: &Path) -> String {
    let path: PathBuf = cache.join(githooks::STAMP_FILE);
    path.strip_prefix(root)
        .unwrap_or(&path)
        .display()
        .to_string()
}
