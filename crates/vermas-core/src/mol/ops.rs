//! Molecule operators: pour, wisp, start/done/block a step, squash, burn, and removing
//! expired wisps. A poured molecule changes in one commit per operation, under
//! `.beads/.lock` for the whole read-modify-write; a wisp changes under its own lock and is
//! never committed.

use super::molecule::{self, Digest, MolState, Molecule, StepStatus};
use super::proto::Proto;
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn, write_atomic};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// A molecule after a change, and what git recorded (`None` for a wisp: never committed).
#[derive(Debug, Clone)]
pub struct Changed {
    /// The molecule as written.
    pub mol: Molecule,
    /// The commit, for a poured molecule.
    pub recorded: Option<Recorded>,
}

/// What a step operation does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepChange {
    /// Mark it in progress.
    Start,
    /// Complete it with an optional output.
    Done(Option<String>),
    /// Block it with a reason.
    Block(String),
    /// Mark it not needed, with a reason: the steps that need it go on as after `Done`.
    Skip(String),
}

impl StepChange {
    /// The verb of its commit.
    fn verb(&self) -> &'static str {
        match self {
            StepChange::Start => "mol start",
            StepChange::Done(_) => "mol done",
            StepChange::Block(_) => "mol block",
            StepChange::Skip(_) => "mol skip",
        }
    }
}

/// Parses a wisp lifetime such as `30m` or `1h` (must be more than zero).
pub fn parse_ttl(text: &str) -> Result<Duration> {
    let ttl = crate::config::parse_duration(text).map_err(|e| {
        Error::invalid_with_help(format!("--ttl: {e}"), "give a lifetime such as 30m or 1h")
    })?;
    if ttl.is_zero() {
        return Err(Error::Invalid("--ttl must be more than zero".into()));
    }
    Ok(ttl)
}

/// Removes every wisp whose time is up at `now`; returns their ids. Unreadable files are
/// left alone (a person may be editing them).
pub fn purge_expired(ws: &Workspace, now: Timestamp) -> Vec<String> {
    let dir = molecule::wisps_dir(ws);
    if !dir.is_dir() {
        return Vec::new();
    }
    let mut removed = Vec::new();
    for path in molecule::files(ws)
        .into_iter()
        .filter(|p| p.starts_with(&dir))
    {
        if let Ok(m) = molecule::read(ws, &path)
            && m.is_expired(now)
            && std::fs::remove_file(&path).is_ok()
        {
            removed.push(m.id);
        }
    }
    removed
}

/// Cooks formula `name` for the bead `bead` (id or unique prefix; it is also the
/// `bead_id` variable unless `vars` sets one), pours it into `.beads/mols/<id>.yaml` and
/// commits it.
pub fn pour(
    ws: &Workspace,
    actor: &str,
    name: &str,
    vars: &BTreeMap<String, String>,
    bead: &str,
) -> Result<Changed> {
    let bead = crate::bead::store::load_one(ws, bead)?.id;
    let mut vars = vars.clone();
    vars.entry("bead_id".into()).or_insert_with(|| bead.clone());
    let proto = super::cook::cook_as_written(Some(&ws.beads_dir), name, &vars)?;
    pour_proto(ws, actor, &proto, &bead)
}

/// Pours `proto` into `.beads/mols/<id>.yaml` for the bead `bead_id` and commits it.
pub fn pour_proto(ws: &Workspace, actor: &str, proto: &Proto, bead_id: &str) -> Result<Changed> {
    let now = Timestamp::now();
    let mut txn = Txn::begin(ws)?;
    let id = molecule::new_id(ws, &proto.formula, actor);
    let mut mol = Molecule::from_proto(id, proto, MolState::Liquid, now);
    mol.bead_id = Some(bead_id.to_string());
    txn.write(
        &molecule::path_of(ws, &mol),
        molecule::render(&mol)?.as_bytes(),
    )?;
    let recorded = txn.commit(&message(
        "mol pour",
        &mol,
        &format!("{} for {bead_id}", mol.formula),
        actor,
    ))?;
    Ok(Changed {
        mol,
        recorded: Some(recorded),
    })
}

/// Makes a wisp of `proto` in `.beads/wisps/mols/<id>.yaml` that expires after `ttl`.
pub fn wisp(
    ws: &Workspace,
    actor: &str,
    proto: &Proto,
    ttl: Duration,
    bead: Option<&str>,
) -> Result<Changed> {
    let bead_id = match bead {
        Some(b) => Some(crate::bead::store::load_one(ws, b)?.id),
        None => None,
    };
    let now = Timestamp::now();
    // Checked before anything is written: an expiry past 9999 could not be read back.
    let expires_at = now.checked_add(ttl).ok_or_else(|| {
        Error::Invalid(format!(
            "--ttl: a wisp made at {now} with this lifetime would expire after {}",
            Timestamp::MAX
        ))
    })?;
    let _lock = molecule::lock_wisps(ws)?;
    let id = molecule::new_id(ws, &proto.formula, actor);
    let mut mol = Molecule::from_proto(id, proto, MolState::Vapor, now);
    mol.bead_id = bead_id;
    mol.expires_at = Some(expires_at);
    write_atomic(
        &ws.cache_dir(),
        &molecule::path_of(ws, &mol),
        molecule::render(&mol)?.as_bytes(),
    )?;
    Ok(Changed {
        mol,
        recorded: None,
    })
}

/// Starts, completes, blocks or skips step `step` of molecule `id` (refused while the
/// step's needs are incomplete, except for blocking and skipping).
pub fn change_step(
    ws: &Workspace,
    actor: &str,
    id: &str,
    step: &str,
    change: StepChange,
) -> Result<Changed> {
    let verb = change.verb();
    update(ws, actor, id, verb, |mol, now| {
        apply(mol, step, &change, now)?;
        Ok(step.to_string())
    })
}

/// Applies `change` to step `step_id` of `mol` at `now`, or says why it cannot be.
pub fn apply(mol: &mut Molecule, step_id: &str, change: &StepChange, now: Timestamp) -> Result<()> {
    let step = mol.step(step_id)?;
    let mol_id = mol.id.clone();
    if step.status.is_done() {
        return Err(Error::wrong_state(format!(
            "step {step_id} of {mol_id} is already {}",
            step.status.name()
        )));
    }
    if !matches!(change, StepChange::Block(_) | StepChange::Skip(_)) {
        let unmet = mol.unmet_needs(step);
        if !unmet.is_empty() {
            return Err(Error::wrong_state(format!(
                "step {step_id} of {mol_id} needs {} first",
                unmet.join(", ")
            ))
            .with_help(format!(
                "`vermas mol ready {mol_id}` lists the steps that can be worked on now"
            )));
        }
    }
    let step = mol.step_mut(step_id)?;
    match change {
        StepChange::Start => {
            step.status = StepStatus::InProgress;
            step.started_at = Some(now);
            step.reason = None;
        }
        StepChange::Done(output) => {
            step.status = StepStatus::Completed;
            step.started_at.get_or_insert(now);
            step.completed_at = Some(now);
            step.output = output.clone();
            step.reason = None;
        }
        StepChange::Block(reason) => {
            if reason.trim().is_empty() {
                return Err(Error::Invalid("--reason must not be empty".into()));
            }
            step.status = StepStatus::Blocked;
            step.reason = Some(reason.clone());
        }
        StepChange::Skip(reason) => {
            if reason.trim().is_empty() {
                return Err(Error::Invalid("--reason must not be empty".into()));
            }
            step.status = StepStatus::Skipped;
            step.completed_at = Some(now);
            step.output = None;
            step.reason = Some(reason.clone());
        }
    }
    mol.updated_at = now;
    Ok(())
}

/// Reads molecule `id` under the right lock, lets `edit` change it (returning the commit
/// title), writes it back and, for a poured molecule, commits it.
pub fn update(
    ws: &Workspace,
    actor: &str,
    id: &str,
    verb: &str,
    edit: impl FnOnce(&mut Molecule, Timestamp) -> Result<String>,
) -> Result<Changed> {
    let path = molecule::find(ws, id)?;
    if path.starts_with(molecule::wisps_dir(ws)) {
        let _lock = molecule::lock_wisps(ws)?;
        let mut mol = reread(ws, &path, id)?;
        edit(&mut mol, Timestamp::now())?;
        write_atomic(&ws.cache_dir(), &path, molecule::render(&mol)?.as_bytes())?;
        return Ok(Changed {
            mol,
            recorded: None,
        });
    }
    let mut txn = Txn::begin(ws)?;
    // Read again under the lock: another process may have changed it meanwhile.
    let mut mol = reread(ws, &path, id)?;
    let title = edit(&mut mol, Timestamp::now())?;
    txn.write(&path, molecule::render(&mol)?.as_bytes())?;
    let recorded = txn.commit(&message(verb, &mol, &title, actor))?;
    Ok(Changed {
        mol,
        recorded: Some(recorded),
    })
}

/// The molecule at `path`, which `id` resolved to before a lock was taken.
fn reread(ws: &Workspace, path: &Path, id: &str) -> Result<Molecule> {
    if !path.is_file() {
        return Err(Error::conflict(format!(
            "molecule {id} was squashed or burned meanwhile"
        )));
    }
    molecule::read(ws, path)
}

/// Writes the digest of molecule `id` to `.beads/mols/archive/<id>.yaml` and removes the
/// live file, in one commit (a wisp's digest is committed too: it becomes a record).
pub fn squash(ws: &Workspace, actor: &str, id: &str, summary: Option<String>) -> Result<Digest> {
    let path = molecule::find(ws, id)?;
    let wisp = path.starts_with(molecule::wisps_dir(ws));
    let _wisp_lock = if wisp {
        Some(molecule::lock_wisps(ws)?)
    } else {
        None
    };
    let mut txn = Txn::begin(ws)?;
    let mol = reread(ws, &path, id)?;
    let digest = Digest::of(&mol, summary, Timestamp::now());
    let archived = molecule::archive_dir(ws).join(format!("{}.yaml", mol.id));
    txn.write(&archived, molecule::render_digest(&digest)?.as_bytes())?;
    if wisp {
        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    } else {
        txn.remove(&path)?;
    }
    let (done, total) = mol.progress();
    txn.commit(&message(
        "mol squash",
        &mol,
        &format!(
            "{} ({done}/{})",
            mol.formula,
            crate::text::words::plural(total, "step")
        ),
        actor,
    ))?;
    Ok(digest)
}

/// Deletes molecule `id`; refused while steps are in progress or completed unless `force`.
pub fn burn(ws: &Workspace, actor: &str, id: &str, force: bool) -> Result<Changed> {
    let path = molecule::find(ws, id)?;
    let wisp = path.starts_with(molecule::wisps_dir(ws));
    let refuse = |mol: &Molecule| -> Result<()> {
        let worked: Vec<String> = mol
            .steps
            .iter()
            .filter(|s| matches!(s.status, StepStatus::InProgress | StepStatus::Completed))
            .map(|s| format!("{} ({})", s.id, s.status.name()))
            .collect();
        if force || worked.is_empty() {
            return Ok(());
        }
        Err(Error::wrong_state(format!(
            "molecule {} has work in it: {}",
            mol.id,
            worked.join(", ")
        ))
        .with_help(format!(
            "`vermas mol squash {}` keeps a record; `--force` burns it anyway",
            mol.id
        )))
    };
    if wisp {
        let _lock = molecule::lock_wisps(ws)?;
        let mol = reread(ws, &path, id)?;
        refuse(&mol)?;
        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
        return Ok(Changed {
            mol,
            recorded: None,
        });
    }
    let mut txn = Txn::begin(ws)?;
    let mol = reread(ws, &path, id)?;
    refuse(&mol)?;
    txn.remove(&path)?;
    let recorded = txn.commit(&message("mol burn", &mol, &mol.formula, actor))?;
    Ok(Changed {
        mol,
        recorded: Some(recorded),
    })
}

/// The commit message of a change to `mol`.
fn message(verb: &str, mol: &Molecule, title: &str, actor: &str) -> CommitMessage {
    CommitMessage {
        verb: verb.to_string(),
        ids: vec![mol.id.clone()],
        title: title.to_string(),
        actor: actor.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto() -> Proto {
        crate::mol::proto::sample(&[], &[("a", &[]), ("b", &["a"])])
    }

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".beads")).unwrap();
        let ws = Workspace::open(dir.path().join(".beads")).unwrap();
        (dir, ws)
    }

    #[test]
    fn done_refuses_incomplete_needs() {
        let mut m = Molecule::from_proto("mol-x".into(), &proto(), MolState::Liquid, Timestamp(0));
        let err = apply(&mut m, "b", &StepChange::Done(None), Timestamp(1)).unwrap_err();
        assert!(err.to_string().contains("needs a first"), "{err}");
        apply(&mut m, "a", &StepChange::Start, Timestamp(1)).unwrap();
        apply(
            &mut m,
            "a",
            &StepChange::Done(Some("x".into())),
            Timestamp(2),
        )
        .unwrap();
        let a = m.step("a").unwrap();
        assert_eq!(
            (a.status, a.started_at, a.completed_at),
            (
                StepStatus::Completed,
                Some(Timestamp(1)),
                Some(Timestamp(2))
            )
        );
        assert!(apply(&mut m, "a", &StepChange::Start, Timestamp(3)).is_err());
        apply(
            &mut m,
            "b",
            &StepChange::Block("stuck".into()),
            Timestamp(3),
        )
        .unwrap();
        assert_eq!(m.step("b").unwrap().reason.as_deref(), Some("stuck"));
        apply(&mut m, "b", &StepChange::Done(None), Timestamp(4)).unwrap();
        assert_eq!(m.step("b").unwrap().reason, None);
        assert!(m.is_complete());
    }

    #[test]
    fn wisps_expire_and_go() {
        let (_dir, ws) = workspace();
        let w = wisp(&ws, "me", &proto(), Duration::from_secs(60), None).unwrap();
        let at = w.mol.expires_at.unwrap();
        assert!(molecule::path_of(&ws, &w.mol).is_file());
        assert!(purge_expired(&ws, Timestamp(at.0 - 1)).is_empty());
        assert_eq!(purge_expired(&ws, at), vec![w.mol.id.clone()]);
        assert!(molecule::find(&ws, &w.mol.id).is_err());
    }

    #[test]
    fn ttl_must_be_a_positive_duration() {
        assert_eq!(parse_ttl("1h").unwrap(), Duration::from_secs(3600));
        assert!(parse_ttl("soon").is_err());
        assert!(parse_ttl("0s").is_err());
    }

    #[test]
    fn a_wisp_that_would_outlive_year_9999_is_refused_unwritten() {
        let (_dir, ws) = workspace();
        let e = wisp(&ws, "me", &proto(), Duration::MAX, None).unwrap_err();
        assert!(e.to_string().contains("after 9999-12-30T22:00:00Z"), "{e}");
        assert!(molecule::files(&ws).is_empty());
        let e = parse_ttl("9e18s").unwrap_err().to_string();
        assert!(
            e.contains("duration 9e18s is too long (at most 365d)"),
            "{e}"
        );
    }

    #[test]
    fn wisp_steps_change_and_squash_into_the_archive() {
        let (_dir, ws) = workspace();
        let w = wisp(&ws, "me", &proto(), Duration::from_secs(60), None).unwrap();
        let id = &w.mol.id;
        let short = &id["mol-".len()..id.len() - 1];
        change_step(&ws, "me", short, "a", StepChange::Done(Some("ok".into()))).unwrap();
        assert!(burn(&ws, "me", id, false).is_err());
        let d = squash(&ws, "me", id, Some("fine".into())).unwrap();
        assert_eq!(d.progress, "1/2");
        assert!(
            molecule::archive_dir(&ws)
                .join(format!("{id}.yaml"))
                .is_file()
        );
        let err = molecule::find(&ws, id).unwrap_err();
        assert!(err.to_string().contains("squashed"), "{err}");
    }
}
