//! Reading a verdict out of an LLM's reply: one grammar for a live spec's `[judge]` check
//! and for the Inspector's judge.
//!
//! The rule, read from the bottom: a JSON object with a `verdict` (or a boolean `pass`)
//! decides when it is the whole reply, the reply's final fenced code block (plain or
//! `json`), or the reply's final non-empty line; JSON anywhere else is prose. Otherwise
//! lines that are a verdict word alone (`PASS`, `FAIL`, `NEEDS_HUMAN`; markdown emphasis
//! and a `Verdict:` label allowed) decide. Verdict lines that disagree with each other or
//! with the JSON verdict are an error, as is no verdict at all.

use serde_json::{Map, Value};

/// What a live `[judge]` check's reply said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The criterion holds; with the reasoning.
    Pass(String),
    /// It does not; with the reasoning.
    Fail(String),
}

/// A verdict word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word {
    /// It holds.
    Pass,
    /// It does not.
    Fail,
    /// A person must decide.
    NeedsHuman,
}

impl Word {
    /// `PASS`, `FAIL` or `NEEDS_HUMAN`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Word::Pass => "PASS",
            Word::Fail => "FAIL",
            Word::NeedsHuman => "NEEDS_HUMAN",
        }
    }
}

/// What a reply said, by the rule above.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reading {
    /// The verdict.
    pub word: Word,
    /// The reasoning: the JSON's `reasoning`/`reason`/`explanation`, else the prose.
    pub reasoning: String,
    /// The JSON object that carried the verdict, if one did (its other fields: confidence,
    /// reasons, question).
    pub json: Option<Map<String, Value>>,
}

/// A live `[judge]` check's verdict: PASS or FAIL (a NEEDS_HUMAN is an error there).
pub(crate) fn parse(reply: &str) -> Result<Verdict, String> {
    let r = read(reply)?;
    match r.word {
        Word::Pass => Ok(Verdict::Pass(r.reasoning)),
        Word::Fail => Ok(Verdict::Fail(r.reasoning)),
        Word::NeedsHuman => Err(format!(
            "the judge answered NEEDS_HUMAN, which a [judge] check cannot settle: {}",
            tail(&r.reasoning, 300)
        )),
    }
}

/// Reads the verdict out of `reply` by the rule above.
pub(crate) fn read(reply: &str) -> Result<Reading, String> {
    if reply.trim().is_empty() {
        return Err("the LLM replied with nothing".into());
    }
    if let Ok(Value::Object(obj)) = serde_json::from_str(reply.trim())
        && let Some(word) = json_word(&obj)
    {
        return Ok(Reading {
            word,
            reasoning: json_reasoning(&obj),
            json: Some(obj),
        });
    }
    let lines: Vec<&str> = reply.lines().collect();
    let (json, skip) = final_json(&lines);
    let outside = |i: usize| skip.is_none_or(|b| i < b.0 || i > b.1);
    let prose: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| outside(*i))
        .map(|(_, l)| *l)
        .collect();
    let said = line_verdict(&prose, reply)?;
    let reasoning = || {
        prose
            .iter()
            .filter(|l| verdict_word(l).is_none() && !l.trim().is_empty())
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match (json, said) {
        (Some((word, _)), Some(line)) if word != line => Err(format!(
            "the reply contradicts itself: its final JSON says {} but its verdict line says \
             {}; it ended: {}",
            word.as_str(),
            line.as_str(),
            tail(reply, 300)
        )),
        (Some((word, obj)), _) => {
            let from_json = json_reasoning(&obj);
            Ok(Reading {
                word,
                reasoning: if from_json.is_empty() {
                    reasoning()
                } else {
                    from_json
                },
                json: Some(obj),
            })
        }
        (None, Some(word)) => Ok(Reading {
            word,
            reasoning: reasoning(),
            json: None,
        }),
        (None, None) => Err(format!(
            "no verdict (PASS, FAIL or NEEDS_HUMAN) in the reply; it ended: {}",
            tail(reply, 300)
        )),
    }
}

/// A JSON verdict and the object that carries it.
type JsonVerdict = (Word, Map<String, Value>);

/// The JSON verdict the final fenced block, else the final non-empty line, carries, with
/// the lines it spans.
fn final_json(lines: &[&str]) -> (Option<JsonVerdict>, Option<(usize, usize)>) {
    if let Some(block) = final_fence(lines)
        && let Some(found) = fenced_json(lines, block)
    {
        return (Some(found), Some(block));
    }
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    if let Some(i) = last
        && let Ok(Value::Object(obj)) = serde_json::from_str(lines[i].trim())
        && let Some(word) = json_word(&obj)
    {
        return (Some((word, obj)), Some((i, i)));
    }
    (None, None)
}

/// The verdict the verdict lines among `lines` agree on (`None`: there are none); lines
/// that disagree are an error.
fn line_verdict(lines: &[&str], reply: &str) -> Result<Option<Word>, String> {
    let mut found = lines.iter().filter_map(|l| verdict_word(l));
    let Some(first) = found.next() else {
        return Ok(None);
    };
    if let Some(other) = found.find(|w| *w != first) {
        return Err(format!(
            "the reply contradicts itself (both {} and {} lines); it ended: {}",
            first.as_str(),
            other.as_str(),
            tail(reply, 300)
        ));
    }
    Ok(Some(first))
}

/// The verdict word a line is, alone (emphasis and a `Verdict:` label allowed).
fn verdict_word(line: &str) -> Option<Word> {
    let t = line
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '#' | '`' | '>' | ' ' | '.' | '!'));
    let t = t
        .strip_prefix("Verdict:")
        .or_else(|| t.strip_prefix("VERDICT:"))
        .or_else(|| t.strip_prefix("verdict:"))
        .map_or(t, str::trim)
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`' | ' '));
    word_of(t)
}

/// `PASS`/`PASSED`, `FAIL`/`FAILED` or `NEEDS_HUMAN` (also with `-`), exactly.
fn word_of(t: &str) -> Option<Word> {
    match t {
        "PASS" | "PASSED" => Some(Word::Pass),
        "FAIL" | "FAILED" => Some(Word::Fail),
        "NEEDS_HUMAN" | "NEEDS-HUMAN" => Some(Word::NeedsHuman),
        _ => None,
    }
}

/// The first and last line (the fences) of the reply's last closed fenced code block.
fn final_fence(lines: &[&str]) -> Option<(usize, usize)> {
    let mut open: Option<(usize, usize)> = None;
    let mut last = None;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        let ticks = t.chars().take_while(|c| *c == '`').count();
        match open {
            None if ticks >= 3 => open = Some((i, ticks)),
            Some((start, need)) if ticks >= need && ticks == t.len() => {
                last = Some((start, i));
                open = None;
            }
            _ => {}
        }
    }
    last
}

/// The verdict and object of the fenced block `block` when it is tagged `json` (or not at
/// all) and holds a JSON verdict object.
fn fenced_json(lines: &[&str], (start, end): (usize, usize)) -> Option<JsonVerdict> {
    let info = lines[start].trim().trim_start_matches('`').trim();
    if !(info.is_empty() || info.eq_ignore_ascii_case("json")) {
        return None;
    }
    let body = lines[start + 1..end].join("\n");
    match serde_json::from_str(body.trim()) {
        Ok(Value::Object(obj)) => json_word(&obj).map(|w| (w, obj)),
        _ => None,
    }
}

/// The verdict of a JSON verdict object (`verdict` in any case, or a boolean `pass`).
fn json_word(obj: &Map<String, Value>) -> Option<Word> {
    match (obj.get("verdict"), obj.get("pass")) {
        (Some(Value::String(s)), _) => word_of(&s.trim().to_ascii_uppercase()),
        (_, Some(Value::Bool(true))) => Some(Word::Pass),
        (_, Some(Value::Bool(false))) => Some(Word::Fail),
        _ => None,
    }
}

/// The reasoning a JSON verdict object gives (`reasoning`, `reason` or `explanation`).
fn json_reasoning(obj: &Map<String, Value>) -> String {
    ["reasoning", "reason", "explanation"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(|v| v.as_str()))
        .unwrap_or_default()
        .to_string()
}

/// The last `max` characters of `text`, on one line.
pub(crate) fn tail(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = flat.chars().count();
    if n <= max {
        flat
    } else {
        format!("...{}", flat.chars().skip(n - max).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_json() {
        assert_eq!(
            parse("Looks good.\nPASS\n").unwrap(),
            Verdict::Pass("Looks good.".into())
        );
        assert_eq!(
            parse("**FAIL**\nMissing the percentage.").unwrap(),
            Verdict::Fail("Missing the percentage.".into())
        );
        assert_eq!(
            parse("Verdict: PASS").unwrap(),
            Verdict::Pass(String::new())
        );
        assert_eq!(
            parse("```json\n{\"verdict\": \"FAIL\", \"reasoning\": \"no tests\"}\n```").unwrap(),
            Verdict::Fail("no tests".into())
        );
        assert_eq!(
            parse("{\"pass\": true}").unwrap(),
            Verdict::Pass(String::new())
        );
    }

    #[test]
    fn refuses_garbage_and_contradictions() {
        assert!(parse("").is_err());
        assert!(
            parse("I think it is mostly fine")
                .unwrap_err()
                .contains("no verdict")
        );
        assert!(
            parse("PASS\nactually\nFAIL")
                .unwrap_err()
                .contains("contradicts")
        );
        assert!(parse("The word PASS inside a sentence").is_err());
    }

    #[test]
    fn json_quoted_in_prose_is_not_the_verdict() {
        // The verdict line says FAIL; the JSON is an example or the judged file's content.
        assert_eq!(
            parse("FAIL\nA passing answer would be {\"verdict\": \"PASS\"}.").unwrap(),
            Verdict::Fail("A passing answer would be {\"verdict\": \"PASS\"}.".into())
        );
        assert!(matches!(
            parse("Verdict: FAIL\nThe file holds {\"pass\": true}, which is data.\n").unwrap(),
            Verdict::Fail(_)
        ));
        // JSON in a fenced block that is not the last one is prose too.
        assert!(matches!(
            parse("```json\n{\"verdict\": \"PASS\"}\n```\nFAIL\n```\nno banner\n```").unwrap(),
            Verdict::Fail(_)
        ));
        // Prose with JSON but no verdict line has no verdict at all.
        assert!(
            parse("Answer like {\"verdict\": \"PASS\"} when it holds.")
                .unwrap_err()
                .contains("no verdict")
        );
    }

    #[test]
    fn the_final_fenced_json_block_counts_and_must_agree() {
        assert_eq!(
            parse("The banner is there.\n```\n{\"verdict\": \"PASS\"}\n```\n").unwrap(),
            Verdict::Pass("The banner is there.".into())
        );
        assert_eq!(
            parse("FAIL\n```json\n{\"verdict\": \"FAIL\", \"reason\": \"none\"}\n```").unwrap(),
            Verdict::Fail("none".into())
        );
        let e = parse("FAIL\nNo banner.\n```json\n{\"verdict\": \"PASS\"}\n```").unwrap_err();
        assert!(e.contains("contradicts") && e.contains("says PASS"), "{e}");
        assert!(
            parse("```json\n{\"pass\": false}\n```\n**PASS**")
                .unwrap_err()
                .contains("contradicts")
        );
        // A fenced block in another language is prose: the line decides.
        assert!(matches!(
            parse("PASS\n```yaml\nverdict_x: {\"pass\": false}\n```").unwrap(),
            Verdict::Pass(_)
        ));
    }

    #[test]
    fn the_whole_reply_as_json_counts() {
        assert_eq!(
            parse("  {\"verdict\": \"fail\", \"explanation\": \"x\"}\n").unwrap(),
            Verdict::Fail("x".into())
        );
        assert!(parse("{\"score\": 3}").unwrap_err().contains("no verdict"));
    }

    #[test]
    fn prose_then_a_final_json_line_counts_for_every_judge() {
        let r =
            read("The banner is there.\n{\"verdict\": \"PASS\", \"confidence\": 0.8}\n").unwrap();
        assert_eq!(r.word, Word::Pass);
        assert_eq!(r.reasoning, "The banner is there.");
        assert_eq!(r.json.unwrap()["confidence"], 0.8);
        assert_eq!(
            parse("No banner.\n{\"verdict\": \"FAIL\"}").unwrap(),
            Verdict::Fail("No banner.".into())
        );
        // A PASS line above a final FAIL JSON line is a contradiction, not a PASS.
        assert!(
            read("PASS\n...\n{\"verdict\": \"FAIL\"}")
                .unwrap_err()
                .contains("contradicts")
        );
        assert_eq!(read("NEEDS_HUMAN").unwrap().word, Word::NeedsHuman);
        assert!(parse("NEEDS_HUMAN").is_err());
    }
}
