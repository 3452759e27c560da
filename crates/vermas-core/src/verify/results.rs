//! Verification evidence: the latest run for a bead or spec in
//! `.beads/results/<key>.yaml`; git history keeps the earlier ones.

use crate::check::Outcome;
use crate::error::{Error, Result};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::verify::live::SpecRun;
use crate::workspace::{Workspace, layout};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The verdict of a record: the judge's decision, and (ERROR) an inspection that could not
/// decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Accepted.
    #[serde(rename = "PASS")]
    Pass,
    /// Rejected.
    #[serde(rename = "FAIL")]
    Fail,
    /// A person must answer first.
    #[serde(rename = "NEEDS_HUMAN")]
    NeedsHuman,
    /// Could not be decided (a check or an LLM could not run, nothing to verify); never
    /// a judge's answer.
    #[serde(rename = "ERROR")]
    Error,
}

impl Verdict {
    /// The spelling used in records, mail and replies.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::NeedsHuman => "NEEDS_HUMAN",
            Verdict::Error => "ERROR",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lines of output kept as a check's snippet.
const SNIPPET_LINES: usize = 20;

/// One check's evidence.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Evidence {
    /// `path:line` of the criterion (or an acceptance-criterion id).
    pub criterion: String,
    /// `verify`, `judge`, a gate phase...
    pub kind: String,
    /// The command run.
    pub command: String,
    /// Its exit code.
    pub exit_code: Option<i32>,
    /// PASS, FAIL, SKIP, ERROR or UNSTABLE.
    pub outcome: Outcome,
    /// Gate classification such as `accept`, where one applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classification: Option<String>,
    /// Wall time.
    pub duration_ms: u64,
    /// Which attempt this was.
    pub attempt: u32,
    /// When this check ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// The part of the output worth reading.
    #[serde(default)]
    pub snippet: String,
}

/// The latest verification of one key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ResultRecord {
    /// A bead id or `spec:<name>`.
    pub key: String,
    /// PASS, FAIL, NEEDS_HUMAN or ERROR.
    pub verdict: Verdict,
    /// From the judge, where one spoke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// When.
    pub at: Timestamp,
    /// Every check.
    pub checks: Vec<Evidence>,
    /// Inspector briefs by role.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub briefs: BTreeMap<String, String>,
    /// Why the verdict is what it is (the Inspector's rules and the judge's reasons).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The commit that was verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Its root tree: what was judged, whatever the commit's history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// What the test spec's approval rested on (an approver's signed commit, or not
    /// authenticated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// The hash of each LLM role's prompt.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompt_hashes: BTreeMap<String, String>,
}

/// `.beads/results/<file>.yaml`.
pub fn path(ws: &Workspace, file: &str) -> PathBuf {
    ws.path(layout::RESULTS).join(format!("{file}.yaml"))
}

/// The record of a spec run.
pub fn from_spec_run(run: &SpecRun, at: Timestamp) -> ResultRecord {
    let c = run.counts;
    let verdict = if c.failed > 0 || c.unstable > 0 {
        Verdict::Fail
    } else if c.errors > 0 {
        Verdict::Error
    } else {
        Verdict::Pass
    };
    let mut checks = Vec::new();
    for crit in &run.criteria {
        for chk in &crit.checks {
            checks.push(Evidence {
                criterion: format!("{}:{}", run.path, crit.line),
                kind: chk.kind.to_string(),
                command: chk.result.command.clone(),
                exit_code: chk.result.exit_code,
                outcome: chk.result.outcome,
                classification: None,
                duration_ms: chk.result.duration_ms,
                attempt: 1,
                at: Some(at),
                snippet: match chk.result.outcome {
                    Outcome::Pass | Outcome::Skip => chk.result.reason.clone().unwrap_or_default(),
                    _ => {
                        let s = chk.result.snippet(SNIPPET_LINES).0;
                        if s.is_empty() {
                            chk.result.reason.clone().unwrap_or_default()
                        } else {
                            s
                        }
                    }
                },
            });
        }
    }
    ResultRecord {
        key: format!("spec:{}", run.name),
        verdict,
        confidence: None,
        at,
        checks,
        briefs: BTreeMap::new(),
        reasons: Vec::new(),
        head: None,
        tree: None,
        approval: None,
        prompt_hashes: BTreeMap::new(),
    }
}

/// Writes the records of these spec runs and commits them in one commit.
pub fn record_specs(ws: &Workspace, runs: &[SpecRun], actor: &str) -> Result<Recorded> {
    let mut txn = Txn::begin(ws)?;
    let now = Timestamp::now();
    let mut ids = Vec::new();
    for run in runs {
        let record = from_spec_run(run, now);
        let text = crate::text::yaml::to_string(&record).map_err(Error::Invalid)?;
        txn.write(&path(ws, &format!("spec-{}", run.name)), text.as_bytes())?;
        ids.push(record.key);
    }
    let title = runs
        .iter()
        .map(|r| r.counts.line())
        .next()
        .unwrap_or_default();
    txn.commit(&CommitMessage {
        verb: "verify".into(),
        ids,
        title,
        actor: actor.to_string(),
    })
}

/// Every readable record under `.beads/results/`, sorted by key.
pub fn load_all(ws: &Workspace) -> Vec<ResultRecord> {
    let dir = ws.path(layout::RESULTS);
    let mut out: Vec<ResultRecord> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let text = ws.read_record(&e.path()).ok()?;
            crate::text::yaml::parse(&text, "", &text, 1).ok()
        })
        .collect();
    out.sort_by(|a: &ResultRecord, b| a.key.cmp(&b.key));
    out
}

/// The recorded result of spec `name`, if any (an unreadable file counts as none).
pub fn load_spec(ws: &Workspace, name: &str) -> Option<ResultRecord> {
    load(ws, &format!("spec-{name}")).ok().flatten()
}

/// The record in `.beads/results/<file>.yaml`: `None` when there is none, an error when
/// the file cannot be read (so evidence is never silently dropped by a rewrite).
pub fn load(ws: &Workspace, file: &str) -> Result<Option<ResultRecord>> {
    let p = path(ws, file);
    match ws.read_record(&p) {
        Ok(text) => Ok(Some(crate::text::yaml::parse(
            &text,
            &ws.display(&p),
            &text,
            1,
        )?)),
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The YAML text of a record.
pub fn render(record: &ResultRecord) -> Result<String> {
    crate::text::yaml::to_string(record).map_err(Error::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_and_outcomes_keep_their_spellings_in_the_file() {
        let record = ResultRecord {
            key: "vm-a1".into(),
            verdict: Verdict::NeedsHuman,
            confidence: None,
            at: Timestamp(1_700_000_000),
            checks: vec![Evidence {
                criterion: "AC-1".into(),
                kind: "verify".into(),
                command: "true".into(),
                exit_code: Some(0),
                outcome: Outcome::Unstable,
                classification: None,
                duration_ms: 3,
                attempt: 1,
                at: None,
                snippet: String::new(),
            }],
            briefs: BTreeMap::new(),
            reasons: Vec::new(),
            head: None,
            tree: None,
            approval: None,
            prompt_hashes: BTreeMap::new(),
        };
        let text = render(&record).unwrap();
        assert!(text.contains("verdict: NEEDS_HUMAN\n"), "{text}");
        assert!(text.contains("outcome: UNSTABLE\n"), "{text}");
        let back: ResultRecord = crate::text::yaml::parse(&text, "r.yaml", &text, 1).unwrap();
        assert_eq!(back, record);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(json["verdict"], "NEEDS_HUMAN");
        assert_eq!(json["checks"][0]["outcome"], "UNSTABLE");
        assert_eq!(Verdict::Error.to_string(), "ERROR");
    }
}
