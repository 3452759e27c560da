//! Human views of beads (list lines, full records, trees) and the plain `status`.

use vermas_core::bead::graph::{self, TreeNode};
use vermas_core::bead::{Bead, BeadSet};
use vermas_core::time::{Timestamp, short_age};
use vermas_core::verify::summary::Summary;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// One line per bead: `vm-k3f9 [P2] [feature] open - Title @alice [labels]` (control
/// characters a record carries shown escaped, as in every view here).
pub fn line(b: &Bead) -> String {
    let mut s = format!(
        "{} [P{}] [{}] {} - {}",
        b.id, b.priority, b.issue_type, b.status, b.title
    );
    if let Some(a) = &b.assignee {
        let _ = write!(s, " @{a}");
    }
    if !b.labels.is_empty() {
        let _ = write!(s, " [{}]", b.labels.join(", "));
    }
    vermas_core::text::words::printable(&s).into_owned()
}

/// The full view of one bead, with what it depends on and what depends on it.
pub fn full(b: &Bead, set: &BeadSet) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", b.id, b.title);
    let _ = writeln!(s, "Status: {}", b.status);
    let _ = writeln!(s, "Priority: P{}", b.priority);
    let _ = writeln!(s, "Type: {}", b.issue_type);
    if let Some(a) = &b.assignee {
        let _ = writeln!(s, "Assignee: {a}");
    }
    if let Some(t) = b.created_at {
        let by = b
            .created_by
            .as_deref()
            .map(|c| format!(" by {c}"))
            .unwrap_or_default();
        let _ = writeln!(s, "Created: {t}{by}");
    }
    if let Some(t) = b.updated_at {
        let _ = writeln!(s, "Updated: {t}");
    }
    if let Some(t) = b.closed_at {
        let reason = b
            .close_reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let _ = writeln!(s, "Closed: {t}{reason}");
    }
    if let Some(p) = &b.parent {
        let _ = writeln!(s, "Parent: {p}");
    }
    if let Some(spec) = &b.spec {
        let _ = writeln!(s, "Spec: {spec}");
    }
    if !b.labels.is_empty() {
        let _ = writeln!(s, "Labels: {}", b.labels.join(", "));
    }
    if !b.dependencies.is_empty() {
        let _ = writeln!(s, "\nDepends on:");
        for d in &b.dependencies {
            let target = set.beads.get(&d.depends_on_id);
            let _ = writeln!(
                s,
                "  -> {}: {} ({}, {})",
                d.depends_on_id,
                target.map_or("(missing)", |t| t.title.as_str()),
                d.dep_type,
                target.map_or("missing".to_string(), |t| t.status.to_string())
            );
        }
    }
    let dependents = graph::dependents(set, &b.id);
    if !dependents.is_empty() {
        let _ = writeln!(s, "\nNeeded by:");
        for (d, t) in dependents {
            let _ = writeln!(s, "  <- {}: {} ({t}, {})", d.id, d.title, d.status);
        }
    }
    if !b.acceptance_criteria.is_empty() {
        let _ = writeln!(s, "\nAcceptance criteria:");
        for c in &b.acceptance_criteria {
            let _ = writeln!(s, "  {}: {}", c.id, c.description);
        }
    }
    if !b.description.is_empty() {
        let _ = writeln!(s, "\nDescription:\n{}", b.description);
    }
    if !b.notes.is_empty() {
        let _ = writeln!(s, "\nNotes:");
        for n in &b.notes {
            let _ = writeln!(
                s,
                "  [{}] {}: {}",
                n.at,
                n.by,
                n.text.replace('\n', "\n    ")
            );
        }
    }
    vermas_core::text::words::printable(&s).into_owned()
}

/// A dependency tree drawn with box characters.
pub fn tree(root: &TreeNode) -> String {
    fn node_label(n: &TreeNode) -> String {
        let mut s = format!("{}: {} [P{}] ({})", n.id, n.title, n.priority, n.status);
        if let Some(t) = n.dep_type {
            let _ = write!(s, " [{t}]");
        }
        if n.repeated {
            s.push_str(" (shown above)");
        }
        if n.truncated {
            s.push_str(" (its dependencies are deeper than shown)");
        }
        s
    }
    fn walk(n: &TreeNode, prefix: &str, out: &mut String) {
        for (i, child) in n.children.iter().enumerate() {
            let last = i + 1 == n.children.len();
            let _ = writeln!(
                out,
                "{prefix}{}{}",
                if last { "└── " } else { "├── " },
                node_label(child)
            );
            let deeper = format!("{prefix}{}", if last { "    " } else { "│   " });
            walk(child, &deeper, out);
        }
    }
    let mut out = format!("{}\n", node_label(root));
    walk(root, "", &mut out);
    out
}

/// In-progress beads listed by name in the plain status (the rest are counted).
const IN_PROGRESS_SHOWN: usize = 10;

/// The plain-status view.
pub fn summary(s: &Summary, has_workspace: bool) -> String {
    let mut out = String::new();
    if has_workspace {
        let parts: Vec<String> = s
            .by_status
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let by_status = if parts.is_empty() {
            String::new()
        } else {
            format!("  {}", parts.join(" · "))
        };
        let _ = writeln!(
            out,
            "Beads: {} ({}% done){by_status}",
            s.total, s.percent_done
        );
        if s.unreadable > 0 {
            let _ = writeln!(
                out,
                "  {} cannot be read (`vermas doctor`)",
                vermas_core::text::words::plural(s.unreadable, "bead file")
            );
        }
        if !s.in_progress.is_empty() {
            let _ = writeln!(out, "In progress ({}):", s.in_progress.len());
            for b in s.in_progress.iter().take(IN_PROGRESS_SHOWN) {
                let who = b
                    .assignee
                    .as_deref()
                    .map(|a| format!(" @{a}"))
                    .unwrap_or_default();
                let _ = writeln!(out, "  {} {}{who}", b.id, b.title);
            }
        }
        let _ = writeln!(out, "Ready: {}", s.ready);
        if !s.awaiting.is_empty() {
            let _ = writeln!(out, "Awaiting input:");
            for w in &s.awaiting {
                let _ = writeln!(out, "  [awaiting] {} {}", w.id, w.title);
                if let Some(q) = &w.question {
                    let text = q.text.trim_start_matches("Question:").trim();
                    let age = short_age(q.at.seconds_until(Timestamp::now()));
                    let _ = writeln!(out, "    \"{text}\" ({age} ago)");
                }
            }
        }
    } else {
        let _ = writeln!(out, "No .beads here (run `vermas init` to track work).");
    }
    if s.test_specs_pending > 0 {
        let _ = writeln!(
            out,
            "Test specs pending: {} (`vermas inspect pending`)",
            s.test_specs_pending
        );
    }
    if s.specs.is_empty() {
        let _ = writeln!(out, "Live specs: none");
    } else {
        let _ = writeln!(out, "Live specs:");
        for sp in &s.specs {
            let last = match &sp.last {
                Some(r) => format!(
                    "last {} {} ago",
                    r.verdict,
                    short_age(r.at.seconds_until(Timestamp::now()))
                ),
                None => "not recorded".to_string(),
            };
            let noun = if sp.criteria == 1 {
                "criterion"
            } else {
                "criteria"
            };
            let _ = writeln!(out, "  {:<24} {:>3} {noun:<9} {last}", sp.name, sp.criteria);
        }
    }
    out
}
