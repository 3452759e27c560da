//! Deleting beads, as `bd delete` does: the bead files go, and every reference another
//! bead holds to them (a dependency of any type, a `parent`) is removed in the same one
//! commit. [`plan`] says what would go without touching anything.

use super::model::Bead;
use super::ops::check_actor;
use super::store::{BeadSet, bead_path, load_one};
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Serialize;

/// A bead named by a deletion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Doomed {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
}

/// A reference another bead holds to a bead being deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// The bead holding the reference (it stays, without it).
    pub id: String,
    /// Its title.
    pub title: String,
    /// The bead being deleted that it names.
    pub depends_on_id: String,
    /// The dependency type, or `parent` for its `parent` field.
    #[serde(rename = "type")]
    pub kind: String,
}

/// What a deletion removes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The beads whose files go.
    pub delete: Vec<Doomed>,
    /// The references other beads lose.
    pub references: Vec<Reference>,
}

impl Plan {
    /// The ids of the beads that keep their file but lose a reference, each once.
    pub fn updated(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.references.iter().map(|r| r.id.clone()).collect();
        ids.dedup();
        ids
    }
}

/// What deleting `ids` (exact ids or unique prefixes) would remove; writes nothing.
pub fn plan(ws: &Workspace, ids: &[String]) -> Result<Plan> {
    plan_in(&BeadSet::load(ws)?, ids)
}

/// [`plan`] over a loaded set.
fn plan_in(set: &BeadSet, ids: &[String]) -> Result<Plan> {
    if ids.is_empty() {
        return Err(Error::Invalid("no bead id given".into()));
    }
    let mut delete: Vec<Doomed> = Vec::new();
    for id in ids {
        let bead = set.resolve(id)?;
        if !delete.iter().any(|d| d.id == bead.id) {
            delete.push(Doomed {
                id: bead.id.clone(),
                title: bead.title.clone(),
            });
        }
    }
    let doomed = |id: &str| delete.iter().any(|d| d.id == id);
    let mut references = Vec::new();
    for bead in set.beads.values().filter(|b| !doomed(&b.id)) {
        for d in bead
            .dependencies
            .iter()
            .filter(|d| doomed(&d.depends_on_id))
        {
            references.push(Reference {
                id: bead.id.clone(),
                title: bead.title.clone(),
                depends_on_id: d.depends_on_id.clone(),
                kind: d.dep_type.to_string(),
            });
        }
        if let Some(parent) = bead.parent.as_deref().filter(|p| doomed(p)) {
            references.push(Reference {
                id: bead.id.clone(),
                title: bead.title.clone(),
                depends_on_id: parent.to_string(),
                kind: "parent".to_string(),
            });
        }
    }
    Ok(Plan { delete, references })
}

/// Deletes the beads `ids` and removes the references to them from the other beads, in
/// one commit; returns what it removed and what git recorded.
pub fn delete(ws: &Workspace, actor: &str, ids: &[String]) -> Result<(Plan, Recorded)> {
    check_actor(actor)?;
    let mut txn = Txn::begin(ws)?;
    // Planned under the lock, so no reference written meanwhile is missed.
    let plan = plan_in(&BeadSet::load(ws)?, ids)?;
    let gone = |id: &str| plan.delete.iter().any(|d| d.id == id);
    let now = Timestamp::now();
    for id in plan.updated() {
        // The set may hold cached beads without their body: write from the file itself.
        let mut bead: Bead = load_one(ws, &id)?;
        bead.dependencies.retain(|d| !gone(&d.depends_on_id));
        if bead.parent.as_deref().is_some_and(gone) {
            bead.parent = None;
        }
        bead.updated_at = Some(now);
        txn.write(&bead_path(ws, &bead.id), bead.render().as_bytes())?;
    }
    for doomed in &plan.delete {
        txn.remove(&bead_path(ws, &doomed.id))?;
    }
    let mut message_ids: Vec<String> = plan.delete.iter().map(|d| d.id.clone()).collect();
    message_ids.extend(plan.updated());
    let recorded = txn.commit(&CommitMessage {
        verb: "delete".into(),
        ids: message_ids,
        title: plan
            .delete
            .first()
            .map_or_else(String::new, |d| d.title.clone()),
        actor: actor.to_string(),
    })?;
    Ok((plan, recorded))
}
