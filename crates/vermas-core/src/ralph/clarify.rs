//! The question an agent asks with ralph's exit signal `RALPH_CLARIFY: <question>`, found
//! in its output (plain text, or Claude's stream JSON whose `result` holds the text), as
//! wrapix's ralph finds it: the first such line, the text after the marker.

/// ralph's clarify exit signal.
pub const MARKER: &str = "RALPH_CLARIFY:";

/// The question of the first `RALPH_CLARIFY:` line of `output`, trimmed (and without the
/// backquotes or asterisks a markdown reply may wrap it in); `None` when there is none or
/// it is empty.
pub fn question_in(output: &str) -> Option<String> {
    output.lines().find_map(|line| match stream_result(line) {
        Some(text) => text.lines().find_map(after_marker),
        None => after_marker(line),
    })
}

/// The `result` text of a stream-JSON line (`{"type":"result","result":"..."}`).
fn stream_result(line: &str) -> Option<String> {
    let trimmed = line.trim();
    if !trimmed.starts_with('{') || !trimmed.contains(MARKER) {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(trimmed).ok()?;
    v.get("result")?.as_str().map(str::to_string)
}

/// The question after the marker on `line`, if the line has one.
fn after_marker(line: &str) -> Option<String> {
    let (_, rest) = line.split_once(MARKER)?;
    let q = rest
        .trim()
        .trim_end_matches(['`', '*'])
        .trim_end()
        .to_string();
    (!q.is_empty()).then_some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_question_in_text_or_stream_json() {
        let text =
            "working...\n- `RALPH_CLARIFY: Should CI use GitHub Actions?`\nRALPH_CLARIFY: later\n";
        assert_eq!(
            question_in(text).as_deref(),
            Some("Should CI use GitHub Actions?")
        );
        let json =
            r#"{"type":"result","result":"Done looking.\nRALPH_CLARIFY:  Which database?\n"}"#;
        assert_eq!(question_in(json).as_deref(), Some("Which database?"));
        assert_eq!(question_in("RALPH_COMPLETE\nRALPH_CLARIFY:   \n"), None);
    }
}
