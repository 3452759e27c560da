//! Changing beads: create, update, close, reopen, labels, dependencies, questions.
//! Each operation is one locked read-modify-write and one commit.

use super::graph;
use super::model::{
    AWAITING_INPUT, Bead, DepType, Dependency, Gate, IssueType, Note, Status, VERIFIED,
    check_single_line, check_spec_path, check_title,
};
use super::routing::GATE_BYPASSED;
use super::store::{BeadSet, bead_path, load_one};
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn, id};
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// Everything `create` can set.
#[derive(Debug, Clone, Default)]
pub struct NewBead {
    /// One-line summary.
    pub title: String,
    /// Kind of record.
    pub issue_type: IssueType,
    /// 0 to 4.
    pub priority: u8,
    /// Markdown body.
    pub description: String,
    /// Labels.
    pub labels: Vec<String>,
    /// Parent id (or prefix): the new bead becomes `<parent>.<n>`.
    pub parent: Option<String>,
    /// Dependencies as (type, id or prefix).
    pub deps: Vec<(DepType, String)>,
    /// Linked live spec.
    pub spec: Option<String>,
    /// Assignee.
    pub assignee: Option<String>,
    /// Do not create a test spec with it, whatever `specs.auto_create` says.
    pub no_spec: bool,
}

/// The result of a change: the beads as written and what git recorded.
#[derive(Debug, Clone)]
pub struct Changed {
    /// The beads after the change (those it left as they were too).
    pub beads: Vec<Bead>,
    /// The ids of the beads that already were as asked: not written, not committed.
    pub unchanged: Vec<String>,
    /// The commit, or why there is none (`Unchanged` when nothing changed).
    pub recorded: Recorded,
}

impl Changed {
    /// True when the command changed no bead at all.
    pub fn nothing(&self) -> bool {
        self.unchanged.len() == self.beads.len()
    }
}

/// The new bead `new` describes (checked, its parent and dependencies resolved, its id
/// chosen), not yet written, and the commit message `create` uses. Run inside the open
/// change `txn` that writes it, so the id stays fresh.
pub fn build_new(txn: &Txn<'_>, actor: &str, new: NewBead) -> Result<(Bead, CommitMessage)> {
    let ws = txn.workspace();
    check_new(actor, &new)?;
    let mut deps = Vec::new();
    for (dep_type, target) in &new.deps {
        let target = load_one(ws, target)?.id;
        if !deps
            .iter()
            .any(|d: &Dependency| d.depends_on_id == target && d.dep_type == *dep_type)
        {
            deps.push(Dependency::new(target, *dep_type));
        }
    }
    let parent = new
        .parent
        .as_deref()
        .map(|p| load_one(ws, p).map(|b| b.id))
        .transpose()?;
    let now = Timestamp::now();
    // Only names are needed here, and for a top-level bead only their number, which git's
    // index gives without listing the folder: create stays fast in a workspace of many
    // beads.
    let new_id = match &parent {
        Some(p) => next_child_id(&ws.bead_ids()?, p),
        None => {
            let issues = ws.issues_dir();
            let count = match txn.recorded_folders(&issues, ".md") {
                Some(folders) => folders
                    .iter()
                    .find(|(folder, _)| *folder == issues)
                    .map_or(0, |(_, n)| *n),
                None => ws.bead_ids()?.len(),
            };
            fresh_id(ws, count, &new.title, actor)?
        }
    };
    let mut bead = Bead::new(new_id, new.title.trim().to_string());
    bead.issue_type = new.issue_type;
    bead.priority = new.priority;
    bead.description = new.description.trim_matches('\n').to_string();
    bead.labels = dedup(new.labels);
    bead.parent = parent;
    bead.dependencies = deps;
    bead.spec = new.spec.filter(|s| !s.is_empty());
    bead.assignee = new.assignee;
    bead.created_at = Some(now);
    bead.created_by = Some(actor.to_string());
    bead.updated_at = Some(now);
    let msg = message("create", &bead, actor);
    Ok((bead, msg))
}

/// Writes the new bead `bead` into the open change `txn`.
pub fn write_new(txn: &mut Txn<'_>, ws: &Workspace, bead: &Bead) -> Result<()> {
    txn.write(&bead_path(ws, &bead.id), bead.render().as_bytes())
}

/// Refuses what `create` cannot write: the actor, title, spec path, priority and labels.
pub fn check_new(actor: &str, new: &NewBead) -> Result<()> {
    check_actor(actor)?;
    check_title(&new.title)?;
    if let Some(spec) = new.spec.as_deref() {
        check_spec_path(spec)?;
    }
    if new.priority > 4 {
        return Err(Error::Invalid(format!(
            "priority {} is out of range 0-4",
            new.priority
        )));
    }
    for l in &new.labels {
        check_label(l)?;
        if l == VERIFIED {
            return Err(Error::invalid_with_help(
                format!("only an inspection sets `{VERIFIED}`"),
                "create the work, then have it judged: vermas inspect run ID",
            ));
        }
    }
    Ok(())
}

/// A free id for a new top-level bead.
fn fresh_id(ws: &Workspace, count: usize, title: &str, actor: &str) -> Result<String> {
    let prefix = ws.id_prefix()?;
    Ok(id::fresh(prefix, title, actor, count, |c| {
        bead_path(ws, c).exists()
    }))
}

/// `<parent>.<n>` with `n` one past the highest existing child.
pub(crate) fn next_child_id(ids: &[String], parent: &str) -> String {
    let prefix = format!("{parent}.");
    let highest = ids
        .iter()
        .filter_map(|k| k.strip_prefix(&prefix))
        .filter_map(|rest| rest.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    format!("{parent}.{}", highest + 1)
}

/// What `update` can change; `None` leaves a field alone.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    /// New status.
    pub status: Option<Status>,
    /// New title.
    pub title: Option<String>,
    /// New priority.
    pub priority: Option<u8>,
    /// New assignee (`Some(None)` clears it).
    pub assignee: Option<Option<String>>,
    /// New type.
    pub issue_type: Option<IssueType>,
    /// New description.
    pub description: Option<String>,
    /// New spec link.
    pub spec: Option<String>,
    /// Labels to add.
    pub add_labels: Vec<String>,
    /// Labels to remove.
    pub remove_labels: Vec<String>,
    /// A note to append.
    pub note: Option<String>,
    /// Take the bead: assign it to the actor and mark it in progress.
    pub claim: bool,
}

/// Applies `changes` to each bead and commits once.
pub fn update(ws: &Workspace, actor: &str, ids: &[String], changes: &Changes) -> Result<Changed> {
    for l in &changes.add_labels {
        check_label(l)?;
    }
    if let Some(title) = changes.title.as_deref() {
        check_title(title)?;
    }
    if let Some(spec) = changes.spec.as_deref().filter(|s| !s.is_empty()) {
        check_spec_path(spec)?;
    }
    modify(ws, actor, "update", ids, |bead, now| {
        if changes.claim {
            match bead.assignee.as_deref() {
                Some(other) if other != actor && !other.is_empty() => {
                    return Err(Error::conflict(format!(
                        "{} is already claimed by {other}",
                        bead.id
                    ))
                    .with_help("ask them, or reassign it with `vermas update ID -a NAME`"));
                }
                _ => {}
            }
            if bead.is_closed() {
                return Err(Error::wrong_state(format!(
                    "{} is closed; reopen it first",
                    bead.id
                )));
            }
            bead.assignee = Some(actor.to_string());
            bead.status = Status::InProgress;
        }
        if let Some(s) = changes.status {
            set_status(bead, s, now);
        }
        if let Some(t) = &changes.title {
            bead.title = t.trim().to_string();
        }
        if let Some(p) = changes.priority {
            bead.priority = p;
        }
        if let Some(a) = &changes.assignee {
            bead.assignee = a.clone().filter(|s| !s.is_empty());
        }
        if let Some(t) = changes.issue_type {
            if (t == IssueType::TestSpec) != (bead.issue_type == IssueType::TestSpec) {
                return Err(Error::invalid_with_help(
                    format!(
                        "{} cannot become a {t}: a test spec stays a test spec, and nothing \
                         else becomes one",
                        bead.id
                    ),
                    "a test spec is made with its work (or `vermas inspect create-spec \
                     WORK`); change its criteria with `vermas inspect add-criteria`",
                ));
            }
            bead.issue_type = t;
        }
        if let Some(d) = &changes.description {
            bead.description = d.trim_matches('\n').to_string();
        }
        if let Some(s) = &changes.spec {
            bead.spec = Some(s.clone()).filter(|s| !s.is_empty());
        }
        for l in &changes.add_labels {
            if !bead.has_label(l) {
                bead.labels.push(l.clone());
            }
        }
        bead.labels.retain(|l| !changes.remove_labels.contains(l));
        if let Some(text) = &changes.note {
            add_note(bead, actor, text.clone(), now);
        }
        Ok(())
    })
}

/// Closes beads with an optional reason. Work whose approved test spec has not passed an
/// inspection (it is not `verified`) closes only with `force`, which needs the reason and
/// is recorded as a bypass: a `GATE_BYPASS:` note, the `gate-bypassed` label.
pub fn close(
    ws: &Workspace,
    actor: &str,
    ids: &[String],
    reason: Option<&str>,
    force: bool,
) -> Result<Changed> {
    if force && reason.is_none_or(|r| r.trim().is_empty()) {
        return Err(Error::usage(
            "--force needs a --reason: the bypass is recorded with it",
        ));
    }
    let bypass = if force {
        super::routing::Bypass::Close
    } else {
        super::routing::Bypass::None
    };
    modify_as(ws, actor, "close", ids, bypass, |bead, now| {
        // Closing a closed bead keeps its reason unless a new one is given.
        if reason.is_some() || !bead.is_closed() {
            bead.close_reason = reason.map(str::to_string);
        }
        if force && !bead.is_closed() {
            let why = reason.unwrap_or_default().trim();
            add_note(
                bead,
                actor,
                format!("GATE_BYPASS: closed without a passing inspection: {why} (by {actor})"),
                now,
            );
            if !bead.has_label(GATE_BYPASSED) {
                bead.labels.push(GATE_BYPASSED.into());
            }
        }
        set_status(bead, Status::Closed, now);
        Ok(())
    })
}

/// Reopens closed beads.
pub fn reopen(ws: &Workspace, actor: &str, ids: &[String]) -> Result<Changed> {
    modify(ws, actor, "reopen", ids, |bead, now| {
        set_status(bead, Status::Open, now);
        Ok(())
    })
}

/// Adds (`add`) or removes a label; a label already present (or absent) changes nothing.
pub fn label(ws: &Workspace, actor: &str, id: &str, label: &str, add: bool) -> Result<Changed> {
    if add {
        check_label(label)?;
    }
    let verb = if add { "label add" } else { "label rm" };
    modify(ws, actor, verb, &[id.to_string()], |bead, _| {
        if !add {
            bead.labels.retain(|l| l != label);
        } else if !bead.has_label(label) {
            bead.labels.push(label.to_string());
        }
        Ok(())
    })
}

/// Asks a question: labels the bead `awaiting:input` and notes `Question: ...`.
pub fn clarify(ws: &Workspace, actor: &str, id: &str, question: &str) -> Result<Changed> {
    if question.trim().is_empty() {
        return Err(Error::Invalid("the question is empty".into()));
    }
    modify(ws, actor, "clarify", &[id.to_string()], |bead, now| {
        if !bead.has_label(AWAITING_INPUT) {
            bead.labels.push(AWAITING_INPUT.to_string());
        }
        add_note(bead, actor, format!("Question: {}", question.trim()), now);
        Ok(())
    })
}

/// Answers a question: notes `Answer: ...` and removes `awaiting:input`.
pub fn answer(ws: &Workspace, actor: &str, id: &str, text: &str) -> Result<Changed> {
    if text.trim().is_empty() {
        return Err(Error::Invalid("the answer is empty".into()));
    }
    modify(ws, actor, "answer", &[id.to_string()], |bead, now| {
        if !bead.has_label(AWAITING_INPUT) {
            return Err(
                Error::wrong_state(format!("{} is not awaiting input", bead.id))
                    .with_help("`vermas clarify ID \"question\"` asks one first"),
            );
        }
        bead.labels.retain(|l| l != AWAITING_INPUT);
        add_note(bead, actor, format!("Answer: {}", text.trim()), now);
        Ok(())
    })
}

/// Makes `id` depend on `target`, refusing self-dependencies and ordering cycles. `gate`
/// (a `waits-for` edge's only) is kept on the edge; giving another gate for an edge that
/// exists changes it.
pub fn dep_add(
    ws: &Workspace,
    actor: &str,
    id: &str,
    target: &str,
    dep_type: DepType,
    gate: Option<Gate>,
) -> Result<Changed> {
    check_actor(actor)?;
    if gate.is_some() && dep_type != DepType::WaitsFor {
        return Err(Error::invalid_with_help(
            format!("a {dep_type} dependency has no gate: only a waits-for edge has one"),
            "give -t waits-for (or leave -t out) with --gate",
        ));
    }
    // `all-children` is the default a gateless edge means: the file keeps none.
    let gate = gate.filter(|g| *g == Gate::AnyChildren);
    let mut txn = Txn::begin(ws)?;
    let set = BeadSet::load(ws)?;
    let from = set.resolve(id)?.id.clone();
    let to = set.resolve(target)?.id.clone();
    if from == to {
        return Err(Error::Invalid(format!("{from} cannot depend on itself")));
    }
    if graph::is_ordering(dep_type)
        && let Some(path) = graph::ordering_path(&set, &to, &from)
    {
        let mut cycle = vec![from.clone()];
        cycle.extend(path);
        return Err(Error::Cycle(cycle));
    }
    // The set may hold cached beads without their body: write from the file itself.
    let mut bead = load_one(ws, &from)?;
    let same = |d: &Dependency| d.depends_on_id == to && d.dep_type == dep_type;
    match bead.dependencies.iter_mut().find(|d| same(d)) {
        Some(d) if d.gate == gate => {
            return Ok(Changed {
                unchanged: vec![bead.id.clone()],
                beads: vec![bead],
                recorded: Recorded::Unchanged,
            });
        }
        Some(d) => d.gate = gate,
        None => bead.dependencies.push(Dependency {
            depends_on_id: to,
            dep_type,
            gate,
        }),
    }
    bead.updated_at = Some(Timestamp::now());
    txn.write(&bead_path(ws, &bead.id), bead.render().as_bytes())?;
    let recorded = txn.commit(&message("dep add", &bead, actor))?;
    Ok(Changed {
        beads: vec![bead],
        unchanged: Vec::new(),
        recorded,
    })
}

/// Removes the dependency of `id` on `target` (of `dep_type`, or of any type).
pub fn dep_rm(
    ws: &Workspace,
    actor: &str,
    id: &str,
    target: &str,
    dep_type: Option<DepType>,
) -> Result<Changed> {
    // A target that no longer exists can still be named by its full id.
    let target = load_one(ws, target).map_or_else(|_| target.to_string(), |b| b.id);
    let target = target.as_str();
    modify(ws, actor, "dep rm", &[id.to_string()], |bead, _| {
        let before = bead.dependencies.len();
        bead.dependencies
            .retain(|d| !(d.depends_on_id == target && dep_type.is_none_or(|t| t == d.dep_type)));
        if bead.dependencies.len() == before {
            return Err(Error::Invalid(format!(
                "{} does not depend on {target}",
                bead.id
            )));
        }
        Ok(())
    })
}

/// Loads each bead, applies `f`, and writes and commits (once) the beads it changed,
/// stamping their `updated_at`; when it changed none, nothing is written or committed.
fn modify(
    ws: &Workspace,
    actor: &str,
    verb: &str,
    ids: &[String],
    f: impl FnMut(&mut Bead, Timestamp) -> Result<()>,
) -> Result<Changed> {
    modify_as(ws, actor, verb, ids, super::routing::Bypass::None, f)
}

/// [`modify`], with `bypass` saying which of the Inspector's rules the change may pass.
fn modify_as(
    ws: &Workspace,
    actor: &str,
    verb: &str,
    ids: &[String],
    bypass: super::routing::Bypass,
    mut f: impl FnMut(&mut Bead, Timestamp) -> Result<()>,
) -> Result<Changed> {
    if ids.is_empty() {
        return Err(Error::Invalid("no bead id given".into()));
    }
    check_actor(actor)?;
    let mut txn = Txn::begin(ws)?;
    let now = Timestamp::now();
    let mut beads: Vec<Bead> = Vec::new();
    let mut unchanged = Vec::new();
    for id in ids {
        let mut bead = load_one(ws, id)?;
        if beads.iter().any(|b| b.id == bead.id) {
            continue;
        }
        let before = bead.clone();
        f(&mut bead, now)?;
        super::routing::inspector_only(ws, &before, &bead, bypass)?;
        if bead == before {
            unchanged.push(bead.id.clone());
        } else {
            bead.updated_at = Some(now);
        }
        beads.push(bead);
    }
    let written: Vec<&Bead> = beads
        .iter()
        .filter(|b| !unchanged.contains(&b.id))
        .collect();
    let Some(first) = written.first() else {
        // Nothing to write: the lock is released and no commit is made.
        return Ok(Changed {
            beads,
            unchanged,
            recorded: Recorded::Unchanged,
        });
    };
    let mut msg = message(verb, first, actor);
    msg.ids = written.iter().map(|b| b.id.clone()).collect();
    for bead in &written {
        txn.write(&bead_path(ws, &bead.id), bead.render().as_bytes())?;
    }
    let recorded = txn.commit(&msg)?;
    Ok(Changed {
        beads,
        unchanged,
        recorded,
    })
}

/// Sets the status, keeping `closed_at` and `close_reason` consistent with it.
fn set_status(bead: &mut Bead, status: Status, now: Timestamp) {
    if status == Status::Closed && !bead.is_closed() {
        bead.closed_at = Some(now);
    }
    if status != Status::Closed {
        bead.closed_at = None;
        bead.close_reason = None;
        // A test spec opened again waits for a person's approval again.
        bead.approved = None;
    }
    bead.status = status;
}

/// Appends a note by `actor` at `now`.
pub(crate) fn add_note(bead: &mut Bead, actor: &str, text: String, now: Timestamp) {
    bead.notes.push(Note {
        at: now,
        by: actor.to_string(),
        text,
    });
}

fn message(verb: &str, bead: &Bead, actor: &str) -> CommitMessage {
    CommitMessage {
        verb: verb.to_string(),
        ids: vec![bead.id.clone()],
        title: bead.title.clone(),
        actor: actor.to_string(),
    }
}

/// Refuses an actor that could break a commit message: it must be one line without control
/// characters, whether it came from `--actor`, `VERMAS_ACTOR` or git's `user.name`.
pub fn check_actor(actor: &str) -> Result<()> {
    check_single_line("actor", actor).map_err(|m| {
        Error::invalid_with_help(
            m,
            "the actor is --actor, else VERMAS_ACTOR, else git's user.name: give a one-line name",
        )
    })
}

/// Refuses empty labels and labels with spaces or commas.
fn check_label(label: &str) -> Result<()> {
    if label.is_empty() || label.contains(|c: char| c.is_whitespace() || c == ',') {
        return Err(Error::Invalid(format!(
            "label '{label}' must be non-empty, without spaces or commas"
        )));
    }
    Ok(())
}

fn dedup(mut labels: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    labels.retain(|l| seen.insert(l.clone()));
    labels
}
