//! How a bead is kept in the index cache `.beads/.cache/index` (see
//! [`crate::store::index`]): one line of tab-separated fields, the ones `ready` and `list`
//! test first, so a reader can take what it needs without decoding the rest.
//!
//! Lines leave out descriptions and notes (most of the bytes); such beads are marked
//! `partial` and completed from their files when a command shows them.

use super::model::{Bead, DEP_TYPES, DepType, IssueType, STATUSES, Status, TYPES};
use super::table::{self, Column, Mut, Ref};
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

/// How many fields a bead line has (see [`table::COLUMNS`]).
pub const FIELDS: usize = table::COLUMNS;

/// The position of each field in a bead line, as [`table::FIELDS`] places them.
pub mod field {
    use super::table::column;
    /// Status.
    pub const STATUS: usize = column("status");
    /// Type.
    pub const TYPE: usize = column("issue_type");
    /// Priority.
    pub const PRIORITY: usize = column("priority");
    /// Creation time, seconds (empty: none).
    pub const CREATED_AT: usize = column("created_at");
    /// `1` when the file holds fields the line leaves out (see [`super::table::Column::Left`]).
    pub const PARTIAL: usize = super::table::PARTIAL_COLUMN;
    /// Dependencies: `target PART type` items joined by `ITEM`.
    pub const DEPS: usize = column("dependencies");
    /// Labels joined by `ITEM`.
    pub const LABELS: usize = column("labels");
    /// Assignee (optional string).
    pub const ASSIGNEE: usize = column("assignee");
    /// Title.
    pub const TITLE: usize = column("title");
    /// Creator (optional string).
    pub const CREATED_BY: usize = column("created_by");
    /// Last change time.
    pub const UPDATED_AT: usize = column("updated_at");
    /// Closing time.
    pub const CLOSED_AT: usize = column("closed_at");
    /// Closing reason (optional string).
    pub const CLOSE_REASON: usize = column("close_reason");
    /// Parent id (optional string).
    pub const PARENT: usize = column("parent");
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
fn names<T: Copy + serde::de::DeserializeOwned>(
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
    read(names(&STATUS_NAMES, STATUSES), s)
}

/// A type from its spelling.
pub fn read_type(s: &str) -> Option<IssueType> {
    read(names(&TYPE_NAMES, TYPES), s)
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
    read(names(&DEP_NAMES, DEP_TYPES), s)
}

/// The spelling of a dependency type.
pub fn dep_type_name(kind: DepType) -> std::borrow::Cow<'static, str> {
    match names(&DEP_NAMES, DEP_TYPES)
        .iter()
        .find(|(t, _)| *t == kind)
    {
        Some((_, name)) => std::borrow::Cow::Borrowed(name),
        None => std::borrow::Cow::Owned(kind.to_string()),
    }
}

impl Indexed for Bead {
    const HEADER: &'static str = "vermas-index 6";

    fn encode(&self, out: &mut String) {
        let values = self.fields();
        // Every field the line leaves out is read from the file when the bead is shown.
        let partial = self.partial
            || table::FIELDS
                .iter()
                .zip(&values)
                .any(|(f, v)| f.column == Column::Left && !v.is_empty());
        for (c, &row) in table::BY_COLUMN.iter().enumerate() {
            if c > 0 {
                out.push('\t');
            }
            match values.get(row) {
                Some(value) => encode_field(out, *value),
                None => out.push(if partial { '1' } else { '0' }),
            }
        }
    }

    fn decode(id: &str, rest: &str) -> Option<Bead> {
        let f = split(rest)?;
        let mut b = Bead::new(unesc(id), String::new());
        b.partial = f[field::PARTIAL] == "1";
        for (def, value) in table::FIELDS.iter().zip(b.fields_mut()) {
            if let Column::At(c) = def.column {
                decode_field(value, f[c])?;
            }
        }
        Some(b)
    }
}

/// Appends a field's value as the line holds it.
fn encode_field(out: &mut String, value: Ref<'_>) {
    let time = |out: &mut String, t: &Option<Timestamp>| {
        if let Some(t) = t {
            out.push_str(&t.0.to_string());
        }
    };
    match value {
        Ref::Text(s) => esc_into(out, s),
        Ref::Status(s) => write(out, names(&STATUS_NAMES, STATUSES), *s),
        Ref::Type(t) => write(out, names(&TYPE_NAMES, TYPES), *t),
        Ref::Priority(p) => out.push_str(&p.to_string()),
        Ref::Time(t) => time(out, t),
        Ref::OptText(s) => esc_opt_into(out, s.as_deref()),
        Ref::Labels(labels) => {
            for (n, l) in labels.iter().enumerate() {
                if n > 0 {
                    out.push(ITEM);
                }
                esc_into(out, l);
            }
        }
        Ref::Deps(deps) => {
            for (n, d) in deps.iter().enumerate() {
                if n > 0 {
                    out.push(ITEM);
                }
                esc_into(out, &d.depends_on_id);
                out.push(PART);
                write(out, names(&DEP_NAMES, DEP_TYPES), d.dep_type);
                if let Some(gate) = d.gate {
                    out.push(PART);
                    out.push_str(&gate.to_string());
                }
            }
        }
        // Never in a line (`table` checks it as it compiles).
        Ref::Notes(_) | Ref::Criteria(_) | Ref::Approval(_) | Ref::Body(_) => {}
    }
}

/// Reads a field's value from the line's `field`.
fn decode_field(value: Mut<'_>, field: &str) -> Option<()> {
    match value {
        Mut::Text(s) => *s = unesc(field),
        Mut::Status(s) => *s = read_status(field)?,
        Mut::Type(t) => *t = read_type(field)?,
        Mut::Priority(p) => *p = field.parse().ok()?,
        Mut::Time(t) => *t = time_field(field)?,
        Mut::OptText(s) => *s = unesc_opt(field),
        Mut::Labels(l) => *l = unesc_list(field),
        Mut::Deps(deps) => {
            for item in field.split(ITEM).filter(|s| !s.is_empty()) {
                let (target, kind, gate) = dep_parts(item)?;
                deps.push(super::model::Dependency {
                    depends_on_id: unesc(target),
                    dep_type: read_dep_type(kind)?,
                    gate,
                });
            }
        }
        Mut::Notes(_) | Mut::Criteria(_) | Mut::Approval(_) | Mut::Body(_) => return None,
    }
    Some(())
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
