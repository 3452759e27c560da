//! Picking and counting beads: the attribute filters of `list`, `ready` and `search`, the
//! text match of `search`, the label counts of `label list`, and the counts of `stats`
//! (with bd's `--json` key names). Read-only.

use super::fields::BeadFields;
use super::graph;
use super::model::{Bead, IssueType, Status};
use super::store::BeadSet;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a bead must have to be kept; an unset field keeps every bead.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Every one of these labels.
    pub labels: Vec<String>,
    /// Assigned to exactly this name.
    pub assignee: Option<String>,
    /// Assigned to no one.
    pub unassigned: bool,
    /// This priority.
    pub priority: Option<u8>,
    /// The title holds this text, in any case.
    pub title: Option<String>,
}

impl Filter {
    /// True when `bead` passes every condition set.
    pub fn keeps(&self, bead: &impl BeadFields) -> bool {
        let assignee = || bead.assignee().filter(|a| !a.is_empty());
        self.labels.iter().all(|l| bead.has_label(l))
            && self
                .assignee
                .as_deref()
                .is_none_or(|a| assignee().as_deref() == Some(a))
            && (!self.unassigned || assignee().is_none())
            && self.priority.is_none_or(|p| bead.priority() == p)
            && self
                .title
                .as_deref()
                .is_none_or(|t| contains_folded(&bead.title(), t))
    }
}

/// True when `haystack` holds `needle`, ignoring case.
fn contains_folded(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// True when `text` appears, in any case, in the bead's id, title, description or one of
/// its notes. The bead must be complete (see [`BeadSet::complete`]).
pub fn mentions(bead: &Bead, text: &str) -> bool {
    let needle = text.to_lowercase();
    let has = |s: &str| s.to_lowercase().contains(&needle);
    has(&bead.id)
        || has(&bead.title)
        || has(&bead.description)
        || bead.notes.iter().any(|n| has(&n.text))
}

/// One label and how many beads carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabelCount {
    /// The label.
    pub label: String,
    /// Beads carrying it (closed ones included).
    pub count: usize,
}

/// Every label in use, alphabetically, with how many beads carry it.
pub fn label_counts(set: &BeadSet) -> Vec<LabelCount> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for bead in set.beads.values() {
        for label in &bead.labels {
            *counts.entry(label).or_insert(0) += 1;
        }
    }
    counts
        .into_iter()
        .map(|(label, count)| LabelCount {
            label: label.to_string(),
            count,
        })
        .collect()
}

/// True for the beads the counts are about: work, not messages or test specs.
fn is_work(bead: &Bead) -> bool {
    !matches!(bead.issue_type, IssueType::Message | IssueType::TestSpec)
}

/// The counts `stats` shows, under bd's key names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsSummary {
    /// Every work bead (messages and test specs left out).
    pub total_issues: usize,
    /// Status `open`.
    pub open_issues: usize,
    /// Status `in_progress`.
    pub in_progress_issues: usize,
    /// Status `closed`.
    pub closed_issues: usize,
    /// Not closed and waiting: an open `blocks` target, or status `blocked`.
    pub blocked_issues: usize,
    /// Status `deferred`.
    pub deferred_issues: usize,
    /// Status `pinned`.
    pub pinned_issues: usize,
    /// What `ready` lists.
    pub ready_issues: usize,
    /// Mean time from creation to closing of the closed beads, in hours (0 with none).
    pub average_lead_time_hours: f64,
}

/// `stats`: the summary and the count of every status and type present.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// The headline counts.
    pub summary: StatsSummary,
    /// Work beads per status.
    pub by_status: BTreeMap<String, usize>,
    /// Work beads per type.
    pub by_type: BTreeMap<String, usize>,
}

/// Counts the work beads of `set` by status and type (each named by `type_name`: an
/// imported bd bead keeps bd's own type), and how many are ready or blocked.
pub fn stats(set: &BeadSet, type_name: impl Fn(&Bead) -> String) -> Stats {
    let work: Vec<&Bead> = set.beads.values().filter(|b| is_work(b)).collect();
    let mut by_status = BTreeMap::new();
    let mut by_type = BTreeMap::new();
    for bead in &work {
        *by_status.entry(bead.status.to_string()).or_insert(0) += 1;
        *by_type.entry(type_name(bead)).or_insert(0) += 1;
    }
    let with = |s: Status| work.iter().filter(|b| b.status == s).count();
    let lead_times: Vec<i64> = work
        .iter()
        .filter(|b| b.is_closed())
        .filter_map(|b| Some(b.created_at?.seconds_until(b.closed_at?)))
        .collect();
    let average_lead_time_hours = if lead_times.is_empty() {
        0.0
    } else {
        lead_times.iter().sum::<i64>() as f64 / lead_times.len() as f64 / 3600.0
    };
    Stats {
        summary: StatsSummary {
            total_issues: work.len(),
            open_issues: with(Status::Open),
            in_progress_issues: with(Status::InProgress),
            closed_issues: with(Status::Closed),
            blocked_issues: graph::blocked(set)
                .iter()
                .filter(|(b, _)| is_work(b))
                .count(),
            deferred_issues: with(Status::Deferred),
            pinned_issues: with(Status::Pinned),
            ready_issues: graph::ready(set).len(),
            average_lead_time_hours,
        },
        by_status,
        by_type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::{DepType, Dependency, Note};
    use crate::time::Timestamp;

    fn bead(id: &str, title: &str) -> Bead {
        let mut b = Bead::new(id.to_string(), title.to_string());
        b.created_at = Some(Timestamp(1_000));
        b
    }

    fn set(beads: Vec<Bead>) -> BeadSet {
        let mut s = BeadSet::default();
        for b in beads {
            s.beads.insert(b.id.clone(), b);
        }
        s
    }

    #[test]
    fn filters_keep_only_what_they_name() {
        let mut b = bead("vm-a", "Fix the Login page");
        b.labels = vec!["auth".into(), "ui".into()];
        b.priority = 1;
        let all = Filter::default();
        assert!(all.keeps(&b));
        let title = Filter {
            title: Some("LOGIN".into()),
            ..Filter::default()
        };
        assert!(title.keeps(&b));
        let labels = Filter {
            labels: vec!["auth".into(), "db".into()],
            ..Filter::default()
        };
        assert!(!labels.keeps(&b));
        let prio = Filter {
            priority: Some(2),
            ..Filter::default()
        };
        assert!(!prio.keeps(&b));
        let unassigned = Filter {
            unassigned: true,
            ..Filter::default()
        };
        assert!(unassigned.keeps(&b));
        b.assignee = Some("ann".into());
        assert!(!unassigned.keeps(&b));
        let ann = Filter {
            assignee: Some("ann".into()),
            ..Filter::default()
        };
        assert!(ann.keeps(&b));
    }

    #[test]
    fn text_is_found_in_title_body_and_notes_in_any_case() {
        let mut b = bead("vm-a", "Plain");
        b.description = "The Parser breaks".into();
        b.notes.push(Note {
            at: Timestamp(1),
            by: "ann".into(),
            text: "seen on ARM64".into(),
        });
        assert!(mentions(&b, "parser"));
        assert!(mentions(&b, "arm64"));
        assert!(mentions(&b, "PLAIN"));
        assert!(mentions(&b, "vm-a"));
        assert!(!mentions(&b, "nowhere"));
    }

    #[test]
    fn stats_count_work_by_status_readiness_and_lead_time() {
        let mut closed = bead("vm-c", "done");
        closed.status = Status::Closed;
        closed.closed_at = Some(Timestamp(1_000 + 7_200));
        let mut waiting = bead("vm-w", "waits");
        waiting.dependencies.push(Dependency {
            depends_on_id: "vm-o".into(),
            dep_type: DepType::Blocks,
            gate: None,
        });
        let open = bead("vm-o", "open");
        let mut spec = bead("vm-spec-o", "spec");
        spec.issue_type = IssueType::TestSpec;
        let s = stats(&set(vec![closed, waiting, open, spec]), |b| {
            b.issue_type.to_string()
        });
        assert_eq!(s.summary.total_issues, 3);
        assert_eq!(s.summary.open_issues, 2);
        assert_eq!(s.summary.closed_issues, 1);
        assert_eq!(s.summary.blocked_issues, 1);
        assert_eq!(s.summary.ready_issues, 1);
        assert_eq!(s.summary.average_lead_time_hours, 2.0);
        assert_eq!(s.by_status.get("open"), Some(&2));
        assert_eq!(s.by_type.get("task"), Some(&3));
    }

    #[test]
    fn labels_are_counted_alphabetically() {
        let mut a = bead("vm-a", "a");
        a.labels = vec!["ui".into(), "auth".into()];
        let mut b = bead("vm-b", "b");
        b.labels = vec!["auth".into()];
        let counts = label_counts(&set(vec![a, b]));
        assert_eq!(
            counts,
            vec![
                LabelCount {
                    label: "auth".into(),
                    count: 2
                },
                LabelCount {
                    label: "ui".into(),
                    count: 1
                },
            ]
        );
    }
}
