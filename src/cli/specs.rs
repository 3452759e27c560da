//! Handlers of `status` and `spec`: select specs, run checks, render reports.

use super::output::{diagnostic, out, outln, print_json, recorded_note, versioned};
use super::specs_args::{ReportFormat, SpecCmd, StatusArgs};
use super::{CmdResult, Ctx};
use crate::check;
use crate::error::{Error, ParseError};
use crate::live::{self, Kinds, RunSettings, SpecRun};
use crate::spec::{self, Spec, lint};
use crate::summary;
use crate::verification::Project;

/// Every spec of `p`, with a warning on stderr for each one refused.
pub(super) fn specs_of(p: &Project) -> Result<Vec<Spec>, Error> {
    let specs = p.specs()?;
    for why in specs.iter().filter_map(|s| s.refused.as_deref()) {
        diagnostic("warning", &Error::Invalid(why.to_string()));
    }
    Ok(specs)
}

/// A warning on stderr for each problem of `specs` that is not an error (a `[verify]` or
/// `[judge]` link that belongs to no criterion, so never runs).
fn warn_stray_links(specs: &[Spec]) {
    for s in specs {
        for p in s.problems.iter().filter(|p| !p.error) {
            let at = format!("{}:{}:{}: {}", s.path, p.line, p.column, p.message);
            diagnostic("warning", &Error::Invalid(at));
        }
    }
}

/// The criteria of `specs` in `shard`, balanced by the durations recorded in the
/// workspace's spec results (`status --verify --record`), when there are any.
fn sharded(p: &Project, specs: Vec<Spec>, shard: spec::shard::Shard) -> Vec<Spec> {
    let mut took: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    if let Some(ws) = &p.ws {
        for record in crate::results::load_all(ws)
            .into_iter()
            .filter(|r| r.key.starts_with("spec:"))
        {
            for check in record.checks {
                *took.entry(check.criterion).or_default() += check.duration_ms;
            }
        }
    }
    spec::shard::select(specs, shard, |key| took.get(key).copied())
}

/// Runs the checks of `specs`, showing the running ones on a terminal stderr unless
/// `quiet`.
pub(super) fn run_checks(
    p: &Project,
    specs: &[Spec],
    settings: &RunSettings,
    quiet: bool,
) -> Vec<live::SpecRun> {
    let board = super::progress::Board::new("checks", !quiet);
    p.run(specs, settings, |progress, label| match progress {
        check::Progress::Started { index, total } => {
            board.started(index.to_string(), label, Some(total))
        }
        check::Progress::Finished { index, done, total } => {
            board.finished(&index.to_string(), done, Some(total))
        }
    })
}

/// `status`.
pub fn status(ctx: &Ctx, a: StatusArgs) -> CmdResult {
    let p = super::project()?;
    let mut selected = spec::checkable(spec::select(specs_of(&p)?, &a.specs)?);
    warn_stray_links(&selected);
    if let Some(shard) = a.shard {
        if !a.verify && !a.judge {
            return Err(Error::usage("--shard goes with --verify or --judge"));
        }
        selected = sharded(&p, selected, shard);
    }
    if a.baseline.is_some() && !a.verify {
        return Err(Error::usage("--baseline goes with --verify"));
    }
    if a.tmux && a.watch.is_none() {
        return Err(Error::usage("--tmux goes with --watch"));
    }
    if a.format.is_some() && (ctx.json || a.tap) {
        return Err(Error::usage(
            "--format is for the human report: it does not go with --json or --tap",
        ));
    }
    if let Some(secs) = a.feed {
        return super::watch::feed(&p, secs.max(1), a.owner);
    }
    if let Some(secs) = a.watch {
        return super::watch::run(&a, secs.max(1));
    }
    if !a.verify && !a.judge {
        return summary_only(ctx, &a, &p, &selected);
    }
    if let Some(path) = &a.junit {
        check_writable_parent(path)?;
    }
    // A result that could not be recorded is refused before anything runs.
    let actor = match p.ws.as_ref().filter(|_| a.record) {
        Some(ws) => Some(ctx.actor(ws)?),
        None => None,
    };
    let kinds = Kinds {
        verify: a.verify,
        judge: a.judge,
    };
    let settings = p.settings(kinds, a.jobs, !a.no_cache);
    let baseline_rev = a
        .baseline
        .as_deref()
        .map(|rev| crate::baseline::resolve(&p.root, rev))
        .transpose()?;
    let mut runs = run_checks(&p, &selected, &settings, ctx.json);
    if let Some(rev) = &baseline_rev {
        let verify_only = RunSettings {
            kinds: Kinds {
                verify: true,
                judge: false,
            },
            ..settings
        };
        let before = crate::baseline::run_at(&p.root, rev, &selected, &verify_only)?;
        crate::baseline::flag(&mut runs, &before);
    }
    report(ctx, &a, &runs, kinds)?;
    if a.record {
        let actor = actor.unwrap_or_default();
        let recorded = p.record(&runs, &actor)?;
        recorded_note(&recorded);
    }
    let total = runs
        .iter()
        .fold(live::Counts::default(), |t, r| t.plus(r.counts));
    if total.nothing_verified() {
        let specs = crate::words::plural(runs.len(), "spec");
        eprintln!(
            "vermas: nothing was verified: {specs} selected, no criterion with a {} check that ran",
            kinds.heading().to_lowercase().replace(" + ", " or ")
        );
        return Ok(total.exit_code().max(3));
    }
    Ok(total.exit_code())
}

/// Plain `status`: counts and recorded results from the files alone, no checks run.
fn summary_only(ctx: &Ctx, a: &StatusArgs, p: &Project, selected: &[Spec]) -> CmdResult {
    if a.record || a.tap || a.junit.is_some() {
        return Err(Error::usage(
            "--record, --tap and --junit go with --verify or --judge",
        ));
    }
    let s = summary::summarise(p.ws.as_ref(), selected)?;
    if ctx.json {
        print_json(&versioned(&s));
    } else {
        if let Some(ledger) =
            p.ws.as_ref()
                .and_then(crate::workspace::Workspace::shared_ledger)
        {
            outln!("Ledger: {} (the main worktree's)", ledger.display());
        }
        out!("{}", super::render::summary(&s, p.ws.is_some()));
    }
    Ok(0)
}

/// Writes the JUnit file if asked for, and prints the report: JSON, TAP or for people.
fn report(ctx: &Ctx, a: &StatusArgs, runs: &[SpecRun], kinds: Kinds) -> Result<(), Error> {
    if let Some(path) = &a.junit {
        std::fs::write(path, crate::report::junit(runs)).map_err(|e| Error::io(path, e))?;
    }
    if ctx.json {
        print_json(&crate::report::json(runs));
    } else if a.tap {
        out!("{}", crate::report::tap(runs));
    } else {
        if annotate(a) {
            out!("{}", crate::report::github::annotations(runs));
        }
        out!(
            "{}",
            crate::report::human(runs, kinds, super::output::colour())
        );
    }
    Ok(())
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
pub fn spec(ctx: &Ctx, cmd: SpecCmd) -> CmdResult {
    let p = super::project()?;
    match cmd {
        SpecCmd::List { shard } => {
            let specs = specs_of(&p)?;
            let specs = match shard {
                Some(shard) => sharded(&p, spec::checkable(specs), shard),
                None => specs,
            };
            if ctx.json {
                print_json(&specs);
            } else if specs.is_empty() {
                outln!("No specs under {}/", p.config.specs.dir);
            } else {
                for s in &specs {
                    if s.refused.is_some() {
                        outln!(
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
            let s = spec::select(specs_of(&p)?, &[name])?.remove(0);
            if ctx.json {
                print_json(&versioned(&s));
                return Ok(0);
            }
            let bead = s
                .bead
                .as_deref()
                .map(|b| format!(" ({b})"))
                .unwrap_or_default();
            outln!("{}{bead}  {}", s.title, s.path);
            for c in &s.criteria {
                let mark = if c.checked { "x" } else { " " };
                outln!("  [{mark}] {}  {}:{}", c.text, s.path, c.line);
                for a in &c.annotations {
                    let err = a
                        .error
                        .as_deref()
                        .map(|e| format!("  (invalid: {e})"))
                        .unwrap_or_default();
                    outln!(
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
        SpecCmd::Check { fix } => spec_check(ctx, &p, fix),
    }
}

/// `spec check [--fix]`.
fn spec_check(ctx: &Ctx, p: &Project, fix: bool) -> CmdResult {
    let mut specs = spec::checkable(specs_of(p)?);
    if fix {
        for s in specs.iter_mut().filter(|s| s.refused.is_none()) {
            let path = p.root.join(&s.path);
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            let fixed = lint::fix_links(&text, s);
            if fixed != text {
                let diff = similar::TextDiff::from_lines(&text, &fixed);
                out!("{}", diff.unified_diff().header(&s.path, &s.path));
                std::fs::write(&path, &fixed).map_err(|e| Error::io(&path, e))?;
                *s = spec::parse(&fixed, &s.path);
            }
        }
    }
    let findings = lint::check(&p.root, &specs);
    let errors = findings
        .iter()
        .filter(|f| f.level == lint::Level::Error)
        .count();
    if ctx.json {
        print_json(&findings);
    } else {
        for f in &findings {
            // Never a snippet from behind a symlink leading outside the repository.
            let text = crate::contain::resolve(&p.root, &p.root.join(&f.file))
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
        use crate::words::plural;
        outln!(
            "{} checked: {}, {}",
            plural(specs.len(), "spec"),
            plural(errors, "error"),
            plural(warnings, "warning")
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}
