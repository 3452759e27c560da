//! Quality-command discovery: the lint, typecheck, test, build and CI commands a project really uses.
//!
//! Sources, read from the project root: `package.json` scripts (and those of each npm, yarn
//! or pnpm workspace package), `Makefile` targets, `justfile` recipes, the `run:` steps of
//! `.github/workflows/*.yml` and the `script:` lines of `.gitlab-ci.yml`, and the standard
//! commands implied by `Cargo.toml`, `go.mod` and `pyproject.toml`. A source that cannot be
//! parsed becomes a warning with its `file:line:col`; the others are still read.

mod ci;
mod make;
mod manifests;
mod node;
pub mod research;

use crate::config::Config;
use crate::error::textpos::line_col;
use crate::error::{Error, ParseError, Result};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::workspace::Workspace;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What a quality command checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Linters (eslint, clippy, ruff, go vet...).
    Lint,
    /// Formatting checks (prettier, cargo fmt...).
    Format,
    /// Type checkers (tsc, mypy...).
    Typecheck,
    /// Test suites.
    Test,
    /// Builds.
    Build,
    /// The project's own "run all of CI locally" command.
    Ci,
}

impl Kind {
    /// Every kind, in the order the table lists them.
    pub const ALL: [Kind; 6] = [
        Kind::Lint,
        Kind::Format,
        Kind::Typecheck,
        Kind::Test,
        Kind::Build,
        Kind::Ci,
    ];

    /// The lowercase name used in output and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Lint => "lint",
            Kind::Format => "format",
            Kind::Typecheck => "typecheck",
            Kind::Test => "test",
            Kind::Build => "build",
            Kind::Ci => "ci",
        }
    }
}

/// How much a source is trusted when one command must be picked for a gate (lower wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    /// The root `package.json`.
    RootPackage,
    /// `Makefile` targets.
    Make,
    /// `justfile` recipes.
    Just,
    /// Commands implied by `Cargo.toml`, `go.mod`, `pyproject.toml`.
    Manifest,
    /// Scripts of a workspace package.
    WorkspacePackage,
    /// Lines of CI configuration.
    Ci,
}

/// One discovered command and where it was found.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    /// What it checks.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// The command line to run from the project root.
    pub command: String,
    /// The file it was found in, relative to the project root.
    pub source: String,
    /// One-based line in that file.
    pub line: usize,
    /// Named exactly like its kind (`test`, not `test:e2e`): preferred for gates.
    #[serde(skip)]
    pub(crate) primary: bool,
    /// Trust of its source.
    #[serde(skip)]
    pub(crate) rank: Rank,
}

/// The result of scanning a project.
#[derive(Debug)]
pub struct Discovery {
    /// The folder that was scanned.
    pub root: PathBuf,
    /// Commands found, by kind (table order), then by source trust, then by position.
    pub commands: Vec<Found>,
    /// Kinds with no command.
    pub missing: Vec<Kind>,
    /// Sources that could not be read or parsed (their commands are absent).
    pub warnings: Vec<Error>,
    /// Sources read successfully, relative to the root.
    pub sources: Vec<String>,
}

impl Discovery {
    /// True when some source was broken and none could be read: the only failing case.
    pub fn nothing_read(&self) -> bool {
        self.sources.is_empty() && !self.warnings.is_empty()
    }

    /// The preferred command of `kind`: the most trusted source, a primary name first.
    pub fn best(&self, kind: Kind) -> Option<&Found> {
        let of_kind = self.commands.iter().filter(|f| f.kind == kind);
        let top = of_kind.clone().map(|f| f.rank).min()?;
        let mut at_top = of_kind.filter(|f| f.rank == top);
        let first = at_top.clone().next();
        at_top.find(|f| f.primary).or(first)
    }

    /// The `gates.*` settings implied by the commands: red, green and refactor run the
    /// test command; implement runs the build (else lint and typecheck joined by `&&`).
    pub fn gate_settings(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(test) = self.best(Kind::Test) {
            for key in ["gates.red", "gates.green", "gates.refactor"] {
                out.push((key, test.command.clone()));
            }
        }
        let implement = match self.best(Kind::Build) {
            Some(build) => Some(build.command.clone()),
            None => {
                let parts: Vec<String> = [Kind::Lint, Kind::Typecheck]
                    .into_iter()
                    .filter_map(|k| self.best(k).map(|f| f.command.clone()))
                    .collect();
                (!parts.is_empty()).then(|| parts.join(" && "))
            }
        };
        if let Some(cmd) = implement {
            out.push(("gates.implement", cmd));
        }
        out
    }
}

/// Scans the project at `root` for its quality commands.
pub fn discover(root: &Path) -> Discovery {
    let mut c = Collector {
        root,
        found: Vec::new(),
        warnings: Vec::new(),
        sources: Vec::new(),
    };
    node::scan(&mut c);
    make::scan_makefile(&mut c);
    make::scan_justfile(&mut c);
    manifests::scan(&mut c);
    ci::scan(&mut c);
    let mut commands = c.found;
    // Stable: within a kind and rank, the order sources were read in stays.
    commands.sort_by_key(|f| (f.kind, f.rank));
    let mut seen = std::collections::HashSet::new();
    commands.retain(|f| seen.insert((f.kind, f.command.clone())));
    let missing = Kind::ALL
        .into_iter()
        .filter(|k| !commands.iter().any(|f| f.kind == *k))
        .collect();
    Discovery {
        root: root.to_path_buf(),
        commands,
        missing,
        warnings: c.warnings,
        sources: c.sources,
    }
}

/// Stores `settings` (from [`Discovery::gate_settings`]) in `vermas.yaml` in one commit.
pub fn write_gates(
    ws: &Workspace,
    settings: &[(&'static str, String)],
    actor: &str,
) -> Result<(Config, Recorded)> {
    if settings.is_empty() {
        return Err(Error::invalid_with_help(
            "nothing to write: no test, build, lint or typecheck command was found",
            "add a `test` script or target, or set the gates by hand with `vermas config set gates.green CMD`",
        ));
    }
    let mut txn = Txn::begin(ws)?;
    // Re-read under the lock so a concurrent `config set` is not lost.
    let current = Workspace::open(ws.beads_dir.clone())?.config;
    let mut updated = current.clone();
    for (key, value) in settings {
        updated = updated.with(key, value)?;
    }
    txn.set_recording(current.git.commit || updated.git.commit);
    txn.write(&ws.config_path(), updated.render().as_bytes())?;
    let recorded = txn.commit(&CommitMessage {
        verb: "discover".into(),
        ids: Vec::new(),
        title: commit_title(settings),
        actor: actor.to_string(),
    })?;
    Ok((updated, recorded))
}

/// `gates.red/green/refactor = CMD, gates.implement = CMD`.
fn commit_title(settings: &[(&'static str, String)]) -> String {
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for (key, value) in settings {
        let short = key.trim_start_matches("gates.");
        match groups.iter_mut().find(|(_, v)| *v == value.as_str()) {
            Some((keys, _)) => keys.push(short),
            None => groups.push((vec![short], value)),
        }
    }
    groups
        .iter()
        .map(|(keys, value)| format!("gates.{} = {value}", keys.join("/")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Gathers findings and warnings while the sources are scanned.
pub(crate) struct Collector<'a> {
    root: &'a Path,
    found: Vec<Found>,
    warnings: Vec<Error>,
    sources: Vec<String>,
}

impl Collector<'_> {
    /// The project root.
    fn root(&self) -> &Path {
        self.root
    }

    /// Whether `rel` exists under the root.
    fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).exists()
    }

    /// The text of `rel`, or `None` when it does not exist (an unreadable file is a warning).
    fn read(&mut self, rel: &str) -> Option<String> {
        let path = self.root.join(rel);
        if !path.is_file() {
            return None;
        }
        match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Some(text),
                Err(e) => {
                    let valid = e.utf8_error().valid_up_to();
                    let bytes = e.into_bytes();
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    let (line, column) = line_col(&text, valid);
                    self.warn(ParseError::at(rel, &text, line, column, "not valid UTF-8"));
                    None
                }
            },
            Err(e) => {
                self.warnings.push(Error::io(rel, e));
                None
            }
        }
    }

    /// Notes that `rel` was read and parsed.
    fn read_ok(&mut self, rel: &str) {
        self.sources.push(rel.to_string());
    }

    /// Records a source that could not be parsed.
    fn warn(&mut self, e: ParseError) {
        self.warnings.push(Error::Parse(Box::new(e)));
    }

    /// Records a command.
    fn add(
        &mut self,
        kind: Kind,
        command: String,
        source: &str,
        line: usize,
        primary: bool,
        rank: Rank,
    ) {
        self.found.push(Found {
            kind,
            command,
            source: source.to_string(),
            line,
            primary,
            rank,
        });
    }
}

/// One-based line of a byte offset in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    line_col(text, offset).0
}

/// Relative path text of `path` under `root`, with `/` separators.
pub(crate) fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(kind: Kind, command: &str, primary: bool, rank: Rank) -> Found {
        Found {
            kind,
            command: command.into(),
            source: "x".into(),
            line: 1,
            primary,
            rank,
        }
    }

    fn discovery(commands: Vec<Found>) -> Discovery {
        Discovery {
            root: PathBuf::new(),
            commands,
            missing: Vec::new(),
            warnings: Vec::new(),
            sources: Vec::new(),
        }
    }

    #[test]
    fn best_prefers_trusted_source_then_primary_name() {
        let d = discovery(vec![
            found(Kind::Test, "npm run test:unit", false, Rank::RootPackage),
            found(Kind::Test, "npm run test", true, Rank::RootPackage),
            found(Kind::Test, "make test", true, Rank::Make),
        ]);
        assert_eq!(d.best(Kind::Test).unwrap().command, "npm run test");
        assert!(d.best(Kind::Build).is_none());
    }

    #[test]
    fn implement_falls_back_to_lint_and_typecheck() {
        let d = discovery(vec![
            found(Kind::Test, "pytest", true, Rank::Manifest),
            found(Kind::Lint, "ruff check .", true, Rank::Manifest),
            found(Kind::Typecheck, "mypy .", true, Rank::Manifest),
        ]);
        let gates = d.gate_settings();
        assert_eq!(gates.len(), 4);
        assert_eq!(
            gates[3],
            ("gates.implement", "ruff check . && mypy .".into())
        );
        assert_eq!(
            commit_title(&gates),
            "gates.red/green/refactor = pytest, gates.implement = ruff check . && mypy ."
        );
    }

    #[test]
    fn line_of_counts_from_one() {
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }
}
