//! The one place YAML is read and written, so the YAML crate stays swappable.
//!
//! Reading goes through serde-saphyr (strict: duplicate keys are refused). Writing is done
//! by hand with [`scalar`] so every record keeps one stable, diff-friendly layout.

use crate::error::ParseError;
use serde::de::DeserializeOwned;

/// Parses `text` (which starts at one-based line `first_line` of `file`) into `T`.
///
/// `whole` is the complete file, used for the error snippet.
pub fn parse<T: DeserializeOwned>(
    text: &str,
    file: &str,
    whole: &str,
    first_line: usize,
) -> Result<T, Box<ParseError>> {
    serde_saphyr::from_str::<T>(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line() as usize, l.column() as usize))
            .unwrap_or((1, 1));
        Box::new(ParseError::at(
            file,
            whole,
            line + first_line - 1,
            column,
            plain_message(&e),
        ))
    })
}

/// A value read together with where it was in the file (for `file:line` reports).
pub type Spanned<T> = serde_saphyr::Spanned<T>;

/// One-based line a [`Spanned`] value was read from (0 when unknown).
pub fn spanned_line<T>(value: &Spanned<T>) -> usize {
    value.referenced.line() as usize
}

/// Serialises `value` as a YAML document in its fields' declared order.
pub fn to_string<T: serde::Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| e.to_string())
}

/// A `deserialize_with` for lists that may be written `null` or left empty: both read
/// as an empty list.
pub fn null_as_empty<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    use serde::Deserialize;
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// The message of a serde-saphyr error without its location suffix or snippet.
fn plain_message(e: &serde_saphyr::Error) -> String {
    let text = e.without_snippet().to_string();
    let first = text.lines().next().unwrap_or("invalid YAML").trim();
    // serde-saphyr appends " at line X, column Y"; the diagnostic shows the position itself.
    match first.rfind(" at line ") {
        Some(i) => first[..i].to_string(),
        None => first.to_string(),
    }
}

/// Renders a string as a YAML scalar: plain when that reads back as the same string,
/// double-quoted (JSON escapes, which YAML accepts) otherwise. Safe inside flow mappings.
pub fn scalar(value: &str) -> String {
    if is_plain_safe(value) {
        value.to_string()
    } else {
        serde_json::to_string(value).unwrap_or_else(|_| "\"\"".to_string())
    }
}

/// Renders an optional string: `null` when absent.
pub fn opt_scalar(value: Option<&str>) -> String {
    value.map_or_else(|| "null".to_string(), scalar)
}

/// Renders a list of strings as a flow sequence: `[a, b]`.
pub fn flow_list<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| scalar(s.as_ref())).collect();
    format!("[{}]", parts.join(", "))
}

/// True when `s` can be written unquoted and still reads back as this exact string (so a
/// plain scalar passing it reads as itself, in block and flow context alike).
pub fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s || s.len() > 200 {
        return false;
    }
    const RESERVED: &[&str] = &[
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".inf", "-.inf", "+.inf",
        ".nan",
    ];
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(s)) || looks_numeric(s) {
        return false;
    }
    if !(first.is_ascii_alphanumeric() || matches!(first, '_' | '.' | '/' | '(')) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    s.chars().all(|c| {
        c.is_alphanumeric()
            || matches!(
                c,
                ' ' | '_' | '-' | '.' | '/' | ':' | '@' | '+' | '(' | ')' | '=' | '\'' | '?' | '!'
            )
    })
}

/// True when YAML would read `s` as a number or a date rather than a string.
fn looks_numeric(s: &str) -> bool {
    let t = s.trim_start_matches(['+', '-']);
    let starts_digit = t
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '.');
    starts_digit
        && t.chars().all(|c| {
            c.is_ascii_hexdigit()
                || matches!(c, '.' | '_' | 'x' | 'o' | 'e' | 'E' | '+' | '-' | ':')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct One {
        v: String,
    }

    fn round_trip(s: &str) -> String {
        let text = format!("v: {}\n", scalar(s));
        serde_saphyr::from_str::<One>(&text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .v
    }

    #[test]
    fn scalars_read_back_unchanged() {
        for s in [
            "Notifications appear within 2s",
            "yes",
            "No",
            "null",
            "42",
            "1e5",
            "0x1F",
            "2026-11-22",
            "a: b",
            "# hash",
            "- dash",
            "  padded ",
            "quote \" and \\ back",
            "multi\nline",
            "ünïcode ✓",
            "",
            "[x]",
            "{a}",
            "a, b",
            "it's",
            "Question: why?",
            "@group",
            "*alias",
            "&anchor",
            "!tag",
            "%dir",
            "|",
            ">",
            "`tick`",
        ] {
            assert_eq!(round_trip(s), s, "{s:?}");
        }
        assert_eq!(scalar("vm-k3f9"), "vm-k3f9");
        assert_eq!(scalar("yes"), "\"yes\"");
    }

    #[test]
    fn errors_carry_shifted_lines() {
        let whole = "---\nid: x\nid: y\n---\n";
        let err = parse::<One>("id: x\nid: y\n", "f.md", whole, 2).unwrap_err();
        assert_eq!(err.file, "f.md");
        assert!(err.line >= 2, "{err:?}");
    }
}
