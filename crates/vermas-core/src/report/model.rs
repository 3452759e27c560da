//! What a report holds: plain values a renderer turns into a page (no markup here).

use super::ledger::Source;
use crate::check::Outcome;
use crate::time::Timestamp;
use serde::Serialize;

/// Everything `vermas report` shows.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The repository's folder name.
    pub project: String,
    /// Where the records were read from.
    pub source: Source,
    /// The time of the commit read (the page's "as of"); `None` for files.
    pub as_of: Option<Timestamp>,
    /// The branch the ledger is on, if any.
    pub branch: Option<String>,
    /// `--since`: history starts after this commit.
    pub since: Option<String>,
    /// How check files are linked.
    pub links: LinkBase,
    /// Work by state, what waits for a person, the refinery.
    pub overview: Overview,
    /// Live specs with each criterion's history.
    pub specs: Vec<LiveSpec>,
    /// Inspected work, newest first.
    pub inspections: Vec<Inspected>,
    /// Files that could not be read.
    pub problems: Vec<String>,
    /// Approvers are set: approvals and answers count only when an approver signed them
    /// (the page shows what is recorded and says so).
    pub approvers_set: bool,
}

/// Where a check's `file:line` points.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LinkBase {
    /// The remote is on GitHub: `https://github.com/OWNER/REPO/blob/COMMIT/PATH#LLINE`.
    GitHub {
        /// `https://github.com/OWNER/REPO`.
        repo_url: String,
        /// The commit the specs were read at.
        commit: String,
    },
    /// A path relative to the page.
    Relative,
}

/// The top of the page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Overview {
    /// Work items (not test specs, results, messages, molecules or gates).
    pub work: usize,
    /// Work by state, every work item in exactly one group, in [`WorkState`] order.
    pub groups: Vec<WorkGroup>,
    /// Test specs waiting for approval.
    pub pending_specs: Vec<PendingSpec>,
    /// Open NEEDS_HUMAN questions.
    pub questions: Vec<Question>,
    /// Work slung past its test-spec gate.
    pub bypasses: Vec<Bypass>,
    /// Merge requests waiting (queued, verifying, merging).
    pub queue: Vec<MergeItem>,
    /// Merged requests, newest first.
    pub merged: Vec<MergeItem>,
    /// Requests stopped (rejected, conflict, error, needs_human), newest first.
    pub stopped: Vec<MergeItem>,
}

/// Where a work item stands, as the overview groups it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkState {
    /// Open, nothing holding it back.
    Ready,
    /// Being worked on (or on an agent's hook).
    InProgress,
    /// A question waits for a person.
    AwaitingInput,
    /// Held back by other beads or marked blocked.
    Blocked,
    /// Passed inspection, waiting to be merged or closed.
    Verified,
    /// Failed inspection.
    Rejected,
    /// Deferred, or open and not ready for another reason.
    Deferred,
    /// Closed after an inspection.
    Closed,
    /// Closed with no inspection recorded.
    ClosedUninspected,
}

impl WorkState {
    /// Every state, in the page's order.
    pub const ALL: [WorkState; 9] = [
        WorkState::Ready,
        WorkState::InProgress,
        WorkState::AwaitingInput,
        WorkState::Blocked,
        WorkState::Verified,
        WorkState::Rejected,
        WorkState::Deferred,
        WorkState::Closed,
        WorkState::ClosedUninspected,
    ];

    /// How the page names it.
    pub fn label(self) -> &'static str {
        match self {
            WorkState::Ready => "Ready",
            WorkState::InProgress => "In progress",
            WorkState::AwaitingInput => "Awaiting input",
            WorkState::Blocked => "Blocked",
            WorkState::Verified => "Verified",
            WorkState::Rejected => "Rejected",
            WorkState::Deferred => "Deferred",
            WorkState::Closed => "Closed, inspected",
            WorkState::ClosedUninspected => "Closed without inspection",
        }
    }

    /// A name for anchors and classes.
    pub fn slug(self) -> &'static str {
        match self {
            WorkState::Ready => "ready",
            WorkState::InProgress => "in-progress",
            WorkState::AwaitingInput => "awaiting-input",
            WorkState::Blocked => "blocked",
            WorkState::Verified => "verified",
            WorkState::Rejected => "rejected",
            WorkState::Deferred => "deferred",
            WorkState::Closed => "closed",
            WorkState::ClosedUninspected => "closed-uninspected",
        }
    }
}

/// The work items in one state: how many, and the first ones by priority.
#[derive(Debug, Clone, Serialize)]
pub struct WorkGroup {
    /// The state.
    pub state: WorkState,
    /// How many work items are in it.
    pub count: usize,
    /// The first [`super::LIST_CAP`] of them, by priority then age.
    pub items: Vec<WorkItem>,
}

/// One work item in a list.
#[derive(Debug, Clone, Serialize)]
pub struct WorkItem {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// 0 (critical) to 4.
    pub priority: u8,
    /// Who works on it.
    pub assignee: Option<String>,
    /// What holds it back (blocked work).
    pub blocked_by: Vec<String>,
    /// When it last changed.
    pub updated_at: Option<Timestamp>,
}

/// A test spec waiting for a person's approval.
#[derive(Debug, Clone, Serialize)]
pub struct PendingSpec {
    /// The test spec's id.
    pub id: String,
    /// The work it gates.
    pub work: Option<String>,
    /// Its title.
    pub title: String,
    /// How many criteria it proposes.
    pub criteria: usize,
    /// True when it was approved once and its criteria changed since.
    pub changed_since_approval: bool,
}

/// A question the Inspector asked a person.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    /// The work asked about.
    pub work: String,
    /// Its title.
    pub title: String,
    /// The question.
    pub question: String,
    /// When it was asked.
    pub asked_at: Option<Timestamp>,
    /// The message it was asked in.
    pub asked_in: Option<String>,
}

/// Work slung with `--force`.
#[derive(Debug, Clone, Serialize)]
pub struct Bypass {
    /// The work.
    pub work: String,
    /// Its title.
    pub title: String,
    /// The reason given (and who gave it).
    pub reason: String,
    /// When.
    pub at: Option<Timestamp>,
}

/// One merge request.
#[derive(Debug, Clone, Serialize)]
pub struct MergeItem {
    /// `mq-...`.
    pub id: String,
    /// The branch.
    pub branch: String,
    /// The work.
    pub bead: String,
    /// Where it lands.
    pub target: String,
    /// Its state as written.
    pub state: String,
    /// The last verdict.
    pub last_verdict: Option<String>,
    /// Why it stands where it does.
    pub reason: Option<String>,
    /// The commit it landed as.
    pub merged_commit: Option<String>,
    /// When it last changed.
    pub updated_at: Option<Timestamp>,
}

/// One live spec.
#[derive(Debug, Clone, Serialize)]
pub struct LiveSpec {
    /// `specs/x.md`.
    pub path: String,
    /// Its name (`x`).
    pub name: String,
    /// Its title.
    pub title: String,
    /// The bead it belongs to.
    pub bead: Option<String>,
    /// The latest recorded verdict.
    pub verdict: Option<String>,
    /// When that was recorded.
    pub recorded_at: Option<Timestamp>,
    /// How many recorded runs the history holds.
    pub runs: usize,
    /// Its criteria, in file order.
    pub criteria: Vec<LiveCriterion>,
}

/// One criterion of a live spec.
#[derive(Debug, Clone, Serialize)]
pub struct LiveCriterion {
    /// Its text.
    pub text: String,
    /// Its line in the spec.
    pub line: usize,
    /// The latest recorded outcome (`None`: never recorded).
    pub latest: Option<Outcome>,
    /// The latest output worth reading when it did not pass.
    pub snippet: String,
    /// Its recorded outcomes, oldest first (the last [`super::STRIP_CAP`]).
    pub history: Vec<Mark>,
    /// Recorded outcomes left out of `history` (older ones).
    pub earlier: usize,
    /// Its outcome flipped and flipped back, or was UNSTABLE.
    pub flaky: bool,
    /// Its checks.
    pub checks: Vec<CheckLink>,
}

/// One recorded outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Mark {
    /// The outcome.
    pub outcome: Outcome,
    /// The commit that recorded it.
    pub commit: String,
    /// When.
    pub at: Timestamp,
}

/// A check a criterion links to.
#[derive(Debug, Clone, Serialize)]
pub struct CheckLink {
    /// `verify`, `judge`, `verify:NAME`.
    pub kind: String,
    /// `file#function` as written.
    pub target: String,
    /// The file, repository-relative.
    pub file: String,
    /// The line the function is defined on, when found.
    pub line: Option<usize>,
}

/// One inspected work item.
#[derive(Debug, Clone, Serialize)]
pub struct Inspected {
    /// The work's id.
    pub work: String,
    /// Its title (when the bead is there).
    pub title: Option<String>,
    /// The verdict as written.
    pub verdict: String,
    /// The judge's confidence.
    pub confidence: Option<f64>,
    /// When it was recorded.
    pub at: Option<Timestamp>,
    /// The ledger commit that recorded it.
    pub recorded_in: Option<String>,
    /// The commit judged.
    pub head: Option<String>,
    /// The tree judged, where recorded.
    pub tree: Option<String>,
    /// The diff's base, where recorded.
    pub base: Option<String>,
    /// What the test spec's approval rested on, in words (`None`: not recorded).
    pub approval: Option<String>,
    /// Why.
    pub reasons: Vec<String>,
    /// Each criterion's outcome and evidence.
    pub checks: Vec<InspectedCheck>,
    /// Each role's brief, auditor, advocate, critic, judge first.
    pub briefs: Vec<(String, String)>,
    /// The last question asked about the work.
    pub question: Option<String>,
    /// The answer a person gave to it.
    pub answer: Option<String>,
    /// The test spec and its approval.
    pub spec: Option<SpecApproval>,
    /// Failure reports (`verification-result` beads) of the work.
    pub failure_reports: Vec<FailureReport>,
    /// Earlier verdicts, newest first.
    pub earlier: Vec<PastVerdict>,
}

/// One criterion of an inspection.
#[derive(Debug, Clone, Serialize)]
pub struct InspectedCheck {
    /// The criterion's id.
    pub criterion: String,
    /// Its description from the test spec.
    pub description: Option<String>,
    /// `verify_command`, `verify`, `judge`...
    pub kind: String,
    /// The command run.
    pub command: String,
    /// The outcome as written.
    pub outcome: String,
    /// Its exit code.
    pub exit_code: Option<i32>,
    /// The captured output's tail.
    pub snippet: String,
}

/// A test spec's approval.
#[derive(Debug, Clone, Serialize)]
pub struct SpecApproval {
    /// The test spec.
    pub id: String,
    /// Who approved it.
    pub by: Option<String>,
    /// When.
    pub at: Option<Timestamp>,
    /// HEAD then.
    pub commit: Option<String>,
    /// True while the approval holds (the criteria did not change).
    pub holds: bool,
}

/// A failure report of the work.
#[derive(Debug, Clone, Serialize)]
pub struct FailureReport {
    /// Its bead id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Closed (superseded) or open.
    pub closed: bool,
    /// The report.
    pub body: String,
}

/// An earlier verdict on the same work.
#[derive(Debug, Clone, Serialize)]
pub struct PastVerdict {
    /// The verdict.
    pub verdict: String,
    /// When.
    pub at: Option<Timestamp>,
    /// The ledger commit that recorded it.
    pub commit: String,
}
