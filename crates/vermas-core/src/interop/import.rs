//! `import bd`: every issue of a bd JSONL export into a bead, in one commit.
//!
//! As bd's own import does, an issue already present updates its bead: bd's fields
//! replace the bead's, while labels, dependencies and notes (bd's comments) the bead has
//! and bd lacks are kept. A bad line is reported with its line number and left out; the
//! other lines are imported.

use super::bd::{self, TOMBSTONE};
use super::sections::{self, Object};
use super::to_bd;
use crate::bead::Bead;
use crate::bead::ops::check_actor;
use crate::bead::store::{bead_path, read_bead};
use crate::error::{Error, ParseError, Result};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::workspace::Workspace;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One line of the file that was not imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// One-based line number.
    pub line: usize,
    /// One-based column (of the offending key, where there is one).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The line itself, for the diagnostic.
    pub text: String,
}

impl BadLine {
    /// The diagnostic for this line of `file` (`file:line:column`, with the line shown).
    pub fn diagnostic(&self, file: &str) -> Error {
        // Blank lines before it keep the snippet's line number right without holding the
        // whole file.
        let padded = format!("{}{}", "\n".repeat(self.line - 1), self.text);
        ParseError::at(file, &padded, self.line, self.column, self.message.clone()).into()
    }
}

/// What an import did.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Ids of the beads it created.
    pub created: Vec<String>,
    /// Ids of the beads it changed.
    pub updated: Vec<String>,
    /// Ids of the beads that already held their issue.
    pub unchanged: Vec<String>,
    /// Deleted issues (bd tombstones), skipped.
    pub tombstones: usize,
    /// Records that are not issues (another `_type`, such as bd's memories), skipped.
    pub other_records: usize,
    /// Lines not imported, in file order.
    pub bad: Vec<BadLine>,
    /// The commit, or why there is none.
    pub recorded: Recorded,
}

/// A good line: its number, the bd object and what it says.
struct Line {
    number: usize,
    text: String,
    object: Object,
    issue: bd::Issue,
}

/// Imports the bd JSONL file at `path` (`shown` names it in messages) into beads and
/// commits the beads it wrote, in one commit.
pub fn import(ws: &Workspace, actor: &str, path: &Path, shown: &str) -> Result<Imported> {
    check_actor(actor)?;
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Missing {
            message: format!("no bd export at {shown}"),
            help: "bd writes one with `bd export -o FILE`; name it with `vermas import bd FILE`"
                .into(),
        },
        _ => Error::io(path, e),
    })?;
    let mut report = Imported {
        created: Vec::new(),
        updated: Vec::new(),
        unchanged: Vec::new(),
        tombstones: 0,
        other_records: 0,
        bad: Vec::new(),
        recorded: Recorded::Unchanged,
    };
    let mut lines = read_lines(&bytes, &mut report);
    let mut txn = Txn::begin(ws)?;
    refuse_case_twins(ws, &mut lines, &mut report)?;
    let uncommitted = uncommitted_beads(ws);
    let mut written: Vec<Bead> = Vec::new();
    for line in lines {
        let file = bead_path(ws, &line.issue.id);
        let existing = if file.symlink_metadata().is_ok() {
            match read_bead(ws, &file) {
                Ok(b) => Some(b),
                Err(e) => {
                    report.bad.push(bad_line(
                        &line,
                        1,
                        format!(
                            "its bead {} cannot be read, so it is left as it is: {e}",
                            line.issue.id
                        ),
                    ));
                    continue;
                }
            }
        } else {
            None
        };
        let bead = bead_for(&line, existing.as_ref());
        let id = bead.id.clone();
        match existing {
            // Unchanged means on disk and in HEAD as the issue says: a file an import
            // killed before its commit wrote is committed now.
            Some(old) if old == bead => match uncommitted.get(&id) {
                None => {
                    report.unchanged.push(id);
                    continue;
                }
                Some(NotInHead::New) => report.created.push(id),
                Some(NotInHead::Changed) => report.updated.push(id),
            },
            Some(_) => report.updated.push(id),
            None => report.created.push(id),
        }
        txn.write(&file, bead.render().as_bytes())?;
        written.push(bead);
    }
    report.bad.sort_by_key(|b| b.line);
    if let Some(first) = written.first() {
        let message = CommitMessage {
            verb: "import bd".into(),
            ids: written.iter().map(|b| b.id.clone()).collect(),
            title: first.title.clone(),
            actor: actor.to_string(),
        };
        report.recorded = txn.commit(&message)?;
    }
    Ok(report)
}

/// How a bead file on disk stands against HEAD.
enum NotInHead {
    /// HEAD has no such file.
    New,
    /// HEAD has another content.
    Changed,
}

/// The ids of the bead files that are not in HEAD as they are on disk (none when changes
/// are not recorded in git).
fn uncommitted_beads(ws: &Workspace) -> HashMap<String, NotInHead> {
    let Some(repo) = crate::git::GitRepo::open(&ws.beads_dir).filter(|_| ws.config.git.commit)
    else {
        return HashMap::new();
    };
    let issues = ws.issues_dir();
    let issues = std::fs::canonicalize(&issues).unwrap_or(issues);
    crate::git::leftovers::unrecorded(repo.workdir(), &ws.beads_dir)
        .into_iter()
        .filter_map(|(path, state)| {
            let path = repo.workdir().join(path);
            let id = path.file_name()?.to_str()?.strip_suffix(".md")?.to_string();
            let how = if state == "??" || state == "A" {
                NotInHead::New
            } else {
                NotInHead::Changed
            };
            (path.parent() == Some(issues.as_path())).then_some((id, how))
        })
        .collect()
}

/// The issues of the file, in order; tombstones, other records and bad lines are counted
/// in `report`.
fn read_lines(bytes: &[u8], report: &mut Imported) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut first_line_of: HashMap<String, usize> = HashMap::new();
    // Ids as a file system that ignores case (macOS's, Windows's) sees them.
    let mut folded: HashMap<String, (usize, String)> = HashMap::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // A byte-order mark some editors add is not part of the first record.
        let raw = if i == 0 {
            raw.strip_prefix("\u{feff}".as_bytes()).unwrap_or(raw)
        } else {
            raw
        };
        match read_line(i + 1, raw) {
            Read::Blank => {}
            Read::Tombstone => report.tombstones += 1,
            Read::Other => report.other_records += 1,
            Read::Bad(bad) => report.bad.push(bad),
            Read::Issue(line) => {
                if let Some(first) = first_line_of.get(&line.issue.id) {
                    let message = format!("issue {} is on line {first} already", line.issue.id);
                    report
                        .bad
                        .push(bad_line(&line, key_column(&line.text, "id"), message));
                    continue;
                }
                let fold = line.issue.id.to_lowercase();
                if let Some((first, twin)) = folded.get(&fold) {
                    let message =
                        case_twin_message(&line.issue.id, twin, &format!("on line {first}"));
                    report
                        .bad
                        .push(bad_line(&line, key_column(&line.text, "id"), message));
                    continue;
                }
                first_line_of.insert(line.issue.id.clone(), line.number);
                folded.insert(fold, (line.number, line.issue.id.clone()));
                lines.push(*line);
            }
        }
    }
    lines
}

/// Leaves out (as bad lines) the issues whose id differs only in case from a bead that
/// exists under another spelling: on macOS and Windows both would be one file.
fn refuse_case_twins(ws: &Workspace, lines: &mut Vec<Line>, report: &mut Imported) -> Result<()> {
    let existing: HashMap<String, String> = ws
        .bead_ids()?
        .into_iter()
        .map(|id| (id.to_lowercase(), id))
        .collect();
    lines.retain(|line| {
        let id = &line.issue.id;
        match existing.get(&id.to_lowercase()).filter(|twin| *twin != id) {
            Some(twin) => {
                let message = case_twin_message(id, twin, "in this repository already");
                report
                    .bad
                    .push(bad_line(line, key_column(&line.text, "id"), message));
                false
            }
            None => true,
        }
    });
    Ok(())
}

/// Why issue `id` is refused when bead `twin`, `where` it is, differs from it only in case.
fn case_twin_message(id: &str, twin: &str, place: &str) -> String {
    format!(
        "issue {id} differs only in case from {twin} {place}: on macOS and Windows their \
         files would be one"
    )
}

/// What one line of the file holds.
enum Read {
    /// Nothing but white space.
    Blank,
    /// A deleted issue.
    Tombstone,
    /// A record that is not an issue.
    Other,
    /// A line that cannot be imported.
    Bad(BadLine),
    /// An issue (boxed: a line is far larger than the other cases).
    Issue(Box<Line>),
}

/// Reads line `number` (its bytes without the line break).
fn read_line(number: usize, raw: &[u8]) -> Read {
    let Ok(text) = std::str::from_utf8(raw) else {
        return Read::Bad(BadLine {
            line: number,
            column: 1,
            message: "the line is not UTF-8 text".into(),
            text: String::from_utf8_lossy(raw).into_owned(),
        });
    };
    if text.trim().is_empty() {
        return Read::Blank;
    }
    let bad = |column: usize, message: String| {
        Read::Bad(BadLine {
            line: number,
            column,
            message,
            text: text.to_string(),
        })
    };
    let object = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return bad(1, "a bd issue is a JSON object `{...}`".into()),
        Err(e) => {
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m);
            return bad(e.column().max(1), format!("not JSON: {message}"));
        }
    };
    if object
        .get("_type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind != "issue")
    {
        return Read::Other;
    }
    if object.get("status").and_then(Value::as_str) == Some(TOMBSTONE) {
        return Read::Tombstone;
    }
    match bd::read(&object) {
        Ok(issue) => Read::Issue(Box::new(Line {
            number,
            text: text.to_string(),
            object,
            issue,
        })),
        Err(p) => bad(p.key.map_or(1, |k| key_column(text, k)), p.message),
    }
}

/// One-based column of `"key"` in a JSON line (1 when it is not there).
fn key_column(text: &str, key: &str) -> usize {
    text.find(&format!("\"{key}\""))
        .map_or(1, |at| text[..at].chars().count() + 1)
}

fn bad_line(line: &Line, column: usize, message: String) -> BadLine {
    BadLine {
        line: line.number,
        column,
        message,
        text: line.text.clone(),
    }
}

/// The bead for a good line: the issue's fields, what the bead already had and bd lacks,
/// and the leftover bd fields on the body's last line.
fn bead_for(line: &Line, existing: Option<&Bead>) -> Bead {
    let fresh = bd::to_bead(&line.issue);
    let base = to_bd::base(&fresh, &line.issue.texts);
    let kept = to_bd::leftovers(&line.object, &base);
    let mut bead = match existing {
        Some(old) => merged(fresh, old),
        None => fresh,
    };
    // The criteria the bead keeps as its own were written into bd's text at export: they
    // are not body text too.
    let mut texts = line.issue.texts.clone();
    texts.acceptance_criteria = to_bd::without_own_criteria(&texts.acceptance_criteria, &bead);
    bead.description = sections::compose(&texts, &kept);
    bead
}

/// `fresh` (from bd) with what `old` has and bd cannot carry or did not have: labels,
/// dependencies and notes it lacks, the spec link, parent and acceptance criteria.
fn merged(mut fresh: Bead, old: &Bead) -> Bead {
    for label in &old.labels {
        if !fresh.has_label(label) {
            fresh.labels.push(label.clone());
        }
    }
    for dep in &old.dependencies {
        if !fresh.dependencies.contains(dep) {
            fresh.dependencies.push(dep.clone());
        }
    }
    for note in &old.notes {
        // bd's rule for comments: the same author and text is the same comment.
        let same =
            |n: &crate::bead::model::Note| n.by == note.by && n.text.trim() == note.text.trim();
        if !fresh.notes.iter().any(same) {
            fresh.notes.push(note.clone());
        }
    }
    if fresh.spec.is_none() {
        fresh.spec = old.spec.clone();
    }
    if fresh.parent.is_none() {
        fresh.parent = old.parent.clone();
    }
    fresh.acceptance_criteria = old.acceptance_criteria.clone();
    fresh
}
