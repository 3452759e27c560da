//! Finding the `.beads` folder and loading its config (from `vermas.yaml`, else from the
//! `config.yaml` an older vermas wrote; bd's `config.yaml` is never vermas's).

use crate::config::{Config, SETTINGS_FILE, bd};
use crate::error::{Error, Result};
use crate::sys::contain::absolute;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Name of the folder vermas keeps its records in.
pub const BEADS_DIR: &str = ".beads";

/// What vermas keeps under `.beads`, relative to it: the one list of its folders and
/// files (bd's own files beside them are bd's).
pub mod layout {
    /// The beads, one `<id>.md` file each.
    pub const ISSUES: &str = "issues";
    /// Rebuildable caches, never committed.
    pub const CACHE: &str = ".cache";
    /// The write lock, never committed.
    pub const LOCK: &str = ".lock";
    /// The recorded results of spec runs.
    pub const RESULTS: &str = "results";
    /// The project's own formulas.
    pub const FORMULAS: &str = "formulas";
    /// Durable agent mail.
    pub const MAIL: &str = "mail";
    /// Poured molecules.
    pub const MOLS: &str = "mols";
    /// Squashed molecule digests.
    pub const MOLS_ARCHIVE: &str = "mols/archive";
    /// Ephemeral state, never committed.
    pub const WISPS: &str = "wisps";
    /// Ephemeral mail.
    pub const WISP_MAIL: &str = "wisps/mail";
    /// Ephemeral molecules.
    pub const WISP_MOLS: &str = "wisps/mols";
    /// The Inspector roles' context files.
    pub const ROLES: &str = "roles";
    /// The Inspector's lifecycle hooks.
    pub const HOOKS: &str = "hooks";
    /// The refinery's merge requests.
    pub const MERGE_QUEUE: &str = "mq";
}

/// Paths under `.beads` checked at open: a symlink among them leading outside the
/// repository makes every command refuse to work (the files in them are opened without
/// following symlinks, see [`Workspace::read_record`]).
const CHECKED: &[&str] = &[
    SETTINGS_FILE,
    layout::LOCK,
    layout::CACHE,
    layout::ISSUES,
    layout::RESULTS,
    layout::FORMULAS,
    layout::MAIL,
    layout::MOLS,
    layout::MOLS_ARCHIVE,
    layout::WISPS,
    layout::WISP_MAIL,
    layout::WISP_MOLS,
    layout::ROLES,
    layout::HOOKS,
    layout::MERGE_QUEUE,
];

/// A located `.beads` folder with its settings.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Absolute path of the `.beads` folder.
    pub beads_dir: PathBuf,
    /// The project root: the folder holding `.beads` in the current checkout, where specs
    /// and tests are read and run (in a linked worktree, that worktree's, not the ledger's).
    pub root: PathBuf,
    /// The folder actually holding `.beads` (the main worktree's when the current
    /// checkout is a linked worktree; else `root`).
    ledger_root: PathBuf,
    /// Settings from `vermas.yaml`, defaults for absent keys.
    pub config: Config,
    /// Where `config.prefix` comes from.
    pub prefix_origin: PrefixOrigin,
    /// The `.beads/config.yaml` of an older vermas the settings were read from, while no
    /// `vermas.yaml` exists (see `setup::migrate_legacy_config`).
    pub legacy_config: Option<PathBuf>,
    /// The git work tree holding `root` (else `root`), found when first needed.
    repo_root: OnceLock<PathBuf>,
}

/// Where the prefix of new bead ids comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefixOrigin {
    /// `prefix:` in `vermas.yaml`.
    Config,
    /// `vermas.yaml` sets none (empty or missing): the one prefix the existing beads use.
    Beads,
    /// `vermas.yaml` sets none and there are no beads: bd's `issue-prefix` (from its
    /// `config.yaml`, else from the ids of its JSONL export).
    Bd,
    /// `vermas.yaml` sets none, there are no beads and bd names none: the default.
    Default,
    /// `vermas.yaml` sets none and the beads use several prefixes (or one that is not a
    /// valid prefix): new ids cannot be made until one is set.
    Unclear(Vec<String>),
}

impl Workspace {
    /// Finds `.beads` from `start` upward (or at `BEADS_DIR`; in a linked worktree, the
    /// main worktree's) and loads its config.
    pub fn discover(start: &Path) -> Result<Workspace> {
        Workspace::find(start)?.ok_or_else(|| Error::NoWorkspace(start.to_path_buf()))
    }

    /// The workspace around `start`, `None` when there is no `.beads` to find. In a linked
    /// worktree the ledger is the main worktree's and the project root stays here.
    pub fn find(start: &Path) -> Result<Option<Workspace>> {
        if let Some(dir) = named_by_env() {
            return Workspace::open(dir).map(Some);
        }
        let linked = crate::git::linked_checkout(start)?;
        let Some(beads_dir) = nearest(start, linked.as_ref()) else {
            return Ok(None);
        };
        let mut ws = Workspace::open(beads_dir)?;
        if let Some(linked) = linked {
            ws.root = linked.here(&ws.ledger_root);
        }
        Ok(Some(ws))
    }

    /// The ledger's `.beads` folder when it is not the current checkout's (a linked
    /// worktree uses the main worktree's).
    pub fn shared_ledger(&self) -> Option<&Path> {
        (self.ledger_root != self.root).then_some(self.beads_dir.as_path())
    }

    /// Opens a known `.beads` folder, refusing it (or one of the folders records live in)
    /// when it is a symlink leading outside the repository.
    pub fn open(beads_dir: PathBuf) -> Result<Workspace> {
        let given = absolute(&beads_dir);
        // Canonical, so paths compare equal to the git work tree's.
        let (root, name) = match (given.parent(), given.file_name()) {
            (Some(parent), Some(name)) => (
                std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf()),
                name.to_os_string(),
            ),
            _ => (given.clone(), Default::default()),
        };
        let mut ws = Workspace {
            beads_dir: root.join(name),
            ledger_root: root.clone(),
            root,
            config: Config::default(),
            prefix_origin: PrefixOrigin::Config,
            legacy_config: None,
            repo_root: OnceLock::new(),
        };
        ws.beads_dir = ws.contain(&ws.beads_dir)?;
        for rel in CHECKED {
            ws.contain(&ws.beads_dir.join(rel))?;
        }
        let stated = match ws.read_settings()? {
            Some((text, path)) => {
                ws.config = Config::parse(&text, &ws.display(&path))?;
                crate::config::sets_prefix(&text)
            }
            None => false,
        };
        if !stated {
            ws.infer_prefix()?;
        }
        // A vermas killed mid-commit may have left git's lock files: any command clears
        // those provably its own, so the user's own git is never blocked for long.
        crate::git::recover_left_locks(&ws.commit_note_path());
        Ok(ws)
    }

    /// The settings text and the file it is in: `vermas.yaml`, else the `config.yaml` of
    /// an older vermas (noted in `legacy_config`). bd's `config.yaml`, or one that cannot
    /// be read (a symlink leading outside the repository included), is passed over.
    fn read_settings(&mut self) -> Result<Option<(String, PathBuf)>> {
        let path = self.config_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => return Ok(Some((text, path))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
        let shared = self.shared_config_path();
        match self.read_record(&shared) {
            Ok(text) if bd::is_vermas_settings(&text) => {
                self.legacy_config = Some(shared.clone());
                Ok(Some((text, shared)))
            }
            _ => Ok(None),
        }
    }

    /// bd's issue prefix, when bd's files beside vermas's name one vermas accepts.
    pub fn bd_prefix(&self) -> Option<String> {
        if let Some(prefix) = self
            .read_record(&self.shared_config_path())
            .ok()
            .filter(|t| !bd::is_vermas_settings(t))
            .and_then(|t| bd::issue_prefix(&t))
        {
            return Some(prefix);
        }
        let path = self.contain(&self.bd_jsonl_path()).ok()?;
        let mut first = String::new();
        let file = std::fs::File::open(path).ok()?;
        std::io::BufRead::read_line(&mut std::io::BufReader::new(file), &mut first).ok()?;
        bd::prefix_of_jsonl_line(&first)
    }

    /// bd's JSONL export: `.beads/issues.jsonl`, or the file bd's `metadata.json` names.
    pub fn bd_jsonl_path(&self) -> PathBuf {
        let metadata = self.read_record(&self.path(bd::BD_METADATA_FILE)).ok();
        self.path(&bd::jsonl_file(metadata.as_deref()))
    }

    /// With no `prefix` in the config, new ids keep the prefix the existing beads use
    /// (else bd's) rather than silently switching to the default.
    fn infer_prefix(&mut self) -> Result<()> {
        let ids = self.bead_ids()?;
        let found: std::collections::BTreeSet<&str> = ids
            .iter()
            .filter_map(|id| id.split('.').next()?.split_once('-').map(|(p, _)| p))
            .collect();
        let found: Vec<&str> = found.into_iter().collect();
        self.prefix_origin = match found.as_slice() {
            [] => match self.bd_prefix() {
                Some(prefix) => {
                    self.config.prefix = prefix;
                    PrefixOrigin::Bd
                }
                None => PrefixOrigin::Default,
            },
            [one] if crate::config::validate_prefix(one).is_ok() => {
                self.config.prefix = one.to_string();
                PrefixOrigin::Beads
            }
            many => PrefixOrigin::Unclear(many.iter().map(|p| p.to_string()).collect()),
        };
        Ok(())
    }

    /// The prefix of new bead ids; refused when the config sets none and the existing
    /// beads do not agree on one.
    pub fn id_prefix(&self) -> Result<&str> {
        match &self.prefix_origin {
            PrefixOrigin::Unclear(found) => Err(Error::config(format!(
                "{} sets no id prefix and the existing beads use {}: vermas cannot tell \
                     which one new ids should take",
                self.display(&self.config_path()),
                found
                    .iter()
                    .map(|p| format!("'{p}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_help("set it, e.g. `vermas config set prefix vm`")),
            _ => Ok(&self.config.prefix),
        }
    }

    /// Where a committing vermas keeps its crash note (see `git::recover_left_locks`).
    pub fn commit_note_path(&self) -> PathBuf {
        self.cache_dir().join("commit-in-progress")
    }

    /// The git work tree holding this workspace, else the folder holding `.beads`: what
    /// "inside the repository" means for [`Workspace::contain`].
    pub fn repo_root(&self) -> &Path {
        self.repo_root.get_or_init(|| {
            crate::git::GitRepo::open(&self.ledger_root)
                .map(|r| r.workdir().to_path_buf())
                .filter(|w| self.ledger_root.starts_with(w))
                .unwrap_or_else(|| self.ledger_root.clone())
        })
    }

    /// `path` (under `.beads`) as [`crate::sys::contain::resolve`] resolves it inside the
    /// repository; refused when a symlink on the way leads outside it.
    pub fn contain(&self, path: &Path) -> Result<PathBuf> {
        // The folder holding `.beads` first: it needs no git lookup.
        crate::sys::contain::resolve(&self.ledger_root, path).or_else(|refused| {
            let repo = self.repo_root();
            if repo == self.ledger_root {
                return Err(refused);
            }
            crate::sys::contain::resolve(repo, path).map_err(|_| refused)
        })
    }

    /// Reads the record file `path` in one of the checked folders: a symlink is followed
    /// only when it stays inside the repository.
    pub fn read_record(&self, path: &Path) -> Result<String> {
        crate::sys::contain::read_to_string(path, |p| self.contain(p))
    }

    /// Reads the YAML record `path` (errors at file, line and column) and checks that the
    /// id `id_of` finds in it is the file's name.
    pub fn read_named_record<T: serde::de::DeserializeOwned>(
        &self,
        path: &Path,
        id_of: impl Fn(&T) -> &str,
    ) -> Result<T> {
        let text = self.read_record(path)?;
        let shown = self.display(path);
        let record: T = crate::text::yaml::parse(&text, &shown, &text, 1)?;
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        if stem.as_deref() != Some(id_of(&record)) {
            return Err(Error::Invalid(format!(
                "{shown}: id '{}' does not match the file name",
                id_of(&record)
            )));
        }
        Ok(record)
    }

    /// Opens (creating it and `dir`) the lock file `dir/name` and takes an exclusive lock on
    /// it, waiting for its holder; the lock is released when the file is dropped.
    pub fn lock_file(&self, dir: &Path, name: &str) -> Result<std::fs::File> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(name);
        let file = crate::sys::contain::open(
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true),
            &path,
            |p| self.contain(p),
        )?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        Ok(file)
    }

    /// `.beads/vermas.yaml`, where the settings are written.
    pub fn config_path(&self) -> PathBuf {
        self.beads_dir.join(SETTINGS_FILE)
    }

    /// `.beads/config.yaml`: bd's settings (or an older vermas's, see `legacy_config`).
    pub fn shared_config_path(&self) -> PathBuf {
        self.beads_dir.join(bd::SHARED_CONFIG_FILE)
    }

    /// `.beads/<rel>`, for `rel` one of the [`layout`] names.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.beads_dir.join(rel)
    }

    /// `.beads/issues`, one file per bead.
    pub fn issues_dir(&self) -> PathBuf {
        self.path(layout::ISSUES)
    }

    /// The ids of the beads in `.beads/issues` (one `<id>.md` file each), unread and in
    /// the folder's order.
    pub fn bead_ids(&self) -> Result<Vec<String>> {
        let dir = self.issues_dir();
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&dir, e)),
        };
        Ok(rd
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_suffix(".md")?;
                (!id.starts_with('.')).then(|| id.to_string())
            })
            .collect())
    }

    /// `.beads/.cache`, rebuildable and never committed.
    pub fn cache_dir(&self) -> PathBuf {
        self.path(layout::CACHE)
    }

    /// Who is acting: `explicit`, else `VERMAS_ACTOR`, else git's `user.name`, else `$USER`.
    pub fn actor(&self, explicit: Option<&str>) -> String {
        explicit
            .map(str::to_string)
            .or_else(|| std::env::var("VERMAS_ACTOR").ok())
            .filter(|s| !s.trim().is_empty())
            .or_else(|| crate::git::GitRepo::open(&self.beads_dir).and_then(|r| r.user_name()))
            .or_else(|| std::env::var("USER").ok())
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "unknown".to_string())
    }

    /// `path` (a record under `.beads/`) as the ledger's checkout names it, `/`-separated
    /// (`.beads/issues/vm-k3f9.md`): the path a commit's tree holds it at.
    pub fn ledger_relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.ledger_root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    /// A path as the user should see it: relative to the root when inside it (or to the
    /// ledger's checkout, for a record while the root is a temporary worktree).
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .or_else(|_| path.strip_prefix(&self.ledger_root))
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

/// The `.beads` folder the `BEADS_DIR` environment variable names, when set.
fn named_by_env() -> Option<PathBuf> {
    std::env::var_os("BEADS_DIR")
        .filter(|d| !d.is_empty())
        .map(|dir| absolute(Path::new(&dir)))
}

/// The `.beads` folder for `start`: `BEADS_DIR` if set, else the nearest one upward (in
/// a linked worktree, the main worktree's; none when that cannot be told).
pub fn locate(start: &Path) -> Option<PathBuf> {
    named_by_env().or_else(|| {
        let linked = crate::git::linked_checkout(start).ok()?;
        nearest(start, linked.as_ref())
    })
}

/// The nearest `.beads` folder at or above `start`; in a linked worktree, at or above the
/// same place in the main worktree (never above that worktree's root).
fn nearest(start: &Path, linked: Option<&crate::git::LinkedCheckout>) -> Option<PathBuf> {
    let start = absolute(start);
    let Some(linked) = linked else {
        return start
            .ancestors()
            .map(|dir| dir.join(BEADS_DIR))
            .find(|candidate| candidate.is_dir());
    };
    let start = std::fs::canonicalize(&start).unwrap_or(start);
    linked
        .in_main(&start)
        .ancestors()
        .take_while(|dir| dir.starts_with(&linked.main))
        .map(|dir| dir.join(BEADS_DIR))
        .find(|candidate| candidate.is_dir())
}

/// Where `vermas init` puts the `.beads` folder for `start`: `BEADS_DIR` if set, else at
/// the root of the project ([`project_root`]); in a linked worktree, at the root of the
/// main worktree, where every checkout finds it.
pub fn home(start: &Path) -> Result<PathBuf> {
    if let Some(dir) = named_by_env() {
        return Ok(dir);
    }
    let root = project_root(start);
    Ok(match crate::git::linked_checkout(start)? {
        Some(linked) => linked.in_main(&root),
        None => root,
    }
    .join(BEADS_DIR))
}

/// The root of the git work tree holding `start`, if any.
pub fn git_root(start: &Path) -> Option<PathBuf> {
    crate::git::GitRepo::open(start).map(|r| r.workdir().to_path_buf())
}

/// The folder a project around `start` is rooted in when it has no `.beads` yet: the git
/// work tree holding `start`, else `start` itself.
pub fn project_root(start: &Path) -> PathBuf {
    let start = absolute(start);
    git_root(&start).unwrap_or(start)
}
