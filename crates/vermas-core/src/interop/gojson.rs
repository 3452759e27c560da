//! JSON written the way bd (Go's `encoding/json`) writes it: on one line, with `<`, `>`,
//! `&`, U+2028 and U+2029 escaped, and object keys in the order of bd's own structs, so a
//! file vermas exports diffs cleanly against one bd wrote.

use serde_json::Value;
// Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
use std::fmt::Write;

/// Keys in the order bd's `Issue`, `Dependency` and `Comment` structs declare them (one list
/// serves all three: their shared keys come in the same relative order). Keys not listed
/// follow, alphabetically.
const KEY_ORDER: &[&str] = &[
    "id",
    "issue_id",
    "depends_on_id",
    "type",
    "title",
    "author",
    "text",
    "description",
    "design",
    "acceptance_criteria",
    "notes",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "owner",
    "estimated_minutes",
    "created_at",
    "created_by",
    "updated_at",
    "started_at",
    "closed_at",
    "close_reason",
    "closed_by_session",
    "due_at",
    "defer_until",
    "external_ref",
    "spec_id",
    "compaction_level",
    "compacted_at",
    "compacted_at_commit",
    "original_size",
    "labels",
    "dependencies",
    "comments",
    "deleted_at",
    "deleted_by",
    "delete_reason",
    "original_type",
    "metadata",
    "thread_id",
];

/// `value` as one line of JSON, without the newline.
pub(super) fn to_line(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Appends `value` to `out`.
fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Each key ranked once (a search of the list), not at every comparison; keys
            // are unique, so an unstable sort gives the one order.
            let mut members: Vec<(usize, &String, &Value)> =
                map.iter().map(|(k, v)| (rank(k), k, v)).collect();
            members.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
            out.push('{');
            for (i, (_, key, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, member);
            }
            out.push('}');
        }
    }
}

/// Where `key` goes among an object's keys.
fn rank(key: &str) -> usize {
    KEY_ORDER
        .iter()
        .position(|k| *k == key)
        .unwrap_or(KEY_ORDER.len())
}

/// Appends `s` as a JSON string with Go's escapes, copying the runs between them whole.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    // Everything before `copied` is written. Each byte looked at is ASCII or the first byte
    // of U+2028 or U+2029, so every cut falls on a character boundary.
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..0x20 | b'<' | b'>' | b'&' => "",
            0xE2 if matches!(bytes.get(i + 1..i + 3), Some([0x80, 0xA8 | 0xA9])) => "",
            _ => continue,
        };
        out.push_str(&s[copied..i]);
        if escape.is_empty() {
            let c = s[i..].chars().next().unwrap_or_default();
            let _ = write!(out, "\\u{:04x}", c as u32);
            copied = i + c.len_utf8();
        } else {
            out.push_str(escape);
            copied = i + 1;
        }
    }
    out.push_str(&s[copied..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_like_go() {
        let v = json!({
            "zeta": 1,
            "title": "a <b> & \"c\"\n\u{1}\u{2028}é",
            "id": "bd-1",
            "dependencies": [{"type": "blocks", "depends_on_id": "bd-2", "issue_id": "bd-1"}],
        });
        assert_eq!(
            to_line(&v),
            r#"{"id":"bd-1","title":"a \u003cb\u003e \u0026 \"c\"\n\u0001\u2028é","dependencies":[{"issue_id":"bd-1","depends_on_id":"bd-2","type":"blocks"}],"zeta":1}"#
        );
        let back: Value = serde_json::from_str(&to_line(&v)).unwrap();
        assert_eq!(back, v);
        // Every escape, and the characters beside U+2028 and U+2029 (written as they are).
        let every = "\"\\\n\r\t\u{0}\u{1f} <>& \u{2028}\u{2029}\u{2027}\u{202a}é✉";
        let escaped = concat!(
            r#""\"\\\n\r\t\u0000\u001f \u003c\u003e\u0026 \u2028\u2029"#,
            "\u{2027}\u{202a}é✉\""
        );
        assert_eq!(to_line(&json!(every)), escaped);
    }
}
