//! Live specs over time: each criterion's latest recorded outcome and its outcomes across
//! the commits that recorded `results/spec-<name>.yaml`, matched to the criterion by its
//! text in the spec as it was at that commit (so a line moved by an edit keeps its
//! history), flaky criteria, and each check's `file:line`.

use super::STRIP_CAP;
use super::model::{CheckLink, LiveCriterion, LiveSpec, Mark};
use super::views::{ResultView, outcome_of};
use crate::check::Outcome;
use crate::git::GitRepo;
use crate::spec::Spec;
use std::collections::HashMap;

/// Each criterion's outcome and the output worth reading, by the criterion's text.
type Outcomes = HashMap<String, (Outcome, String)>;

/// One recorded run of a spec: the ledger commit, its time, the record.
pub(super) struct Recorded {
    /// The commit that wrote it.
    pub commit: String,
    /// When it ran (the record's `at`, else the commit's time).
    pub at: crate::time::Timestamp,
    /// The record.
    pub record: ResultView,
}

/// Reads the spec files of past commits, each version parsed once.
pub(super) struct PastSpecs<'a> {
    /// The repository (none: no history).
    repo: Option<&'a GitRepo>,
    /// The project root relative to the work tree.
    root: String,
    /// Criterion texts by line, by the spec's text.
    parsed: HashMap<String, HashMap<usize, String>>,
    /// The spec's text by (commit, path).
    texts: HashMap<(String, String), Option<String>>,
}

impl<'a> PastSpecs<'a> {
    /// Reading specs from `repo`, whose project root is `root` (relative to its work tree).
    pub(super) fn new(repo: Option<&'a GitRepo>, root: String) -> PastSpecs<'a> {
        PastSpecs {
            repo,
            root,
            parsed: HashMap::new(),
            texts: HashMap::new(),
        }
    }

    /// The text of the criterion at `location` (`specs/x.md:12`) in the spec as it was at
    /// `commit`.
    fn text_at(&mut self, commit: &str, location: &str) -> Option<String> {
        let (path, line) = location.rsplit_once(':')?;
        let line: usize = line.parse().ok()?;
        let key = (commit.to_string(), path.to_string());
        if !self.texts.contains_key(&key) {
            let rela = super::ledger::join(&self.root, path);
            let text = self
                .repo
                .and_then(|r| r.file_at(commit, &rela))
                .map(|b| String::from_utf8_lossy(&b).into_owned());
            self.texts.insert(key.clone(), text);
        }
        let text = self.texts.get(&key)?.as_ref()?;
        if !self.parsed.contains_key(text) {
            let lines = crate::spec::parse(text, path)
                .criteria
                .into_iter()
                .map(|c| (c.line, c.text))
                .collect();
            self.parsed.insert(text.clone(), lines);
        }
        self.parsed.get(text)?.get(&line).cloned()
    }

    /// The line `function` is defined on in `file` at `commit`.
    fn function_line(&mut self, commit: &str, file: &str, function: &str) -> Option<usize> {
        let key = (commit.to_string(), file.to_string());
        if !self.texts.contains_key(&key) {
            let rela = super::ledger::join(&self.root, file);
            let text = self
                .repo
                .and_then(|r| r.file_at(commit, &rela))
                .map(|b| String::from_utf8_lossy(&b).into_owned());
            self.texts.insert(key.clone(), text);
        }
        let text = self.texts.get(&key)?.as_ref()?;
        crate::check::functions::definition_line(file, text, function)
    }
}

/// `spec` with its latest record `latest` and its recorded runs `runs` (oldest first);
/// `commit` is the commit the specs were read at.
pub(super) fn live_spec(
    spec: &Spec,
    latest: Option<&ResultView>,
    runs: &[Recorded],
    past: &mut PastSpecs<'_>,
    commit: Option<&str>,
) -> LiveSpec {
    // Each run's outcome per criterion text.
    let per_run: Vec<(&Recorded, Outcomes)> = runs
        .iter()
        .map(|r| (r, by_text(&r.record, |loc| past.text_at(&r.commit, loc))))
        .collect();
    let now = latest.map(|r| {
        by_text(r, |loc| {
            let (path, line) = loc.rsplit_once(':')?;
            (path == spec.path)
                .then(|| line.parse::<usize>().ok())
                .flatten()
                .and_then(|l| spec.criteria.iter().find(|c| c.line == l))
                .map(|c| c.text.clone())
        })
    });
    let criteria = spec
        .criteria
        .iter()
        .map(|c| {
            let marks: Vec<Mark> = per_run
                .iter()
                .filter_map(|(r, outcomes)| {
                    outcomes.get(&c.text).map(|(o, _)| Mark {
                        outcome: *o,
                        commit: r.commit.clone(),
                        at: r.at,
                    })
                })
                .collect();
            let (latest, snippet) = now
                .as_ref()
                .and_then(|n| n.get(&c.text).cloned())
                .map_or((None, String::new()), |(o, s)| (Some(o), s));
            let flaky = is_flaky(marks.iter().map(|m| m.outcome));
            let earlier = marks.len().saturating_sub(STRIP_CAP);
            LiveCriterion {
                text: c.text.clone(),
                line: c.line,
                latest,
                snippet,
                history: marks.into_iter().skip(earlier).collect(),
                earlier,
                flaky,
                checks: c
                    .annotations
                    .iter()
                    .map(|a| CheckLink {
                        kind: a.kind.to_string(),
                        target: a.target(),
                        file: a.file.clone(),
                        line: match (commit, &a.function) {
                            (Some(commit), Some(f)) => past.function_line(commit, &a.file, f),
                            _ => None,
                        },
                    })
                    .collect(),
            }
        })
        .collect();
    LiveSpec {
        path: spec.path.clone(),
        name: spec.name.clone(),
        title: spec.title.clone(),
        bead: spec.bead.clone(),
        verdict: latest.and_then(|r| r.verdict.clone()),
        recorded_at: latest.and_then(|r| r.at),
        runs: runs.len(),
        criteria,
    }
}

/// Each criterion's outcome in `record` (its checks combined: any FAIL, then UNSTABLE,
/// ERROR, SKIP; PASS only when all passed) and the output of its first check that did not
/// pass, keyed by the criterion's text as `text_of` finds it from `path:line`.
fn by_text(record: &ResultView, mut text_of: impl FnMut(&str) -> Option<String>) -> Outcomes {
    let mut out = Outcomes::new();
    let mut known: HashMap<&str, Option<String>> = HashMap::new();
    for check in &record.checks {
        let Some(outcome) = outcome_of(&check.outcome) else {
            continue;
        };
        let text = known
            .entry(check.criterion.as_str())
            .or_insert_with(|| text_of(&check.criterion));
        let Some(text) = text.clone() else {
            continue;
        };
        let slot = out.entry(text).or_insert((Outcome::Pass, String::new()));
        if rank(outcome) > rank(slot.0) {
            *slot = (outcome, check.snippet.clone());
        }
    }
    out
}

/// How much an outcome weighs when a criterion's checks are combined.
fn rank(o: Outcome) -> u8 {
    match o {
        Outcome::Pass => 0,
        Outcome::Skip => 1,
        Outcome::Error => 2,
        Outcome::Unstable => 3,
        Outcome::Fail => 4,
    }
}

/// Flaky: UNSTABLE once, or (SKIPs aside) an outcome that changed and changed back.
pub(crate) fn is_flaky(outcomes: impl Iterator<Item = Outcome>) -> bool {
    let mut last = None;
    let mut changes = 0;
    for o in outcomes {
        if o == Outcome::Unstable {
            return true;
        }
        if o == Outcome::Skip {
            continue;
        }
        if last.is_some_and(|l| l != o) {
            changes += 1;
        }
        last = Some(o);
    }
    changes >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::*;

    #[test]
    fn flaky_means_a_flip_and_back_or_unstable() {
        assert!(is_flaky([Pass, Fail, Pass].into_iter()));
        assert!(is_flaky([Pass, Skip, Fail, Skip, Pass].into_iter()));
        assert!(is_flaky([Pass, Unstable].into_iter()));
        assert!(
            !is_flaky([Pass, Pass, Fail, Fail].into_iter()),
            "a regression"
        );
        assert!(!is_flaky([Fail, Pass].into_iter()), "a fix");
        assert!(!is_flaky([Pass, Skip, Pass].into_iter()));
    }
}
