//! The ledger as committed: beads, results, merge requests, the Inspector's and the
//! mayor's mail and the live specs, read from one commit's tree (or, outside git or with
//! `git.commit: false`, from the files, said so on the page). A file that does not read is
//! named in `problems`, never fatal.

use super::views::{RequestView, ResultView, parse};
use crate::bead::model::Bead;
use crate::bead::store::BeadSet;
use crate::error::Result;
use crate::git::GitRepo;
use crate::mail::message::Message;
use crate::spec::Spec;
use crate::verify::Project;
use crate::workspace::{Workspace, layout};
use std::collections::BTreeMap;
use std::path::Path;

/// Where the records were read from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Source {
    /// A commit's tree: what every clone sees.
    Committed {
        /// The commit.
        commit: String,
    },
    /// The files in the work tree (no git, or recording turned off): no history.
    Files,
}

/// Every record the report reads.
pub(super) struct Ledger {
    /// Where from.
    pub source: Source,
    /// `.beads` relative to the repository's work tree (`/`-separated).
    pub beads_rela: String,
    /// Beads by id, approval settled.
    pub beads: BeadSet,
    /// Result records by file stem (`spec-login`, `vm-k3f9`).
    pub results: BTreeMap<String, ResultView>,
    /// Merge requests.
    pub requests: Vec<RequestView>,
    /// Messages of `mayor/` and `inspector/` (archives included).
    pub mail: Vec<Message>,
    /// Live specs, by path, with their names.
    pub specs: Vec<Spec>,
    /// Files that could not be read, and why.
    pub problems: Vec<String>,
}

/// The mailboxes read: questions go to `mayor/`, answers by mail to `inspector/`.
const MAILBOXES: &[&str] = &["mayor", "mayor/archive", "inspector", "inspector/archive"];

/// Reads the ledger of project `p` at `commit` of `repo`, or from its files when `repo`
/// is none; without a `.beads` folder, only the live specs.
pub(super) fn read(p: &Project, repo: Option<(&GitRepo, &str)>) -> Result<Ledger> {
    let files = Files::new(p, repo);
    let mut problems = Vec::new();
    let mut beads = BTreeMap::new();
    for (name, bytes) in files.folder(layout::ISSUES)? {
        let shown = files.shown(layout::ISSUES, &name);
        if !name.ends_with(".md") {
            continue;
        }
        match bead_of(&bytes, &shown) {
            Ok(b) => {
                beads.insert(b.id.clone(), b);
            }
            Err(why) => problems.push(why),
        }
    }
    let mut results = BTreeMap::new();
    for (name, bytes) in files.folder(layout::RESULTS)? {
        let Some(stem) = name.strip_suffix(".yaml") else {
            continue;
        };
        match parse::<ResultView>(&bytes, &name) {
            Some(r) => {
                results.insert(stem.to_string(), r);
            }
            None => problems.push(format!(
                "{} does not read as a result",
                files.shown(layout::RESULTS, &name)
            )),
        }
    }
    let mut requests = Vec::new();
    for (name, bytes) in files.folder(layout::MERGE_QUEUE)? {
        match parse::<RequestView>(&bytes, &name) {
            Some(r) if name.ends_with(".yaml") => requests.push(r),
            Some(_) => {}
            None => problems.push(format!(
                "{} does not read as a merge request",
                files.shown(layout::MERGE_QUEUE, &name)
            )),
        }
    }
    requests.sort_by_key(|r| r.seq);
    let mut mail = Vec::new();
    for mailbox in MAILBOXES {
        let dir = format!("{}/{mailbox}", layout::MAIL);
        for (name, bytes) in files.folder(&dir)? {
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(m) = Message::parse(&text, &name) {
                mail.push(m);
            }
        }
    }
    Ok(Ledger {
        specs: files.specs(&p.config.specs.dir)?,
        source: files.source(),
        beads_rela: files.beads_rela.clone(),
        beads: BeadSet {
            beads,
            broken: Vec::new(),
        },
        results,
        requests,
        mail,
        problems,
    })
}

/// A bead file's text parsed, its approval settled (a changed spec reads as pending).
fn bead_of(bytes: &[u8], shown: &str) -> std::result::Result<Bead, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{shown} is not UTF-8"))?;
    let mut bead = crate::bead::store::parse_text(text, shown).map_err(|e| e.to_string())?;
    crate::bead::approval::settle(&mut bead);
    Ok(bead)
}

/// Reading folders of the ledger at a commit or from the disk.
struct Files<'a> {
    /// The repository and commit, when committed records are read.
    repo: Option<(&'a GitRepo, &'a str)>,
    /// `.beads` relative to the work tree (committed records).
    beads_rela: String,
    /// The project root relative to the work tree (committed records).
    root_rela: String,
    /// The project.
    p: &'a Project,
}

impl<'a> Files<'a> {
    /// Reading `p` at `repo`'s commit, or from the disk.
    fn new(p: &'a Project, repo: Option<(&'a GitRepo, &'a str)>) -> Files<'a> {
        let rela = |path: &Path| {
            repo.and_then(|(r, _)| path.strip_prefix(r.workdir()).ok())
                .map(|path| path.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default()
        };
        Files {
            beads_rela: p
                .ws
                .as_ref()
                .map(|ws| rela(&ws.beads_dir))
                .unwrap_or_default(),
            root_rela: rela(&p.root),
            repo,
            p,
        }
    }

    /// Where the records came from.
    fn source(&self) -> Source {
        match self.repo {
            Some((_, c)) => Source::Committed {
                commit: c.to_string(),
            },
            None => Source::Files,
        }
    }

    /// `.beads/<dir>/<name>` as shown in a problem.
    fn shown(&self, dir: &str, name: &str) -> String {
        format!("{}/{dir}/{name}", crate::workspace::BEADS_DIR)
    }

    /// The files directly in `.beads/<dir>`, by name (none without a `.beads`).
    fn folder(&self, dir: &str) -> Result<Vec<(String, Vec<u8>)>> {
        let Some(ws) = &self.p.ws else {
            return Ok(Vec::new());
        };
        match self.repo {
            Some((repo, commit)) => repo.folder_files(commit, &join(&self.beads_rela, dir)),
            None => Ok(disk_folder(ws, &ws.beads_dir.join(dir))),
        }
    }

    /// The live specs under `dir` (below the project root), parsed and named.
    fn specs(&self, dir: &str) -> Result<Vec<Spec>> {
        let Some((repo, commit)) = self.repo else {
            return Ok(crate::spec::discover(&self.p.root, dir).unwrap_or_default());
        };
        let base = join(&self.root_rela, dir);
        let mut out = Vec::new();
        let mut folders = vec![String::new()];
        while let Some(sub) = folders.pop() {
            let at = join(&base, &sub);
            for (name, bytes) in repo.folder_files(commit, &at)? {
                if !crate::spec::is_spec_file(&name) {
                    continue;
                }
                let path = join(&join(dir, &sub), &name);
                let text = String::from_utf8_lossy(&bytes);
                let mut spec = crate::spec::parse(&text, &path);
                spec.name = join(&sub, name.trim_end_matches(".md"));
                out.push(spec);
            }
            for name in repo.folder_names(commit, &at)? {
                if !name.starts_with('.') {
                    folders.push(join(&sub, &name));
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// The files directly in `dir` on disk, read through the containment check.
fn disk_folder(ws: &Workspace, dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let text = ws.read_record(&e.path()).ok()?;
            Some((
                e.file_name().to_string_lossy().into_owned(),
                text.into_bytes(),
            ))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `a/b`, or either alone when the other is empty.
pub(super) fn join(a: &str, b: &str) -> String {
    match (a.trim_end_matches('/'), b) {
        ("", b) => b.to_string(),
        (a, "") => a.to_string(),
        (a, b) => format!("{a}/{b}"),
    }
}
