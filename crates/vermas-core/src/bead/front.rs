//! The members of a bead's JSON that its index line holds, and how a long `--json` listing
//! writes them: straight into the output, laid out byte for byte as `serde_json`'s pretty
//! printer lays out a [`super::Bead`] one level deep in an array, with no second pass to
//! indent it.

use super::model::{DepType, IssueType, Status};
use crate::time::Timestamp;
use serde::Serialize;
use std::borrow::Cow;

/// The members of a bead's JSON its index line holds, named and ordered as
/// [`super::Bead`] writes them.
#[cfg_attr(test, derive(Serialize))]
pub(super) struct Front<'a> {
    /// Id.
    pub id: &'a str,
    /// Title.
    pub title: Cow<'a, str>,
    /// Status.
    pub status: Status,
    /// Priority.
    pub priority: u8,
    /// Type.
    pub issue_type: IssueType,
    /// Labels.
    pub labels: Vec<Cow<'a, str>>,
    /// Assignee.
    pub assignee: Option<Cow<'a, str>>,
    /// Creation time.
    pub created_at: Option<Timestamp>,
    /// Creator.
    pub created_by: Option<Cow<'a, str>>,
    /// Last change.
    pub updated_at: Option<Timestamp>,
    /// Closing time.
    pub closed_at: Option<Timestamp>,
    /// Closing reason.
    pub close_reason: Option<Cow<'a, str>>,
    /// Parent.
    pub parent: Option<Cow<'a, str>>,
    /// Spec.
    pub spec: Option<Cow<'a, str>>,
    /// Dependencies.
    pub dependencies: Vec<DepView<'a>>,
}

/// A dependency as [`super::model::Dependency`] writes it.
#[cfg_attr(test, derive(Serialize))]
pub(super) struct DepView<'a> {
    /// The bead depended on.
    pub depends_on_id: Cow<'a, str>,
    /// The kind of edge.
    #[cfg_attr(test, serde(rename = "type"))]
    pub dep_type: DepType,
    /// A `waits-for` edge's gate.
    #[cfg_attr(test, serde(skip_serializing_if = "Option::is_none"))]
    pub gate: Option<super::model::Gate>,
}

/// Indentation of the bead's members (the bead is an element of the listing's array).
const MEMBER: &[u8] = b"\n    ";
/// Indentation of an element of a member's array.
const ITEM: &[u8] = b"\n      ";
/// Indentation of a member of a dependency.
const DEP_MEMBER: &[u8] = b"\n        ";

impl Front<'_> {
    /// Appends `{` and the members, each on its own line, without the closing brace: the
    /// caller adds the members the index line does not hold, then the end of the object.
    pub fn write_open(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, name: &str| {
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(MEMBER);
            out.push(b'"');
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\": ");
        };
        key(out, "id");
        scalar(out, self.id);
        key(out, "title");
        scalar(out, &self.title);
        key(out, "status");
        scalar(out, &self.status);
        key(out, "priority");
        scalar(out, &self.priority);
        key(out, "issue_type");
        scalar(out, &self.issue_type);
        key(out, "labels");
        array(out, &self.labels, |out, label| {
            out.extend_from_slice(ITEM);
            scalar(out, label);
        });
        key(out, "assignee");
        scalar(out, &self.assignee);
        key(out, "created_at");
        time(out, self.created_at);
        key(out, "created_by");
        scalar(out, &self.created_by);
        key(out, "updated_at");
        time(out, self.updated_at);
        key(out, "closed_at");
        time(out, self.closed_at);
        key(out, "close_reason");
        scalar(out, &self.close_reason);
        key(out, "parent");
        scalar(out, &self.parent);
        key(out, "spec");
        scalar(out, &self.spec);
        key(out, "dependencies");
        array(out, &self.dependencies, |out, dep| {
            out.extend_from_slice(ITEM);
            out.push(b'{');
            out.extend_from_slice(DEP_MEMBER);
            out.extend_from_slice(b"\"depends_on_id\": ");
            scalar(out, &dep.depends_on_id);
            out.push(b',');
            out.extend_from_slice(DEP_MEMBER);
            out.extend_from_slice(b"\"type\": ");
            scalar(out, &dep.dep_type);
            if let Some(gate) = &dep.gate {
                out.push(b',');
                out.extend_from_slice(DEP_MEMBER);
                out.extend_from_slice(b"\"gate\": ");
                scalar(out, gate);
            }
            out.extend_from_slice(ITEM);
            out.push(b'}');
        });
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json's pretty layout of `front`, one level deeper (as an array element),
    /// without its last line (`\n  }`).
    fn reference(front: &Front<'_>) -> Vec<u8> {
        let text = serde_json::to_string_pretty(front).unwrap();
        let nested = text.replace('\n', "\n  ");
        let open = nested.strip_suffix("\n  }").unwrap();
        open.as_bytes().to_vec()
    }

    #[test]
    fn writes_what_serde_json_pretty_writes() {
        let t = Timestamp::parse;
        let full = Front {
            id: "vm-a1",
            title: Cow::Borrowed("Tab\there, \"quoted\" \\ and ünïcödé \u{1}"),
            status: Status::InProgress,
            priority: 4,
            issue_type: IssueType::Feature,
            labels: vec![Cow::Borrowed("area:auth"), Cow::Borrowed("perf\nline")],
            assignee: Some(Cow::Borrowed("alice")),
            created_at: t("2025-11-22T16:59:00Z"),
            created_by: Some(Cow::Borrowed("bob")),
            updated_at: t("2025-11-23T16:59:00.5Z"),
            closed_at: None,
            close_reason: Some(Cow::Borrowed("done")),
            parent: Some(Cow::Borrowed("vm-p")),
            spec: None,
            dependencies: vec![
                DepView {
                    depends_on_id: Cow::Borrowed("vm-b"),
                    dep_type: DepType::Blocks,
                    gate: None,
                },
                DepView {
                    depends_on_id: Cow::Borrowed("vm-c"),
                    dep_type: DepType::ParentChild,
                    gate: None,
                },
                DepView {
                    depends_on_id: Cow::Borrowed("vm-d"),
                    dep_type: DepType::WaitsFor,
                    gate: Some(super::super::model::Gate::AnyChildren),
                },
            ],
        };
        let empty = Front {
            id: "x",
            title: Cow::Borrowed(""),
            status: Status::Open,
            priority: 0,
            issue_type: IssueType::Task,
            labels: Vec::new(),
            assignee: None,
            created_at: None,
            created_by: None,
            updated_at: None,
            closed_at: None,
            close_reason: None,
            parent: None,
            spec: None,
            dependencies: Vec::new(),
        };
        for front in [full, empty] {
            let mut out = Vec::new();
            front.write_open(&mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(reference(&front)).unwrap()
            );
        }
    }
}
