//! Handlers of `status` and `spec`: select specs, run checks, render reports.

pub(super) mod args;

use super::output::{diagnostic, recorded_note, versioned};
use super::specs::args::{ReportFormat, SpecCmd, StatusArgs};
use super::ui::{Ui, out, outln};
use super::{CmdResult, Ctx};
use vermas_core::check;
use vermas_core::error::{Error, ParseError};
use vermas_core::spec::{self, Spec, lint};
use vermas_core::verify::{self, Kinds, Project, SpecRun, summary};

/// Every spec of `p`, with a warning on stderr for each one refused.
pub(super) fn specs_of(p: &Project) -> Result<Vec<Spec>, Error> {
    let specs = p.specs()?;
    for why in specs.iter().filter_map(|s| s.refused.as_deref()) {
        diagnostic("warning", &Error::Invalid(why.to_string()));
    }
    Ok(specs)
}

/// Hears a verification for the terminal: warnings on stderr, the running checks on a
/// terminal stderr unless `quiet`.
pub(super) struct Terminal {
    /// The progress line.
    board: super::progress::Board,
}

impl Terminal {
    /// Progress shown unless `quiet` (JSON output, or a caller that draws its own).
    pub(super) fn new(quiet: bool) -> Terminal {
        Terminal {
            board: super::progress::Board::new("checks", !quiet),
        }
    }
}

impl verify::Observer for Terminal {
    fn warning(&mut self, message: &str) {
        diagnostic("warning", &Error::Invalid(message.to_string()));
    }

    fn progress(&self, event: check::Progress, label: &str) {
        match event {
            check::Progress::Started { index, total } => {
                self.board.started(index.to_string(), label, Some(total))
            }
            check::Progress::Finished { index, done, total } => {
                self.board.finished(&index.to_string(), done, Some(total))
            }
        }
    }
}

/// `status`.
pub fn status(ctx: &Ctx, ui: &mut Ui, a: StatusArgs) -> CmdResult {
    let p = super::project()?;
    if a.shard.is_some() && !a.verify && !a.judge {
        return Err(Error::usage("--shard goes with --verify or --judge"));
    }
    if a.baseline.is_some() && !a.verify {
        return Err(Error::usage("--baseline goes with --verify"));
    }
    if a.tmux && a.watch.is_none() {
        return Err(Error::usage("--tmux goes with --watch"));
    }
    if a.format.is_some() && (ui.json || a.tap) {
        return Err(Error::usage(
            "--format is for the human report: it does not go with --json or --tap",
        ));
    }
    if let Some(secs) = a.feed {
        return super::watch::feed(ui, &p, secs.max(1), a.owner);
    }
    if let Some(secs) = a.watch {
        return super::watch::run(ui, &a, secs.max(1));
    }
    let mut terminal = Terminal::new(ui.json);
    if !a.verify && !a.judge {
        let selected = verify::select(&p, &a.specs, &mut terminal)?;
        return summary_only(ui, &a, &p, &selected);
    }
    if let Some(path) = &a.junit {
        check_writable_parent(path)?;
    }
    // A result that could not be recorded is refused before anything runs.
    let record = match (a.record, p.ws.as_ref()) {
        (false, _) => None,
        (true, Some(ws)) => Some(ctx.actor(ws)?),
        (true, None) => Some(String::new()),
    };
    let kinds = Kinds {
        verify: a.verify,
        judge: a.judge,
    };
    let request = verify::Request {
        specs: verify::Selection::Named(a.specs.clone()),
        kinds,
        jobs: a.jobs,
        use_cache: !a.no_cache,
        baseline: a.baseline.clone(),
        record,
        shard: a.shard,
    };
    let mut done = verify::run(&p, request, &mut terminal)?;
    report(ui, &a, &done.runs, kinds)?;
    job_summary(&p, &done.runs);
    if let Some(recorded) = done.recorded.take() {
        recorded_note(&recorded?);
    }
    if done.nothing_verified() {
        let specs = vermas_core::text::words::plural(done.runs.len(), "spec");
        eprintln!(
            "vermas: nothing was verified: {specs} selected, no criterion with a {} check that ran",
            kinds.heading().to_lowercase().replace(" + ", " or ")
        );
        if done.runs.is_empty() && a.specs.is_empty() {
            eprintln!(
                "  write a first live spec: specs/NAME.md with a \"## Success Criteria\" list \
                 whose items link their checks, e.g. `- [ ] 15 prints FizzBuzz \
                 [verify](tests/fizz.sh#test_fizz)`; `vermas spec list` shows what vermas reads"
            );
        }
    }
    Ok(done.exit_code())
}

/// Plain `status`: counts and recorded results from the files alone, no checks run.
fn summary_only(ui: &mut Ui, a: &StatusArgs, p: &Project, selected: &[Spec]) -> CmdResult {
    if a.record || a.tap || a.junit.is_some() {
        return Err(Error::usage(
            "--record, --tap and --junit go with --verify or --judge",
        ));
    }
    let s = summary::summarise(p.ws.as_ref(), selected)?;
    if ui.json {
        ui.json(&versioned(&s));
    } else {
        if let Some(ledger) =
            p.ws.as_ref()
                .and_then(vermas_core::workspace::Workspace::shared_ledger)
        {
            outln!(ui, "Ledger: {} (the main worktree's)", ledger.display());
        }
        out!(ui, "{}", super::render::summary(&s, p.ws.is_some()));
    }
    Ok(0)
}

/// Writes the JUnit file if asked for, and prints the report: JSON, TAP or for people.
fn report(ui: &mut Ui, a: &StatusArgs, runs: &[SpecRun], kinds: Kinds) -> Result<(), Error> {
    if let Some(path) = &a.junit {
        std::fs::write(path, vermas_core::verify::report::junit(runs))
            .map_err(|e| Error::io(path, e))?;
    }
    if ui.json {
        ui.json(&vermas_core::verify::report::json(runs));
    } else if a.tap {
        out!(ui, "{}", vermas_core::verify::report::tap(runs));
    } else {
        if annotate(a) {
            out!(
                ui,
                "{}",
                vermas_core::verify::report::github::annotations(runs)
            );
        }
        out!(
            ui,
            "{}",
            vermas_core::verify::report::human(runs, kinds, &crate::cli::style::tagger(ui.colour))
        );
    }
    Ok(())
}

/// Appends the Markdown job summary to the file `GITHUB_STEP_SUMMARY` names, when it is
/// set (GitHub's runners set it for each step); a file that cannot be written is a warning.
fn job_summary(p: &Project, runs: &[SpecRun]) {
    let Some(file) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|f| !f.is_empty()) else {
        return;
    };
    let base = blob_base(p);
    let link = |path: &str, line: usize| {
        let base = base.as_deref()?;
        let at = if line > 0 {
            format!("#L{line}")
        } else {
            String::new()
        };
        Some(format!("{base}{path}{at}"))
    };
    let text = vermas_core::verify::report::job_summary::markdown(runs, &link);
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    if let Err(e) = appended {
        diagnostic("warning", &Error::io(std::path::Path::new(&file), e));
    }
}

/// `https://github.com/OWNER/REPO/blob/COMMIT/`: from GitHub's variables on its runners
/// (`GITHUB_SERVER_URL`, `GITHUB_REPOSITORY`, `GITHUB_SHA`), else from an `origin` on
/// GitHub and HEAD; `None` when neither says.
fn blob_base(p: &Project) -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if let (Some(repo), Some(sha)) = (var("GITHUB_REPOSITORY"), var("GITHUB_SHA")) {
        let server = var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into());
        let plain = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        };
        if plain(&repo) && plain(&sha) && server.starts_with("https://") {
            return Some(format!(
                "{}/{repo}/blob/{sha}/",
                server.trim_end_matches('/')
            ));
        }
    }
    let git = vermas_core::git::GitRepo::open(&p.root)?;
    let repo = vermas_core::report::github_repo(&git.config_value("remote.origin.url")?)?;
    Some(format!("{repo}/blob/{}/", git.head_commit()?))
}

/// Whether GitHub Actions annotations come before the human report: `--format github`, or
/// GITHUB_ACTIONS=true (as GitHub's runners set it) without `--format human`.
fn annotate(a: &StatusArgs) -> bool {
    match a.format {
        Some(ReportFormat::Github) => true,
        Some(ReportFormat::Human) => false,
        None => std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
    }
}

/// Refuses a report path that is a folder or whose folder does not exist, before any
/// check runs.
fn check_writable_parent(path: &std::path::Path) -> Result<(), Error> {
    if path.is_dir() {
        return Err(Error::invalid_with_help(
            format!("cannot write {}: it is a folder", path.display()),
            "--junit takes the report's file name, e.g. --junit reports/junit.xml",
        ));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if parent.is_dir() {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "cannot write {}: folder {} does not exist",
            path.display(),
            parent.display()
        )))
    }
}

/// `spec list|show|check`.
pub fn spec(ui: &mut Ui, cmd: SpecCmd) -> CmdResult {
    let p = super::project()?;
    match cmd {
        SpecCmd::List { shard } => {
            let specs = specs_of(&p)?;
            let specs = match shard {
                Some(shard) => verify::shard(&p, spec::checkable(specs), shard),
                None => specs,
            };
            if ui.json {
                ui.json(&specs);
            } else if specs.is_empty() {
                outln!(ui, "No specs under {}/", p.config.specs.dir);
            } else {
                for s in &specs {
                    if s.refused.is_some() {
                        outln!(
                            ui,
                            "{:<40} refused: a symlink leading outside the repository",
                            s.path
                        );
                        continue;
                    }
                    let count = |f: &dyn Fn(&spec::Criterion) -> bool| {
                        s.criteria.iter().filter(|c| f(c)).count()
                    };
                    let verify = count(&|c| c.annotations.iter().any(|a| a.is_verify()));
                    let judge = count(&|c| c.annotations.iter().any(|a| a.kind.is_judge()));
                    let none = count(&|c| c.annotations.is_empty());
                    outln!(
                        ui,
                        "{:<40} {:>3} verify {:>3} judge {:>3} unannotated  {}",
                        s.path,
                        verify,
                        judge,
                        none,
                        s.title
                    );
                }
            }
            Ok(0)
        }
        SpecCmd::Show { name } => {
            let s = p.select_named(specs_of(&p)?, &[name])?.remove(0);
            if ui.json {
                ui.json(&versioned(&s));
                return Ok(0);
            }
            let bead = s
                .bead
                .as_deref()
                .map(|b| format!(" ({b})"))
                .unwrap_or_default();
            outln!(ui, "{}{bead}  {}", s.title, s.path);
            for c in &s.criteria {
                let mark = if c.checked { "x" } else { " " };
                outln!(ui, "  [{mark}] {}  {}:{}", c.text, s.path, c.line);
                for a in &c.annotations {
                    let err = a
                        .error
                        .as_deref()
                        .map(|e| format!("  (invalid: {e})"))
                        .unwrap_or_default();
                    outln!(
                        ui,
                        "        {} {}  {}:{}{err}",
                        a.kind,
                        a.target(),
                        s.path,
                        a.line
                    );
                }
            }
            Ok(0)
        }
        SpecCmd::Check { fix } => spec_check(ui, &p, fix),
    }
}

/// `spec check [--fix]`.
fn spec_check(ui: &mut Ui, p: &Project, fix: bool) -> CmdResult {
    let mut specs = spec::checkable(specs_of(p)?);
    if fix {
        for s in specs.iter_mut().filter(|s| s.refused.is_none()) {
            let path = p.root.join(&s.path);
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            let fixed = lint::fix_links(&text, s);
            if fixed != text {
                let diff = similar::TextDiff::from_lines(&text, &fixed);
                out!(ui, "{}", diff.unified_diff().header(&s.path, &s.path));
                std::fs::write(&path, &fixed).map_err(|e| Error::io(&path, e))?;
                *s = spec::parse(&fixed, &s.path);
            }
        }
    }
    let mut findings = lint::check(&p.root, &specs);
    if let Some(ws) = &p.ws {
        let ids = ws.bead_ids().unwrap_or_default();
        findings.extend(lint::missing_beads(&p.root, &specs, |id| {
            ids.iter().any(|b| b == id)
        }));
    }
    let errors = findings
        .iter()
        .filter(|f| f.level == lint::Level::Error)
        .count();
    if ui.json {
        ui.json(&findings);
    } else {
        for f in &findings {
            // Never a snippet from behind a symlink leading outside the repository.
            let text = vermas_core::sys::contain::resolve(&p.root, &p.root.join(&f.file))
                .ok()
                .and_then(|real| std::fs::read_to_string(real).ok())
                .unwrap_or_default();
            let mut pe = ParseError::at(&f.file, &text, f.line, f.column, &f.message);
            pe.help = f.help.clone();
            let kind = if f.level == lint::Level::Error {
                "error"
            } else {
                "warning"
            };
            diagnostic(kind, &Error::from(pe));
        }
        let warnings = findings.len() - errors;
        use vermas_core::text::words::plural;
        outln!(
            ui,
            "{} checked: {}, {}",
            plural(specs.len(), "spec"),
            plural(errors, "error"),
            plural(warnings, "warning")
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}
