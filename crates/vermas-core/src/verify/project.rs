//! The repository a verification runs in: its root, its workspace if it has one, its
//! settings, its specs, and how its checks run.

use super::live::{Kinds, RunSettings};
use crate::check::VerifySettings;
use crate::config::Config;
use crate::error::Result;
use crate::judge::JudgeSettings;
use crate::spec::{self, Spec};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// The repository being verified: its root, its workspace if it has one, its settings.
#[derive(Debug, Clone)]
pub struct Project {
    /// The repository root (the folder holding `.beads`, else the git work tree).
    pub root: PathBuf,
    /// The workspace, when there is a `.beads` folder.
    pub ws: Option<Workspace>,
    /// Its settings (defaults without a workspace).
    pub config: Config,
}

impl Project {
    /// The project around `dir`: specs are verified with or without `.beads`.
    pub fn locate(dir: &Path) -> Result<Project> {
        match Workspace::find(dir)? {
            Some(ws) => Ok(Project {
                root: ws.root.clone(),
                config: ws.config.clone(),
                ws: Some(ws),
            }),
            None => {
                let root = crate::workspace::project_root(dir);
                Ok(Project {
                    root,
                    ws: None,
                    config: Config::default(),
                })
            }
        }
    }

    /// Every spec under the configured folder (refused ones included, each with its
    /// reason in `Spec::refused`).
    pub fn specs(&self) -> Result<Vec<Spec>> {
        spec::discover(&self.root, &self.config.specs.dir)
    }

    /// Where judge replies are cached: only inside a workspace.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.ws.as_ref().map(Workspace::cache_dir)
    }

    /// How `kinds` of checks run: `jobs` over `verify.jobs` over the CPU count; judge
    /// replies cached unless `use_cache` is false.
    pub fn settings(&self, kinds: Kinds, jobs: Option<usize>, use_cache: bool) -> RunSettings {
        RunSettings {
            kinds,
            jobs: jobs
                .or(self.config.verify.jobs)
                .unwrap_or_else(crate::sys::par::cores)
                .max(1),
            verify: VerifySettings::from_config(&self.config),
            judge: JudgeSettings::from_config(&self.config, self.cache_dir(), use_cache),
        }
    }
}

impl Project {
    /// The project of a workspace (the Inspector's and the refinery's).
    pub fn of(ws: &Workspace) -> Project {
        Project {
            root: ws.root.clone(),
            ws: Some(ws.clone()),
            config: ws.config.clone(),
        }
    }
}

impl Project {
    /// `specs` narrowed to those `names` select (see [`crate::spec::select`]); a name that
    /// is no live spec but a bead's id is answered with the command for it (a test spec:
    /// `vermas inspect show ID`; other work: `vermas show ID`).
    pub fn select_named(
        &self,
        specs: Vec<crate::spec::Spec>,
        names: &[String],
    ) -> Result<Vec<crate::spec::Spec>> {
        crate::spec::select(specs, names).map_err(|e| {
            let Some(ws) = &self.ws else { return e };
            let Some(bead) = names
                .iter()
                .find_map(|n| crate::bead::store::load_one(ws, n).ok())
            else {
                return e;
            };
            let (what, command) = if bead.issue_type == crate::bead::model::IssueType::TestSpec {
                ("a test spec", format!("vermas inspect show {}", bead.id))
            } else {
                ("a bead", format!("vermas show {}", bead.id))
            };
            crate::error::Error::Missing {
                message: format!(
                    "{} is {what}, not a live spec (live specs are the files under {}/)",
                    bead.id, self.config.specs.dir
                ),
                help: command,
            }
        })
    }
}
