//! Creating a workspace (`init`), changing its settings (`config set`), checking it (`doctor`).

pub mod block;
mod doctor;
pub mod driver;
mod migrate;
mod readable;

use crate::config::{Config, validate_prefix};
use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::store::{CommitMessage, Recorded, Txn};
use crate::sys::contain::absolute;
use crate::workspace::{PrefixOrigin, Workspace};
pub use doctor::{Finding, commit_unrecorded, doctor};
pub use migrate::{Migration, migrate_legacy_config};
use std::path::{Path, PathBuf};

/// What `init` did.
#[derive(Debug, Clone)]
pub struct InitReport {
    /// The `.beads` folder.
    pub beads_dir: PathBuf,
    /// The id prefix in force.
    pub prefix: String,
    /// Files created or changed (relative to the folder holding `.beads`).
    pub written: Vec<String>,
    /// What git recorded.
    pub recorded: Recorded,
    /// The settings of an older vermas moved to `vermas.yaml` first (its own commit).
    pub migrated: Option<Migration>,
    /// With `--roles`: each role file, written or kept.
    pub roles: Vec<crate::roles::RoleFile>,
    /// With workspaces asked for: each role's workspace.
    pub workspaces: Vec<crate::roles::workspace::WorkspaceFiles>,
}

/// Creates `.beads/` at the root of the git work tree holding `start` (else in `start`),
/// or completes an existing one, with the role files when `roles` says how, and the roles'
/// workspaces with `workspaces` (or the `roles.workspaces` setting, with `roles`); commits
/// what it wrote.
pub fn init(
    start: &Path,
    prefix: Option<&str>,
    actor: Option<&str>,
    roles: Option<crate::roles::Existing>,
    workspaces: bool,
) -> Result<InitReport> {
    if let Some(p) = prefix {
        validate_prefix(p).map_err(Error::Invalid)?;
    }
    let start = absolute(start);
    let beads_dir = crate::workspace::home(&start)?;
    let root = beads_dir.parent().map_or(start, Path::to_path_buf);
    // Nothing is created through a symlink leading outside the repository.
    if let Ok(rel) = beads_dir.strip_prefix(&root) {
        let canon = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        crate::sys::contain::resolve(&canon, &rel.join(crate::workspace::layout::ISSUES))?;
    }
    let mut ws = Workspace::open(beads_dir.clone())?;
    // Refused before anything is written: an actor or a commit git would not accept.
    let actor = checked_actor(&ws, actor)?;
    if ws.config.git.commit {
        check_recordable(&ws, ws.config.git.author.as_deref())?;
    }
    let migrated = migrate_legacy_config(&ws, &actor)?;
    if migrated.is_some() {
        ws = Workspace::open(beads_dir.clone())?;
    }
    let config_path = ws.config_path();
    let existing = config_path.exists();
    std::fs::create_dir_all(beads_dir.join(crate::workspace::layout::ISSUES))
        .map_err(|e| Error::io(&beads_dir, e))?;
    let mut txn = Txn::begin(&ws)?;
    let mut written = Vec::new();
    let mut config = ws.config.clone();
    if !existing {
        config.prefix = first_prefix(&ws, prefix)?;
    }
    let prefix_changed = prefix.is_some_and(|p| p != config.prefix);
    if let Some(p) = prefix {
        config.prefix = p.to_string();
    }
    if !existing || prefix_changed {
        txn.write(&config_path, config.render().as_bytes())?;
        written.push(ws.display(&config_path));
    }
    write_blocks(&mut txn, &ws, &mut written)?;
    let roles = roles.or(workspaces.then_some(crate::roles::Existing::Keep));
    let role_files = match roles {
        Some(existing) => crate::roles::write_in(&mut txn, &ws, existing)?,
        None => Vec::new(),
    };
    written.extend(
        role_files
            .iter()
            .filter(|f| f.written)
            .map(|f| ws.display(&f.path)),
    );
    let workspace_files = match roles {
        Some(existing) if workspaces || config.roles.workspaces => {
            crate::roles::workspace::write_in(&mut txn, &ws, existing)?
        }
        _ => Vec::new(),
    };
    written.extend(
        workspace_files
            .iter()
            .flat_map(|f| &f.written)
            .map(|p| ws.display(p)),
    );
    let recorded = txn.commit(&CommitMessage {
        verb: "init".into(),
        ids: Vec::new(),
        title: format!("prefix {}", config.prefix),
        actor,
    })?;
    driver::register(&ws)?;
    Ok(InitReport {
        beads_dir: ws.beads_dir.clone(),
        prefix: config.prefix,
        written,
        recorded,
        migrated,
        roles: role_files,
        workspaces: workspace_files,
    })
}

/// The prefix a new `vermas.yaml` gets: the one given, else the one existing beads use
/// (when `vermas.yaml` was deleted), else bd's issue-prefix beside bd, else one from the
/// folder name.
fn first_prefix(ws: &Workspace, given: Option<&str>) -> Result<String> {
    Ok(match (given, &ws.prefix_origin) {
        (Some(p), _) => p.to_string(),
        (None, PrefixOrigin::Beads | PrefixOrigin::Bd | PrefixOrigin::Unclear(_)) => {
            ws.id_prefix()?.to_string()
        }
        (None, _) => default_prefix(&ws.root),
    })
}

/// Adds vermas's block to `.beads/.gitignore` and `.beads/.gitattributes` in `txn` where
/// it is missing or out of date, noting each file written in `written`. Another tool's
/// file (bd writes both) is read and keeps its own lines.
fn write_blocks(txn: &mut Txn<'_>, ws: &Workspace, written: &mut Vec<String>) -> Result<()> {
    for (name, lines) in [
        (".gitignore", block::GITIGNORE_LINES),
        (".gitattributes", block::GITATTRIBUTES_LINES),
    ] {
        let path = ws.beads_dir.join(name);
        let current = match path.symlink_metadata() {
            Ok(_) => Some(ws.read_record(&path)?),
            Err(_) => None,
        };
        if let Some(text) = block::merged(current.as_deref(), lines) {
            txn.write(&path, text.as_bytes())?;
            written.push(ws.display(&path));
        }
    }
    Ok(())
}

/// A prefix from the folder name: lowercase letters, digits and `_`, else `bd`.
fn default_prefix(root: &Path) -> String {
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(16)
        .collect();
    if validate_prefix(&name).is_ok() {
        name
    } else {
        "bd".to_string()
    }
}

/// The actor (`explicit`, else `VERMAS_ACTOR`, else git's `user.name`...), refused when it
/// cannot go into a commit.
pub fn checked_actor(ws: &Workspace, explicit: Option<&str>) -> Result<String> {
    let actor = ws.actor(explicit);
    crate::bead::ops::check_actor(&actor)?;
    Ok(actor)
}

/// Refuses, before anything is written, a change to `ws` whose commit git would refuse or
/// vermas cannot make: no identity (with `author` as `git.author`), or signing it cannot
/// do. Returns the repository the commit goes to (`None` outside git).
pub fn check_recordable(ws: &Workspace, author: Option<&str>) -> Result<Option<GitRepo>> {
    // Before `init` creates `.beads`, the repository is the one around its parent.
    let repo = GitRepo::open(&ws.beads_dir)
        .or_else(|| (!ws.beads_dir.exists()).then(|| GitRepo::open(&ws.root))?);
    let Some(repo) = repo else {
        return Ok(None);
    };
    // Before `init`, `vermas config set git.author` cannot help yet: git's own settings can.
    let before_init = !ws.config_path().exists();
    repo.check_identity(author).map_err(|e| {
        if before_init {
            e.with_help(
                "tell git who you are:\n  git config --global user.name \"Your Name\"\n  \
                 git config --global user.email \"you@example.com\"\n(without --global, for \
                 this repository only), then run `vermas init` again",
            )
        } else {
            e
        }
    })?;
    repo.signer()?;
    Ok(Some(repo))
}

/// Sets a dotted config key, rewrites `vermas.yaml` and commits it. An LLM command whose
/// program cannot be found is refused.
pub fn set_config(
    ws: &Workspace,
    key: &str,
    value: &str,
    actor: &str,
) -> Result<(Config, Recorded)> {
    if crate::config::is_llm_command_key(key) && value.trim().is_empty() {
        return Err(Error::config(format!(
            "{key} cannot be empty: an LLM command is what judge checks and the Inspector's \
             roles send their prompts to"
        ))
        .with_help(format!(
            "give a command that reads a prompt on stdin and prints the reply (e.g. `vermas \
             config set {key} \"claude -p\"`), or put the key back to its default: `vermas \
             config unset {key}`"
        )));
    }
    if crate::config::is_llm_command_key(key) {
        crate::config::check_runnable(value, &ws.root).map_err(|m| {
            Error::config(m).with_help(
                "install it, give its full path, or fix the spelling; the command runs under \
                 `sh -c` with the prompt on stdin",
            )
        })?;
    }
    let (config, recorded) = change_config(ws, key, &format!("{key} = {value}"), actor, |c| {
        let next = c.with(key, value)?;
        check_approvers(ws, &next)?;
        Ok(next)
    })?;
    Ok((config, recorded))
}

/// Refuses an approvers file that is not committed: the list counts only as committed.
fn check_approvers(ws: &Workspace, config: &Config) -> Result<()> {
    let Some(crate::config::Approvers::File(path)) = &config.approvers else {
        return Ok(());
    };
    let repo = crate::git::GitRepo::open(&ws.beads_dir);
    let head = repo.as_ref().and_then(|r| r.head_commit());
    let committed = match (&repo, &head) {
        (Some(r), Some(h)) => r.blob_at(h, path).is_some(),
        _ => false,
    };
    if committed {
        return Ok(());
    }
    Err(Error::config(format!(
        "the approvers file {path} is not committed: the list counts only as committed"
    ))
    .with_help(format!(
        "write it in git's allowed-signers format (\"principal key-type key\" per line), commit \
         it (git add {path} && git commit -S), then set approvers again"
    )))
}

/// Puts a dotted config key back to its default (or removes a map entry such as
/// `llm.roles.judge`), rewrites `vermas.yaml` and commits it.
pub fn unset_config(ws: &Workspace, key: &str, actor: &str) -> Result<(Config, Recorded)> {
    change_config(ws, key, &format!("unset {key}"), actor, |c| c.without(key))
}

/// Re-reads the config under the lock, applies `change`, and writes and commits it; a
/// change that leaves the settings as they were writes nothing (`Recorded::Unchanged`).
/// The commit is made under the new settings, so setting `git.author` signs its own commit.
fn change_config(
    ws: &Workspace,
    key: &str,
    title: &str,
    actor: &str,
    change: impl Fn(&Config) -> Result<Config>,
) -> Result<(Config, Recorded)> {
    let mut target = ws.clone();
    for _ in 0..8 {
        // The settings the commit is made under: known only after the change, which must
        // be computed again under the lock.
        target.config = change(&Workspace::open(ws.beads_dir.clone())?.config)?;
        let mut txn = Txn::begin(&target)?;
        let fresh = Workspace::open(ws.beads_dir.clone())?;
        if key != "prefix" {
            // Writing the file would fix a prefix no one chose.
            fresh.id_prefix()?;
        }
        let current = fresh.config;
        let updated = change(&current)?;
        if updated.git != target.config.git {
            // Another `config set` changed git.* meanwhile: start again.
            continue;
        }
        if updated == current && fresh.prefix_origin == PrefixOrigin::Config {
            return Ok((updated, Recorded::Unchanged));
        }
        let record = current.git.commit || updated.git.commit;
        if record {
            check_recordable(ws, updated.git.author.as_deref())?;
        }
        txn.set_recording(record);
        txn.write(&ws.config_path(), updated.render().as_bytes())?;
        let recorded = txn.commit(&CommitMessage {
            verb: "config".into(),
            ids: Vec::new(),
            title: title.to_string(),
            actor: actor.to_string(),
        })?;
        return Ok((updated, recorded));
    }
    Err(Error::git(
        "vermas.yaml kept changing while vermas changed it; try again",
    ))
}
