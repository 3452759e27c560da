//! `vermas ralph spec|status|annotations`, and vermas run through a symlink named `ralph`:
//! wrapix's ralph commands with ralph's flags and output, over vermas's own specs, checks
//! and judge (the domain is [`crate::ralph`]; this file parses and renders).

pub(super) mod args;

use super::CmdResult;
use super::ralph::args::{RalphCmd, RalphSpecArgs, RalphStatusArgs};
use super::ui::{Ui, out, outln};
use std::ffi::OsString;
use vermas_core::check::Outcome as CheckOutcome;
use vermas_core::error::Error;
use vermas_core::ralph::annotations;
use vermas_core::ralph::progress::{self, Progress, Source};
use vermas_core::ralph::run::{self, Item, Listing, Mode, Report};
use vermas_core::ralph::state::{RalphDir, Workflow};
use vermas_core::ralph::{index, table_molecule};
use vermas_core::spec::{self, Spec};
use vermas_core::time::{Timestamp, short_age};
use vermas_core::verify::live::AnnotationRun;
use vermas_core::verify::{self, Project};
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The process arguments, with `ralph ARGS` (vermas run through a symlink or copy named
/// `ralph`) read as `vermas ralph ARGS`.
pub fn command_line() -> Vec<OsString> {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let invoked_as_ralph = args
        .first()
        .and_then(|a| Path::new(a).file_stem())
        .is_some_and(|name| name == "ralph");
    if invoked_as_ralph {
        args[0] = "vermas".into();
        args.insert(1, "ralph".into());
    }
    args
}

/// `ralph ...`.
pub fn ralph(ui: &mut Ui, cmd: RalphCmd) -> CmdResult {
    if ui.json {
        return Err(Error::usage(
            "ralph's commands print text only: for JSON use `vermas spec list --json` or `vermas status --verify --json`",
        ));
    }
    match cmd {
        RalphCmd::Spec(a) => spec_cmd(ui, a),
        RalphCmd::Status(a) => status_cmd(ui, a),
        RalphCmd::Annotations { file } => annotations_cmd(ui, &file),
        RalphCmd::Other(args) => {
            let name = args
                .first()
                .map_or_else(String::new, |a| a.to_string_lossy().into_owned());
            Err(Error::invalid_with_help(
                format!(
                    "vermas provides `ralph spec` and `ralph status` only (and `ralph annotations` for ralph's scripts); `ralph {name}` is not one of them"
                ),
                format!("run wrapix's own ralph for `ralph {name}`"),
            ))
        }
    }
}

/// ralph's folder in the project (`RALPH_DIR`, else `.wrapix/ralph`).
fn ralph_dir(p: &Project) -> RalphDir {
    let dir = std::env::var_os("RALPH_DIR").map(PathBuf::from);
    RalphDir::new(&p.root, dir.as_deref())
}

/// `ralph spec`.
fn spec_cmd(ui: &mut Ui, a: RalphSpecArgs) -> CmdResult {
    let p = super::project()?;
    let mut specs = super::specs::specs_of(&p)?;
    let single = a.spec.is_some();
    if let Some(name) = &a.spec {
        specs = spec::select(specs, std::slice::from_ref(name))?;
    }
    if specs.is_empty() {
        outln!(ui, "No spec files found in {}/", p.config.specs.dir);
        return Ok(0);
    }
    match Mode::from_flags(a.verify || a.all, a.judge || a.all) {
        None => {
            out!(ui, "{}", render_index(&index::index(&specs), a.verbose));
            Ok(0)
        }
        Some(mode) => {
            let ralph = ralph_dir(&p);
            let report = run_specs(
                &p,
                &specs,
                mode,
                single,
                Listing::Spec,
                !a.no_cache,
                |name| table_molecule(&p.root, &ralph, name),
            )?;
            out!(ui, "{}", render_report(&report, a.verbose));
            Ok(report.exit_code())
        }
    }
}

/// Runs the checks of `specs` for `mode` and regroups them in ralph's terms.
fn run_specs(
    p: &Project,
    specs: &[Spec],
    mode: Mode,
    single: bool,
    listing: Listing,
    use_cache: bool,
    molecule: impl Fn(&str) -> Option<String>,
) -> Result<Report, Error> {
    let request = verify::Request {
        use_cache,
        ..verify::Request::new(verify::Selection::Given(specs.to_vec()), mode.kinds())
    };
    let done = verify::run(p, request, &mut super::specs::Terminal::new(false))?;
    Ok(run::group(&done.runs, mode, single, listing, |r| {
        molecule(&r.name)
    }))
}

/// `ralph annotations FILE`: exit 1 with no output when the file has no success
/// criteria, as ralph's `parse_spec_annotations` returns.
fn annotations_cmd(ui: &mut Ui, file: &Path) -> CmdResult {
    let p = super::project()?;
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let path = cwd.join(file);
    if !path.is_file() {
        return Err(Error::Missing {
            message: format!("spec file not found: {}", file.display()),
            help: "give the path of a spec's markdown file, such as specs/notify.md".into(),
        });
    }
    let real = path.canonicalize().map_err(|e| Error::io(&path, e))?;
    let root = p.root.canonicalize().unwrap_or_else(|_| p.root.clone());
    let spec = spec::load(&root, &real)?;
    let lines = annotations::lines(&spec);
    if lines.is_empty() {
        if let Some(problem) = spec.problems.iter().find(|pr| pr.error) {
            return Err(Error::Invalid(format!(
                "{}:{}:{}: {}",
                file.display(),
                problem.line,
                problem.column,
                problem.message
            )));
        }
        eprintln!("vermas: no success criteria in {}", file.display());
        return Ok(1);
    }
    for line in &lines {
        outln!(ui, "{line}");
    }
    Ok(0)
}

/// `ralph status`: the workflow's progress (this repository's beads when there is no
/// workflow), then with --verify/--judge its checks (the current spec, else every spec);
/// with --watch the view again whenever the records change.
fn status_cmd(ui: &mut Ui, a: RalphStatusArgs) -> CmdResult {
    let p = super::project()?;
    let ralph = ralph_dir(&p);
    let mode = Mode::from_flags(a.verify, a.judge);
    if a.watch {
        if mode.is_some() {
            return Err(Error::usage(
                "`ralph status --watch` redraws the progress only and does not run checks",
            )
            .with_help("drop --watch to run --verify or --judge once"));
        }
        let mut folders = vec![ralph.path().to_path_buf()];
        if let Some(ws) = &p.ws {
            folders.push(ws.issues_dir());
            folders.push(ws.path(vermas_core::workspace::layout::MOLS));
        }
        return super::redraw::on_change(ui, "ralph status", &folders, || {
            status_view(&p, &ralph, a.spec.as_deref()).map(|(view, _)| view)
        });
    }
    let (view, workflow) = status_view(&p, &ralph, a.spec.as_deref())?;
    // The checks' report follows after one blank line.
    let gap = if mode.is_some() { "\n\n" } else { "\n" };
    out!(ui, "{}{gap}", view.trim_end());
    let Some(mode) = mode else {
        return Ok(0);
    };
    let (specs, single) = match &workflow {
        Some(w) => (vec![workflow_spec(&p, w, a.spec.is_some())?], true),
        None => (super::specs::specs_of(&p)?, false),
    };
    let report = run_specs(
        &p,
        &specs,
        mode,
        single,
        Listing::Status,
        !a.no_cache,
        |name| match &workflow {
            Some(w) if w.molecule.is_some() => w.molecule.clone(),
            _ => table_molecule(&p.root, &ralph, name),
        },
    )?;
    out!(ui, "{}", render_report(&report, a.verbose));
    Ok(report.exit_code())
}

/// The status view: the workflow `spec` names, else ralph's current one, else this
/// repository's beads; with the workflow shown.
fn status_view(
    p: &Project,
    ralph: &RalphDir,
    spec: Option<&str>,
) -> Result<(String, Option<Workflow>), Error> {
    let label = spec.map(str::to_string).or_else(|| ralph.current_label());
    let workflow = label.as_deref().map(|l| ralph.workflow(l));
    let view = match &workflow {
        Some(w) => render_workflow(p, ralph, w)?,
        None => render_repository(p, ralph)?,
    };
    Ok((view, workflow))
}

/// The status of a repository without a ralph workflow: its beads ready, in progress and
/// awaiting input.
fn render_repository(p: &Project, ralph: &RalphDir) -> Result<String, Error> {
    let mut o = String::new();
    let _ = writeln!(o, "Ralph Status: this repository");
    let _ = writeln!(o, "===============================");
    let why = if ralph.exists() {
        "ralph has no current workflow"
    } else {
        "no ralph workflow here"
    };
    let _ = writeln!(o, "Label: (not set): {why}, showing every bead\n");
    let Some(ws) = p.ws.as_ref() else {
        let _ = writeln!(
            o,
            "Progress:\n  (no .beads here: run `vermas init` to keep records of the work)"
        );
        return Ok(o);
    };
    let ov = progress::overview(ws)?;
    let c = ov.counts;
    let _ = writeln!(o, "Beads:");
    let _ = writeln!(o, "  Open:        {}", c.open);
    let _ = writeln!(o, "  In Progress: {}", c.in_progress);
    let _ = writeln!(o, "  Closed:      {}", c.closed);
    let _ = writeln!(o, "  Ready:       {}", c.ready);
    let _ = writeln!(o, "  Awaiting:    {}", ov.waiting.len());
    o.push('\n');
    for (heading, list) in [("In Progress", &ov.in_progress), ("Ready", &ov.ready)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(o, "{heading} ({}):", list.len());
        for step in list.iter().take(LISTED) {
            let _ = writeln!(o, "  [{}] {}  {}", step.marker, step.id, step.title);
        }
        if list.len() > LISTED {
            let _ = writeln!(o, "  ... and {} more", list.len() - LISTED);
        }
        o.push('\n');
    }
    render_waiting(&mut o, &ov.waiting);
    Ok(o)
}

/// How many beads a list of the repository's status shows.
const LISTED: usize = 20;

/// The spec of workflow `w`: a spec of that name when `--spec` named it, else the file
/// its state names (hidden specs included), named after the workflow.
fn workflow_spec(p: &Project, w: &Workflow, named: bool) -> Result<Spec, Error> {
    if named {
        let specs = super::specs::specs_of(p)?;
        return Ok(spec::select(specs, std::slice::from_ref(&w.label))?.remove(0));
    }
    let path = p.root.join(&w.spec_path);
    if !path.is_file() {
        return Err(Error::invalid_with_help(
            format!(
                "the current workflow '{}' has no spec file: {} does not exist",
                w.label, w.spec_path
            ),
            "name a spec with --spec NAME, or switch ralph's current workflow",
        ));
    }
    let mut s = spec::load(&p.root, &path)?;
    s.name = w.label.clone();
    Ok(s)
}

/// The status of workflow `w`: label, molecule, spec, progress and waiting beads.
fn render_workflow(p: &Project, ralph: &RalphDir, w: &Workflow) -> Result<String, Error> {
    let mut o = String::new();
    let _ = writeln!(o, "Ralph Status: {}", w.label);
    let _ = writeln!(o, "===============================");
    let molecule = w
        .molecule
        .clone()
        .or_else(|| table_molecule(&p.root, ralph, &w.label));
    let _ = writeln!(
        o,
        "Molecule: {}",
        molecule.as_deref().unwrap_or("(not set)")
    );
    let hidden = if w.hidden { " (hidden)" } else { "" };
    let _ = writeln!(o, "Spec: {}{hidden}\n", w.spec_path);
    let Some(ws) = p.ws.as_ref() else {
        let _ = writeln!(
            o,
            "Progress:\n  (no .beads here: vermas holds no records of this work)"
        );
        return Ok(o);
    };
    let with_molecule = Workflow {
        molecule,
        ..w.clone()
    };
    let pr = progress::progress(ws, &with_molecule)?;
    render_progress(&mut o, &pr);
    Ok(o)
}

/// The progress part of a workflow's status.
fn render_progress(o: &mut String, pr: &Progress) {
    match &pr.source {
        Source::Label(label) => {
            let _ = writeln!(o, "Beads Progress ({label}):");
            if pr.molecule_missing {
                let _ = writeln!(
                    o,
                    "  (molecule not found in .beads - using label-based counting)\n"
                );
            } else {
                let _ = writeln!(o, "  (No molecule set - using label-based counting)\n");
            }
            let c = pr.counts.unwrap_or_default();
            let _ = writeln!(o, "  Open:        {}", c.open);
            let _ = writeln!(o, "  In Progress: {}", c.in_progress);
            let _ = writeln!(o, "  Closed:      {}", c.closed);
            let _ = writeln!(o, "  Ready:       {}", c.ready);
            let _ = writeln!(o, "  Total:       {}", c.total());
            if c.total() > 0 {
                let _ = writeln!(o, "  Progress:    {}% complete", c.closed * 100 / c.total());
            }
        }
        Source::Molecule(_) | Source::Epic(_) => {
            let _ = writeln!(o, "Progress:\n  {}", progress_bar(pr.done, pr.total));
        }
    }
    o.push('\n');
    if !pr.position.is_empty() {
        let _ = writeln!(o, "Current Position:");
        for step in &pr.position {
            let _ = writeln!(o, "  [{}] {}  {}", step.marker, step.id, step.title);
        }
        o.push('\n');
    }
    render_waiting(o, &pr.waiting);
}

/// The beads awaiting input, each with its question and its age.
fn render_waiting(o: &mut String, waiting: &[progress::Waiting]) {
    if !waiting.is_empty() {
        let _ = writeln!(o, "Awaiting Input ({}):", waiting.len());
        let now = Timestamp::now();
        for w in waiting {
            let _ = writeln!(o, "  [awaiting] {:<14} {}", w.id, w.title);
            let age = w
                .since
                .map(|t| format!("{} ago", short_age(t.seconds_until(now))));
            match (&w.question, age) {
                (Some(q), Some(age)) => {
                    let _ = writeln!(o, "               \"{q}\" ({age})");
                }
                (Some(q), None) => {
                    let _ = writeln!(o, "               \"{q}\"");
                }
                (None, Some(age)) => {
                    let _ = writeln!(o, "               ({age})");
                }
                (None, None) => {}
            }
        }
        o.push('\n');
    }
}

/// `[####------] 40% (4/10)`.
fn progress_bar(done: usize, total: usize) -> String {
    const WIDTH: usize = 10;
    if total == 0 {
        return format!("[{}] 0% (0/0)", "-".repeat(WIDTH));
    }
    let filled = (done * WIDTH / total).min(WIDTH);
    format!(
        "[{}{}] {}% ({done}/{total})",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        done * 100 / total
    )
}

/// The annotation index: one line per spec, each criterion with `verbose`, then totals.
fn render_index(i: &index::Index, verbose: bool) -> String {
    let mut o = String::from("Ralph Specs\n============================\n");
    for row in &i.rows {
        let _ = writeln!(
            o,
            "  {:<24} {} verify, {} judge, {} unannotated",
            row.file, row.verify, row.judge, row.unannotated
        );
        if !verbose {
            continue;
        }
        for c in &row.criteria {
            let kind = c.kind.to_string();
            match c.reference() {
                Some(r) => {
                    let _ = writeln!(o, "    [{kind:<6}] {} → {r}", c.criterion);
                }
                None => {
                    let _ = writeln!(o, "    [{kind:<6}] {}", c.criterion);
                }
            }
        }
    }
    let _ = writeln!(
        o,
        "\nTotal: {} verify, {} judge, {} unannotated",
        i.verify, i.judge, i.unannotated
    );
    o
}

/// Lines of check output shown under a failure without `--verbose` (ralph's tail).
const FAILURE_TAIL: usize = 5;

/// Where detail lines start under a `  [PASS] ` line.
const DETAIL: &str = "         ";

/// A run report: a header and lines per spec, then the tally.
fn render_report(r: &Report, verbose: bool) -> String {
    let mut o = String::new();
    for g in &r.groups {
        let header = g.header(r.mode);
        let _ = writeln!(o, "{header}\n{}", "=".repeat(header.chars().count()));
        for item in &g.items {
            render_item(&mut o, item, r.listing, verbose);
        }
        o.push('\n');
    }
    let _ = writeln!(o, "{}", r.summary());
    o
}

/// One criterion (or spec problem) with its detail lines.
fn render_item(o: &mut String, item: &Item, listing: Listing, verbose: bool) {
    match item {
        Item::Unannotated { text } if listing == Listing::Status => {
            let _ = writeln!(o, "  [SKIP] {text} (no check defined)");
        }
        Item::Unannotated { text } => {
            let _ = writeln!(o, "  [SKIP] {text} (no annotation)");
        }
        Item::OtherKind { text, only } => {
            let _ = writeln!(o, "  [SKIP] {text} ({only})");
        }
        Item::Problem(problem) => {
            let _ = writeln!(o, "  [FAIL] {problem}");
        }
        Item::Checked {
            text,
            verdict,
            checks,
            ..
        } => {
            let _ = writeln!(o, "  [{}] {text}", verdict.word());
            for check in checks {
                if check.kind.is_judge() {
                    render_judge(o, check);
                } else {
                    render_verify(o, check, verbose);
                }
            }
        }
    }
}

/// The detail of a verify check: its test and exit, and its output (the tail of a
/// failure's, or all of it with `verbose`).
fn render_verify(o: &mut String, check: &AnnotationRun, verbose: bool) {
    let res = &check.result;
    let test = ralph_reference(&check.target);
    let why = res.reason.as_deref().unwrap_or("");
    let detail = match (res.outcome, res.exit_code) {
        (CheckOutcome::Pass, _) => format!("{test} (exit 0)"),
        (CheckOutcome::Skip, Some(77)) => format!("{test} (exit 77 — skipped)"),
        (CheckOutcome::Skip, Some(78)) => format!("{test} (exit 78 — not implemented)"),
        (CheckOutcome::Skip, Some(code)) => format!("{test} (exit {code} — skipped)"),
        (CheckOutcome::Skip, None) => format!("{test} (skipped: {why})"),
        (CheckOutcome::Fail, Some(code)) => format!("{test} (exit {code})"),
        (CheckOutcome::Error, _) => format!("{test} (could not run: {why})"),
        (outcome, _) => format!("{test} ({}: {why})", outcome.to_string().to_lowercase()),
    };
    let _ = writeln!(o, "{DETAIL}{detail}");
    let failed = matches!(res.outcome, CheckOutcome::Fail | CheckOutcome::Error);
    let lines: Vec<&str> = res.output.lines().collect();
    let shown = if verbose {
        &lines[..]
    } else if failed {
        &lines[lines.len().saturating_sub(FAILURE_TAIL)..]
    } else {
        &[][..]
    };
    for line in shown {
        let _ = writeln!(o, "{DETAIL}| {line}");
    }
}

/// The detail of a judge check: the judge's reasoning in quotes, or why it could not
/// decide.
fn render_judge(o: &mut String, check: &AnnotationRun) {
    let res = &check.result;
    let why = res.reason.as_deref().unwrap_or("").trim();
    let text = match res.outcome {
        CheckOutcome::Pass | CheckOutcome::Fail if why.is_empty() => return,
        CheckOutcome::Pass | CheckOutcome::Fail => format!("\"{why}\""),
        CheckOutcome::Error => format!("could not run: {why}"),
        CheckOutcome::Skip => format!("skipped: {why}"),
        CheckOutcome::Unstable => format!("unstable: {why}"),
    };
    for (i, line) in text.lines().enumerate() {
        let indent = if i == 0 { DETAIL } else { "          " };
        let _ = writeln!(o, "{indent}{line}");
    }
}

/// ralph's name for a test: `file::function` (vermas's targets are `file#function`).
fn ralph_reference(target: &str) -> String {
    match target.split_once('#') {
        Some((file, function)) => annotations::reference(file, function),
        None => target.to_string(),
    }
}
