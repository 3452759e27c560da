//! The Inspector's LLM roles (auditor, advocate, critic, judge, designer, strategist): each
//! role's prompt (a built-in, or `.beads/roles/<role>.md` in its place), its command
//! (`llm.roles.<role>`, else `llm.command`), asking again when a reply does not parse, and
//! reading the auditor's and the judge's answers.

use crate::judge::llm::Llm;
use crate::workspace::Workspace;
use serde::Serialize;

/// One LLM role of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Checks the evidence against each criterion.
    Auditor,
    /// Argues that the work is done.
    Advocate,
    /// Argues that it is not.
    Critic,
    /// Decides, from both briefs and the evidence.
    Judge,
    /// Turns a request into requirements.
    Designer,
    /// Proposes acceptance criteria for work.
    Strategist,
}

impl Role {
    /// The role's name, as in config keys and prompts.
    pub fn name(self) -> &'static str {
        match self {
            Role::Auditor => "auditor",
            Role::Advocate => "advocate",
            Role::Critic => "critic",
            Role::Judge => "judge",
            Role::Designer => "designer",
            Role::Strategist => "strategist",
        }
    }

    /// What the role is asked to do, when `.beads/roles/<role>.md` does not say it.
    fn built_in(self) -> &'static str {
        match self {
            Role::Auditor => {
                "You are the auditor of an independent verification. For each criterion \
                 (lines `CRITERION <id>` below), decide from the evidence and the diff \
                 whether it is met. Answer one line per criterion: `<id>: met`, `<id>: not \
                 met` or `<id>: unverifiable`, each followed by a short reason."
            }
            Role::Advocate => {
                "You are the advocate. Argue, from the evidence only, that the work meets \
                 its criteria. Write a short brief; name the evidence you rely on."
            }
            Role::Critic => {
                "You are the critic. Argue, from the evidence only, that the work does not \
                 meet its criteria: missing cases, weak tests, claims without evidence. \
                 Write a short brief; name the evidence you rely on."
            }
            Role::Judge => {
                "You are the judge. Read the evidence and both briefs and decide. End your \
                 reply with one line of JSON: {\"verdict\": \"PASS|FAIL|NEEDS_HUMAN\", \
                 \"confidence\": 0.0-1.0, \"reasons\": [\"...\"], \"question\": \"...\"} \
                 (a question only with NEEDS_HUMAN)."
            }
            Role::Designer => {
                "You are the designer. Turn a short, vague request into requirements a \
                 developer could implement without asking questions: what it must do, how \
                 well (speed, quality, style), what it must not do, and concrete examples \
                 of input and output. Be specific; do not invent features nobody asked for."
            }
            Role::Strategist => {
                "You are the strategist. Design the acceptance criteria that will decide \
                 whether the work is done: one criterion per key behaviour, each checked by \
                 a shell command that exits 0 when it holds, a test, or (only for what a \
                 command cannot decide) an LLM rubric. Cover correctness and edge cases; do \
                 not over-test."
            }
        }
    }
}

/// The prompt for `role` over `evidence` (the work, the criteria, what ran, the diff).
pub fn prompt(ws: &Workspace, role: Role, evidence: &str) -> String {
    let own = crate::roles::path(ws, role.name());
    let context = ws
        .contain(&own)
        .ok()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_else(|| role.built_in().to_string());
    format!("ROLE: {}\n\n{}\n\n{evidence}", role.name(), context.trim())
}

/// The LLM command `role` uses, with the workspace's timeout and reply cache.
pub fn llm(ws: &Workspace, role: Role, use_cache: bool) -> Llm {
    let c = &ws.config;
    Llm {
        command: c.llm_command(role.name()).to_string(),
        timeout: c.llm.timeout.get(),
        cache_dir: Some(ws.cache_dir()),
        use_cache,
    }
}

/// Why a reply was asked for again: the sentence the next prompt carries (the stand-in and
/// people reading a prompt log look for it).
pub const RETRY_HEADING: &str = "YOUR PREVIOUS REPLY COULD NOT BE USED";

/// A reply of `role` to `task` that `parse` accepts: the first one, else up to
/// `llm.retries` new asks, each prompt quoting why the reply before could not be used. A
/// command that fails is not asked again. Replies are never cached: asking again is meant
/// to give a new answer.
pub fn ask_checked<T>(
    ws: &Workspace,
    role: Role,
    task: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> crate::error::Result<T> {
    let first = prompt(ws, role, task);
    let mut llm = llm(ws, role, false);
    llm.cache_dir = None;
    let asks = ws.config.llm.retries.saturating_add(1);
    let mut current = first.clone();
    let mut why = String::new();
    for _ in 0..asks {
        let reply = llm
            .call(&ws.root, &current)
            .map_err(|e| crate::error::Error::Llm {
                message: format!("the {} could not be asked: {e}", role.name()),
                help: format!(
                    "nothing was written; check llm.roles.{} (else llm.command) in .beads/vermas.yaml",
                    role.name()
                ),
            })?;
        match parse(&reply) {
            Ok(v) => return Ok(v),
            Err(e) => why = e,
        }
        current = format!(
            "{first}\n\n{RETRY_HEADING}: {why}\nIt was: {}\n\nAnswer again, exactly in the format asked for above.",
            crate::judge::verdict::tail(&reply, 1000)
        );
    }
    Err(crate::error::Error::Llm {
        message: format!(
            "the {}'s reply could not be used ({}): {why}",
            role.name(),
            crate::text::words::counted(asks as usize, "ask", "asks")
        ),
        help: "nothing was written; run it again, or raise llm.retries for more asks".into(),
    })
}

pub use crate::verify::results::Verdict;

/// The judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgment {
    /// Its decision.
    pub decision: Verdict,
    /// How sure it is, 0 to 1, when it said (a PASS needs it).
    pub confidence: Option<f64>,
    /// Why.
    pub reasons: Vec<String>,
    /// What a person must answer, with NEEDS_HUMAN.
    pub question: Option<String>,
}

/// Reads the judge's reply by the one reply grammar ([`crate::judge::verdict::read`]):
/// the verdict, and from its JSON the confidence, reasons and question. No verdict, or a
/// confidence that is not a number from 0 to 1, is an error.
pub fn parse_judgment(reply: &str) -> Result<Judgment, String> {
    use crate::judge::verdict::{self, Word};
    let r = verdict::read(reply).map_err(|e| format!("the judge gave no usable verdict: {e}"))?;
    let decision = match r.word {
        Word::Pass => Verdict::Pass,
        Word::Fail => Verdict::Fail,
        Word::NeedsHuman => Verdict::NeedsHuman,
    };
    let obj = r.json.unwrap_or_default();
    let confidence = match obj.get("confidence") {
        None | Some(serde_json::Value::Null) => None,
        Some(c) => Some(
            c.as_f64()
                .filter(|c| (0.0..=1.0).contains(c))
                .ok_or_else(|| format!("the judge's confidence {c} is not a number from 0 to 1"))?,
        ),
    };
    let mut reasons: Vec<String> = obj
        .get("reasons")
        .and_then(|r| r.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|r| r.as_str().map(str::trim))
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if reasons.is_empty() && !r.reasoning.trim().is_empty() {
        reasons.push(r.reasoning.trim().to_string());
    }
    let question = obj
        .get("question")
        .and_then(|q| q.as_str())
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string);
    Ok(Judgment {
        decision,
        confidence,
        reasons,
        question,
    })
}

/// How the auditor found one criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Finding {
    /// The evidence shows it holds.
    Met,
    /// The evidence shows it does not.
    NotMet,
    /// The evidence cannot tell.
    Unverifiable,
}

impl Finding {
    /// `met`, `not met` or `unverifiable`.
    pub fn as_str(self) -> &'static str {
        match self {
            Finding::Met => "met",
            Finding::NotMet => "not met",
            Finding::Unverifiable => "unverifiable",
        }
    }
}

/// Reads the auditor's `<id>: met|not met|unverifiable` lines for the criteria `ids`; a
/// criterion it did not answer is unverifiable.
pub fn parse_audit(reply: &str, ids: &[String]) -> Vec<(String, Finding, String)> {
    ids.iter()
        .map(|id| {
            let line = reply.lines().map(str::trim).find_map(|l| {
                let l = l.trim_start_matches(['-', '*', ' ']);
                l.strip_prefix(id.as_str())
                    .and_then(|rest| rest.strip_prefix(':'))
                    .map(str::trim)
            });
            match line {
                Some(rest) => {
                    let lower = rest.to_ascii_lowercase();
                    let (finding, word) = if lower.starts_with("not met") {
                        (Finding::NotMet, "not met".len())
                    } else if lower.starts_with("met") {
                        (Finding::Met, "met".len())
                    } else if lower.starts_with("unverifiable") {
                        (Finding::Unverifiable, "unverifiable".len())
                    } else {
                        (Finding::Unverifiable, 0)
                    };
                    (id.clone(), finding, reason(&rest[word..]))
                }
                None => (
                    id.clone(),
                    Finding::Unverifiable,
                    "the auditor did not answer for it".to_string(),
                ),
            }
        })
        .collect()
}

/// The auditor's reason after its finding word: `(the evidence shows it)`, `: it does`
/// or `, tests pass` as the bare text, without the punctuation that joined it.
fn reason(after: &str) -> String {
    let t = after
        .trim()
        .trim_start_matches([':', ',', '-', '.', ';'])
        .trim();
    let t = t
        .strip_prefix('(')
        .and_then(|inner| inner.strip_suffix(')'))
        .filter(|inner| !inner.contains(['(', ')']))
        .unwrap_or(t);
    t.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_judges_json_line_or_a_verdict_word() {
        let j = parse_judgment(
            "Both briefs agree.\n{\"verdict\": \"NEEDS_HUMAN\", \"confidence\": 0.4, \"reasons\": [\"unclear\"], \"question\": \"Which CI?\"}",
        )
        .unwrap();
        assert_eq!(j.decision, Verdict::NeedsHuman);
        assert_eq!(j.question.as_deref(), Some("Which CI?"));
        assert_eq!(
            parse_judgment("ok\n**PASS**\n").unwrap().decision,
            Verdict::Pass
        );
        assert!(parse_judgment("I think it is fine").is_err());
        assert!(parse_judgment("{\"verdict\": \"MAYBE\"}").is_err());
        assert!(parse_judgment("{\"verdict\": \"PASS\", \"confidence\": 7}").is_err());
        // No confidence stated: none, never 1.
        let j = parse_judgment("{\"verdict\":\"PASS\",\"reasons\":[\"x\"]}").unwrap();
        assert_eq!(j.confidence, None);
    }

    #[test]
    fn reads_audit_lines_and_marks_the_unanswered() {
        let ids = vec!["ac-1".to_string(), "ac-2".to_string(), "ac-3".to_string()];
        let a = parse_audit(
            "ac-1: met, tests pass\n- ac-2: not met: 15 prints Fizz\n",
            &ids,
        );
        assert_eq!(a[0].1, Finding::Met);
        assert_eq!(a[1].1, Finding::NotMet);
        assert_eq!(a[2].1, Finding::Unverifiable);
        // The reason is kept without the finding word it followed.
        assert_eq!(a[0].2, "tests pass");
        assert_eq!(a[1].2, "15 prints Fizz");
        let a = parse_audit("ac-1: met (the evidence shows it)\n", &ids[..1]);
        assert_eq!(a[0].2, "the evidence shows it");
    }
}
