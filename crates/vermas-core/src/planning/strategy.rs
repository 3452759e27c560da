//! The strategist: acceptance criteria for a piece of work proposed by the `strategist` LLM
//! role (`[{id, description, verify_command | verify | judge}]`), read from its JSON reply
//! and checked as `inspect add-criteria` checks one; people see and edit them as the YAML
//! list the test spec stores, and they go on the work's test spec (created when absent) in
//! one commit, approved with it when asked.

use super::design::{Revision, json_in};
use crate::bead::model::{AcceptanceCriterion, Bead, IssueType};
use crate::bead::store::{bead_path, load_one};
use crate::error::{Error, ParseError, Result};
use crate::inspect::roles::{self, Role};
use crate::inspect::testspec::{self, Check};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::text::yaml::{Spanned, scalar, spanned_line};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::Deserialize;

/// One criterion as the strategist or a person wrote it, before it is checked.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a criterion: an object such as {\"description\": \"15 prints FizzBuzz\", \
                 \"verify_command\": \"./fizzbuzz.sh 15 | grep -qx FizzBuzz\"} (one of \
                 verify_command, verify or judge)"
)]
struct Draft {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    verify_command: Option<String>,
    #[serde(default)]
    verify: Option<String>,
    #[serde(default)]
    judge: Option<String>,
}

/// The work the strategist is asked about, with its test spec when it has one.
#[derive(Debug, Clone)]
pub struct StrategyInput {
    /// The work.
    pub work: Bead,
    /// Its test spec (open), if it exists yet.
    pub spec: Option<Bead>,
}

impl StrategyInput {
    /// The work `id` names (its test spec stands for it). Refused when its spec is approved
    /// already: criteria never change under an approval.
    pub fn new(ws: &Workspace, id: &str) -> Result<StrategyInput> {
        let b = load_one(ws, id)?;
        let work = match (&b.issue_type, &b.parent) {
            (IssueType::TestSpec, Some(parent)) => load_one(ws, parent)?,
            (IssueType::TestSpec, None) => {
                return Err(Error::Invalid(format!(
                    "{} is a test spec of no work (it has no parent)",
                    b.id
                )));
            }
            (IssueType::Message, _) => {
                return Err(Error::Invalid(format!(
                    "{} is a message: criteria belong to work",
                    b.id
                )));
            }
            _ => b,
        };
        let spec = testspec::of_work(ws, &work.id)?;
        if let Some(s) = &spec {
            testspec::check_open(s)?;
        }
        Ok(StrategyInput { work, spec })
    }

    /// The number the first new `ac-N` gets.
    pub fn first_number(&self) -> u32 {
        self.spec.as_ref().map_or(1, testspec::next_number)
    }

    /// The ids the spec has already.
    pub fn taken(&self) -> Vec<String> {
        self.spec
            .iter()
            .flat_map(|s| s.acceptance_criteria.iter().map(|c| c.id.clone()))
            .collect()
    }
}

/// Asks the strategist (with `llm.retries` new asks for a reply that does not parse); the
/// criteria come numbered after the spec's own.
pub fn propose(
    ws: &Workspace,
    input: &StrategyInput,
    revision: Option<&Revision>,
) -> Result<Vec<AcceptanceCriterion>> {
    let first = input.first_number();
    roles::ask_checked(ws, Role::Strategist, &task(input, revision), |r| {
        parse_reply(r, first)
    })
}

/// The strategist's task: the work, the criteria it has, a person's feedback, the format.
pub fn task(input: &StrategyInput, revision: Option<&Revision>) -> String {
    let w = &input.work;
    let body = w.description.trim();
    let mut t = format!(
        "WORK {} ({}): {}\n{}\n",
        w.id,
        w.issue_type,
        w.title,
        if body.is_empty() {
            "(no description)"
        } else {
            body
        }
    );
    if let Some(s) = input
        .spec
        .as_ref()
        .filter(|s| !s.acceptance_criteria.is_empty())
    {
        t.push_str(&format!(
            "\nEXISTING CRITERIA of {} (they stay; propose only new ones)\n",
            s.id
        ));
        for c in &s.acceptance_criteria {
            let (kind, target) = testspec::kind_of(c);
            t.push_str(&format!(
                "- {}: {} ({kind}: {target})\n",
                c.id, c.description
            ));
        }
    }
    if let Some(r) = revision {
        t.push_str(&r.prompt_section());
    }
    t.push_str(
        "\nAnswer with one JSON array and nothing else:\n\
         [{\"id\": \"AC-1\", \"description\": \"...\", \"verify_command\": \"...\"}]\n\
         Each criterion has a one-line description and exactly one check: verify_command (a \
         shell command run from the repository root that exits 0 when the criterion holds), \
         verify (a test as \"path#function\") or judge (an LLM rubric as \"path#function\", \
         only for what no command can decide).\n",
    );
    t
}

/// Reads the strategist's reply: a JSON array of criteria (alone, fenced or amid prose),
/// each checked; they are numbered `ac-<first>`, `ac-<first+1>`, ... whatever ids it gave.
pub fn parse_reply(
    reply: &str,
    first: u32,
) -> std::result::Result<Vec<AcceptanceCriterion>, String> {
    let value = json_in(reply, '[', ']')?;
    let list = value.as_array().ok_or("the reply's JSON is not an array")?;
    if list.is_empty() {
        return Err("the array holds no criterion".into());
    }
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let n = i + 1;
        let draft: Draft =
            serde_json::from_value(v.clone()).map_err(|e| format!("criterion {n}: {e}"))?;
        let mut c = checked(&draft).map_err(|e| format!("criterion {n}: {e}"))?;
        c.id = format!("ac-{}", first as usize + i);
        out.push(c);
    }
    Ok(out)
}

/// A draft as a criterion (id as drafted, else empty), or why it cannot be one.
fn checked(d: &Draft) -> std::result::Result<AcceptanceCriterion, String> {
    let checks: Vec<Check> = [
        d.verify_command.clone().map(Check::Command),
        d.verify.clone().map(Check::Verify),
        d.judge.clone().map(Check::Judge),
    ]
    .into_iter()
    .flatten()
    .collect();
    let check = match <[Check; 1]>::try_from(checks) {
        Ok([one]) => one,
        Err(v) if v.is_empty() => {
            return Err("no check: give verify_command, verify or judge".into());
        }
        Err(_) => {
            return Err("more than one check: keep one of verify_command, verify, judge".into());
        }
    };
    let mut c = testspec::criterion(&d.description, check).map_err(|e| e.to_string())?;
    c.id = d.id.clone().unwrap_or_default();
    Ok(c)
}

/// The criteria as the YAML list a test spec stores, one block per criterion: what a
/// person approves or edits.
pub fn to_text(criteria: &[AcceptanceCriterion]) -> String {
    let mut out = String::new();
    for c in criteria {
        out.push_str(&format!(
            "- id: {}\n  description: {}\n",
            scalar(&c.id),
            scalar(&c.description)
        ));
        for (key, v) in c.checks() {
            out.push_str(&format!("  {key}: {}\n", scalar(v)));
        }
    }
    out
}

/// Reads criteria back from text a person edited (the layout of [`to_text`]); problems
/// point at their line. Ids are kept; a missing one gets the next free `ac-N` from
/// `first`; an id the spec (`taken`) or the list has already is refused.
pub fn parse_text(text: &str, taken: &[String], first: u32) -> Result<Vec<AcceptanceCriterion>> {
    let file = "criteria";
    let help = "one `- ` block per criterion: id, description and one of verify_command, \
                verify (path#function) or judge (path#function)";
    let at = |line: usize, msg: String| -> Error {
        ParseError::at(file, text, line, 1, msg)
            .with_help(help)
            .into()
    };
    let blank = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if blank {
        return Err(at(1, "no criteria: the text is empty".into()));
    }
    let drafts: Vec<Spanned<Draft>> = crate::text::yaml::parse(text, file, text, 1)
        .map_err(|e| Error::from(e.with_help(help)))?;
    let mut used: Vec<String> = taken.to_vec();
    let mut out = Vec::new();
    for d in &drafts {
        let line = spanned_line(d).max(1);
        let c = checked(&d.value).map_err(|m| at(line, m))?;
        if !c.id.is_empty() {
            let valid =
                c.id.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'));
            if !valid {
                return Err(at(
                    line,
                    format!("id '{}': use letters, digits, '-', '_' and '.'", c.id),
                ));
            }
            if used.contains(&c.id) {
                return Err(at(line, format!("id '{}' is used already", c.id)));
            }
            used.push(c.id.clone());
        }
        out.push(c);
    }
    let mut n = first;
    for c in out.iter_mut().filter(|c| c.id.is_empty()) {
        while used.contains(&format!("ac-{n}")) {
            n += 1;
        }
        c.id = format!("ac-{n}");
        used.push(c.id.clone());
    }
    Ok(out)
}

/// What `record` wrote.
#[derive(Debug, Clone)]
pub struct Strategized {
    /// The work.
    pub work: Bead,
    /// Its test spec with the new criteria.
    pub spec: Bead,
    /// The ids of the criteria added.
    pub added: Vec<String>,
    /// True when the spec was created now.
    pub created_spec: bool,
    /// True when the spec was approved now.
    pub approved: bool,
}

/// Adds approved criteria to the work's test spec (created when absent, as `inspect
/// create-spec` makes one) and, with `approve`, approves it; one commit.
pub fn record(
    ws: &Workspace,
    actor: &str,
    work_id: &str,
    criteria: &[AcceptanceCriterion],
    approve: bool,
) -> Result<(Strategized, Recorded)> {
    let mut txn = Txn::begin(ws)?;
    let (done, msg) = add_in(&mut txn, ws, actor, work_id, criteria, approve)?;
    let recorded = txn.commit(&msg)?;
    Ok((done, recorded))
}

/// [`record`]'s writes into the open change `txn`; returns what was written and the commit
/// message (verb `strategize`).
pub fn add_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    work_id: &str,
    criteria: &[AcceptanceCriterion],
    approve: bool,
) -> Result<(Strategized, CommitMessage)> {
    if criteria.is_empty() {
        return Err(Error::Invalid("no criteria to add".into()));
    }
    let now = Timestamp::now();
    // Read again under the lock: the spec may have changed while a person read.
    let mut work = load_one(ws, work_id)?;
    let (mut spec, created_spec) = match testspec::of_work(ws, &work.id)? {
        Some(s) => (s, false),
        None => {
            let s = testspec::attach(txn, ws, &mut work, actor, now)?;
            work.updated_at = Some(now);
            txn.write(&bead_path(ws, &work.id), work.render().as_bytes())?;
            (s, true)
        }
    };
    testspec::check_open(&spec)?;
    let mut added = Vec::new();
    for c in criteria {
        let mut c = c.clone();
        // The same criterion proposed again (a duplicate request) is not added twice.
        let same =
            |e: &AcceptanceCriterion| e.description == c.description && e.checks().eq(c.checks());
        if spec.acceptance_criteria.iter().any(same) {
            continue;
        }
        if c.id.is_empty() || spec.acceptance_criteria.iter().any(|e| e.id == c.id) {
            c.id = format!("ac-{}", testspec::next_number(&spec));
        }
        added.push(c.id.clone());
        spec.acceptance_criteria.push(c);
    }
    spec.updated_at = Some(now);
    if approve {
        testspec::approve_in(txn, ws, actor, &mut spec, &[])?;
    } else {
        txn.write(&bead_path(ws, &spec.id), spec.render().as_bytes())?;
    }
    let mut ids = vec![spec.id.clone()];
    if created_spec {
        ids.push(work.id.clone());
    }
    let msg = CommitMessage {
        verb: "strategize".into(),
        ids,
        title: spec.title.clone(),
        actor: actor.to_string(),
    };
    Ok((
        Strategized {
            work,
            spec,
            added,
            created_spec,
            approved: approve,
        },
        msg,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"[{"id": "AC-1", "description": "15 prints FizzBuzz", "verify_command": "./fizz 15 | grep -qx FizzBuzz"},
        {"id": "AC-2", "description": "unit tests pass", "verify": "tests/fizz.sh#test_unit"}]"#;

    #[test]
    fn numbers_the_strategists_criteria_after_the_specs() {
        let c = parse_reply(&format!("Proposed:\n{GOOD}\nDone."), 3).unwrap();
        let ids: Vec<&str> = c.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["ac-3", "ac-4"]);
        assert_eq!(c[1].verify.as_deref(), Some("tests/fizz.sh#test_unit"));
    }

    #[test]
    fn refuses_criteria_it_cannot_check_and_says_which() {
        for (reply, why) in [
            ("no JSON here", "holds no JSON array"),
            ("[]", "no criterion"),
            (r#"[{"description": "x"}]"#, "criterion 1: no check"),
            (
                r#"[{"description": "x", "verify_command": "true", "judge": "a.sh#f"}]"#,
                "more than one check",
            ),
            (
                r#"[{"description": "x", "verify_command": "if then"}]"#,
                "does not parse as shell",
            ),
            (
                r#"[{"description": "", "verify_command": "true"}]"#,
                "one non-empty line",
            ),
            (
                r#"[{"description": "x", "verify": "../out.sh#f"}]"#,
                "target",
            ),
            (
                r#"[{"description": "x", "command": "true"}]"#,
                "unknown field `command`",
            ),
        ] {
            let e = parse_reply(reply, 1).unwrap_err();
            assert!(e.contains(why), "{reply}: {e}");
        }
    }

    #[test]
    fn edited_text_round_trips_keeps_ids_and_points_at_lines() {
        let c = parse_reply(GOOD, 1).unwrap();
        let text = to_text(&c);
        assert_eq!(parse_text(&text, &[], 1).unwrap(), c);
        let edited = format!(
            "{text}- description: also 3 prints Fizz\n  verify_command: ./fizz 3 | grep -qx Fizz\n"
        );
        let back = parse_text(&edited, &["ac-3".to_string()], 3).unwrap();
        assert_eq!(back[2].id, "ac-4");
        let e = parse_text(&text, &["ac-2".to_string()], 3).unwrap_err();
        assert!(e.to_string().starts_with("criteria:4:"), "{e}");
        let e = parse_text("- id: x\n  description: d\n", &[], 1).unwrap_err();
        assert!(
            e.to_string().contains("criteria:1:") && e.to_string().contains("no check"),
            "{e}"
        );
        let e = parse_text("- id: [unclosed\n", &[], 1).unwrap_err();
        assert!(e.to_string().starts_with("criteria:"), "{e}");
        assert!(parse_text("# nothing\n\n", &[], 1).is_err());
    }
}
