//! Where a ralph workflow stands, from vermas's own records and without running anything:
//! the progress of its molecule (a vermas molecule's steps, or an epic bead's children),
//! else of the beads labelled `spec-<label>`; its current position; and the beads among
//! them waiting for a person.

use super::state::Workflow;
use crate::bead::model::AWAITING_INPUT;
use crate::bead::{Bead, BeadSet, IssueType, Status, graph};
use crate::error::Result;
use crate::mol::molecule::{self, StepStatus};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::collections::BTreeSet;

/// ralph's label for a bead waiting for a person, besides vermas's `awaiting:input`.
pub const RALPH_CLARIFY: &str = "ralph:clarify";

/// What the progress was counted from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The steps of a vermas molecule (`.beads/mols/<id>.yaml`).
    Molecule(String),
    /// The children of an epic bead.
    Epic(String),
    /// The beads carrying the label (`spec-<label>`): no molecule, or it was not found.
    Label(String),
}

/// Bead counts by status, for label-based progress (as ralph counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LabelCounts {
    /// Open.
    pub open: usize,
    /// In progress.
    pub in_progress: usize,
    /// Closed.
    pub closed: usize,
    /// Ready to work on.
    pub ready: usize,
}

impl LabelCounts {
    /// Open, in progress and closed together (ralph's total).
    pub fn total(self) -> usize {
        self.open + self.in_progress + self.closed
    }
}

/// One step or task and where it stands: `done`, `current`, `ready`, `blocked` or
/// `pending`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The marker word.
    pub marker: &'static str,
    /// Step or bead id.
    pub id: String,
    /// Its title.
    pub title: String,
}

/// A bead waiting for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// The bead.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The open question (without its `Question:` prefix), if noted.
    pub question: Option<String>,
    /// When it was asked (else when the bead last changed).
    pub since: Option<Timestamp>,
}

/// Progress of one workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// What it was counted from.
    pub source: Source,
    /// True when the workflow names a molecule that vermas's records do not hold.
    pub molecule_missing: bool,
    /// Steps or tasks done.
    pub done: usize,
    /// Steps or tasks in all.
    pub total: usize,
    /// Counts by status (label-based progress only).
    pub counts: Option<LabelCounts>,
    /// Each step or task with its marker, in order.
    pub position: Vec<Position>,
    /// Beads waiting for a person.
    pub waiting: Vec<Waiting>,
}

/// The progress of `workflow` from the records of `ws`.
pub fn progress(ws: &Workspace, workflow: &Workflow) -> Result<Progress> {
    let mut set = BeadSet::load(ws)?;
    let mut missing = false;
    if let Some(id) = &workflow.molecule {
        if let Some(p) = from_molecule(ws, &mut set, id)? {
            return Ok(p);
        }
        if set.beads.contains_key(id) {
            let members = children(&set, id);
            return finish(ws, &mut set, Source::Epic(id.clone()), members, false);
        }
        missing = true;
    }
    let label = format!("spec-{}", workflow.label);
    let other = format!("spec:{}", workflow.label);
    let members: Vec<String> = work(&set)
        .filter(|b| b.has_label(&label) || b.has_label(&other))
        .map(|b| b.id.clone())
        .collect();
    finish(ws, &mut set, Source::Label(label), members, missing)
}

/// What `ralph status` shows of a repository without a ralph workflow: its work beads'
/// counts, and those ready, in progress and waiting for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overview {
    /// Work beads by status.
    pub counts: LabelCounts,
    /// Ready work, in `ready`'s order (marker `ready`).
    pub ready: Vec<Position>,
    /// Work in progress, by priority then age (marker `current`).
    pub in_progress: Vec<Position>,
    /// Beads waiting for a person.
    pub waiting: Vec<Waiting>,
}

/// The [`Overview`] of every work bead of `ws`.
pub fn overview(ws: &Workspace) -> Result<Overview> {
    let mut set = BeadSet::load(ws)?;
    let position = |marker, b: &Bead| Position {
        marker,
        id: b.id.clone(),
        title: b.title.clone(),
    };
    let ready: Vec<Position> = graph::ready(&set)
        .into_iter()
        .map(|b| position("ready", b))
        .collect();
    let in_progress = BeadSet::sorted(work(&set).filter(|b| b.status == Status::InProgress))
        .into_iter()
        .map(|b| position("current", b))
        .collect();
    let mut counts = LabelCounts {
        ready: ready.len(),
        ..LabelCounts::default()
    };
    for b in work(&set) {
        match b.status {
            Status::Open => counts.open += 1,
            Status::InProgress => counts.in_progress += 1,
            Status::Closed => counts.closed += 1,
            _ => {}
        }
    }
    let members: Vec<String> = work(&set).map(|b| b.id.clone()).collect();
    let waiting = waiting(ws, &mut set, &members)?;
    Ok(Overview {
        counts,
        ready,
        in_progress,
        waiting,
    })
}

/// Progress from the vermas molecule `id`, when there is one.
fn from_molecule(ws: &Workspace, set: &mut BeadSet, id: &str) -> Result<Option<Progress>> {
    // Only the molecule of exactly this id: `load` also takes unique prefixes.
    let Some((_, mol)) = molecule::load(ws, id).ok().filter(|(_, m)| m.id == id) else {
        return Ok(None);
    };
    let (done, total) = mol.progress();
    let ready: BTreeSet<&str> = mol.ready().iter().map(|s| s.id.as_str()).collect();
    let position = mol
        .steps
        .iter()
        .map(|s| Position {
            marker: match s.status {
                StepStatus::Completed | StepStatus::Skipped => "done",
                StepStatus::InProgress => "current",
                StepStatus::Blocked => "blocked",
                StepStatus::Pending if ready.contains(s.id.as_str()) => "ready",
                StepStatus::Pending => "pending",
            },
            id: s.id.clone(),
            title: s.title.clone(),
        })
        .collect();
    let members = match &mol.bead_id {
        Some(bead) => {
            let mut m = children(set, bead);
            m.push(bead.clone());
            m
        }
        None => Vec::new(),
    };
    let waiting = waiting(ws, set, &members)?;
    Ok(Some(Progress {
        source: Source::Molecule(mol.id.clone()),
        molecule_missing: false,
        done,
        total,
        counts: None,
        position,
        waiting,
    }))
}

/// Progress over the beads `members`.
fn finish(
    ws: &Workspace,
    set: &mut BeadSet,
    source: Source,
    members: Vec<String>,
    molecule_missing: bool,
) -> Result<Progress> {
    let ready: BTreeSet<String> = graph::ready(set).iter().map(|b| b.id.clone()).collect();
    let others = graph::Others::of_set(set);
    let beads: Vec<&Bead> = BeadSet::sorted(members.iter().filter_map(|id| set.beads.get(id)));
    let mut counts = LabelCounts::default();
    let mut position = Vec::new();
    for b in &beads {
        match b.status {
            Status::Open => counts.open += 1,
            Status::InProgress => counts.in_progress += 1,
            Status::Closed => counts.closed += 1,
            _ => {}
        }
        if ready.contains(&b.id) {
            counts.ready += 1;
        }
        let marker = if b.is_closed() {
            "done"
        } else if b.status == Status::InProgress {
            "current"
        } else if ready.contains(&b.id) {
            "ready"
        } else if b.status == Status::Blocked || !graph::open_blockers(&others, b).is_empty() {
            "blocked"
        } else {
            "pending"
        };
        position.push(Position {
            marker,
            id: b.id.clone(),
            title: b.title.clone(),
        });
    }
    let label_based = matches!(source, Source::Label(_));
    let (done, total) = if label_based {
        (counts.closed, counts.total())
    } else {
        (counts.closed, beads.len())
    };
    let waiting = waiting(ws, set, &members)?;
    Ok(Progress {
        source,
        molecule_missing,
        done,
        total,
        counts: label_based.then_some(counts),
        position,
        waiting,
    })
}

/// Work beads (not test specs or messages).
fn work(set: &BeadSet) -> impl Iterator<Item = &Bead> {
    set.beads
        .values()
        .filter(|b| !matches!(b.issue_type, IssueType::TestSpec | IssueType::Message))
}

/// Ids of the work beads whose parent is `parent` (the `parent` field or a
/// `parent-child` dependency).
fn children(set: &BeadSet, parent: &str) -> Vec<String> {
    work(set)
        .filter(|b| {
            b.parent.as_deref() == Some(parent)
                || b.dependencies.iter().any(|d| {
                    d.dep_type == crate::bead::DepType::ParentChild && d.depends_on_id == parent
                })
        })
        .map(|b| b.id.clone())
        .collect()
}

/// The beads of `members` waiting for a person (`awaiting:input` or `ralph:clarify`, not
/// closed), with their open question.
fn waiting(ws: &Workspace, set: &mut BeadSet, members: &[String]) -> Result<Vec<Waiting>> {
    let ids: Vec<String> = members
        .iter()
        .filter(|id| {
            set.beads.get(*id).is_some_and(|b| {
                !b.is_closed() && (b.has_label(AWAITING_INPUT) || b.has_label(RALPH_CLARIFY))
            })
        })
        .cloned()
        .collect();
    set.complete(ws, ids.iter().map(String::as_str))?;
    let beads = BeadSet::sorted(ids.iter().filter_map(|id| set.beads.get(id)));
    Ok(beads
        .into_iter()
        .map(|b| {
            let note = b.open_question();
            Waiting {
                id: b.id.clone(),
                title: b.title.clone(),
                question: note.map(|n| n.text.trim_start_matches("Question:").trim().to_string()),
                since: note.map(|n| n.at).or(b.updated_at),
            }
        })
        .collect())
}
