//! Handlers of the bead commands spelled as bd spells them: `label add|rm|list`, `search`,
//! `stats` and `comments`; their `--json` keys are bd's.

use crate::cli::beads::args::{CommentsArgs, CommentsCmd, LabelCmd, SearchArgs};
use crate::cli::beads::{changed, limited, load_set, print_beads};
use crate::cli::output::{recorded_note, versioned};
use crate::cli::ui::{Ui, outln};
use crate::cli::{CmdResult, Ctx};
use vermas_core::bead::query::{self, Filter};
use vermas_core::bead::store::load_one;
use vermas_core::bead::{BeadSet, IssueType, comments as notes};
use vermas_core::error::Error;
use vermas_core::workspace::Workspace;

/// `search` shows this many unless `-n` says otherwise (`-n 0`: all), like `bd search`.
const SEARCH_LIMIT: usize = 50;

/// `label add|rm|list`.
pub fn label(ctx: &Ctx, ui: &mut Ui, cmd: LabelCmd) -> CmdResult {
    let ws = ctx.workspace()?;
    let (id, label, add) = match cmd {
        LabelCmd::List { id } => return label_list(ctx, ui, &ws, id.as_deref()),
        LabelCmd::Add { id, label } => (id, label, true),
        LabelCmd::Rm { id, label } => (id, label, false),
    };
    let c = vermas_core::bead::ops::label(&ws, &ctx.actor(&ws)?, &id, &label, add)?;
    let verb = if add { "Labelled" } else { "Unlabelled" };
    changed(ctx, ui, verb, c)
}

/// `label list [ID]`: a bead's labels, or every label in use with its count.
fn label_list(ctx: &Ctx, ui: &mut Ui, ws: &Workspace, id: Option<&str>) -> CmdResult {
    if let Some(id) = id {
        let bead = load_one(ws, id)?;
        if ui.json {
            ui.json(&bead.labels);
        } else if bead.labels.is_empty() {
            outln!(ui, "{} has no labels", bead.id);
        } else {
            outln!(ui, "Labels for {}:", bead.id);
            for label in &bead.labels {
                outln!(ui, "  - {label}");
            }
        }
        return Ok(0);
    }
    let counts = query::label_counts(&load_set(ctx, ws)?);
    if ui.json {
        ui.json(&counts);
    } else if counts.is_empty() {
        outln!(ui, "No labels found.");
    } else {
        outln!(ui, "All labels ({} unique):", counts.len());
        let width = counts.iter().map(|c| c.label.len()).max().unwrap_or(0);
        for c in &counts {
            outln!(
                ui,
                "  {:width$}  ({})",
                c.label,
                vermas_core::text::words::plural(c.count, "bead")
            );
        }
    }
    Ok(0)
}

/// `search TEXT`: beads whose id, title, description or notes hold the text.
pub fn search(ctx: &Ctx, ui: &mut Ui, a: SearchArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    let text = a.text.join(" ");
    if text.trim().is_empty() {
        return Err(Error::Invalid("the search text is empty".into()));
    }
    let want_status = a.status;
    let want_type = a.issue_type;
    let filter = Filter {
        labels: crate::cli::beads::split_labels(&a.labels),
        assignee: a.assignee,
        ..Filter::default()
    };
    let mut set = load_set(ctx, &ws)?;
    let candidates: Vec<String> = set
        .beads
        .values()
        .filter(|b| {
            want_status.is_none_or(|s| b.status == s)
                && want_type.map_or(b.issue_type != IssueType::TestSpec, |t| b.issue_type == t)
                && filter.keeps(b)
        })
        .map(|b| b.id.clone())
        .collect();
    // Descriptions and notes are not in the index: read the candidates' files.
    set.complete(&ws, candidates.iter().map(String::as_str))?;
    let ids: Vec<String> = BeadSet::sorted(
        candidates
            .iter()
            .map(|id| &set.beads[id])
            .filter(|b| query::mentions(b, &text)),
    )
    .into_iter()
    .map(|b| b.id.clone())
    .collect();
    let shown = limited(&ids, a.limit.unwrap_or(SEARCH_LIMIT), ui.json);
    let heading = format!(
        "Found {} matching '{text}':",
        vermas_core::text::words::plural(ids.len(), "bead")
    );
    let empty = format!("No beads found matching '{text}'.");
    let heading = (!ids.is_empty()).then_some(heading);
    print_beads(ui, &ws, &mut set, shown, &empty, heading)
}

/// `stats`: counts by status and type, ready and blocked.
pub fn stats(ctx: &Ctx, ui: &mut Ui) -> CmdResult {
    let ws = ctx.workspace()?;
    let mut set = load_set(ctx, &ws)?;
    // A bead imported from bd keeps bd's type in its body: tasks are read whole.
    let tasks: Vec<String> = set
        .beads
        .values()
        .filter(|b| b.partial && b.issue_type == vermas_core::bead::IssueType::Task)
        .map(|b| b.id.clone())
        .collect();
    set.complete(&ws, tasks.iter().map(String::as_str))?;
    let stats = query::stats(&set, vermas_core::interop::bd::own_type);
    if ui.json {
        ui.json(&versioned(&stats));
        return Ok(0);
    }
    let s = &stats.summary;
    outln!(ui, "Total:        {}", s.total_issues);
    outln!(ui, "Open:         {}", s.open_issues);
    outln!(ui, "In progress:  {}", s.in_progress_issues);
    outln!(ui, "Closed:       {}", s.closed_issues);
    outln!(ui, "Blocked:      {}", s.blocked_issues);
    outln!(ui, "Deferred:     {}", s.deferred_issues);
    if s.pinned_issues > 0 {
        outln!(ui, "Pinned:       {}", s.pinned_issues);
    }
    outln!(ui, "Ready:        {}", s.ready_issues);
    if s.average_lead_time_hours > 0.0 {
        outln!(ui, "Avg lead time: {:.1} hours", s.average_lead_time_hours);
    }
    if !stats.by_type.is_empty() {
        let types: Vec<String> = stats
            .by_type
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        outln!(ui, "By type:      {}", types.join(", "));
    }
    Ok(0)
}

/// `comments ID` and `comments add ID TEXT`.
pub fn comments(ctx: &Ctx, ui: &mut Ui, a: CommentsArgs) -> CmdResult {
    let ws = ctx.workspace()?;
    if let Some(CommentsCmd::Add { id, text }) = a.command {
        let (c, comment) = notes::add(&ws, &ctx.actor(&ws)?, &id, &text)?;
        if ui.json {
            recorded_note(&c.recorded);
            ui.json(&versioned(&comment));
            return Ok(0);
        }
        return changed(ctx, ui, "Comment added to", c);
    }
    let id =
        a.id.ok_or_else(|| Error::usage("name the bead: `vermas comments ID`"))?;
    let bead = load_one(&ws, &id)?;
    let list = notes::comments(&bead);
    if ui.json {
        ui.json(&list);
    } else if list.is_empty() {
        outln!(ui, "No comments on {}", bead.id);
    } else {
        outln!(ui, "Comments on {}:", bead.id);
        for c in &list {
            outln!(ui, "[{}] {} at {}", c.author, c.text, c.created_at);
        }
    }
    Ok(0)
}
