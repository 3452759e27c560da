//! Reading a verdict out of an LLM's reply.

/// What a reply said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The criterion holds; with the reasoning.
    Pass(String),
    /// It does not; with the reasoning.
    Fail(String),
}

/// Finds the verdict in `reply`: a JSON object with `verdict` or `pass` (fenced or not),
/// else a line that is `PASS` or `FAIL` alone (markdown emphasis and a `Verdict:` label
/// allowed). Lines disagreeing with each other are an error, as is no verdict at all.
pub fn parse(reply: &str) -> Result<Verdict, String> {
    if reply.trim().is_empty() {
        return Err("the LLM replied with nothing".into());
    }
    if let Some(v) = from_json(reply) {
        return Ok(v);
    }
    let lines: Vec<&str> = reply.lines().collect();
    let mut found: Vec<(usize, bool)> = Vec::new();
    for (i, line) in lines.iter().enumerate().rev() {
        match verdict_word(line) {
            Some(pass) => found.push((i, pass)),
            None => continue,
        }
    }
    let Some(&(at, pass)) = found.first() else {
        return Err(format!(
            "no PASS or FAIL line in the reply; it ended: {}",
            tail(reply, 300)
        ));
    };
    if found.iter().any(|(_, p)| *p != pass) {
        return Err(format!(
            "the reply contradicts itself (both PASS and FAIL lines); it ended: {}",
            tail(reply, 300)
        ));
    }
    let reasoning: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, l)| *i != at && verdict_word(l).is_none() && !l.trim().is_empty())
        .map(|(_, l)| l.trim())
        .collect();
    let reasoning = reasoning.join(" ");
    Ok(if pass {
        Verdict::Pass(reasoning)
    } else {
        Verdict::Fail(reasoning)
    })
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

/// A verdict from a JSON object anywhere in the reply (the last one that parses).
fn from_json(reply: &str) -> Option<Verdict> {
    let bytes = reply.as_bytes();
    let mut best = None;
    for (start, _) in reply.match_indices('{') {
        let mut de =
            serde_json::Deserializer::from_slice(&bytes[start..]).into_iter::<serde_json::Value>();
        if let Some(Ok(serde_json::Value::Object(obj))) = de.next() {
            let reasoning = ["reasoning", "reason", "explanation"]
                .iter()
                .find_map(|k| obj.get(*k).and_then(|v| v.as_str()))
                .unwrap_or_default()
                .to_string();
            let pass = match (obj.get("verdict"), obj.get("pass")) {
                (Some(serde_json::Value::String(s)), _) => verdict_word(s),
                (_, Some(serde_json::Value::Bool(b))) => Some(*b),
                _ => None,
            };
            if let Some(p) = pass {
                best = Some(if p {
                    Verdict::Pass(reasoning)
                } else {
                    Verdict::Fail(reasoning)
                });
            }
        }
    }
    best
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
}
