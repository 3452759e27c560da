//! The bead record: its fields, parsing from and rendering to its file.

use crate::error::{ParseError, Result};
use crate::store::frontmatter;
use crate::text::yaml;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;

pub use super::edge::{DepType, Dependency, Gate};
pub use super::input::*;

/// Label that marks a bead as waiting for a person's answer.
pub const AWAITING_INPUT: &str = "awaiting:input";
/// The label of work that passed its inspection.
pub const VERIFIED: &str = "verified";

/// Where a bead is in its life.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default, PartialOrd, Ord,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started.
    #[default]
    Open,
    /// Being worked on.
    InProgress,
    /// Cannot go on.
    Blocked,
    /// Put off.
    Deferred,
    /// Attached to an agent's hook.
    Hooked,
    /// Done.
    Closed,
    /// Inspected and refused.
    Rejected,
    /// bd's persistent bead that stays open indefinitely: never ready work, and never
    /// holds back what depends on it.
    Pinned,
}

/// What kind of record a bead is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IssueType {
    /// A piece of work.
    #[default]
    Task,
    /// New behaviour.
    Feature,
    /// Something broken.
    Bug,
    /// A group of work.
    Epic,
    /// Upkeep.
    Chore,
    /// The acceptance criteria of a work item.
    TestSpec,
    /// Evidence of a verification run.
    VerificationResult,
    /// A message.
    Message,
    /// A workflow instance.
    Molecule,
    /// A deterministic gate.
    Gate,
}

impl std::str::FromStr for Status {
    type Err = crate::error::Error;

    /// Parses a status spelling (`open`, `in_progress`, ...), listing them all on failure.
    fn from_str(text: &str) -> Result<Status> {
        parse_choice("status", text, STATUSES)
    }
}

impl std::str::FromStr for IssueType {
    type Err = crate::error::Error;

    /// Parses a type spelling (`task`, `test-spec`, ...), listing them all on failure.
    fn from_str(text: &str) -> Result<IssueType> {
        parse_choice("type", text, TYPES)
    }
}

/// A timestamped remark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    /// When.
    pub at: Timestamp,
    /// Who.
    #[serde(default)]
    pub by: String,
    /// What.
    pub text: String,
}

/// One acceptance criterion of a test spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptanceCriterion {
    /// Short id such as `ac-1`.
    pub id: String,
    /// What must hold.
    pub description: String,
    /// A shell command whose exit code decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_command: Option<String>,
    /// A `path#function` test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<String>,
    /// A `path#function` judge rubric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
}

impl AcceptanceCriterion {
    /// The checks it names, each with its key as written in a record (absent ones left out).
    pub fn checks(&self) -> impl Iterator<Item = (&'static str, &String)> {
        [
            ("verify_command", &self.verify_command),
            ("verify", &self.verify),
            ("judge", &self.judge),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.as_ref().map(|v| (key, v)))
    }
}

/// The stamp an approval leaves on a test spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// The hash of the approved criteria (see [`super::approval::criteria_hash`]).
    pub criteria: String,
    /// The check files approval froze, each with its committed blob (see
    /// `inspect::frozen`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub files: std::collections::BTreeMap<String, String>,
    /// The live spec the work linked when it was approved, frozen with its checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The commit the repository was at when they were approved.
    #[serde(default)]
    pub commit: Option<String>,
    /// Who approved them.
    #[serde(default)]
    pub by: Option<String>,
    /// When.
    #[serde(default)]
    pub at: Option<Timestamp>,
}

/// A work item, one per file under `.beads/issues/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bead {
    /// `<prefix>-<hash>` or `<parent>.<n>`.
    pub id: String,
    /// One-line summary.
    pub title: String,
    /// Life-cycle state.
    #[serde(default)]
    pub status: Status,
    /// 0 (critical) to 4.
    #[serde(default = "default_priority")]
    pub priority: u8,
    /// Kind of record.
    #[serde(default)]
    pub issue_type: IssueType,
    /// Free labels such as `area:notify`.
    #[serde(default, deserialize_with = "crate::text::yaml::null_as_empty")]
    pub labels: Vec<String>,
    /// Who works on it.
    #[serde(default)]
    pub assignee: Option<String>,
    /// When it was created.
    #[serde(default)]
    pub created_at: Option<Timestamp>,
    /// Who created it.
    #[serde(default)]
    pub created_by: Option<String>,
    /// When it last changed.
    #[serde(default)]
    pub updated_at: Option<Timestamp>,
    /// When it was closed.
    #[serde(default)]
    pub closed_at: Option<Timestamp>,
    /// Why it was closed.
    #[serde(default)]
    pub close_reason: Option<String>,
    /// Parent bead, for children.
    #[serde(default)]
    pub parent: Option<String>,
    /// The live spec this work is judged by.
    #[serde(default)]
    pub spec: Option<String>,
    /// Edges to other beads.
    #[serde(default, deserialize_with = "crate::text::yaml::null_as_empty")]
    pub dependencies: Vec<Dependency>,
    /// Remarks, oldest first.
    #[serde(default, deserialize_with = "crate::text::yaml::null_as_empty")]
    pub notes: Vec<Note>,
    /// Test specs only: what must hold.
    #[serde(
        default,
        deserialize_with = "crate::text::yaml::null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub acceptance_criteria: Vec<AcceptanceCriterion>,
    /// Test specs only: what approval froze (see [`super::approval`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<Approval>,
    /// The branch the work is done on, as `sling` recorded it: the refinery judges that
    /// branch as this work and no other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The worker's worktree the work is done in, when `sling --worktree` made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// The markdown body.
    #[serde(default, skip_deserializing)]
    pub description: String,
    /// True when loaded from the index cache without its description and notes
    /// (see [`crate::bead::BeadSet::complete`]); such a bead is never written back.
    #[serde(skip)]
    pub partial: bool,
}

fn default_priority() -> u8 {
    2
}

impl Bead {
    /// A new open bead with default fields.
    pub fn new(id: String, title: String) -> Bead {
        Bead {
            id,
            title,
            status: Status::Open,
            priority: 2,
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
            notes: Vec::new(),
            acceptance_criteria: Vec::new(),
            approved: None,
            branch: None,
            worktree: None,
            description: String::new(),
            partial: false,
        }
    }

    /// Parses a bead file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Bead> {
        let split = frontmatter::split(text, file)?;
        let mut bead: Bead = yaml::parse(split.yaml, file, text, split.yaml_line)?;
        bead.description = split.body.to_string();
        let at_key = |key: &str, msg: String| {
            let (line, col) = crate::store::frontmatter::key_position(text, key);
            ParseError::at(file, text, line, col, msg)
        };
        if bead.priority > 4 {
            return Err(at_key(
                "priority",
                format!(
                    "priority {} is out of range: use 0 (critical) to 4",
                    bead.priority
                ),
            )
            .into());
        }
        if !crate::store::id::is_valid(&bead.id) {
            return Err(at_key("id", format!("'{}' is not a valid id", bead.id)).into());
        }
        if bead.title.trim().is_empty() {
            return Err(at_key("title", "title is empty".to_string()).into());
        }
        if let Some(d) = bead
            .dependencies
            .iter()
            .find(|d| d.gate.is_some() && d.dep_type != DepType::WaitsFor)
        {
            let msg = format!(
                "the dependency on {} is {}: only a waits-for edge has a gate",
                d.depends_on_id, d.dep_type
            );
            return Err(at_key("dependencies", msg).into());
        }
        Ok(bead)
    }

    /// True when the bead carries `label`.
    pub fn has_label(&self, label: &str) -> bool {
        self.labels.iter().any(|l| l == label)
    }

    /// True when the bead is finished (closed).
    pub fn is_closed(&self) -> bool {
        self.status == Status::Closed
    }

    /// The open question of an awaiting bead: its newest `Question:` note.
    pub fn open_question(&self) -> Option<&Note> {
        self.notes
            .iter()
            .rev()
            .find(|n| n.text.starts_with("Question:"))
    }
}

/// Writes an enum the way serde spells it.
macro_rules! display_as_serde {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let v = serde_json::to_value(self).map_err(|_| fmt::Error)?;
                f.write_str(v.as_str().unwrap_or_default())
            }
        }
    )*};
}
display_as_serde!(Status, IssueType, DepType, Gate);

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Bead {
        let mut b = Bead::new("vm-k3f9".into(), "Notifications appear: within 2s".into());
        b.labels = vec!["area:notify".into(), "yes".into()];
        b.created_at = Timestamp::parse("2026-11-22T10:00:00Z");
        b.created_by = Some("alice".into());
        b.dependencies.push(Dependency {
            depends_on_id: "vm-2b7c".into(),
            dep_type: DepType::Blocks,
            gate: None,
        });
        b.notes.push(Note {
            at: Timestamp(1),
            by: "alice".into(),
            text: "Question: GitHub Actions, or {Buildkite}?\nsecond line".into(),
        });
        b.acceptance_criteria.push(AcceptanceCriterion {
            id: "ac-1".into(),
            description: "fizzbuzz 15 prints FizzBuzz".into(),
            verify_command: Some("./fizzbuzz 15 | grep -qx FizzBuzz".into()),
            verify: None,
            judge: None,
        });
        b.description = "Free *markdown*.\n\n---\nwith a rule".into();
        b
    }

    #[test]
    fn titles_actors_and_spec_paths_are_checked() {
        assert!(check_title("Fix login").is_ok());
        assert!(check_title(&"x".repeat(MAX_TITLE_CHARS)).is_ok());
        let e = check_title(&"x".repeat(MAX_TITLE_CHARS + 1)).unwrap_err();
        assert!(e.to_string().contains("501 characters"), "{e}");
        assert!(
            check_title("a\nb")
                .unwrap_err()
                .to_string()
                .contains("newline")
        );
        assert!(
            check_title("a\rb")
                .unwrap_err()
                .to_string()
                .contains("carriage")
        );
        assert!(check_title("  ").is_err());
        let e = check_single_line("actor", "mallory\nVermas-Id: vm-victim").unwrap_err();
        assert!(e.contains("actor") && e.contains("\\nVermas-Id"), "{e}");
        assert!(check_single_line("actor", "a\u{1b}[31m").is_err());
        assert!(check_single_line("actor", "mayor/").is_ok());
        for ok in ["specs/a.md", "./specs/a.md", "specs/../specs/a.md", "a"] {
            assert!(check_spec_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "/etc/passwd",
            "../x.md",
            "../../etc/passwd",
            "specs/../../x",
            "a\nb",
        ] {
            assert!(check_spec_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn render_parse_round_trip() {
        let b = sample();
        let text = b.render();
        assert!(
            text.contains("  - {depends_on_id: vm-2b7c, type: blocks}\n"),
            "{text}"
        );
        let back = Bead::parse(&text, "x.md").unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn minimal_hand_written_bead_is_valid() {
        let b = Bead::parse("---\nid: vm-1\ntitle: Hi\nstatus: open\n---\n", "x.md").unwrap();
        assert_eq!(b.priority, 2);
        assert_eq!(b.issue_type, IssueType::Task);
        assert!(b.labels.is_empty());
    }

    #[test]
    fn bad_fields_point_at_their_line() {
        let e = Bead::parse("---\nid: vm-1\ntitle: Hi\nstatus: wip\n---\n", "x.md").unwrap_err();
        let crate::error::Error::Parse(p) = e else {
            panic!("{e:?}")
        };
        assert_eq!(p.line, 4, "{p:?}");
        let e = Bead::parse("---\nid: vm-1\ntitle: Hi\npriority: 9\n---\n", "x.md").unwrap_err();
        let crate::error::Error::Parse(p) = e else {
            panic!("{e:?}")
        };
        assert_eq!((p.line, p.column), (4, 11));
    }
}
