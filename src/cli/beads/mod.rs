//! Handlers of the bead commands: turn arguments into library calls and render answers.

pub(super) mod args;
pub(super) mod bd;
pub(super) mod delete;

use super::beads::args::{CreateArgs, DepCmd, ListArgs, ReadyArgs, UpdateArgs};
use super::output::{diagnostic, recorded_note, short_commit, versioned};
use super::ui::{Ui, out, outln};
use super::{CmdResult, Ctx, render};
use serde_json::json;
use std::io::Read;
use vermas_core::bead::catalog::{
    Catalog, IndexedBead, JsonCache, json_cache_helps, reading_json_cache,
};
use vermas_core::bead::fields::{BeadFields, first_in_order};
use vermas_core::bead::ops::{self, Changed, Changes, NewBead};
use vermas_core::bead::query::Filter;
use vermas_core::bead::store::load_one;
use vermas_core::bead::{Bead, BeadSet, DepType, IssueType, graph};
use vermas_core::error::{Error, Result};

/// `create` and `q`.
pub fn create(ctx: &Ctx, ui: &mut Ui, a: CreateArgs, quiet: bool) -> CmdResult {
    let ws = ctx.workspace()?;
    let description = match (&a.description, &a.body_file) {
        (Some(d), _) => d.clone(),
        (None, Some(f)) if f == "-" => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Error::io("<stdin>", e))?;
            s
        }
        (None, Some(f)) => std::fs::read_to_string(f).map_err(|e| Error::io(f, e))?,
        (None, None) => String::new(),
    };
    let mut deps = Vec::new();
    for spec in a
        .deps
        .iter()
        .flat_map(|d| d.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match spec.split_once(':') {
            Some((t, id)) => deps.push((t.parse::<DepType>()?, id.to_string())),
            None => deps.push((DepType::Blocks, spec.to_string())),
        }
    }
    let new = NewBead {
        title: a.title,
        issue_type: a.issue_type,
        priority: a.priority,
        description,
        labels: split_labels(&a.labels),
        parent: a.parent,
        deps,
        spec: a.spec,
        assignee: a.assignee,
        no_spec: a.no_spec,
    };
    let changed = vermas_core::inspect::testspec::create(&ws, &ctx.actor(&ws)?, new)?;
    let bead = &changed.beads[0];
    let test_spec = changed
        .beads
        .iter()
        .find(|b| b.issue_type == IssueType::TestSpec);
    recorded_note(&changed.recorded);
    if ui.json {
        let mut v = versioned(bead);
        if let Some(spec) = test_spec {
            v["test_spec"] = json!(spec.id);
        }
        ui.json(&v);
    } else if quiet {
        outln!(ui, "{}", bead.id);
        if let Some(spec) =
            test_spec.filter(|_| std::io::IsTerminal::is_terminal(&std::io::stderr()))
        {
            eprintln!(
                "note: {} waits for its test spec {} (`vermas inspect pending`); --no-spec \
                 makes work that needs none",
                bead.id, spec.id
            );
        }
    } else {
        outln!(ui, "Created {}: {}", bead.id, bead.title);
        if let Some(spec) = test_spec {
            outln!(
                ui,
                "  with its test spec {} (inspector/ was mailed): the work waits until the \
                 spec has criteria and is approved (`vermas inspect pending`); work that needs \
                 no test spec: `--no-spec`, or a type without one (`-t chore`, `-t epic`)",
                spec.id
            );
        }
    }
    Ok(0)
}

pub(super) fn split_labels(labels: &[String]) -> Vec<String> {
    labels
        .iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Loads all beads and warns about files that did not parse.
pub(super) fn load_set(ctx: &Ctx, ws: &vermas_core::workspace::Workspace) -> Result<BeadSet> {
    let set = BeadSet::load(ws)?;
    warn_broken(ctx, &set.broken);
    Ok(set)
}

/// Loads every bead as the index holds it (for a `--json` listing of at most `limit`
/// beads, 0: all, when `ctx.json`) and warns about files that did not parse.
fn load_catalog(
    ctx: &Ctx,
    ws: &vermas_core::workspace::Workspace,
    limit: usize,
) -> Result<Catalog> {
    let catalog = if ctx.json {
        Catalog::load_for_json(ws, limit)?
    } else {
        Catalog::load(ws)?
    };
    warn_broken(ctx, &catalog.broken);
    Ok(catalog)
}

/// Warns about bead files that did not parse.
fn warn_broken(ctx: &Ctx, broken: &[Error]) {
    for e in broken {
        if ctx.json {
            eprintln!("{}", json!({"warning": e.to_string(), "code": e.code()}));
        } else {
            diagnostic("warning", e);
        }
    }
}

/// `list`.
pub fn list(ctx: &Ctx, ui: &mut Ui, a: ListArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    let want_status = a.status;
    let want_type = a.issue_type;
    let filter = Filter {
        labels: a.labels,
        assignee: a.assignee,
        priority: a.priority,
        title: a.title,
        ..Filter::default()
    };
    let limit = a.limit.unwrap_or(LIST_LIMIT);
    let catalog = load_catalog(ctx, &ws, limit)?;
    let (beads, cache) = reading_json_cache(&ws, ui.json && json_cache_helps(limit), || {
        let mut beads: Vec<IndexedBead<'_>> = catalog
            .iter()
            .filter(|b| {
                want_status.map_or(a.all || !b.is_closed(), |s| b.status() == s)
                    && want_type.map_or(b.issue_type() != IssueType::TestSpec, |t| {
                        b.issue_type() == t
                    })
                    && filter.keeps(b)
            })
            .collect();
        first_in_order(&mut beads, limit);
        beads
    });
    let shown = limited(&beads, limit, ui.json);
    print_indexed(ui, &ws, &catalog, shown, "No beads found.", None, cache)
}

/// `list` shows this many unless `-n` says otherwise (`-n 0`: all), like `bd list`.
const LIST_LIMIT: usize = 50;
/// `ready` shows this many unless `-n` says otherwise (`-n 0`: all), like `bd ready`.
const READY_LIMIT: usize = 10;

/// The first `limit` ids (0: all), telling a person on stderr what was left out.
pub(super) fn limited<T>(ids: &[T], limit: usize, json: bool) -> &[T] {
    if limit == 0 || ids.len() <= limit {
        return ids;
    }
    if !json {
        eprintln!("showing {limit} of {} (-n 0 shows all)", ids.len());
    }
    &ids[..limit]
}

/// Prints the beads `shown` of `catalog` as [`print_beads`] does (only those are built;
/// a JSON listing takes what it can from `cache`, read while it was worked out).
fn print_indexed(
    ui: &mut Ui,
    ws: &vermas_core::workspace::Workspace,
    catalog: &Catalog,
    shown: &[IndexedBead<'_>],
    empty: &str,
    heading: Option<String>,
    cache: JsonCache,
) -> CmdResult {
    if ui.json {
        let listing = catalog.json_listing(ws, shown, Some(cache))?;
        ui.json_runs(&listing.runs(), listing.cache_file());
        return Ok(0);
    }
    let mut set = catalog.bead_set(shown);
    let ids: Vec<String> = shown
        .iter()
        .map(|b| b.key().to_string())
        .filter(|id| set.beads.contains_key(id))
        .collect();
    print_beads(ui, ws, &mut set, &ids, empty, heading)
}

/// Prints beads as JSON (with their full bodies) or as one line each.
pub(super) fn print_beads(
    ui: &mut Ui,
    ws: &vermas_core::workspace::Workspace,
    set: &mut BeadSet,
    ids: &[String],
    empty: &str,
    heading: Option<String>,
) -> CmdResult {
    if ui.json {
        set.complete(ws, ids.iter().map(String::as_str))?;
        let beads: Vec<&Bead> = ids.iter().map(|id| &set.beads[id]).collect();
        ui.json(&beads);
    } else if ids.is_empty() {
        outln!(ui, "{empty}");
    } else {
        let indent = if heading.is_some() { "  " } else { "" };
        if let Some(h) = heading {
            outln!(ui, "{h}");
        }
        for id in ids {
            outln!(ui, "{indent}{}", render::line(&set.beads[id]));
        }
    }
    Ok(0)
}

/// `show`.
pub fn show(ctx: &Ctx, ui: &mut Ui, ids: &[String]) -> CmdResult {
    let ws = ctx.workspace()?;
    // Each id on its own first, so a broken file reports its own diagnostic.
    let beads = ids
        .iter()
        .map(|id| load_one(&ws, id))
        .collect::<Result<Vec<_>>>()?;
    if ui.json {
        // An array for one id as for several, as bd prints it.
        ui.json(&beads);
    } else {
        let set = BeadSet::load(&ws)?;
        let views: Vec<String> = beads.iter().map(|b| render::full(b, &set)).collect();
        out!(ui, "{}", views.join("\n"));
    }
    Ok(0)
}

/// Renders the result of a change; beads it left as they were are named on stderr as
/// "nothing changed".
pub(super) fn changed(ctx: &Ctx, ui: &mut Ui, verb: &str, c: Changed) -> CmdResult {
    nothing_changed(ctx, &c);
    if !c.nothing() {
        recorded_note(&c.recorded);
    }
    if ui.json {
        match c.beads.as_slice() {
            [one] => ui.json(&versioned(one)),
            many => ui.json(&many),
        }
    } else {
        let commit = short_commit(&c.recorded)
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        for b in c.beads.iter().filter(|b| !c.unchanged.contains(&b.id)) {
            outln!(ui, "{verb} {}: {}{commit}", b.id, b.title);
        }
    }
    Ok(0)
}

/// Says on stderr which beads a command left as they were (no write, no commit).
fn nothing_changed(ctx: &Ctx, c: &Changed) {
    if c.unchanged.is_empty() {
        return;
    }
    let msg = format!(
        "nothing changed: {} already as asked",
        c.unchanged.join(", ")
    );
    super::warn(ctx.json, "unchanged", &msg);
}

/// `update`.
pub fn update(ctx: &Ctx, ui: &mut Ui, a: UpdateArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    let changes = Changes {
        status: a.status,
        title: a.title,
        priority: a.priority,
        assignee: a.assignee.map(Some),
        issue_type: a.issue_type,
        description: a.description,
        spec: a.spec,
        add_labels: split_labels(&a.add_labels),
        remove_labels: split_labels(&a.remove_labels),
        note: a.notes,
        claim: a.claim,
    };
    let c = ops::update(&ws, &ctx.actor(&ws)?, &a.ids, &changes)?;
    changed(ctx, ui, "Updated", c)
}

/// `close`.
pub fn close(
    ctx: &Ctx,
    ui: &mut Ui,
    ids: &[String],
    reason: Option<&str>,
    force: bool,
) -> CmdResult {
    let ws = ctx.workspace()?;
    let c = ops::close(&ws, &ctx.actor(&ws)?, ids, reason, force)?;
    for b in c.beads.iter().filter(|b| {
        force
            && b.notes
                .last()
                .is_some_and(|n| n.text.starts_with("GATE_BYPASS:"))
    }) {
        crate::cli::warn(
            ui.json,
            "gate_bypass",
            &format!(
                "warning: {} closed without a passing inspection: recorded as a bypass \
                 (GATE_BYPASS note, {} label)",
                b.id,
                vermas_core::bead::routing::GATE_BYPASSED
            ),
        );
    }
    changed(ctx, ui, "Closed", c)
}

/// `reopen`.
pub fn reopen(ctx: &Ctx, ui: &mut Ui, ids: &[String]) -> CmdResult {
    let ws = ctx.workspace()?;
    let c = ops::reopen(&ws, &ctx.actor(&ws)?, ids)?;
    changed(ctx, ui, "Reopened", c)
}

/// `clarify`: the question given, or the one of an agent's `RALPH_CLARIFY:` line.
pub fn clarify(
    ctx: &Ctx,
    ui: &mut Ui,
    id: &str,
    question: Option<String>,
    from_output: Option<&std::path::Path>,
) -> CmdResult {
    let ws = ctx.workspace()?;
    let question = match (question, from_output) {
        (Some(q), _) => q,
        (None, Some(file)) => clarify_question(file)?,
        (None, None) => {
            return Err(Error::usage(
                "clarify needs a question or --from-output FILE",
            ));
        }
    };
    let c = ops::clarify(&ws, &ctx.actor(&ws)?, id, &question)?;
    changed(ctx, ui, "Awaiting input", c)
}

/// The question of the first `RALPH_CLARIFY:` line of the agent output in `file` (`-`:
/// stdin).
fn clarify_question(file: &std::path::Path) -> Result<String> {
    let bytes = if file.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| Error::io(file, e))?;
        b
    } else {
        std::fs::read(file).map_err(|e| Error::io(file, e))?
    };
    let text = String::from_utf8_lossy(&bytes);
    vermas_core::ralph::clarify::question_in(&text).ok_or_else(|| {
        Error::invalid_with_help(
            format!(
                "{} has no `RALPH_CLARIFY: <question>` line",
                if file.as_os_str() == "-" {
                    "the agent output on stdin".to_string()
                } else {
                    file.display().to_string()
                }
            ),
            "give the question itself: `vermas clarify ID \"QUESTION\"`",
        )
    })
}

/// `answer`.
pub fn answer(ctx: &Ctx, ui: &mut Ui, id: &str, text: &str) -> CmdResult {
    let ws = ctx.workspace()?;
    let c = ops::answer(&ws, &ctx.actor(&ws)?, id, text)?;
    changed(ctx, ui, "Answered", c)
}

/// `dep add|rm|tree|cycles`.
pub fn dep(ctx: &Ctx, ui: &mut Ui, cmd: DepCmd) -> CmdResult {
    let ws = ctx.workspace()?;
    match cmd {
        DepCmd::Add {
            id,
            depends_on,
            dep_type,
            gate,
        } => {
            let t = dep_type.unwrap_or(if gate.is_some() {
                DepType::WaitsFor
            } else {
                DepType::Blocks
            });
            let c = ops::dep_add(&ws, &ctx.actor(&ws)?, &id, &depends_on, t, gate)?;
            if !ui.json {
                if c.nothing() {
                    nothing_changed(ctx, &c);
                    return Ok(0);
                }
                let b = &c.beads[0];
                let target = b
                    .dependencies
                    .last()
                    .map_or("", |d| d.depends_on_id.as_str());
                let how = match gate {
                    Some(g) => format!("{t}, {g}"),
                    None => t.to_string(),
                };
                outln!(ui, "{} now depends on {target} ({how})", b.id);
                recorded_note(&c.recorded);
                return Ok(0);
            }
            changed(ctx, ui, "Updated", c)
        }
        DepCmd::Rm {
            id,
            depends_on,
            dep_type: t,
        } => {
            let c = ops::dep_rm(&ws, &ctx.actor(&ws)?, &id, &depends_on, t)?;
            changed(ctx, ui, "Updated", c)
        }
        DepCmd::Tree { id } => {
            let set = load_set(ctx, &ws)?;
            let root = set.resolve(&id)?.id.clone();
            let tree = graph::tree(&set, &root);
            if ui.json {
                ui.json(&versioned(&tree));
            } else {
                out!(ui, "{}", render::tree(&tree));
            }
            Ok(0)
        }
        DepCmd::Cycles => {
            let set = load_set(ctx, &ws)?;
            let cycles = graph::cycles(&set);
            if ui.json {
                ui.json(&cycles);
            } else if cycles.is_empty() {
                outln!(ui, "No dependency cycles.");
            } else {
                for c in &cycles {
                    outln!(ui, "cycle: {}", c.join(" -> "));
                }
            }
            Ok(if cycles.is_empty() { 0 } else { 1 })
        }
    }
}

/// `ready`.
pub fn ready(ctx: &Ctx, ui: &mut Ui, a: ReadyArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    let want = a.issue_type;
    let filter = Filter {
        labels: split_labels(&a.labels),
        assignee: a.assignee,
        unassigned: a.unassigned,
        priority: a.priority,
        ..Filter::default()
    };
    let limit = a.limit.unwrap_or(READY_LIMIT);
    let catalog = load_catalog(ctx, &ws, limit)?;
    let (ready, cache) = reading_json_cache(&ws, ui.json && json_cache_helps(limit), || {
        let mut ready: Vec<IndexedBead<'_>> = catalog
            .ready(want)
            .into_iter()
            .filter(|b| filter.keeps(b))
            .collect();
        first_in_order(&mut ready, limit);
        ready
    });
    let shown = limited(&ready, limit, ui.json);
    let heading = format!("Ready work ({}):", ready.len());
    // Said only when nothing is ready.
    let waiting = if shown.is_empty() {
        catalog.awaiting_test_spec()
    } else {
        0
    };
    let empty = if waiting == 0 {
        "No ready work.".to_string()
    } else {
        format!(
            "No ready work: {} for {} test spec (see `vermas inspect pending`).",
            vermas_core::text::words::counted(waiting, "bead waits", "beads wait"),
            if waiting == 1 { "its" } else { "their" }
        )
    };
    print_indexed(ui, &ws, &catalog, shown, &empty, Some(heading), cache)
}

/// `blocked`.
pub fn blocked(ctx: &Ctx, ui: &mut Ui) -> CmdResult {
    let ws = ctx.workspace()?;
    let mut set = load_set(ctx, &ws)?;
    if ui.json {
        let ids: Vec<String> = graph::blocked(&set)
            .iter()
            .map(|(b, _)| b.id.clone())
            .collect();
        set.complete(&ws, ids.iter().map(String::as_str))?;
    }
    let blocked = graph::blocked(&set);
    if ui.json {
        let rows: Vec<_> = blocked
            .iter()
            .map(|(b, by)| {
                let mut v = serde_json::to_value(b).unwrap_or_default();
                v["blocked_by"] = json!(by);
                v
            })
            .collect();
        ui.json(&rows);
    } else if blocked.is_empty() {
        outln!(ui, "Nothing is blocked.");
    } else {
        for (b, by) in &blocked {
            outln!(ui, "{}", render::line(b));
            if by.is_empty() {
                outln!(ui, "    status blocked");
            }
            for id in by {
                let what = set.beads.get(*id).map_or("(missing)".to_string(), |t| {
                    format!("{} ({})", t.title, t.status)
                });
                // The edge kind when it is not plain `blocks` (a waits-for gate, a
                // conditional-blocks target that did not fail).
                let kind = b
                    .dependencies
                    .iter()
                    .find(|d| d.depends_on_id == *id && d.dep_type != DepType::Blocks)
                    .map_or(String::new(), |d| format!(" [{}]", d.dep_type));
                outln!(ui, "    blocked by {id}: {what}{kind}");
            }
        }
    }
    Ok(0)
}

/// `history`.
pub fn history(ctx: &Ctx, ui: &mut Ui, id: &str) -> CmdResult {
    let ws = ctx.workspace()?;
    let changes = vermas_core::bead::history::history(&ws, id)?;
    if ui.json {
        ui.json(&changes);
    } else {
        for c in &changes {
            outln!(ui, "{} {} {} {}", &c.commit[..7], c.at, c.author, c.summary);
            for line in &c.changes {
                outln!(ui, "    {line}");
            }
        }
    }
    Ok(0)
}
