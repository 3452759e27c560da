//! Finding the `.beads` folder and loading its config.

use crate::config::Config;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Name of the folder vermas keeps its records in.
pub const BEADS_DIR: &str = ".beads";

/// A located `.beads` folder with its settings.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Absolute path of the `.beads` folder.
    pub beads_dir: PathBuf,
    /// The folder holding `.beads` (the repository root for specs and tests).
    pub root: PathBuf,
    /// Settings from `config.yaml`, defaults for absent keys.
    pub config: Config,
}

impl Workspace {
    /// Finds `.beads` from `start` upward (or at `BEADS_DIR`) and loads its config.
    pub fn discover(start: &Path) -> Result<Workspace> {
        let beads_dir = locate(start).ok_or_else(|| Error::NoWorkspace(start.to_path_buf()))?;
        Workspace::open(beads_dir)
    }

    /// Opens a known `.beads` folder.
    pub fn open(beads_dir: PathBuf) -> Result<Workspace> {
        // Canonical, so paths compare equal to the git work tree's.
        let beads_dir = std::fs::canonicalize(&beads_dir).unwrap_or_else(|_| absolute(&beads_dir));
        let root = beads_dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| beads_dir.clone());
        let mut ws = Workspace {
            beads_dir,
            root,
            config: Config::default(),
        };
        let config_path = ws.config_path();
        match std::fs::read_to_string(&config_path) {
            Ok(text) => ws.config = Config::parse(&text, &ws.display(&config_path))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&config_path, e)),
        }
        Ok(ws)
    }

    /// `.beads/config.yaml`.
    pub fn config_path(&self) -> PathBuf {
        self.beads_dir.join("config.yaml")
    }

    /// `.beads/issues`, one file per bead.
    pub fn issues_dir(&self) -> PathBuf {
        self.beads_dir.join("issues")
    }

    /// `.beads/.cache`, rebuildable and never committed.
    pub fn cache_dir(&self) -> PathBuf {
        self.beads_dir.join(".cache")
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

    /// A path as the user should see it: relative to the root when inside it.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

/// The `.beads` folder for `start`: `BEADS_DIR` if set, else the nearest one upward.
pub fn locate(start: &Path) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BEADS_DIR").filter(|d| !d.is_empty()) {
        return Some(absolute(Path::new(&dir)));
    }
    let start = absolute(start);
    start
        .ancestors()
        .map(|dir| dir.join(BEADS_DIR))
        .find(|candidate| candidate.is_dir())
}

/// `path` made absolute against the current directory, without resolving links.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
