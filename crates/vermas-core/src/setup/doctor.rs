//! `doctor`: what it checks in a workspace (settings, records, git) and what `--fix`
//! commits.

use super::readable::unreadable;
use crate::bead::{BeadSet, graph};
use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::store::{CommitMessage, Recorded, Txn};
use crate::workspace::{PrefixOrigin, Workspace};

/// One finding of `doctor`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// `ok`, `warning` or `error`.
    pub level: &'static str,
    /// What was checked or found.
    pub message: String,
}

/// Checks the workspace: records parse, dependencies resolve and do not loop, git is
/// recording and `.beads` has no uncommitted leftovers.
pub fn doctor(ws: &Workspace) -> Result<Vec<Finding>> {
    let mut out = Vec::new();
    let mut add = |level: &'static str, message: String| out.push(Finding { level, message });
    add(
        "ok",
        format!(
            "workspace {} (prefix {})",
            ws.display(&ws.beads_dir),
            ws.config.prefix
        ),
    );
    if let Some(ledger) = ws.shared_ledger() {
        add(
            "ok",
            format!("Ledger: {} (the main worktree's)", ledger.display()),
        );
    }
    settings_findings(ws, &mut add);
    approval_findings(ws, &mut add);
    worktree_findings(ws, &mut add);
    for role in crate::roles::workspace::stale(ws) {
        add(
            "warning",
            format!(
                "{}: out of date with {} (`vermas init --roles --workspaces` copies it again)",
                ws.display(&crate::roles::workspace::claude_md(ws, role)),
                ws.display(&crate::roles::path(ws, role))
            ),
        );
    }
    record_findings(ws, &mut add)?;
    git_findings(ws, &mut add);
    driver_findings(ws, &mut add);
    Ok(out)
}

/// Adds one `doctor` finding: its level and message.
type Add<'a> = dyn FnMut(&'static str, String) + 'a;

/// `doctor` on what verdicts rest on: whether approvals are authenticated (and how to turn
/// it on), and what of the settings or the Inspector's records a verdict would not use.
fn approval_findings(ws: &Workspace, add: &mut Add<'_>) {
    let trusted = match crate::trusted::Trusted::of(ws) {
        Ok(t) => t,
        Err(e) => {
            add("warning", format!("cannot tell what verdicts rest on: {e}"));
            return;
        }
    };
    // Not authenticated is how every repository starts: said plainly, not warned about.
    add("ok", format!("Approvals: {}", trusted.note()));
    for w in &trusted.warnings {
        add("warning", w.clone());
    }
    if let Ok(Some(problem)) = trusted.records_problem(ws) {
        add("warning", problem);
    }
}

/// `doctor` on workers' worktrees: those left although their work is closed.
fn worktree_findings(ws: &Workspace, add: &mut Add<'_>) {
    for (dir, bead) in crate::refinery::worker::left_over(ws) {
        add(
            "warning",
            format!(
                "the worker worktree {dir} is left although its work {} is closed: `git \
                 worktree remove {dir}`",
                bead.id
            ),
        );
    }
}

/// `doctor` on the settings: where the prefix comes from, LLM commands that cannot run.
fn settings_findings(ws: &Workspace, add: &mut Add<'_>) {
    let config_file = ws.display(&ws.config_path());
    match &ws.prefix_origin {
        PrefixOrigin::Config => {}
        PrefixOrigin::Beads | PrefixOrigin::Bd | PrefixOrigin::Default => add(
            "warning",
            format!(
                "{config_file} sets no prefix: new ids take '{}'{}",
                ws.config.prefix,
                match ws.prefix_origin {
                    PrefixOrigin::Beads => ", the prefix of the existing beads",
                    PrefixOrigin::Bd => ", bd's issue-prefix",
                    _ => "",
                }
            ),
        ),
        PrefixOrigin::Unclear(_) => add(
            "error",
            ws.id_prefix()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
        ),
    }
    let mut commands = vec![("llm.command".to_string(), ws.config.llm.command.clone())];
    for (role, command) in &ws.config.llm.roles {
        commands.push((format!("llm.roles.{role}"), command.clone()));
    }
    for (key, command) in commands {
        if let Err(m) = crate::config::check_runnable(&command, &ws.root) {
            add("warning", format!("{key}: {m}"));
        }
    }
}

/// `doctor` on the records: beads that do not parse, dependencies on missing beads, spec
/// links to missing files, dependency cycles.
fn record_findings(ws: &Workspace, add: &mut Add<'_>) -> Result<()> {
    let set = BeadSet::load(ws)?;
    add(
        "ok",
        format!(
            "{} readable",
            crate::text::words::plural(set.beads.len(), "bead")
        ),
    );
    for e in &set.broken {
        add("error", e.to_string());
    }
    for bead in set.beads.values() {
        for d in &bead.dependencies {
            if !set.beads.contains_key(&d.depends_on_id) {
                add(
                    "warning",
                    format!("{} depends on missing bead {}", bead.id, d.depends_on_id),
                );
            }
        }
    }
    for bead in set.beads.values() {
        if let Some(spec) = bead.spec.as_deref().filter(|s| !ws.root.join(s).exists()) {
            add(
                "warning",
                format!("{} links spec {spec}, which does not exist", bead.id),
            );
        }
    }
    for cycle in graph::cycles(&set) {
        add("error", format!("dependency cycle: {}", cycle.join(" -> ")));
    }
    for cycle in graph::parent_cycles(&set) {
        add(
            "error",
            format!(
                "parent cycle (each is the next one's child): {}",
                cycle.join(" -> ")
            ),
        );
    }
    Ok(())
}

/// `doctor` on the merge driver: named in git's config and for the record files.
fn driver_findings(ws: &Workspace, add: &mut Add<'_>) {
    if GitRepo::open(&ws.beads_dir).is_none() {
        return;
    }
    let registered = super::driver::registered(ws);
    let attributed = super::driver::attributed(ws);
    if !registered {
        add(
            "warning",
            format!(
                "git's merge driver `vermas` is not registered (merge.vermas.driver): a `git \
                 pull` merges records by lines and may conflict; run `vermas init` (or \
                 `git config merge.vermas.driver \"{}\"`)",
                super::driver::DRIVER
            ),
        );
    }
    if !attributed {
        add(
            "warning",
            format!(
                "{} does not name the merge driver for record files: run `vermas init`",
                ws.display(&ws.beads_dir.join(".gitattributes"))
            ),
        );
    }
    if registered && attributed {
        add(
            "ok",
            "records merge by meaning (merge driver `vermas`)".into(),
        );
    }
}

/// `doctor` on git: recording on or off, an interrupted change, git lock files left,
/// record files not in HEAD.
fn git_findings(ws: &Workspace, add: &mut Add<'_>) {
    match GitRepo::open(&ws.beads_dir) {
        None => add(
            "warning",
            "not inside a git work tree: changes are not recorded".into(),
        ),
        Some(_) if !ws.config.git.commit => add(
            "warning",
            "git.commit is false: changes are not recorded".into(),
        ),
        Some(_) => add("ok", "git recording on".into()),
    }
    if ws.cache_dir().join("pending").exists() {
        add(
            "warning",
            "an interrupted change left uncommitted files; the next vermas change commits them"
                .into(),
        );
    }
    if let Some(repo) = GitRepo::open(&ws.beads_dir) {
        let root = repo.workdir();
        for lock in crate::git::leftovers::git_locks(root) {
            let path = lock.path.display();
            add(
                "error",
                if lock.in_use {
                    format!(
                        "{path} is held by a running process (a git command at work); wait for it"
                    )
                } else {
                    format!(
                        "{path} is left over: no process holds it, and it blocks git commands; if no git command is running, remove it"
                    )
                },
            );
        }
        if let Ok(git) = crate::refinery::queue::repository(ws) {
            for dir in crate::git::TempWorktree::leftovers(&git) {
                add(
                    "warning",
                    format!(
                        "{} is a refinery worktree that a run which died left; the next \
                         `vermas refinery run` removes it",
                        dir.display()
                    ),
                );
            }
        }
        // A warning, not an error: a hand edit of a record is the user's to commit. With
        // git.commit off nothing is recorded, which the finding above says already.
        if ws.config.git.commit {
            for (path, state) in crate::git::leftovers::unrecorded(root, &ws.beads_dir) {
                let why = unreadable(ws, &root.join(&path));
                add("warning", unrecorded_message(&path, &state, why.as_deref()));
            }
        }
    }
}

/// What `doctor` says of a record file whose git status is `state` (`??`, `M`, `D`...),
/// and `why` it cannot be committed as it is, if so.
fn unrecorded_message(path: &str, state: &str, why: Option<&str>) -> String {
    if let Some(why) = why {
        format!(
            "{path} differs from HEAD (git status {state}) but is not a record vermas can \
             read: {why}; `vermas doctor --fix` leaves it: fix it or remove it"
        )
    } else if state.contains('D') {
        format!(
            "{path} is deleted but still in HEAD (git status {state}); `vermas doctor --fix` commits the removal"
        )
    } else if state == "??" || state == "A" {
        format!(
            "{path} is not in HEAD (git status {state}): a change whose commit was lost, or a file \
             you added; `vermas doctor --fix` commits it as it is"
        )
    } else {
        format!(
            "{path} differs from HEAD (git status {state}): an uncommitted edit, yours or a change \
             whose commit was lost; `vermas doctor --fix` commits the edit as it is"
        )
    }
}

/// Commits the record files under `.beads/` that differ from HEAD (what `doctor` reports
/// as not recorded), exactly those that read and parse, in one commit; a file that does
/// not (see [`unreadable`]) is left as it is, and `doctor` names it. Returns the files
/// committed and what git recorded; refused while a git lock file is present.
pub fn commit_unrecorded(ws: &Workspace, actor: &str) -> Result<(Vec<String>, Recorded)> {
    let Some(repo) = GitRepo::open(&ws.beads_dir) else {
        return Ok((Vec::new(), Recorded::NotARepository));
    };
    if !ws.config.git.commit {
        return Ok((Vec::new(), Recorded::Disabled));
    }
    // A lock left in the git folder would make the commit wait and fail: named at once.
    if let Some(lock) = crate::git::leftovers::git_locks(repo.workdir()).first() {
        return Err(Error::git(format!(
            "{} is present, so nothing can be committed; `vermas doctor` says whether a \
             process holds it (if no git command is running, remove it)",
            lock.path.display()
        )));
    }
    let mut txn = Txn::begin(ws)?;
    let found = crate::git::leftovers::unrecorded(repo.workdir(), &ws.beads_dir);
    let paths: Vec<String> = found
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| unreadable(ws, &repo.workdir().join(p)).is_none())
        .collect();
    for p in &paths {
        txn.include(&repo.workdir().join(p))?;
    }
    let recorded = txn.commit(&CommitMessage {
        verb: "doctor".into(),
        ids: Vec::new(),
        title: format!(
            "commit {}",
            crate::text::words::plural(paths.len(), "unrecorded file")
        ),
        actor: actor.to_string(),
    })?;
    Ok((paths, recorded))
}
