//! vermas's own stand-in for a model, `vermas stand-in`: it answers every role's prompt
//! deterministically from the evidence vermas put in it, in the reply format each role is
//! asked for, so the whole pipeline can be tried (and users' own tests run) without a
//! model. It only restates the checks: PASS when every check passed, FAIL naming the ones
//! that did not. Never the default; every reply carries [`MARK`], and an inspection whose
//! roles were answered by it says so.

use serde_json::json;

/// The first line of every stand-in reply: how a report knows no model spoke.
pub const MARK: &str = "[vermas stand-in: not a model]";

/// What each criterion's check came to, as the evidence says: `(id, outcome)`.
fn outcomes(prompt: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = prompt.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(id) = line.strip_prefix("CRITERION ") else {
            continue;
        };
        // vermas writes the fence, then the description, the check, then `outcome: X`.
        let outcome = lines
            .by_ref()
            .take(4)
            .find_map(|l| l.strip_prefix("outcome: "))
            .map(|o| o.split_whitespace().next().unwrap_or("").to_string())
            .unwrap_or_default();
        out.push((id.trim().to_string(), outcome));
    }
    out
}

/// The text after the line `heading`, up to the next empty line.
fn section<'p>(prompt: &'p str, heading: &str) -> Option<&'p str> {
    let at = prompt.find(&format!("\n{heading}\n"))? + heading.len() + 2;
    let rest = &prompt[at..];
    Some(rest.split("\n\n").next().unwrap_or(rest))
}

/// The stand-in's reply to `prompt`.
pub fn reply(prompt: &str) -> String {
    let role = prompt
        .lines()
        .find_map(|l| l.strip_prefix("ROLE: "))
        .map(|r| r.trim().to_string())
        .unwrap_or_default();
    let checks = outcomes(prompt);
    let failing: Vec<&str> = checks
        .iter()
        .filter(|(_, o)| o != "PASS")
        .map(|(id, _)| id.as_str())
        .collect();
    let body = match role.as_str() {
        "auditor" => checks
            .iter()
            .map(|(id, o)| match o.as_str() {
                "PASS" => format!("{id}: met (its check passed)"),
                "FAIL" | "UNSTABLE" => format!("{id}: not met (its check's outcome is {o})"),
                _ => format!("{id}: unverifiable (its check's outcome is {o})"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        "advocate" => format!(
            "BRIEF (advocate): {} of {} checks passed.",
            checks.len() - failing.len(),
            checks.len()
        ),
        "critic" if failing.is_empty() => {
            "BRIEF (critic): every check passed; a stand-in reads nothing else.".to_string()
        }
        "critic" => format!("BRIEF (critic): not passing: {}.", failing.join(", ")),
        "judge" => judgment(&checks, &failing),
        "designer" => {
            let request = section(prompt, "REQUEST")
                .and_then(|r| {
                    r.lines()
                        .find(|l| !l.trim().is_empty() && !l.starts_with("<<<"))
                })
                .unwrap_or("the request")
                .trim();
            json!({
                "title": request,
                "functional": [format!("It does what was asked: {request}")],
                "non_functional": [],
                "constraints": [],
                "examples": [],
            })
            .to_string()
        }
        "strategist" => json!([{
            "id": "AC-1",
            "description": "The project's own tests pass",
            "verify_command": "true",
        }])
        .to_string(),
        // A live spec's judge check: a stand-in judges no rubric.
        _ => "The stand-in judges no rubric: configure a model (llm.command) for judge checks."
            .to_string(),
    };
    if matches!(role.as_str(), "designer" | "strategist") {
        // In a fence: the mark's brackets are not where the JSON value is looked for.
        return format!("{MARK}\n```json\n{body}\n```\n");
    }
    format!("{MARK}\n{body}\n")
}

/// The judge's reply: PASS when every check passed, else FAIL naming the rest.
fn judgment(checks: &[(String, String)], failing: &[&str]) -> String {
    let (verdict, reasons) = if checks.is_empty() {
        (
            "NEEDS_HUMAN",
            vec!["there is no check to go by".to_string()],
        )
    } else if failing.is_empty() {
        (
            "PASS",
            vec![format!(
                "{} passed",
                crate::text::words::plural(checks.len(), "check")
            )],
        )
    } else {
        (
            "FAIL",
            failing
                .iter()
                .map(|id| format!("{id} did not pass"))
                .collect(),
        )
    };
    format!(
        "The stand-in restates the checks.\n{}",
        json!({
            "verdict": verdict,
            "confidence": 0.9,
            "reasons": reasons,
            "question": if verdict == "NEEDS_HUMAN" { "Which checks decide this work?" } else { "" },
        })
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_each_role_from_the_checks() {
        let prompt = "ROLE: judge\n\nCRITERION ac-1\n<<<DATA t\n15 is FizzBuzz\ncheck (cmd): x\noutcome: FAIL (exit 1)\nDATA t>>>\nCRITERION ac-2\n<<<DATA t\nd\ncheck (cmd): y\noutcome: PASS\nDATA t>>>\n";
        let judge = reply(prompt);
        assert!(judge.starts_with(MARK));
        assert!(judge.contains("\"verdict\":\"FAIL\""), "{judge}");
        assert!(judge.contains("ac-1 did not pass"), "{judge}");
        let audit = reply(&prompt.replace("ROLE: judge", "ROLE: auditor"));
        assert!(
            audit.contains("ac-1: not met") && audit.contains("ac-2: met"),
            "{audit}"
        );
        let passing = prompt.replace("outcome: FAIL (exit 1)", "outcome: PASS");
        assert!(reply(&passing).contains("\"verdict\":\"PASS\""));
    }

    #[test]
    fn the_designer_and_strategist_replies_parse_as_their_roles_are_read() {
        let design = reply("ROLE: designer\n\nREQUEST\n<<<DATA t\nfizzbuzz\nDATA t>>>\n");
        assert!(design.starts_with(MARK));
        let req = crate::planning::design::parse_reply(&design).expect("the designer's reply");
        assert_eq!(req.title.as_deref(), Some("fizzbuzz"));
        let criteria = reply("ROLE: strategist\n");
        assert!(criteria.starts_with(MARK));
        crate::planning::strategy::parse_reply(&criteria, 1).expect("the strategist's reply");
    }
}
