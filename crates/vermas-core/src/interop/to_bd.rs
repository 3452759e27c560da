//! A bead written as a bd issue: from its own fields ([`base`]), with the bd fields it
//! kept on its body's last line put back while they still mean what the bead says
//! ([`overlay`]); and, at import, which fields of bd's line a bead must keep
//! ([`leftovers`]).

use super::bd::{dep_type, read};
use super::sections::{Object, Texts};
use crate::bead::model::{Bead, DepType, Gate};
use crate::time::Timestamp;
use serde_json::Value;
use std::collections::HashSet;

/// The bd keys a bead keeps in fields of its own.
const MAPPED: &[&str] = &[
    "id",
    "title",
    "description",
    "design",
    "acceptance_criteria",
    "notes",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "created_at",
    "created_by",
    "updated_at",
    "closed_at",
    "close_reason",
    "spec_id",
    "labels",
    "dependencies",
    "comments",
];

/// Keys bd computes as it exports (the record kind and counts): neither kept nor written.
const DERIVED: &[&str] = &[
    "_type",
    "dependency_count",
    "dependent_count",
    "comment_count",
];

/// The bd issue object for `bead` whose body holds `texts`, from the bead's own fields
/// alone (no leftover bd fields).
pub(crate) fn base(bead: &Bead, texts: &Texts) -> Object {
    let mut o = Object::new();
    let mut put = |key: &str, value: Value| {
        o.insert(key.to_string(), value);
    };
    put("id", bead.id.clone().into());
    put("title", bead.title.clone().into());
    let criteria = criteria_text(bead);
    for key in ["description", "design", "acceptance_criteria", "notes"] {
        let mut text = texts.get(key).to_string();
        if key == "acceptance_criteria" && !criteria.is_empty() {
            text = [text, criteria.clone()]
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n");
        }
        if !text.is_empty() {
            put(key, text.into());
        }
    }
    put("status", bead.status.to_string().into());
    put("priority", bead.priority.into());
    put("issue_type", bead.issue_type.to_string().into());
    let times = [
        ("created_at", bead.created_at),
        ("updated_at", bead.updated_at),
        ("closed_at", bead.closed_at),
    ];
    for (key, t) in times {
        if let Some(t) = t {
            put(key, t.to_string().into());
        }
    }
    let names = [
        ("assignee", &bead.assignee),
        ("created_by", &bead.created_by),
        ("close_reason", &bead.close_reason),
        ("spec_id", &bead.spec),
    ];
    for (key, value) in names {
        if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
            put(key, v.into());
        }
    }
    if !bead.labels.is_empty() {
        put("labels", bead.labels.clone().into());
    }
    let deps = base_dependencies(bead);
    if !deps.is_empty() {
        put("dependencies", Value::Array(deps));
    }
    let comments: Vec<Value> = bead
        .notes
        .iter()
        .map(|n| {
            serde_json::json!({
                "issue_id": bead.id, "author": n.by, "text": n.text, "created_at": n.at.to_string(),
            })
        })
        .collect();
    if !comments.is_empty() {
        put("comments", Value::Array(comments));
    }
    o
}

/// bd's acceptance-criteria `text` without the lines [`base`] added for `bead`'s own
/// criteria (its last paragraph when it is exactly those lines): what the bead's body
/// keeps, so an export and an import give back the bead they started from.
pub(crate) fn without_own_criteria(text: &str, bead: &Bead) -> String {
    let criteria = criteria_text(bead);
    if criteria.is_empty() {
        return text.to_string();
    }
    if text == criteria {
        return String::new();
    }
    text.strip_suffix(&criteria)
        .and_then(|head| head.strip_suffix("\n\n"))
        .unwrap_or(text)
        .to_string()
}

/// A test spec's acceptance criteria as markdown lines (bd keeps criteria as text).
fn criteria_text(bead: &Bead) -> String {
    let lines: Vec<String> = bead
        .acceptance_criteria
        .iter()
        .map(|c| {
            let how = [
                ("verify_command", &c.verify_command),
                ("verify", &c.verify),
                ("judge", &c.judge),
            ]
            .into_iter()
            .find_map(|(k, v)| v.as_ref().map(|v| format!(" ({k}: `{v}`)")))
            .unwrap_or_default();
            format!("- {}: {}{how}", c.id, c.description)
        })
        .collect();
    lines.join("\n")
}

/// The bead's dependencies as bd writes them, its `parent` as a `parent-child` one.
fn base_dependencies(bead: &Bead) -> Vec<Value> {
    let mut deps: Vec<(String, DepType, Option<Gate>)> = bead
        .dependencies
        .iter()
        .map(|d| (d.depends_on_id.clone(), d.dep_type, d.gate))
        .collect();
    if let Some(parent) = &bead.parent {
        let edge = (parent.clone(), DepType::ParentChild, None);
        if !deps.contains(&edge) {
            deps.push(edge);
        }
    }
    let stamp = bead.updated_at.or(bead.created_at);
    deps.into_iter()
        .map(|(target, t, gate)| {
            let mut d = serde_json::json!({
                "issue_id": bead.id, "depends_on_id": target, "type": t.to_string(),
            });
            if let Some(at) = stamp {
                d["created_at"] = at.to_string().into();
            }
            if let Some(gate) = gate {
                // bd keeps a waits-for gate as a JSON text in the edge's metadata.
                d["metadata"] = format!("{{\"gate\":\"{gate}\"}}").into();
            }
            d
        })
        .collect()
}

/// The fields of `original` (a bd issue as read) that the bead's own fields do not give
/// back exactly as `base` (the bead written without them) shows: what the bead keeps on
/// its leftover line. Dependencies are kept whole but for their `issue_id`; comments
/// without `issue_id` and `text`.
pub(crate) fn leftovers(original: &Object, base: &Object) -> Object {
    let mut kept = Object::new();
    for (key, value) in original {
        if DERIVED.contains(&key.as_str()) || base.get(key) == Some(value) {
            continue;
        }
        let value = match key.as_str() {
            "dependencies" => without(value, &["issue_id"]),
            "comments" => without(value, &["issue_id", "text"]),
            _ => value.clone(),
        };
        kept.insert(key.clone(), value);
    }
    kept
}

/// Each object of list `value` without `keys`.
fn without(value: &Value, keys: &[&str]) -> Value {
    match value {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| match item {
                    Value::Object(o) => Value::Object(
                        o.iter()
                            .filter(|(k, _)| !keys.contains(&k.as_str()))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `base` (a bead written as a bd issue) with its leftover bd fields `kept` put back: a
/// field vermas has no place for always; a mapped field when it still means what the
/// bead says (bd's own spelling of the same time, `pinned` for a bead still open...);
/// dependencies and comments one by one, for those the bead still has.
pub(crate) fn overlay(mut base: Object, kept: &Object, id: &str) -> Object {
    let meaning = read(&base).ok();
    for (key, value) in kept {
        match key.as_str() {
            "dependencies" => {
                let merged = merge_dependencies(base.get(key), value, id);
                if merged.is_empty() {
                    base.remove(key);
                } else {
                    base.insert(key.clone(), Value::Array(merged));
                }
            }
            "comments" => {
                if let Some(Value::Array(current)) = base.get(key) {
                    let merged = merge_comments(current, value);
                    base.insert(key.clone(), Value::Array(merged));
                }
            }
            k if MAPPED.contains(&k) => {
                let mut candidate = base.clone();
                candidate.insert(key.clone(), value.clone());
                if meaning.is_some() && read(&candidate).ok() == meaning {
                    base = candidate;
                }
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
    base
}

/// The `(target, type, any-children gate)` of a bd dependency object.
fn edge(d: &Value) -> (String, String, bool) {
    let field = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
    (
        field("depends_on_id").to_string(),
        field("type").to_string(),
        field("metadata").contains("any-children"),
    )
}

/// The bead's dependencies (`current`, as [`base`] writes them), each replaced by bd's
/// original where it has one, in bd's order; then those bd did not have; and bd's
/// dependencies of types vermas lacks, as they came.
fn merge_dependencies(current: Option<&Value>, kept: &Value, id: &str) -> Vec<Value> {
    let current: Vec<&Value> = match current {
        Some(Value::Array(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    let key = |(target, kind, any): (String, String, bool)| (target, dep_type(&kind), any);
    let have: Vec<(String, Option<DepType>, bool)> = current.iter().map(|d| key(edge(d))).collect();
    let mut used = HashSet::new();
    let mut out = Vec::new();
    for original in kept.as_array().into_iter().flatten() {
        let (target, t, any) = key(edge(original));
        let keep = match t {
            Some(_) => have.contains(&(target.clone(), t, any)) && used.insert((target, t, any)),
            None => true,
        };
        if keep && let Value::Object(o) = original {
            let mut d = o.clone();
            d.insert("issue_id".into(), id.into());
            out.push(Value::Object(d));
        }
    }
    for d in current {
        if !used.contains(&key(edge(d))) {
            out.push(d.clone());
        }
    }
    out
}

/// The bead's comments (`current`, as [`base`] writes them), each with bd's id, time
/// spelling and other fields where bd's original has the same author and time.
fn merge_comments(current: &[Value], kept: &Value) -> Vec<Value> {
    let originals: Vec<&Object> = kept
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let field = |o: &Object, k: &str| {
        o.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut used = vec![false; originals.len()];
    current
        .iter()
        .map(|c| {
            let Some(c) = c.as_object() else {
                return c.clone();
            };
            let at = Timestamp::parse(&field(c, "created_at"));
            let found = originals.iter().enumerate().position(|(i, o)| {
                !used[i]
                    && field(o, "author") == field(c, "author")
                    && Timestamp::parse(&field(o, "created_at")) == at
            });
            let mut merged = c.clone();
            if let Some(i) = found {
                used[i] = true;
                for (k, v) in originals[i] {
                    merged.insert(k.clone(), v.clone());
                }
            }
            Value::Object(merged)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::{Note, Status};
    use crate::interop::{bd, sections};
    use serde_json::json;

    /// Imports `line` as a fresh bead, lets `change` edit it, and writes it back.
    fn round(line: Value, change: impl FnOnce(&mut Bead)) -> Object {
        let original = line.as_object().unwrap().clone();
        let issue = bd::read(&original).unwrap();
        let mut bead = bd::to_bead(&issue);
        let kept = leftovers(&original, &base(&bead, &issue.texts));
        bead.description = sections::compose(&issue.texts, &kept);
        change(&mut bead);
        let (texts, kept) = sections::split(&bead.description);
        overlay(base(&bead, &texts), &kept, &bead.id)
    }

    #[test]
    fn kept_fields_come_back_only_while_they_still_hold() {
        let line = json!({
            "id": "bd-1", "title": "T", "status": "pinned", "priority": 2, "issue_type": "agent",
            "created_at": "2025-01-01T10:00:00.5+02:00", "external_ref": "gh-1",
            "dependencies": [
                {"issue_id": "bd-1", "depends_on_id": "bd-2", "type": "blocks", "created_at": "2025-01-01T00:00:00Z", "created_by": "a"},
                {"issue_id": "bd-1", "depends_on_id": "bd-3", "type": "my-own", "created_at": "2025-01-01T00:00:00Z"},
            ],
            "comments": [{"id": 4, "issue_id": "bd-1", "author": "a", "text": "hi", "created_at": "2025-01-01T00:00:00.9Z"}],
        });
        assert_eq!(Value::Object(round(line.clone(), |_| {})), line);

        let changed = round(line, |b| {
            b.status = Status::Closed;
            b.issue_type = crate::bead::model::IssueType::Bug;
            b.created_at = Some(Timestamp(0));
            b.dependencies.clear();
            b.notes.push(Note {
                at: Timestamp(60),
                by: "vermas".into(),
                text: "new".into(),
            });
        });
        assert_eq!(changed["status"], "closed");
        assert_eq!(changed["issue_type"], "bug");
        assert_eq!(changed["created_at"], "1970-01-01T00:00:00Z");
        assert_eq!(
            changed["external_ref"], "gh-1",
            "a field vermas lacks stays"
        );
        assert_eq!(
            changed["dependencies"],
            json!([{"issue_id": "bd-1", "depends_on_id": "bd-3", "type": "my-own", "created_at": "2025-01-01T00:00:00Z"}]),
            "the removed blocks edge is gone; the type vermas lacks stays"
        );
        let comments = changed["comments"].as_array().unwrap();
        assert_eq!(comments[0]["id"], 4);
        assert_eq!(comments[0]["created_at"], "2025-01-01T00:00:00.9Z");
        assert!(comments[1].get("id").is_none(), "a new note has no bd id");
        assert_eq!(comments[1]["created_at"], "1970-01-01T00:01:00Z");
    }

    #[test]
    fn a_parent_and_test_spec_criteria_are_written_in_bd_s_terms() {
        let mut b = Bead::new("vm-1.1".into(), "Child".into());
        b.parent = Some("vm-1".into());
        b.acceptance_criteria
            .push(crate::bead::model::AcceptanceCriterion {
                id: "ac-1".into(),
                description: "works".into(),
                verify_command: Some("true".into()),
                verify: None,
                judge: None,
            });
        let o = base(&b, &Texts::default());
        assert_eq!(
            o["dependencies"],
            json!([{"issue_id": "vm-1.1", "depends_on_id": "vm-1", "type": "parent-child"}])
        );
        assert_eq!(
            o["acceptance_criteria"],
            "- ac-1: works (verify_command: `true`)"
        );
    }
}
