//! A merge request, one file per submission under `.beads/mq/<id>.yaml`: the branch, the
//! bead whose test spec decides it, the target, its place in the queue, where it stands,
//! and what its last verification found.

use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::{Deserialize, Deserializer, Serialize};
use std::path::{Path, PathBuf};

/// Where a merge request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Waiting in the queue.
    Queued,
    /// Being verified now (or a run was interrupted while verifying it: the next run
    /// takes it again).
    Verifying,
    /// Verified, and the target is being moved to `candidate` (a run killed in between
    /// leaves it so: the next run finishes it).
    Merging,
    /// Verified and landed: the target moved.
    Merged,
    /// Not landed: the inspection FAILed, the branch is not a fast-forward (`ff-only`),
    /// or it has nothing to merge.
    Rejected,
    /// Not landed: the branch does not merge cleanly onto the target.
    Conflict,
    /// Not landed: the verification could not decide (ERROR), or landing failed.
    Error,
    /// Not landed: the judge asked a person a question.
    NeedsHuman,
}

impl State {
    /// The spelling used in files and output.
    pub fn name(self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::Verifying => "verifying",
            State::Merging => "merging",
            State::Merged => "merged",
            State::Rejected => "rejected",
            State::Conflict => "conflict",
            State::Error => "error",
            State::NeedsHuman => "needs_human",
        }
    }

    /// True while a run still has to take the request (a NEEDS_HUMAN one waits for its
    /// answer too, see [`crate::refinery::run`]).
    pub fn is_waiting(self) -> bool {
        matches!(self, State::Queued | State::Verifying | State::Merging)
    }
}

/// One merge request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MergeRequest {
    /// `mq-<hash>`, also the file name.
    pub id: String,
    /// Its place in the queue: requests are taken by ascending `seq`.
    pub seq: u64,
    /// The branch to land (a local branch name).
    pub branch: String,
    /// The work bead whose approved test spec decides whether the branch lands.
    pub bead: String,
    /// The branch it lands on.
    pub target: String,
    /// Where it stands.
    pub state: State,
    /// Verifications so far (a target that moved during one means another).
    #[serde(default)]
    pub attempts: u32,
    /// The verdict of the last verification: PASS, FAIL, NEEDS_HUMAN or ERROR.
    #[serde(default, deserialize_with = "verdict_word")]
    pub last_verdict: Option<String>,
    /// Why it stands where it does (the verdict's reasons, the refusal, the error).
    #[serde(default)]
    pub reason: Option<String>,
    /// With `conflict`: the paths that did not merge.
    #[serde(default, deserialize_with = "crate::text::yaml::null_as_empty")]
    pub conflicts: Vec<String>,
    /// The target's tip the last candidate was built on.
    #[serde(default)]
    pub target_tip: Option<String>,
    /// The commit last verified: the one that would land (in a batch, the top of its
    /// stack, holding every request of it).
    #[serde(default)]
    pub candidate: Option<String>,
    /// With `merged`: the commit that brought the branch in (alone, the commit the target
    /// moved to; in a batch, its own merge, below the others stacked on it).
    #[serde(default)]
    pub merged_commit: Option<String>,
    /// The batch it was last verified in, when others were verified with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<BatchPlace>,
    /// Who submitted it.
    pub submitted_by: String,
    /// When it was submitted.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A request's place in the batch it was verified in: the requests whose merges were
/// stacked onto the target's tip in queue order (`candidate` is the top of that stack).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchPlace {
    /// The requests verified together, in the order they were stacked.
    pub requests: Vec<String>,
    /// The commit its own merge was built on: the target's tip, or the merge of the
    /// request before it. Its diff, which the LLM roles judge, starts here.
    pub base: String,
    /// Its own merge in the stack.
    pub commit: String,
}

/// Reads `last_verdict`, refusing a word that is not a verdict.
fn verdict_word<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    let word: Option<String> = Option::deserialize(d)?;
    match word.as_deref() {
        None | Some("PASS" | "FAIL" | "NEEDS_HUMAN" | "ERROR") => Ok(word),
        Some(other) => Err(serde::de::Error::custom(format!(
            "last_verdict must be PASS, FAIL, NEEDS_HUMAN or ERROR, not '{other}'"
        ))),
    }
}

/// `.beads/mq`: the merge requests.
pub fn dir(ws: &Workspace) -> PathBuf {
    ws.path(crate::workspace::layout::MERGE_QUEUE)
}

/// The file of request `id`.
pub fn path(ws: &Workspace, id: &str) -> PathBuf {
    dir(ws).join(format!("{id}.yaml"))
}

/// The YAML text of a request, fields in their declared order.
pub fn render(req: &MergeRequest) -> Result<String> {
    crate::text::yaml::to_string(req).map_err(Error::Invalid)
}

/// Reads one request file (errors point at file, line and column); a symlink only when
/// it stays inside the repository.
pub fn read(ws: &Workspace, path: &Path) -> Result<MergeRequest> {
    let req: MergeRequest = ws.read_named_record(path, |r: &MergeRequest| &r.id)?;
    Ok(req)
}

/// Every request, in queue order, plus the files that did not read.
pub fn load_all(ws: &Workspace) -> Result<(Vec<MergeRequest>, Vec<Error>)> {
    let dir = ws.contain(&dir(ws))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    let mut broken = Vec::new();
    for f in files {
        match read(ws, &f) {
            Ok(r) => all.push(r),
            Err(e) => broken.push(e),
        }
    }
    all.sort_by(|a, b| (a.seq, a.created_at, &a.id).cmp(&(b.seq, b.created_at, &b.id)));
    Ok((all, broken))
}

/// Writes `req` as it stands to its file, uncommitted: the intent a run records before it
/// moves the target, so a run killed in between can be finished by the next (the
/// request's final commit takes the file along).
pub fn write_intent(ws: &Workspace, req: &MergeRequest) -> Result<()> {
    crate::store::write_atomic(&ws.cache_dir(), &path(ws, &req.id), render(req)?.as_bytes())
}

/// A new request id, free among the request files.
pub fn new_id(ws: &Workspace, branch: &str, actor: &str, count: usize) -> String {
    crate::store::id::fresh("mq", branch, actor, count, |id| path(ws, id).exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> MergeRequest {
        MergeRequest {
            id: "mq-a1b2".into(),
            seq: 3,
            branch: "feature/login".into(),
            bead: "vm-k3f9".into(),
            target: "main".into(),
            state: State::Conflict,
            attempts: 1,
            last_verdict: None,
            reason: Some("conflicts in 2 files".into()),
            conflicts: vec!["src/a.rs".into(), "b c.txt".into()],
            target_tip: Some("0123".into()),
            candidate: None,
            merged_commit: None,
            batch: None,
            submitted_by: "alice".into(),
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_100),
        }
    }

    #[test]
    fn a_request_reads_back_as_written() {
        let req = sample();
        let text = render(&req).unwrap();
        assert!(text.contains("state: conflict"), "{text}");
        let back: MergeRequest = crate::text::yaml::parse(&text, "mq-a1b2.yaml", &text, 1).unwrap();
        assert_eq!(back, req);
    }

    #[test]
    fn a_batch_place_reads_back_and_a_lone_request_writes_none() {
        let lone = render(&sample()).unwrap();
        assert!(!lone.contains("batch"), "{lone}");
        let mut req = sample();
        req.batch = Some(BatchPlace {
            requests: vec!["mq-a1b2".into(), "mq-c3d4".into()],
            base: "0123".into(),
            commit: "4567".into(),
        });
        let text = render(&req).unwrap();
        let back: MergeRequest = crate::text::yaml::parse(&text, "mq-a1b2.yaml", &text, 1).unwrap();
        assert_eq!(back, req);
    }

    #[test]
    fn an_unknown_state_or_verdict_is_refused_with_its_line() {
        let text = render(&sample())
            .unwrap()
            .replace("state: conflict", "state: landed");
        let e = crate::text::yaml::parse::<MergeRequest>(&text, "mq.yaml", &text, 1).unwrap_err();
        assert!(e.to_string().contains("mq.yaml:"), "{e}");
        let text = render(&sample())
            .unwrap()
            .replace("last_verdict: null", "last_verdict: MAYBE");
        let e = crate::text::yaml::parse::<MergeRequest>(&text, "mq.yaml", &text, 1).unwrap_err();
        assert!(e.to_string().contains("MAYBE"), "{e}");
    }
}
