//! `sling`: handing work to an agent, only once its test spec is approved — or, in an
//! emergency, with `--force --reason`, which leaves an audit note and a label.

use super::testspec;
use crate::bead::model::{Bead, Status};
use crate::bead::store::{bead_path, load_one};
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

pub use crate::bead::routing::GATE_BYPASSED;

/// What `sling` did.
#[derive(Debug, Clone)]
pub struct Slung {
    /// The work as written.
    pub work: Bead,
    /// The agent's address the work was mailed to.
    pub mailed: String,
    /// True when the gate was bypassed.
    pub forced: bool,
    /// What git recorded.
    pub recorded: Recorded,
}

/// What `sling` is asked.
#[derive(Debug, Clone, Default)]
pub struct SlingRequest<'a> {
    /// The agent (else the actor).
    pub agent: Option<&'a str>,
    /// The branch (else `AGENT/ID`).
    pub branch: Option<&'a str>,
    /// Make the worker a worktree of its own on that branch (also when config
    /// `sling.worktree` is true).
    pub worktree: bool,
    /// Bypass the test-spec gate, for this reason.
    pub force: Option<&'a str>,
}

/// Assigns work `id` as `asked`: to the agent (else the actor) on the branch (else
/// `<agent>/<id>`, recorded on the work: the refinery judges that branch as this work),
/// with a worktree of its own when asked, `in_progress`, mail "WORK ASSIGNED" with its
/// criteria, one commit. Refused while its test spec is missing or not approved,
/// unless `force` carries a reason.
pub fn sling(ws: &Workspace, actor: &str, id: &str, asked: &SlingRequest<'_>) -> Result<Slung> {
    let (agent, branch, force) = (asked.agent, asked.branch, asked.force);
    if let Some(reason) = force
        && reason.trim().is_empty()
    {
        return Err(Error::usage("--force needs a --reason"));
    }
    let mut txn = Txn::begin(ws)?;
    let mut work = load_one(ws, id)?;
    if work.issue_type == crate::bead::model::IssueType::TestSpec {
        let of = work.parent.as_deref().unwrap_or("its work");
        return Err(Error::Invalid(format!(
            "{} is a test spec, not work: sling {of} instead",
            work.id
        )));
    }
    let spec = testspec::of_work(ws, &work.id)?;
    if force.is_none() {
        gate(&work, spec.as_ref())?;
    }
    let now = Timestamp::now();
    let agent = agent.unwrap_or(actor).to_string();
    let address = if agent.contains('/') {
        agent.clone()
    } else {
        format!("{agent}/")
    };
    let branch = match branch {
        Some(b) => b.trim().to_string(),
        None => format!("{}/{}", agent.trim_end_matches('/'), work.id),
    };
    if let Some(other) = crate::bead::store::owner_of_branch(ws, &branch)?
        && other.id != work.id
    {
        return Err(Error::conflict(format!(
            "branch '{branch}' is the work of {} already",
            other.id
        ))
        .with_help("name another branch with --branch NAME"));
    }
    if asked.worktree || ws.config.sling.worktree {
        work.worktree = Some(worker_worktree(ws, &branch, &agent, &work.id)?);
    }
    work.branch = Some(branch);
    work.assignee = Some(agent.clone());
    work.status = Status::InProgress;
    work.updated_at = Some(now);
    if let Some(reason) = force {
        crate::bead::ops::add_note(
            &mut work,
            actor,
            format!("GATE_BYPASS: {} (by {actor})", reason.trim()),
            now,
        );
        if !work.labels.iter().any(|l| l == GATE_BYPASSED) {
            work.labels.push(GATE_BYPASSED.into());
        }
    }
    txn.write(&bead_path(ws, &work.id), work.render().as_bytes())?;
    crate::mail::ops::send_in(
        &mut txn,
        ws,
        testspec::notice(
            ws,
            actor,
            &address,
            format!("WORK ASSIGNED: {}", work.title),
            assignment(&work, spec.as_ref()),
        ),
    )?;
    let recorded = txn.commit(&CommitMessage {
        verb: "sling".into(),
        ids: vec![work.id.clone()],
        title: work.title.clone(),
        actor: actor.to_string(),
    })?;
    Ok(Slung {
        work,
        mailed: address,
        forced: force.is_some(),
        recorded,
    })
}

/// The test-spec gate: `work` may be slung only once its test spec is approved.
fn gate(work: &Bead, spec: Option<&Bead>) -> Result<()> {
    if spec.is_some_and(|s| s.status == Status::Closed) {
        return Ok(());
    }
    Err(match spec {
        Some(s) => {
            let (why, next) = testspec::not_approved(s);
            Error::wrong_state(format!("{} cannot be slung: {why}", work.id)).with_help(format!(
                "{next} (or, in an emergency, sling --force --reason \"...\")"
            ))
        }
        None => Error::wrong_state(format!("{} cannot be slung: it has no test spec", work.id))
            .with_help(format!(
                "create one: vermas inspect create-spec {}",
                work.id
            )),
    })
}

/// The body of the "WORK ASSIGNED" mail: the work, its description, the criteria of its
/// test spec and what to run when done.
fn assignment(work: &Bead, spec: Option<&Bead>) -> String {
    let mut body = format!("{}: {}\n", work.id, work.title);
    if !work.description.trim().is_empty() {
        let _ = writeln!(body, "\n{}", work.description.trim());
    }
    if let Some(s) = spec {
        let _ = writeln!(body, "\nAcceptance criteria ({}):", s.id);
        for c in &s.acceptance_criteria {
            let (kind, target) = testspec::kind_of(c);
            let _ = writeln!(body, "- {}: {}  ({kind}: {target})", c.id, c.description);
        }
    }
    if let Some(branch) = &work.branch {
        let _ = writeln!(
            body,
            "\nBranch: {branch} (the refinery judges this branch as {})",
            work.id
        );
    }
    if let Some(dir) = &work.worktree {
        let _ = writeln!(
            body,
            "Worktree: {dir} (work there; `vermas refinery submit` there submits it)"
        );
    }
    let _ = writeln!(body, "\nWhen done: vermas inspect run {}", work.id);
    body
}

/// Makes the worker's worktree for `branch` (from the refinery's target, else the branch
/// checked out) under `sling.worktree_dir`, else `<repository>-worktrees` beside the
/// repository; returns its path. An existing worktree of that branch is taken as it is.
fn worker_worktree(ws: &Workspace, branch: &str, agent: &str, id: &str) -> Result<String> {
    let root = crate::git::GitRepo::open(&ws.root)
        .map(|r| r.workdir().to_path_buf())
        .ok_or_else(|| Error::wrong_state("a worktree needs a git repository"))?;
    let git = crate::git::Git::new(&root, ws.config.git.author.as_deref());
    if let Some(dir) = git.checkouts_of(branch)?.into_iter().next() {
        return Ok(dir.to_string_lossy().into_owned());
    }
    let main = crate::git::linked_checkout(&root)?.map_or(root, |l| l.main);
    let folder = match &ws.config.sling.worktree_dir {
        Some(dir) => main.join(dir),
        None => {
            let name = main.file_name().map(|n| n.to_string_lossy().into_owned());
            main.with_file_name(format!("{}-worktrees", name.unwrap_or_default()))
        }
    };
    let name: String = format!("{}-{id}", agent.trim_end_matches('/'))
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let dir = folder.join(name);
    let start = ws
        .config
        .refinery
        .target
        .clone()
        .or_else(|| git.current_branch())
        .unwrap_or_else(|| "HEAD".to_string());
    std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
    git.worker_worktree(&dir, branch, &start)?;
    Ok(dir.to_string_lossy().into_owned())
}
