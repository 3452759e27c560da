//! `status` without flags: where the work stands, from files alone (no checks, no LLM).

use crate::bead::catalog::{Catalog, IndexedBead};
use crate::bead::fields::BeadFields;
use crate::bead::model::{AWAITING_INPUT, Note};
use crate::bead::{BeadSet, Status};
use crate::error::Result;
use crate::spec::Spec;
use crate::verify::results::{self, ResultRecord};
use crate::workspace::Workspace;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The summary shown by a plain `vermas status`.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Beads per status (closed included).
    pub by_status: BTreeMap<String, usize>,
    /// Beads in all (messages and test specs excluded).
    pub total: usize,
    /// Closed share of `total`, in percent.
    pub percent_done: u32,
    /// Beads in progress, highest priority first.
    pub in_progress: Vec<Brief>,
    /// How many beads are ready.
    pub ready: usize,
    /// Beads awaiting an answer, with their question.
    pub awaiting: Vec<Awaiting>,
    /// Each spec with its last recorded result.
    pub specs: Vec<SpecStatus>,
    /// Test specs (the Inspector's criteria for one bead of work) not yet approved.
    pub test_specs_pending: usize,
    /// Bead files that could not be read.
    pub unreadable: usize,
}

/// The short form of a bead in the summary.
#[derive(Debug, Clone, Serialize)]
pub struct Brief {
    /// The bead.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its priority.
    pub priority: u8,
    /// Who works on it.
    pub assignee: Option<String>,
}

/// A bead waiting for a person.
#[derive(Debug, Clone, Serialize)]
pub struct Awaiting {
    /// The bead.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The open question, if noted.
    pub question: Option<Note>,
}

/// A spec and its last recorded verification.
#[derive(Debug, Clone, Serialize)]
pub struct SpecStatus {
    /// Spec name.
    pub name: String,
    /// Spec path.
    pub path: String,
    /// Number of criteria.
    pub criteria: usize,
    /// The last recorded result (`status --verify --record`).
    pub last: Option<ResultRecord>,
}

/// Builds the summary from the beads (if there is a workspace) and the specs.
pub fn summarise(ws: Option<&Workspace>, specs: &[Spec]) -> Result<Summary> {
    let catalog = ws.map(Catalog::load).transpose()?;
    let work: Vec<IndexedBead<'_>> = catalog
        .iter()
        .flat_map(Catalog::iter)
        .filter(|b| {
            !matches!(
                b.issue_type(),
                crate::bead::IssueType::Message | crate::bead::IssueType::TestSpec
            )
        })
        .collect();
    let mut by_status = BTreeMap::new();
    for b in &work {
        *by_status.entry(b.status().to_string()).or_insert(0) += 1;
    }
    let closed = work.iter().filter(|b| b.is_closed()).count();
    let percent_done = if work.is_empty() {
        0
    } else {
        (closed * 100 / work.len()) as u32
    };
    let in_progress = BeadSet::sorted(work.iter().filter(|b| b.status() == Status::InProgress))
        .into_iter()
        .map(|b| Brief {
            id: b.key().to_string(),
            title: b.title().into_owned(),
            priority: b.priority(),
            assignee: b.assignee().map(Cow::into_owned),
        })
        .collect();
    let waiting: Vec<IndexedBead<'_>> = BeadSet::sorted(
        work.iter()
            .filter(|b| b.has_label(AWAITING_INPUT) && !b.is_closed()),
    )
    .into_iter()
    .copied()
    .collect();
    let mut awaiting = Vec::with_capacity(waiting.len());
    if let (Some(ws), Some(catalog)) = (ws, &catalog) {
        // Their notes, for the questions: read from their files.
        let mut set = catalog.bead_set(&waiting);
        set.complete(ws, waiting.iter().map(|b| b.key()))?;
        awaiting.extend(waiting.iter().map(|b| {
            Awaiting {
                id: b.key().to_string(),
                title: b.title().into_owned(),
                question: set
                    .beads
                    .get(b.key())
                    .and_then(|full| full.open_question().cloned()),
            }
        }));
    }
    let spec_status = specs
        .iter()
        .map(|s| SpecStatus {
            name: s.name.clone(),
            path: s.path.clone(),
            criteria: s.criteria.len(),
            last: ws.and_then(|ws| results::load_spec(ws, &s.name)),
        })
        .collect();
    Ok(Summary {
        by_status,
        total: work.len(),
        percent_done,
        in_progress,
        ready: catalog.as_ref().map_or(0, |c| c.ready(None).len()),
        awaiting,
        specs: spec_status,
        test_specs_pending: catalog.as_ref().map_or(0, |c| {
            c.iter()
                .filter(|b| b.issue_type() == crate::bead::IssueType::TestSpec && !b.is_closed())
                .count()
        }),
        unreadable: catalog.as_ref().map_or(0, |c| c.broken.len()),
    })
}
