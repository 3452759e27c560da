//! The members of a bead's JSON that its index line holds (the rows of
//! [`super::table::FIELDS`] up to the first one the line leaves out), and how a long
//! `--json` listing writes them: straight from the line into the output, laid out byte
//! for byte as `serde_json`'s pretty printer lays out a [`super::Bead`] one level deep in
//! an array, with no second pass to indent it.

use super::cache::{self, FIELDS};
use super::table::{self, Column, Kind};
use crate::store::index::{ITEM, unesc_cow};
use crate::time::Timestamp;
use serde::Serialize;

/// Indentation of the bead's members (the bead is an element of the listing's array).
const MEMBER: &[u8] = b"\n    ";
/// Indentation of an element of a member's array.
const ITEM_INDENT: &[u8] = b"\n      ";
/// Indentation of a member of a dependency.
const DEP_MEMBER: &[u8] = b"\n        ";

/// Appends `{` and the members the index line of bead `id` holds (`fields`, its line
/// split), each on its own line, without the closing brace: the caller adds the members
/// the line leaves out, then the end of the object. `None` when a field does not read
/// (nothing is written then).
pub fn write_open(out: &mut Vec<u8>, id: &str, fields: &[&str; FIELDS]) -> Option<()> {
    let start = out.len();
    let written = write_members(out, id, fields);
    if written.is_none() {
        out.truncate(start);
    }
    written
}

/// [`write_open`], leaving what it wrote on failure.
fn write_members(out: &mut Vec<u8>, id: &str, fields: &[&str; FIELDS]) -> Option<()> {
    out.push(b'{');
    for (n, def) in table::FIELDS.iter().enumerate() {
        let value = match def.column {
            Column::Key => id,
            Column::At(c) => fields[c],
            Column::Left => break,
        };
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(MEMBER);
        out.push(b'"');
        out.extend_from_slice(def.name.as_bytes());
        out.extend_from_slice(b"\": ");
        member(out, def.kind, value)?;
    }
    Some(())
}

/// Appends the JSON of a field of kind `kind` from its line field `value`.
fn member(out: &mut Vec<u8>, kind: Kind, value: &str) -> Option<()> {
    match kind {
        Kind::Text => scalar(out, &unesc_cow(value)),
        Kind::Status => scalar(out, &cache::read_status(value)?),
        Kind::Type => scalar(out, &cache::read_type(value)?),
        Kind::Priority => scalar(out, &value.parse::<u8>().ok()?),
        Kind::OptText => scalar(out, &value.strip_prefix('+').map(unesc_cow)),
        Kind::Time => time(out, cache::time_field(value)?),
        Kind::Labels => {
            let labels: Vec<&str> = match value {
                "" => Vec::new(),
                list => list.split(ITEM).collect(),
            };
            array(out, &labels, |out, label| {
                out.extend_from_slice(ITEM_INDENT);
                scalar(out, &unesc_cow(label));
            });
        }
        Kind::Deps => {
            let mut deps = Vec::new();
            for item in value.split(ITEM).filter(|s| !s.is_empty()) {
                let (target, kind, gate) = cache::dep_parts(item)?;
                deps.push((target, cache::read_dep_type(kind)?, gate));
            }
            array(out, &deps, |out, (target, kind, gate)| {
                out.extend_from_slice(ITEM_INDENT);
                out.push(b'{');
                out.extend_from_slice(DEP_MEMBER);
                out.extend_from_slice(b"\"depends_on_id\": ");
                scalar(out, &unesc_cow(target));
                out.push(b',');
                out.extend_from_slice(DEP_MEMBER);
                out.extend_from_slice(b"\"type\": ");
                scalar(out, kind);
                if let Some(gate) = gate {
                    out.push(b',');
                    out.extend_from_slice(DEP_MEMBER);
                    out.extend_from_slice(b"\"gate\": ");
                    scalar(out, gate);
                }
                out.extend_from_slice(ITEM_INDENT);
                out.push(b'}');
            });
        }
        // Never in a line (`table` checks it as it compiles).
        Kind::Notes | Kind::Criteria | Kind::Approval | Kind::Body => return None,
    }
    Some(())
}

/// Appends `items` as a pretty array member's value: `[]` when empty, else each element
/// (written by `each`, from its line break on) and the closing bracket on its own line.
fn array<T>(out: &mut Vec<u8>, items: &[T], each: impl Fn(&mut Vec<u8>, &T)) {
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return;
    }
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, item);
    }
    out.extend_from_slice(MEMBER);
    out.push(b']');
}

/// Appends a time as serde_json writes it: its RFC 3339 text quoted, or `null`.
fn time(out: &mut Vec<u8>, t: Option<Timestamp>) {
    match t.map(|t| (t, t.rfc3339_bytes())) {
        None => out.extend_from_slice(b"null"),
        Some((_, Some(text))) => {
            out.push(b'"');
            out.extend_from_slice(&text);
            out.push(b'"');
        }
        Some((t, None)) => scalar(out, &t),
    }
}

/// Appends a value with no inner layout (a string, a number, null, an enum's name), as
/// serde_json writes it: the same bytes, pretty or not.
fn scalar(out: &mut Vec<u8>, value: &(impl Serialize + ?Sized)) {
    // Writing into a Vec cannot fail, and these values always serialise.
    let _ = serde_json::to_writer(&mut *out, value);
}
