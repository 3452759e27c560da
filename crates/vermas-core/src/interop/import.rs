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
use std::io::BufRead;
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
    /// The id prefix of the new beads, when it is not the repository's.
    pub prefix: Option<PrefixChange>,
    /// The commit, or why there is none.
    pub recorded: Recorded,
}

/// The prefix of the beads an import created, when all share one that new ids do not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefixChange {
    /// The repository had no beads of its own: `prefix` was set to it, in the import's
    /// commit, so new ids match the imported ones.
    Adopted {
        /// The prefix before.
        was: String,
        /// The imported beads' prefix, now the repository's.
        now: String,
    },
    /// The repository has beads of its own: the prefix was left alone.
    Differs {
        /// The repository's prefix.
        ours: String,
        /// The imported beads' prefix.
        theirs: String,
    },
}

/// A good line: its number, the bd object and what it says.
struct Line {
    number: usize,
    text: String,
    object: Object,
    issue: bd::Issue,
}

/// Imports the bd JSONL file at `path` (`shown` names it in messages) into beads and
/// commits the beads it wrote, in one commit. The file is read a line at a time: each
/// issue is written as it is read, so memory does not grow with the file.
pub fn import(ws: &Workspace, actor: &str, path: &Path, shown: &str) -> Result<Imported> {
    check_actor(actor)?;
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Missing {
            message: format!("no bd export at {shown}"),
            help: "bd writes one with `bd export -o FILE`; name it with `vermas import bd FILE`"
                .into(),
        },
        _ => Error::io(path, e),
    })?;
    let mut input = std::io::BufReader::with_capacity(256 * 1024, file);
    let mut report = Imported {
        created: Vec::new(),
        updated: Vec::new(),
        unchanged: Vec::new(),
        tombstones: 0,
        other_records: 0,
        bad: Vec::new(),
        prefix: None,
        recorded: Recorded::Unchanged,
    };
    let mut txn = Txn::begin(ws)?;
    let existing: HashMap<String, String> = ws
        .bead_ids()?
        .into_iter()
        .map(|id| (id.to_lowercase(), id))
        .collect();
    let uncommitted = uncommitted_beads(ws);
    let mut seen = Seen::default();
    let mut written = Written::default();
    let mut raw = Vec::new();
    for number in 1.. {
        raw.clear();
        if input
            .read_until(b'\n', &mut raw)
            .map_err(|e| Error::io(path, e))?
            == 0
        {
            break;
        }
        let text = raw.strip_suffix(b"\n").unwrap_or(&raw);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        // A byte-order mark some editors add is not part of the first record.
        let text = if number == 1 {
            text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text)
        } else {
            text
        };
        let line = match read_line(number, text) {
            Read::Blank => continue,
            Read::Tombstone => {
                report.tombstones += 1;
                continue;
            }
            Read::Other => {
                report.other_records += 1;
                continue;
            }
            Read::Bad(bad) => {
                report.bad.push(bad);
                continue;
            }
            Read::Issue(line) => line,
        };
        if let Some(bad) = seen.refusal(&line).or_else(|| case_twin(&existing, &line)) {
            report.bad.push(bad);
            continue;
        }
        import_line(ws, &mut txn, &line, &uncommitted, &mut report, &mut written)?;
    }
    report.bad.sort_by_key(|b| b.line);
    if written.first_title.is_some() {
        report.prefix = prefix_change(ws, &mut txn, &report.created, existing.is_empty())?;
    }
    if let Some(title) = written.first_title {
        let message = CommitMessage {
            verb: "import bd".into(),
            ids: written.ids,
            title,
            actor: actor.to_string(),
        };
        report.recorded = txn.commit(&message)?;
    }
    Ok(report)
}

/// The prefix of bead id `id`: what comes before the last `-` of its top-level part.
fn prefix_of(id: &str) -> Option<&str> {
    let top = id.split('.').next()?;
    let (prefix, _) = top.rsplit_once('-')?;
    crate::config::validate_prefix(prefix).ok().map(|()| prefix)
}

/// When every bead `created` has one prefix that is not the repository's: with no beads
/// of its own before (`fresh`), the repository takes it (its `vermas.yaml` written in
/// `txn`, read again under the lock); otherwise it is only reported.
fn prefix_change(
    ws: &Workspace,
    txn: &mut Txn,
    created: &[String],
    fresh: bool,
) -> Result<Option<PrefixChange>> {
    let mut prefixes = created.iter().map(|id| prefix_of(id));
    let Some(Some(theirs)) = prefixes.next() else {
        return Ok(None);
    };
    if !prefixes.all(|p| p == Some(theirs)) {
        return Ok(None);
    }
    let config = Workspace::open(ws.beads_dir.clone())?.config;
    if config.prefix == theirs {
        return Ok(None);
    }
    if !fresh {
        return Ok(Some(PrefixChange::Differs {
            ours: config.prefix.clone(),
            theirs: theirs.to_string(),
        }));
    }
    let updated = config.with("prefix", theirs)?;
    txn.write(&ws.config_path(), updated.render().as_bytes())?;
    Ok(Some(PrefixChange::Adopted {
        was: config.prefix,
        now: theirs.to_string(),
    }))
}

/// The beads an import wrote: their ids in order, and the first one's title.
#[derive(Default)]
struct Written {
    ids: Vec<String>,
    first_title: Option<String>,
}

/// Writes the bead for one good `line` (unless it holds the issue already) and says in
/// `report` what became of it.
fn import_line(
    ws: &Workspace,
    txn: &mut Txn,
    line: &Line,
    uncommitted: &HashMap<String, NotInHead>,
    report: &mut Imported,
    written: &mut Written,
) -> Result<()> {
    let file = bead_path(ws, &line.issue.id);
    let existing = if file.symlink_metadata().is_ok() {
        match read_bead(ws, &file) {
            Ok(b) => Some(b),
            Err(e) => {
                let message = format!(
                    "its bead {} cannot be read, so it is left as it is: {e}",
                    line.issue.id
                );
                report.bad.push(bad_line(line, 1, message));
                return Ok(());
            }
        }
    } else {
        None
    };
    let bead = bead_for(line, existing.as_ref());
    if let Err(e) = crate::bead::routing::routing_only(existing.as_ref(), &bead) {
        report.bad.push(bad_line(line, 1, e.to_string()));
        return Ok(());
    }
    let id = bead.id.clone();
    match existing {
        // Unchanged means on disk and in HEAD as the issue says: a file an import
        // killed before its commit wrote is committed now.
        Some(old) if old == bead => match uncommitted.get(&id) {
            None => {
                report.unchanged.push(id);
                return Ok(());
            }
            Some(NotInHead::New) => report.created.push(id.clone()),
            Some(NotInHead::Changed) => report.updated.push(id.clone()),
        },
        Some(_) => report.updated.push(id.clone()),
        None => report.created.push(id.clone()),
    }
    txn.write(&file, bead.render().as_bytes())?;
    written.first_title.get_or_insert(bead.title);
    written.ids.push(id);
    Ok(())
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

/// The ids of the file's issues met so far, to refuse a second line for one of them.
#[derive(Default)]
struct Seen {
    /// Each id's first line.
    first_line_of: HashMap<String, usize>,
    /// Ids as a file system that ignores case (macOS's, Windows's) sees them.
    folded: HashMap<String, (usize, String)>,
}

impl Seen {
    /// Why `line` is refused when an earlier line had its id (or one differing only in
    /// case); otherwise its id is noted.
    fn refusal(&mut self, line: &Line) -> Option<BadLine> {
        let id = &line.issue.id;
        let column = || key_column(&line.text, "id");
        if let Some(first) = self.first_line_of.get(id) {
            let message = format!("issue {id} is on line {first} already");
            return Some(bad_line(line, column(), message));
        }
        let fold = id.to_lowercase();
        if let Some((first, twin)) = self.folded.get(&fold) {
            let message = case_twin_message(id, twin, &format!("on line {first}"));
            return Some(bad_line(line, column(), message));
        }
        self.first_line_of.insert(id.clone(), line.number);
        self.folded.insert(fold, (line.number, id.clone()));
        None
    }
}

/// Refuses (as a bad line) an issue whose id differs only in case from a bead that exists
/// under another spelling (`existing`: bead ids by their lower case): on macOS and Windows
/// both would be one file.
fn case_twin(existing: &HashMap<String, String>, line: &Line) -> Option<BadLine> {
    let id = &line.issue.id;
    let twin = existing
        .get(&id.to_lowercase())
        .filter(|twin| *twin != id)?;
    let message = case_twin_message(id, twin, "in this repository already");
    Some(bad_line(line, key_column(&line.text, "id"), message))
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
