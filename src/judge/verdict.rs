//! Reading a verdict out of an LLM's reply.

/// What a reply said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The criterion holds; with the reasoning.
    Pass(String),
    /// It does not; with the reasoning.
    Fail(String),
}

/// Finds the verdict in `reply`. A JSON object with `verdict` or `pass` counts only when it
/// is the whole reply or the reply's final fenced code block (plain or `json`); JSON
/// anywhere else is prose. Otherwise a line that is `PASS` or `FAIL` alone decides
/// (markdown emphasis and a `Verdict:` label allowed). Verdict lines disagreeing with each
/// other or with the JSON verdict are an error, as is no verdict at all.
pub fn parse(reply: &str) -> Result<Verdict, String> {
    if reply.trim().is_empty() {
        return Err("the LLM replied with nothing".into());
    }
    if let Ok(serde_json::Value::Object(obj)) = serde_json::from_str(reply.trim())
        && let Some((pass, reasoning)) = json_verdict(&obj)
    {
        return Ok(verdict(pass, reasoning));
    }
    let lines: Vec<&str> = reply.lines().collect();
    let (json, block) = match final_fence(&lines) {
        Some(block) => match fenced_json(&lines, block) {
            Some(found) => (Some(found), Some(block)),
            None => (None, None),
        },
        None => (None, None),
    };
    let outside = |i: usize| block.is_none_or(|b| i < b.0 || i > b.1);
    let prose: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| outside(*i))
        .map(|(i, l)| (i, *l))
        .collect();
    let said = line_verdict(&prose, reply)?;
    let reasoning = || {
        prose
            .iter()
            .filter(|(_, l)| verdict_word(l).is_none() && !l.trim().is_empty())
            .map(|(_, l)| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match (json, said) {
        (Some((pass, _)), Some(line_pass)) if pass != line_pass => Err(format!(
            "the reply contradicts itself: its final JSON block says {} but its verdict line \
             says {}; it ended: {}",
            word(pass),
            word(line_pass),
            tail(reply, 300)
        )),
        (Some((pass, from_json)), _) => {
            let why = if from_json.is_empty() {
                reasoning()
            } else {
                from_json
            };
            Ok(verdict(pass, why))
        }
        (None, Some(pass)) => Ok(verdict(pass, reasoning())),
        (None, None) => Err(format!(
            "no PASS or FAIL line in the reply; it ended: {}",
            tail(reply, 300)
        )),
    }
}

/// The verdict of `pass` with `reasoning`.
fn verdict(pass: bool, reasoning: String) -> Verdict {
    if pass {
        Verdict::Pass(reasoning)
    } else {
        Verdict::Fail(reasoning)
    }
}

/// `PASS` or `FAIL`.
fn word(pass: bool) -> &'static str {
    if pass { "PASS" } else { "FAIL" }
}

/// The verdict the PASS/FAIL lines among `lines` agree on (`None`: there are none); lines
/// that disagree are an error.
fn line_verdict(lines: &[(usize, &str)], reply: &str) -> Result<Option<bool>, String> {
    let mut found = lines.iter().filter_map(|(_, l)| verdict_word(l));
    let Some(first) = found.next() else {
        return Ok(None);
    };
    if found.any(|p| p != first) {
        return Err(format!(
            "the reply contradicts itself (both PASS and FAIL lines); it ended: {}",
            tail(reply, 300)
        ));
    }
    Ok(Some(first))
}

/// `Some(true)` for a PASS line, `Some(false)` for FAIL, else `None`.
fn verdict_word(line: &str) -> Option<bool> {
    let t = line
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '#' | '`' | '>' | ' ' | '.' | '!'));
    let t = t
        .strip_prefix("Verdict:")
        .or_else(|| t.strip_prefix("VERDICT:"))
        .or_else(|| t.strip_prefix("verdict:"))
        .map_or(t, str::trim)
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`' | ' '));
    match t {
        "PASS" | "PASSED" => Some(true),
        "FAIL" | "FAILED" => Some(false),
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

/// The verdict and reasoning of the fenced block `block` when it is tagged `json` (or not
/// at all) and holds a JSON verdict object.
fn fenced_json(lines: &[&str], (start, end): (usize, usize)) -> Option<(bool, String)> {
    let info = lines[start].trim().trim_start_matches('`').trim();
    if !(info.is_empty() || info.eq_ignore_ascii_case("json")) {
        return None;
    }
    let body = lines[start + 1..end].join("\n");
    match serde_json::from_str(body.trim()) {
        Ok(serde_json::Value::Object(obj)) => json_verdict(&obj),
        _ => None,
    }
}

/// The pass flag and reasoning of a JSON verdict object (`verdict` or `pass` key).
fn json_verdict(obj: &serde_json::Map<String, serde_json::Value>) -> Option<(bool, String)> {
    let pass = match (obj.get("verdict"), obj.get("pass")) {
        (Some(serde_json::Value::String(s)), _) => verdict_word(&s.to_ascii_uppercase()),
        (_, Some(serde_json::Value::Bool(b))) => Some(*b),
        _ => None,
    }?;
    let reasoning = ["reasoning", "reason", "explanation"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(|v| v.as_str()))
        .unwrap_or_default()
        .to_string();
    Some((pass, reasoning))
}

/// The last `max` characters of `text`, on one line.
pub fn tail(text: &str, max: usize) -> String {
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
                .contains("no PASS")
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
                .contains("no PASS")
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
        assert!(parse("{\"score\": 3}").unwrap_err().contains("no PASS"));
    }
}
