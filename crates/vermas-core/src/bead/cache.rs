//! How a bead is kept in the index cache `.beads/.cache/index` (see
//! [`crate::store::index`]): one line of tab-separated fields, the ones `ready` and `list`
//! test first, so a reader can take what it needs without decoding the rest.
//!
//! Lines leave out descriptions and notes (most of the bytes); such beads are marked
//! `partial` and completed from their files when a command shows them.

use super::model::{Bead, DEP_TYPES, DepType, IssueType, STATUSES, Status, TYPES};
use crate::store::index::{
    ITEM, Indexed, PART, choice, esc_into, esc_opt_into, unesc, unesc_list, unesc_opt,
};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Where the bead index lives.
pub fn index_path(ws: &Workspace) -> PathBuf {
    ws.cache_dir().join("index")
}

/// How many fields a bead line has.
pub const FIELDS: usize = 15;

/// The position of each field in a bead line.
pub mod field {
    /// Status.
    pub const STATUS: usize = 0;
    /// Type.
    pub const TYPE: usize = 1;
    /// Priority.
    pub const PRIORITY: usize = 2;
    /// Creation time, seconds (empty: none).
    pub const CREATED_AT: usize = 3;
    /// `1` when the description, notes or criteria were left out.
    pub const PARTIAL: usize = 4;
    /// Dependencies: `target PART type` items joined by `ITEM`.
    pub const DEPS: usize = 5;
    /// Labels joined by `ITEM`.
    pub const LABELS: usize = 6;
    /// Assignee (optional string).
    pub const ASSIGNEE: usize = 7;
    /// Title.
    pub const TITLE: usize = 8;
    /// Creator (optional string).
    pub const CREATED_BY: usize = 9;
    /// Last change time.
    pub const UPDATED_AT: usize = 10;
    /// Closing time.
    pub const CLOSED_AT: usize = 11;
    /// Closing reason (optional string).
    pub const CLOSE_REASON: usize = 12;
    /// Parent id (optional string).
    pub const PARENT: usize = 13;
    /// Spec path (optional string).
    pub const SPEC: usize = 14;
}

/// The fields of a line, or `None` when it does not have exactly [`FIELDS`].
pub fn split(rest: &str) -> Option<[&str; FIELDS]> {
    // One pass over the bytes: most fields are a few bytes long, too short for a search
    // per field to pay.
    let mut ends = [rest.len(); FIELDS];
    let mut n = 0;
    for (i, b) in rest.bytes().enumerate() {
        if b == b'\t' {
            *ends.get_mut(n)? = i;
            n += 1;
        }
    }
    if n != FIELDS - 1 {
        return None;
    }
    let mut out = [""; FIELDS];
    let mut start = 0;
    for (slot, end) in out.iter_mut().zip(ends) {
        // A tab is one byte: every field starts and ends on a character boundary.
        *slot = &rest[start..end];
        start = end + 1;
    }
    Some(out)
}

/// A time field: empty for none, else seconds since the epoch.
pub fn time_field(s: &str) -> Option<Option<Timestamp>> {
    if s.is_empty() {
        Some(None)
    } else {
        s.parse().ok().map(|n| Some(Timestamp(n)))
    }
}

/// An enum's serde spellings, looked up without serde.
type Names<T> = OnceLock<Vec<(T, &'static str)>>;

/// The table of `spellings` read as `T` (a spelling that is not one is left out).
fn table<T: Copy + serde::de::DeserializeOwned>(
    cell: &'static Names<T>,
    spellings: &'static [&'static str],
) -> &'static [(T, &'static str)] {
    cell.get_or_init(|| {
        spellings
            .iter()
            .filter_map(|s| choice::<T>(s).map(|v| (v, *s)))
            .collect()
    })
}

/// Reads an enum from its spelling (through serde for one missing from the table).
fn read<T: Copy + serde::de::DeserializeOwned>(table: &[(T, &'static str)], s: &str) -> Option<T> {
    table
        .iter()
        .find(|(_, n)| *n == s)
        .map(|(v, _)| *v)
        .or_else(|| choice(s))
}

/// Writes an enum's spelling (through `Display` for one missing from the table).
fn write<T: Copy + PartialEq + std::fmt::Display>(
    out: &mut String,
    table: &[(T, &'static str)],
    v: T,
) {
    match table.iter().find(|(t, _)| *t == v) {
        Some((_, name)) => out.push_str(name),
        None => out.push_str(&v.to_string()),
    }
}

static STATUS_NAMES: Names<Status> = OnceLock::new();
static TYPE_NAMES: Names<IssueType> = OnceLock::new();
static DEP_NAMES: Names<DepType> = OnceLock::new();

/// A status from its spelling.
pub fn read_status(s: &str) -> Option<Status> {
    read(table(&STATUS_NAMES, STATUSES), s)
}

/// A type from its spelling.
pub fn read_type(s: &str) -> Option<IssueType> {
    read(table(&TYPE_NAMES, TYPES), s)
}

/// An index line's dependency item: its target (escaped), its type's spelling and its
/// gate, if it has one.
pub fn dep_parts(item: &str) -> Option<(&str, &str, Option<super::model::Gate>)> {
    let (target, rest) = item.split_once(PART)?;
    match rest.split_once(PART) {
        None => Some((target, rest, None)),
        Some((kind, gate)) => Some((target, kind, Some(gate.parse().ok()?))),
    }
}

/// A dependency type from its spelling.
pub fn read_dep_type(s: &str) -> Option<DepType> {
    read(table(&DEP_NAMES, DEP_TYPES), s)
}

/// The spelling of a dependency type.
pub fn dep_type_name(kind: DepType) -> std::borrow::Cow<'static, str> {
    match table(&DEP_NAMES, DEP_TYPES)
        .iter()
        .find(|(t, _)| *t == kind)
    {
        Some((_, name)) => std::borrow::Cow::Borrowed(name),
        None => std::borrow::Cow::Owned(kind.to_string()),
    }
}

impl Indexed for Bead {
    const HEADER: &'static str = "vermas-index 5";

    fn encode(&self, out: &mut String) {
        let b = self;
        let partial = b.partial
            || !b.description.is_empty()
            || !b.notes.is_empty()
            || !b.acceptance_criteria.is_empty();
        let time = |out: &mut String, t: &Option<Timestamp>| {
            if let Some(t) = t {
                out.push_str(&t.0.to_string());
            }
        };
        write(out, table(&STATUS_NAMES, STATUSES), b.status);
        out.push('\t');
        write(out, table(&TYPE_NAMES, TYPES), b.issue_type);
        out.push('\t');
        out.push_str(&b.priority.to_string());
        out.push('\t');
        time(out, &b.created_at);
        out.push('\t');
        out.push(if partial { '1' } else { '0' });
        out.push('\t');
        for (n, d) in b.dependencies.iter().enumerate() {
            if n > 0 {
                out.push(ITEM);
            }
            esc_into(out, &d.depends_on_id);
            out.push(PART);
            write(out, table(&DEP_NAMES, DEP_TYPES), d.dep_type);
            if let Some(gate) = d.gate {
                out.push(PART);
                out.push_str(&gate.to_string());
            }
        }
        out.push('\t');
        for (n, l) in b.labels.iter().enumerate() {
            if n > 0 {
                out.push(ITEM);
            }
            esc_into(out, l);
        }
        out.push('\t');
        esc_opt_into(out, b.assignee.as_deref());
        out.push('\t');
        esc_into(out, &b.title);
        out.push('\t');
        esc_opt_into(out, b.created_by.as_deref());
        out.push('\t');
        time(out, &b.updated_at);
        out.push('\t');
        time(out, &b.closed_at);
        out.push('\t');
        esc_opt_into(out, b.close_reason.as_deref());
        out.push('\t');
        esc_opt_into(out, b.parent.as_deref());
        out.push('\t');
        esc_opt_into(out, b.spec.as_deref());
    }

    fn decode(id: &str, rest: &str) -> Option<Bead> {
        use field::*;
        let f = split(rest)?;
        let mut b = Bead::new(unesc(id), unesc(f[TITLE]));
        b.partial = f[PARTIAL] == "1";
        b.status = read_status(f[STATUS])?;
        b.priority = f[PRIORITY].parse().ok()?;
        b.issue_type = read_type(f[TYPE])?;
        b.labels = unesc_list(f[LABELS]);
        b.assignee = unesc_opt(f[ASSIGNEE]);
        b.created_at = time_field(f[CREATED_AT])?;
        b.created_by = unesc_opt(f[CREATED_BY]);
        b.updated_at = time_field(f[UPDATED_AT])?;
        b.closed_at = time_field(f[CLOSED_AT])?;
        b.close_reason = unesc_opt(f[CLOSE_REASON]);
        b.parent = unesc_opt(f[PARENT]);
        b.spec = unesc_opt(f[SPEC]);
        for item in f[DEPS].split(ITEM).filter(|s| !s.is_empty()) {
            let (target, kind, gate) = dep_parts(item)?;
            b.dependencies.push(super::model::Dependency {
                depends_on_id: unesc(target),
                dep_type: read_dep_type(kind)?,
                gate,
            });
        }
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::Dependency;
    use crate::store::index::{FileStamp, decode_index, encode_line};

    #[test]
    fn lines_round_trip() {
        let mut b = Bead::new(
            "vm-1".into(),
            "Tab\there, newline\nthere \\ and \u{1f}".into(),
        );
        b.status = Status::InProgress;
        b.labels = vec!["a:b".into(), "c".into()];
        b.assignee = Some(String::new());
        b.created_at = Some(Timestamp(1_700_000_000));
        b.closed_at = Some(Timestamp(-5));
        b.dependencies.push(Dependency {
            depends_on_id: "vm-2".into(),
            dep_type: DepType::DiscoveredFrom,
            gate: None,
        });
        b.dependencies.push(Dependency {
            depends_on_id: "vm-\t3".into(),
            dep_type: DepType::Blocks,
            gate: None,
        });
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            ino: 4,
        };
        let mut text = format!("{}\n", Bead::HEADER);
        encode_line(&mut text, &b.id, stamp, &b);
        let index = decode_index(&text, Bead::HEADER);
        let (s, rest) = index["vm-1"];
        assert_eq!(s, stamp);
        assert_eq!(Bead::decode("vm-1", rest).unwrap(), b);
        assert!(decode_index("other header\n", Bead::HEADER).is_empty());
        assert!(Bead::decode("vm-1", "open\ttask").is_none());
        let fifteen = "a\tb\t\td\te\tf\tg\th\ti\tj\tk\tl\tm\tn\t";
        assert_eq!(
            split(fifteen),
            Some([
                "a", "b", "", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", ""
            ])
        );
        assert_eq!(split(&format!("{fifteen}\t")), None);
        assert_eq!(split("a\tb"), None);
    }

    #[test]
    fn every_spelling_reads_back() {
        for s in STATUSES {
            assert_eq!(read_status(s).unwrap().to_string(), *s);
        }
        for s in TYPES {
            assert_eq!(read_type(s).unwrap().to_string(), *s);
        }
        for s in DEP_TYPES {
            let kind = read_dep_type(s).unwrap();
            assert_eq!(kind.to_string(), *s);
            assert_eq!(dep_type_name(kind), *s);
        }
        assert!(read_status("nope").is_none());
    }
}
