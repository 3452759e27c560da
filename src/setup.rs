//! Creating a workspace (`init`), changing its settings (`config set`), checking it (`doctor`).

use crate::bead::{BeadSet, graph};
use crate::config::{Config, validate_prefix};
use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::store::{CommitMessage, Recorded, Txn};
use crate::workspace::{BEADS_DIR, Workspace, absolute};
use std::path::{Path, PathBuf};

/// Content of `.beads/.gitignore`.
pub const GITIGNORE: &str = "# Rebuildable caches, ephemeral wisps and the write lock are never committed.\n.cache/\nwisps/\n.lock\n";
/// Content of `.beads/.gitattributes`.
pub const GITATTRIBUTES: &str = "# git and vermas must hash the same bytes: no line-ending or filter conversion.\n* -text -filter\n";

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
}

/// Creates `.beads/` at the root of the git work tree holding `start` (else in `start`),
/// or completes an existing one; commits what it wrote.
pub fn init(start: &Path, prefix: Option<&str>, actor: Option<&str>) -> Result<InitReport> {
    if let Some(p) = prefix {
        validate_prefix(p).map_err(Error::Invalid)?;
    }
    let start = absolute(start);
    let root = match std::env::var_os("BEADS_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => absolute(Path::new(&dir))
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| start.clone()),
        None => GitRepo::open(&start).map_or_else(|| start.clone(), |r| r.workdir().to_path_buf()),
    };
    let beads_dir = match std::env::var_os("BEADS_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => absolute(Path::new(&dir)),
        None => root.join(BEADS_DIR),
    };
    std::fs::create_dir_all(beads_dir.join("issues")).map_err(|e| Error::io(&beads_dir, e))?;
    let config_path = beads_dir.join("config.yaml");
    let existing = config_path.exists();
    let ws = Workspace::open(beads_dir.clone())?;
    let mut txn = Txn::begin(&ws)?;
    let mut written = Vec::new();
    let mut put = |txn: &mut Txn, path: PathBuf, content: String, force: bool| -> Result<()> {
        if force || !path.exists() {
            txn.write(&path, content.as_bytes())?;
            written.push(ws.display(&path));
        }
        Ok(())
    };
    let mut config = ws.config.clone();
    let mut prefix_changed = false;
    if !existing {
        config.prefix = prefix.map_or_else(|| default_prefix(&ws.root), str::to_string);
    } else if let Some(p) = prefix
        && p != config.prefix
    {
        config.prefix = p.to_string();
        prefix_changed = true;
    }
    put(&mut txn, config_path, config.render(), prefix_changed)?;
    put(
        &mut txn,
        ws.beads_dir.join(".gitignore"),
        GITIGNORE.into(),
        false,
    )?;
    put(
        &mut txn,
        ws.beads_dir.join(".gitattributes"),
        GITATTRIBUTES.into(),
        false,
    )?;
    let actor = ws.actor(actor);
    let recorded = txn.commit(&CommitMessage {
        verb: "init".into(),
        ids: Vec::new(),
        title: format!("prefix {}", config.prefix),
        actor,
    })?;
    Ok(InitReport {
        beads_dir: ws.beads_dir.clone(),
        prefix: config.prefix,
        written,
        recorded,
    })
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

/// Sets a dotted config key, rewrites `config.yaml` and commits it.
pub fn set_config(
    ws: &Workspace,
    key: &str,
    value: &str,
    actor: &str,
) -> Result<(Config, Recorded)> {
    let mut txn = Txn::begin(ws)?;
    // Re-read under the lock so a concurrent `config set` is not lost.
    let current = Workspace::open(ws.beads_dir.clone())?.config;
    let updated = current.with(key, value)?;
    txn.set_recording(current.git.commit || updated.git.commit);
    txn.write(&ws.config_path(), updated.render().as_bytes())?;
    let recorded = txn.commit(&CommitMessage {
        verb: "config".into(),
        ids: Vec::new(),
        title: format!("{key} = {value}"),
        actor: actor.to_string(),
    })?;
    Ok((updated, recorded))
}

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
    let set = BeadSet::load(ws)?;
    add("ok", format!("{} beads readable", set.beads.len()));
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
    for cycle in graph::cycles(&set) {
        add("error", format!("dependency cycle: {}", cycle.join(" -> ")));
    }
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
    Ok(out)
}
