//! A molecule: a proto poured into a workflow instance with per-step status,
//! stored as `.beads/mols/<id>.yaml` (poured, committed) or `.beads/wisps/mols/<id>.yaml`
//! (a wisp: ephemeral, never committed, expires), and its squashed digest in
//! `.beads/mols/archive/<id>.yaml`.

use super::proto::Proto;
use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::workspace::{Workspace, layout};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Where a molecule is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MolState {
    /// Poured: persistent, committed.
    Liquid,
    /// A wisp: ephemeral, never committed.
    Vapor,
    /// Squashed into a digest.
    Archive,
}

impl MolState {
    /// The word used in files and output.
    pub fn name(self) -> &'static str {
        match self {
            MolState::Liquid => "liquid",
            MolState::Vapor => "vapor",
            MolState::Archive => "archive",
        }
    }
}

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    #[default]
    Pending,
    /// Someone is working on it.
    InProgress,
    /// Done.
    Completed,
    /// Cannot go on (see its reason).
    Blocked,
    /// Not needed; counts as done for the steps that need it.
    Skipped,
}

impl StepStatus {
    /// The word used in files and output.
    pub fn name(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::InProgress => "in_progress",
            StepStatus::Completed => "completed",
            StepStatus::Blocked => "blocked",
            StepStatus::Skipped => "skipped",
        }
    }

    /// True when the step no longer holds up the steps that need it.
    pub fn is_done(self) -> bool {
        matches!(self, StepStatus::Completed | StepStatus::Skipped)
    }
}

/// One step of a molecule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Unique within the molecule.
    pub id: String,
    /// Short title.
    pub title: String,
    /// What to do.
    #[serde(default)]
    pub description: String,
    /// Ids of the steps that must complete first.
    #[serde(default)]
    pub needs: Vec<String>,
    /// Where it stands.
    #[serde(default)]
    pub status: StepStatus,
    /// When work on it began.
    #[serde(default)]
    pub started_at: Option<Timestamp>,
    /// When it completed.
    #[serde(default)]
    pub completed_at: Option<Timestamp>,
    /// What it produced.
    #[serde(default)]
    pub output: Option<String>,
    /// Why it is blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A stored workflow instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Molecule {
    /// `mol-<base36>`.
    pub id: String,
    /// The formula it was cooked from.
    pub formula: String,
    /// The formula's version.
    #[serde(default)]
    pub version: Option<String>,
    /// The bead it works on.
    #[serde(default)]
    pub bead_id: Option<String>,
    /// liquid (poured) or vapor (wisp).
    pub state: MolState,
    /// The variables it was cooked with.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// When it was poured.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
    /// When a wisp expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// Its steps, in a dependency order.
    pub steps: Vec<Step>,
}

impl Molecule {
    /// A fresh molecule from `proto`: every step pending.
    pub fn from_proto(id: String, proto: &Proto, state: MolState, now: Timestamp) -> Molecule {
        Molecule {
            id,
            formula: proto.formula.clone(),
            version: proto.version.clone(),
            bead_id: None,
            state,
            vars: proto.vars.clone(),
            created_at: now,
            updated_at: now,
            expires_at: None,
            steps: proto
                .steps
                .iter()
                .map(|s| Step {
                    id: s.id.clone(),
                    title: s.title.clone(),
                    description: s.description.clone(),
                    needs: s.needs.clone(),
                    status: StepStatus::Pending,
                    started_at: None,
                    completed_at: None,
                    output: None,
                    reason: None,
                })
                .collect(),
        }
    }

    /// The step `id`, or an error naming the steps there are.
    pub fn step(&self, id: &str) -> Result<&Step> {
        self.steps.iter().find(|s| s.id == id).ok_or_else(|| {
            Error::invalid_with_help(
                format!("molecule {} has no step '{id}'", self.id),
                format!(
                    "its steps are: {}",
                    self.steps
                        .iter()
                        .map(|s| s.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
    }

    /// The step `id`, mutable.
    pub fn step_mut(&mut self, id: &str) -> Result<&mut Step> {
        self.step(id)?;
        Ok(self
            .steps
            .iter_mut()
            .find(|s| s.id == id)
            .expect("step exists"))
    }

    /// The needs of `step` that are not done yet.
    pub fn unmet_needs(&self, step: &Step) -> Vec<String> {
        step.needs
            .iter()
            .filter(|n| !self.steps.iter().any(|s| &s.id == *n && s.status.is_done()))
            .cloned()
            .collect()
    }

    /// Pending steps whose needs are all done, in the molecule's order.
    pub fn ready(&self) -> Vec<&Step> {
        self.steps
            .iter()
            .filter(|s| s.status == StepStatus::Pending && self.unmet_needs(s).is_empty())
            .collect()
    }

    /// Steps done and steps in all.
    pub fn progress(&self) -> (usize, usize) {
        let done = self.steps.iter().filter(|s| s.status.is_done()).count();
        (done, self.steps.len())
    }

    /// True when every step is done.
    pub fn is_complete(&self) -> bool {
        self.steps.iter().all(|s| s.status.is_done())
    }

    /// True when a wisp's time is up at `now`.
    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|t| now >= t)
    }
}

/// One step of a digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DigestStep {
    /// Step id.
    pub id: String,
    /// Step title.
    pub title: String,
    /// Where it stood when squashed.
    pub status: StepStatus,
    /// When it completed.
    #[serde(default)]
    pub completed_at: Option<Timestamp>,
    /// What it produced.
    #[serde(default)]
    pub output: Option<String>,
    /// Why it was blocked or skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The permanent record a squash leaves in `.beads/mols/archive/<id>.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// The molecule's id.
    pub id: String,
    /// Its formula.
    pub formula: String,
    /// The formula's version.
    #[serde(default)]
    pub version: Option<String>,
    /// The bead it worked on.
    #[serde(default)]
    pub bead_id: Option<String>,
    /// Always `archive`.
    pub state: MolState,
    /// The variables it was cooked with.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// When it was poured.
    pub created_at: Timestamp,
    /// When it was squashed.
    pub squashed_at: Timestamp,
    /// Steps done and steps in all, as `x/y`.
    pub progress: String,
    /// The summary given to squash.
    #[serde(default)]
    pub summary: Option<String>,
    /// Each step with its status and output.
    pub steps: Vec<DigestStep>,
}

impl Digest {
    /// The digest of `mol` squashed at `now`.
    pub fn of(mol: &Molecule, summary: Option<String>, now: Timestamp) -> Digest {
        let (done, total) = mol.progress();
        Digest {
            id: mol.id.clone(),
            formula: mol.formula.clone(),
            version: mol.version.clone(),
            bead_id: mol.bead_id.clone(),
            state: MolState::Archive,
            vars: mol.vars.clone(),
            created_at: mol.created_at,
            squashed_at: now,
            progress: format!("{done}/{total}"),
            summary,
            steps: mol
                .steps
                .iter()
                .map(|s| DigestStep {
                    id: s.id.clone(),
                    title: s.title.clone(),
                    status: s.status,
                    completed_at: s.completed_at,
                    output: s.output.clone(),
                    reason: s.reason.clone(),
                })
                .collect(),
        }
    }
}

/// `.beads/mols`: poured molecules.
pub fn mols_dir(ws: &Workspace) -> PathBuf {
    ws.path(layout::MOLS)
}

/// `.beads/mols/archive`: squashed digests.
pub fn archive_dir(ws: &Workspace) -> PathBuf {
    ws.path(layout::MOLS_ARCHIVE)
}

/// `.beads/wisps/mols`: wisps.
pub fn wisps_dir(ws: &Workspace) -> PathBuf {
    ws.path(layout::WISP_MOLS)
}

/// The file a molecule lives in, by its state.
pub fn path_of(ws: &Workspace, mol: &Molecule) -> PathBuf {
    let dir = match mol.state {
        MolState::Vapor => wisps_dir(ws),
        MolState::Liquid => mols_dir(ws),
        MolState::Archive => archive_dir(ws),
    };
    dir.join(format!("{}.yaml", mol.id))
}

/// The YAML text of a molecule, fields in their declared order.
pub fn render(mol: &Molecule) -> Result<String> {
    crate::text::yaml::to_string(mol).map_err(Error::Invalid)
}

/// The YAML text of a digest.
pub fn render_digest(digest: &Digest) -> Result<String> {
    crate::text::yaml::to_string(digest).map_err(Error::Invalid)
}

/// Reads and checks one molecule file (errors point at file, line and column); a symlink
/// only when it stays inside the repository.
pub fn read(ws: &Workspace, path: &Path) -> Result<Molecule> {
    let mol: Molecule = ws.read_named_record(path, |m: &Molecule| &m.id)?;
    let shown = ws.display(path);
    let mut seen = std::collections::BTreeSet::new();
    for step in &mol.steps {
        if !seen.insert(step.id.as_str()) {
            return Err(Error::Invalid(format!(
                "{shown}: step '{}' appears twice",
                step.id
            )));
        }
    }
    for step in &mol.steps {
        if let Some(n) = step.needs.iter().find(|n| !seen.contains(n.as_str())) {
            return Err(Error::Invalid(format!(
                "{shown}: step '{}' needs '{n}', which is not a step",
                step.id
            )));
        }
    }
    Ok(mol)
}

/// The `*.yaml` files directly in `dir` (none when it does not exist).
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

/// Every live molecule file: poured ones, then wisps.
pub fn files(ws: &Workspace) -> Vec<PathBuf> {
    let mut all = yaml_files(&mols_dir(ws));
    all.extend(yaml_files(&wisps_dir(ws)));
    all
}

/// Every live molecule (poured and wisps), oldest first, plus the files that did not read.
pub fn load_all(ws: &Workspace) -> (Vec<Molecule>, Vec<Error>) {
    let mut mols = Vec::new();
    let mut broken = Vec::new();
    for path in files(ws) {
        match read(ws, &path) {
            Ok(m) => mols.push(m),
            Err(e) => broken.push(e),
        }
    }
    mols.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    (mols, broken)
}

/// The file of the live molecule `id` names exactly or by unique prefix (of the id, or of
/// the part after `mol-`).
pub fn find(ws: &Workspace, id: &str) -> Result<PathBuf> {
    let all = files(ws);
    let stem = |p: &PathBuf| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if let Some(exact) = all.iter().find(|p| stem(p) == id) {
        return Ok(exact.clone());
    }
    let mut found: Vec<&PathBuf> = all.iter().filter(|p| stem(p).starts_with(id)).collect();
    if found.is_empty() {
        found = all
            .iter()
            .filter(|p| {
                stem(p)
                    .split_once('-')
                    .is_some_and(|(_, h)| h.starts_with(id))
            })
            .collect();
    }
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            let archived = archive_dir(ws).join(format!("{id}.yaml"));
            if crate::store::id::is_valid(id) && archived.is_file() {
                return Err(Error::wrong_state(format!(
                    "molecule {id} was squashed: its digest is {}",
                    ws.display(&archived)
                )));
            }
            Err(Error::Missing {
                message: format!("no molecule matches '{id}'"),
                help: "`vermas mol list` shows every molecule".into(),
            })
        }
        many => Err(Error::Ambiguous {
            prefix: id.to_string(),
            candidates: many.iter().map(|p| stem(p)).collect(),
        }),
    }
}

/// The live molecule `id` names, with its file.
pub fn load(ws: &Workspace, id: &str) -> Result<(PathBuf, Molecule)> {
    let path = find(ws, id)?;
    let mol = read(ws, &path)?;
    Ok((path, mol))
}

/// A new molecule id, free among poured, archived and wisp molecules.
pub fn new_id(ws: &Workspace, formula: &str, actor: &str) -> String {
    let taken = |id: &str| {
        let file = format!("{id}.yaml");
        [mols_dir(ws), archive_dir(ws), wisps_dir(ws)]
            .iter()
            .any(|d| d.join(&file).exists())
    };
    let count = files(ws).len() + yaml_files(&archive_dir(ws)).len();
    crate::store::id::fresh("mol", formula, actor, count, taken)
}

/// Takes the lock that serialises changes to wisps (`.beads/wisps/.lock`, never
/// committed); released when the file is dropped.
pub fn lock_wisps(ws: &Workspace) -> Result<File> {
    ws.lock_file(&ws.path(layout::WISPS), layout::LOCK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mol::proto::ProtoStep;

    fn proto() -> Proto {
        let step = |id: &str, needs: &[&str]| ProtoStep {
            id: id.into(),
            title: format!("Do {id}"),
            description: format!("Line one of {id}.\nLine two: with a colon."),
            needs: needs.iter().map(|s| s.to_string()).collect(),
        };
        Proto {
            formula: "review".into(),
            version: Some("1".into()),
            description: "A review".into(),
            vars: BTreeMap::from([("bead_id".into(), "vm-1".into())]),
            steps: vec![
                step("a", &[]),
                step("b", &["a"]),
                step("c", &["a"]),
                step("d", &["b", "c"]),
            ],
        }
    }

    #[test]
    fn ready_follows_needs() {
        let mut m = Molecule::from_proto("mol-x".into(), &proto(), MolState::Liquid, Timestamp(0));
        let ids = |m: &Molecule| m.ready().iter().map(|s| s.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&m), ["a"]);
        m.step_mut("a").unwrap().status = StepStatus::Completed;
        assert_eq!(ids(&m), ["b", "c"]);
        m.step_mut("b").unwrap().status = StepStatus::Skipped;
        m.step_mut("c").unwrap().status = StepStatus::InProgress;
        assert!(ids(&m).is_empty());
        assert_eq!(m.unmet_needs(m.step("d").unwrap()), ["c"]);
        assert_eq!(m.progress(), (2, 4));
        assert!(!m.is_complete());
        assert!(m.step("zz").is_err());
    }

    #[test]
    fn yaml_round_trips_in_field_order() {
        let mut m = Molecule::from_proto("mol-x".into(), &proto(), MolState::Vapor, Timestamp(0));
        m.expires_at = Some(Timestamp(3600));
        let s = m.step_mut("a").unwrap();
        s.status = StepStatus::Blocked;
        s.reason = Some("no: really".into());
        s.output = Some("yes".into());
        let text = render(&m).unwrap();
        let keys: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.starts_with('-'))
            .filter_map(|l| l.split(':').next())
            .collect();
        assert_eq!(
            keys,
            [
                "id",
                "formula",
                "version",
                "bead_id",
                "state",
                "vars",
                "created_at",
                "updated_at",
                "expires_at",
                "steps"
            ],
            "{text}"
        );
        let back: Molecule = crate::text::yaml::parse(&text, "m.yaml", &text, 1).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn unknown_fields_point_at_the_line() {
        let text = "id: mol-x\nformula: f\nstate: liquid\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\nbogus: 1\nsteps: []\n";
        let err = crate::text::yaml::parse::<Molecule>(text, "m.yaml", text, 1).unwrap_err();
        assert_eq!(err.line, 6, "{err}");
    }

    #[test]
    fn digest_keeps_status_and_output() {
        let mut m = Molecule::from_proto("mol-x".into(), &proto(), MolState::Liquid, Timestamp(0));
        let a = m.step_mut("a").unwrap();
        a.status = StepStatus::Completed;
        a.output = Some("done it".into());
        let d = Digest::of(&m, Some("ok".into()), Timestamp(5));
        assert_eq!(d.progress, "1/4");
        assert_eq!(d.state, MolState::Archive);
        assert_eq!(d.steps[0].output.as_deref(), Some("done it"));
        let text = render_digest(&d).unwrap();
        assert!(text.contains("summary: ok"), "{text}");
    }
}
