//! bd's issue record (one line of its `issues.jsonl`) read into vermas's terms.
//!
//! A bd issue is read into an [`Issue`]: what a bead keeps of it in its own fields. What a
//! bead cannot hold, or would not write back with the same spelling (bd fields vermas lacks,
//! a status or type vermas lacks, a time with fractions of a second or an offset, the
//! details of dependencies and comments), stays in the bead body's last line as bd wrote it
//! (see [`super::to_bd`], which writes a bead back as a bd issue).

use super::sections::{self, Object, Texts};
use crate::bead::model::{
    Bead, DepType, Dependency, Gate, IssueType, Note, Status, check_spec_path,
};
use crate::time::Timestamp;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// bd's status of a deleted issue.
pub(crate) const TOMBSTONE: &str = "tombstone";

/// Every status an imported issue may have (besides the tombstones, which are skipped).
pub(crate) const BD_STATUSES: &[&str] = &[
    "open",
    "in_progress",
    "blocked",
    "deferred",
    "closed",
    "pinned",
    "hooked",
    "rejected",
];

/// What is wrong with one bd record, and under which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The top-level key at fault, when one is.
    pub key: Option<&'static str>,
    /// What is wrong.
    pub message: String,
}

fn problem(key: &'static str, message: impl Into<String>) -> Problem {
    Problem {
        key: Some(key),
        message: message.into(),
    }
}

/// A bd issue in vermas's terms: everything a bead keeps of it in its own fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Issue {
    /// `id`.
    pub id: String,
    /// `title`.
    pub title: String,
    /// `description`, `design`, `acceptance_criteria`, `notes`.
    pub texts: Texts,
    /// `status`.
    pub status: Status,
    /// `priority` (absent: 0, as bd reads it).
    pub priority: u8,
    /// `issue_type` (a type vermas lacks reads as task).
    pub issue_type: IssueType,
    /// `assignee`.
    pub assignee: Option<String>,
    /// `created_at`.
    pub created_at: Option<Timestamp>,
    /// `created_by`.
    pub created_by: Option<String>,
    /// `updated_at`.
    pub updated_at: Option<Timestamp>,
    /// `closed_at`.
    pub closed_at: Option<Timestamp>,
    /// `close_reason`.
    pub close_reason: Option<String>,
    /// `spec_id`, when it is a path inside the repository.
    pub spec: Option<String>,
    /// `labels`.
    pub labels: Vec<String>,
    /// `dependencies` of the types vermas knows, but the parent's.
    pub dependencies: Vec<Dependency>,
    /// The first `parent-child` target.
    pub parent: Option<String>,
    /// `comments`.
    pub notes: Vec<Note>,
}

/// The type bd gave `bead`: its own type, or for one vermas reads as a task, the
/// `issue_type` its body's bd line kept (bd's `agent`, `convoy`, ...).
pub fn own_type(bead: &Bead) -> String {
    if bead.issue_type == IssueType::Task && bead.description.contains("<!-- bd: ") {
        let (_, kept) = sections::split(&bead.description);
        if let Some(Value::String(t)) = kept.get("issue_type")
            && !t.is_empty()
        {
            return t.clone();
        }
    }
    bead.issue_type.to_string()
}

/// True when a file named `<id>.md` cannot exist on Windows: the part of the name before
/// its first `.` is a device name, in any case.
pub(crate) fn reserved_on_windows(id: &str) -> bool {
    let stem = id.split('.').next().unwrap_or(id).to_ascii_uppercase();
    match stem.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ => {
            let (word, digit) = stem.split_at(stem.len().min(3));
            matches!(word, "COM" | "LPT")
                && digit.len() == 1
                && digit.bytes().all(|b| b.is_ascii_digit())
        }
    }
}

/// Reads a bd issue object.
pub(crate) fn read(obj: &Object) -> Result<Issue, Problem> {
    let id = text(obj, "id")?
        .filter(|s| !s.is_empty())
        .ok_or_else(|| problem("id", "the issue has no id"))?;
    if !crate::store::id::is_valid(&id) {
        return Err(problem(
            "id",
            format!("'{id}' cannot be a bead id: letters, digits, '-', '_' and '.' only"),
        ));
    }
    if reserved_on_windows(&id) {
        return Err(problem(
            "id",
            format!(
                "'{id}' cannot be a bead id: its file {id}.md has a name Windows reserves for \
                 a device (CON, PRN, AUX, NUL, COM0-9, LPT0-9, in any case)"
            ),
        ));
    }
    let title = text(obj, "title")?.unwrap_or_default();
    if title.trim().is_empty() {
        return Err(problem("title", "the issue has no title"));
    }
    let chars = title.chars().count();
    if chars > crate::bead::model::MAX_TITLE_CHARS {
        return Err(problem(
            "title",
            format!("the title is {chars} characters long; bd and vermas allow 500"),
        ));
    }
    let (dependencies, parent) = dependencies(obj, &id)?;
    Ok(Issue {
        texts: Texts {
            description: canonical_text(obj, "description")?,
            design: canonical_text(obj, "design")?,
            acceptance_criteria: canonical_text(obj, "acceptance_criteria")?,
            notes: canonical_text(obj, "notes")?,
        },
        status: status(obj)?,
        priority: priority(obj)?,
        issue_type: text(obj, "issue_type")?
            .and_then(|t| spelled(&t))
            .unwrap_or_default(),
        assignee: nonempty(obj, "assignee")?,
        created_at: time(obj, "created_at")?,
        created_by: nonempty(obj, "created_by")?,
        updated_at: time(obj, "updated_at")?,
        closed_at: time(obj, "closed_at")?,
        close_reason: nonempty(obj, "close_reason")?,
        spec: nonempty(obj, "spec_id")?.filter(|s| check_spec_path(s).is_ok()),
        labels: labels(obj)?,
        dependencies,
        parent,
        notes: comments(obj)?,
        id,
        title,
    })
}

/// `value` read as the enum spelled that way, if it is one.
fn spelled<T: DeserializeOwned>(value: &str) -> Option<T> {
    serde_json::from_value(Value::String(value.to_string())).ok()
}

/// A string field: absent or `null` is `None`.
fn text(obj: &Object, key: &'static str) -> Result<Option<String>, Problem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(problem(
            key,
            format!("`{key}` must be a string, not {}", kind(other)),
        )),
    }
}

/// A string field where empty means absent.
fn nonempty(obj: &Object, key: &'static str) -> Result<Option<String>, Problem> {
    Ok(text(obj, key)?.filter(|s| !s.is_empty()))
}

/// A free text as a bead body keeps it.
fn canonical_text(obj: &Object, key: &'static str) -> Result<String, Problem> {
    Ok(sections::canonical(&text(obj, key)?.unwrap_or_default()))
}

/// A time field: RFC 3339, kept to the second.
fn time(obj: &Object, key: &'static str) -> Result<Option<Timestamp>, Problem> {
    match nonempty(obj, key)? {
        None => Ok(None),
        Some(s) => Timestamp::parse(&s)
            .map(Some)
            .ok_or_else(|| problem(key, format!("`{key}` is not an RFC 3339 time: '{s}'"))),
    }
}

/// What kind of JSON value `v` is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn status(obj: &Object) -> Result<Status, Problem> {
    let Some(s) = nonempty(obj, "status")? else {
        return Ok(Status::Open);
    };
    spelled(&s).ok_or_else(|| {
        problem(
            "status",
            format!(
                "unknown status '{s}': bd's statuses are {}",
                BD_STATUSES.join(", ")
            ),
        )
    })
}

fn priority(obj: &Object) -> Result<u8, Problem> {
    match obj.get("priority") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => {
            n.as_u64()
                .filter(|p| *p <= 4)
                .map(|p| p as u8)
                .ok_or_else(|| {
                    problem(
                        "priority",
                        format!("priority {n} is out of range: use 0 (critical) to 4"),
                    )
                })
        }
        Some(other) => Err(problem(
            "priority",
            format!("`priority` must be a number 0 to 4, not {}", kind(other)),
        )),
    }
}

/// The objects of list field `key` (absent or `null`: none).
fn objects<'a>(obj: &'a Object, key: &'static str) -> Result<Vec<&'a Object>, Problem> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_object().ok_or_else(|| {
                    problem(
                        key,
                        format!("`{key}[{i}]` must be an object, not {}", kind(v)),
                    )
                })
            })
            .collect(),
        Some(other) => Err(problem(
            key,
            format!("`{key}` must be a list, not {}", kind(other)),
        )),
    }
}

/// A string field of the `i`-th item of list `list`.
fn item_text(
    item: &Object,
    list: &'static str,
    i: usize,
    key: &'static str,
) -> Result<Option<String>, Problem> {
    text(item, key).map_err(|p| problem(list, format!("`{list}[{i}]`: {}", p.message)))
}

fn labels(obj: &Object) -> Result<Vec<String>, Problem> {
    match obj.get("labels") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(problem(
                    "labels",
                    format!("`labels[{i}]` must be a string, not {}", kind(other)),
                )),
            })
            .collect(),
        Some(other) => Err(problem(
            "labels",
            format!("`labels` must be a list, not {}", kind(other)),
        )),
    }
}

/// The dependencies of the types vermas knows but the first `parent-child` one, and that
/// one's target (the parent).
fn dependencies(obj: &Object, id: &str) -> Result<(Vec<Dependency>, Option<String>), Problem> {
    let mut deps: Vec<Dependency> = Vec::new();
    let mut parent = None;
    for (i, d) in objects(obj, "dependencies")?.into_iter().enumerate() {
        let target = item_text(d, "dependencies", i, "depends_on_id")?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                problem(
                    "dependencies",
                    format!("`dependencies[{i}]` has no depends_on_id"),
                )
            })?;
        if let Some(from) = item_text(d, "dependencies", i, "issue_id")?
            && !from.is_empty()
            && from != id
        {
            return Err(problem(
                "dependencies",
                format!("`dependencies[{i}]` belongs to {from}, not to {id}"),
            ));
        }
        let kind = item_text(d, "dependencies", i, "type")?.unwrap_or_default();
        // A type vermas lacks (bd accepts any name) stays with the leftover bd fields.
        let Some(dep_type) = dep_type(&kind) else {
            continue;
        };
        // The first parent is the bead's `parent`, as vermas keeps a child's parent.
        if dep_type == DepType::ParentChild && parent.as_ref().is_none_or(|p| *p == target) {
            parent = Some(target);
            continue;
        }
        let mut dep = Dependency::new(target, dep_type);
        if dep_type == DepType::WaitsFor {
            dep.gate = waits_for_gate(d);
        }
        if !deps.contains(&dep) {
            deps.push(dep);
        }
    }
    Ok((deps, parent))
}

/// The gate of a bd `waits-for` dependency: its `metadata` (a JSON text, as bd stores it,
/// or an object) saying `{"gate":"any-children"}`; anything else is bd's default,
/// `all-children`, which a bead keeps as no gate.
fn waits_for_gate(d: &Object) -> Option<Gate> {
    let meta = match d.get("metadata")? {
        Value::String(text) => serde_json::from_str::<Value>(text).ok()?,
        other => other.clone(),
    };
    (meta.get("gate")?.as_str()? == "any-children").then_some(Gate::AnyChildren)
}

/// A bd dependency type as vermas's, if vermas has it; an empty one is `blocks`.
pub(super) fn dep_type(kind: &str) -> Option<DepType> {
    if kind.is_empty() {
        Some(DepType::Blocks)
    } else {
        spelled(kind)
    }
}

fn comments(obj: &Object) -> Result<Vec<Note>, Problem> {
    let mut notes = Vec::new();
    for (i, c) in objects(obj, "comments")?.into_iter().enumerate() {
        let stamp = item_text(c, "comments", i, "created_at")?.unwrap_or_default();
        let at = Timestamp::parse(&stamp).ok_or_else(|| {
            problem(
                "comments",
                format!("`comments[{i}].created_at` is not an RFC 3339 time: '{stamp}'"),
            )
        })?;
        notes.push(Note {
            at,
            by: item_text(c, "comments", i, "author")?.unwrap_or_default(),
            text: item_text(c, "comments", i, "text")?.unwrap_or_default(),
        });
    }
    Ok(notes)
}

/// A new bead holding `issue` (its body without leftover bd fields).
pub(crate) fn to_bead(issue: &Issue) -> Bead {
    let mut b = Bead::new(issue.id.clone(), issue.title.clone());
    b.status = issue.status;
    b.priority = issue.priority;
    b.issue_type = issue.issue_type;
    b.labels = issue.labels.clone();
    b.assignee = issue.assignee.clone();
    b.created_at = issue.created_at;
    b.created_by = issue.created_by.clone();
    b.updated_at = issue.updated_at;
    b.closed_at = issue.closed_at;
    b.close_reason = issue.close_reason.clone();
    b.parent = issue.parent.clone();
    b.spec = issue.spec.clone();
    b.dependencies = issue.dependencies.clone();
    b.notes = issue.notes.clone();
    b.description = sections::compose(&issue.texts, &Object::new());
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Object {
        v.as_object().expect("object").clone()
    }

    fn problem_of(v: Value) -> Problem {
        read(&obj(v)).expect_err("a problem")
    }

    #[test]
    fn a_waits_for_edge_keeps_its_any_children_gate() {
        let i = read(&obj(json!({"id": "bd-1", "title": "T", "dependencies": [
            {"depends_on_id": "bd-2", "type": "waits-for", "metadata": "{\"gate\":\"any-children\"}"},
            {"depends_on_id": "bd-3", "type": "waits-for", "metadata": "{\"gate\":\"all-children\"}"},
            {"depends_on_id": "bd-4", "type": "waits-for"},
        ]})))
        .unwrap();
        let gates: Vec<Option<Gate>> = i.dependencies.iter().map(|d| d.gate).collect();
        assert_eq!(gates, [Some(Gate::AnyChildren), None, None]);
    }

    #[test]
    fn absent_fields_read_as_bd_reads_them() {
        let i = read(&obj(json!({"id": "bd-1", "title": "T"}))).unwrap();
        assert_eq!(i.status, Status::Open);
        assert_eq!(i.priority, 0, "bd reads an absent priority as P0");
        assert_eq!(i.issue_type, IssueType::Task);
        assert!(i.labels.is_empty() && i.dependencies.is_empty() && i.notes.is_empty());
        let i = read(&obj(json!({
            "id": "bd-1", "title": "T", "status": "pinned", "issue_type": "convoy",
            "description": "\n\nbody\n", "assignee": "", "spec_id": "/etc/passwd",
            "dependencies": [{"depends_on_id": "bd-2"}, {"depends_on_id": "bd-2", "type": "blocks"},
                             {"depends_on_id": "bd-3", "type": "my-own"}],
        })))
        .unwrap();
        assert_eq!(i.status, Status::Pinned);
        assert_eq!(i.issue_type, IssueType::Task);
        assert_eq!(i.texts.description, "body");
        assert_eq!((i.assignee, i.spec), (None, None));
        assert_eq!(
            i.dependencies,
            [Dependency {
                depends_on_id: "bd-2".into(),
                dep_type: DepType::Blocks,
                gate: None
            }]
        );
    }

    #[test]
    fn each_kind_of_bad_field_is_named() {
        let cases = [
            (json!({"title": "T"}), "id", "no id"),
            (json!({"id": "bd-1", "title": " "}), "title", "no title"),
            (
                json!({"id": "bd-1", "title": 5}),
                "title",
                "must be a string, not a number",
            ),
            (
                json!({"id": "bd-1", "title": "x".repeat(501)}),
                "title",
                "501 characters",
            ),
            (
                json!({"id": "bd-1", "title": "T", "status": "done"}),
                "status",
                "unknown status 'done'",
            ),
            (
                json!({"id": "bd-1", "title": "T", "priority": "high"}),
                "priority",
                "must be a number",
            ),
            (
                json!({"id": "bd-1", "title": "T", "priority": -1}),
                "priority",
                "out of range",
            ),
            (
                json!({"id": "bd-1", "title": "T", "labels": "a,b"}),
                "labels",
                "must be a list",
            ),
            (
                json!({"id": "bd-1", "title": "T", "labels": [1]}),
                "labels",
                "`labels[0]` must be a string",
            ),
            (
                json!({"id": "bd-1", "title": "T", "closed_at": "soon"}),
                "closed_at",
                "not an RFC 3339 time",
            ),
            (
                json!({"id": "bd-1", "title": "T", "dependencies": [{"type": "blocks"}]}),
                "dependencies",
                "has no depends_on_id",
            ),
            (
                json!({"id": "bd-1", "title": "T", "dependencies": [{"issue_id": "bd-9", "depends_on_id": "bd-2"}]}),
                "dependencies",
                "belongs to bd-9",
            ),
            (
                json!({"id": "bd-1", "title": "T", "dependencies": ["bd-2"]}),
                "dependencies",
                "must be an object",
            ),
            (
                json!({"id": "bd-1", "title": "T", "comments": [{"author": "a", "text": "t"}]}),
                "comments",
                "`comments[0].created_at` is not an RFC 3339 time",
            ),
        ];
        for (value, key, words) in cases {
            let p = problem_of(value.clone());
            assert_eq!(p.key, Some(key), "{value}");
            assert!(p.message.contains(words), "{value}: {}", p.message);
        }
    }
}
