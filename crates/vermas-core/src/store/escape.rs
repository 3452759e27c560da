//! Escaping for the line-per-record index files: one record per line, fields separated by
//! tabs, so tabs, newlines and backslashes inside values are escaped.

use std::borrow::Cow;

/// Separates items of a list field.
pub(crate) const ITEM: char = '\u{1f}';
/// Separates the parts of one item.
pub(crate) const PART: char = '\u{1e}';

/// Escapes the characters the format uses as separators.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    esc_into(&mut out, s);
    out
}

/// Appends `s` to `out` escaped as [`esc`] does, without a copy in between.
pub(crate) fn esc_into(out: &mut String, s: &str) {
    if !s.contains(['\\', '\t', '\n', '\r', ITEM, PART]) {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            ITEM => out.push_str("\\i"),
            PART => out.push_str("\\p"),
            c => out.push(c),
        }
    }
}

/// Appends an optional string field as [`esc_opt`] writes it.
pub(crate) fn esc_opt_into(out: &mut String, v: Option<&str>) {
    if let Some(s) = v {
        out.push('+');
        esc_into(out, s);
    }
}

/// Undoes [`esc`].
pub(crate) fn unesc(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('i') => out.push(ITEM),
            Some('p') => out.push(PART),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Undoes [`esc`], borrowing `s` when it holds no escape (the usual case).
pub(crate) fn unesc_cow(s: &str) -> Cow<'_, str> {
    if s.contains('\\') {
        Cow::Owned(unesc(s))
    } else {
        Cow::Borrowed(s)
    }
}

/// An optional string field: empty for none, `+` and the escaped text for some.
#[cfg(test)]
pub(crate) fn esc_opt(v: Option<&str>) -> String {
    v.map_or(String::new(), |s| format!("+{}", esc(s)))
}

/// Undoes [`esc_opt`].
pub(crate) fn unesc_opt(s: &str) -> Option<String> {
    s.strip_prefix('+').map(unesc)
}

/// A list field: escaped items joined by [`ITEM`].
#[cfg(test)]
pub(crate) fn esc_list<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| esc(s.as_ref())).collect();
    parts.join(&ITEM.to_string())
}

/// Undoes [`esc_list`].
pub(crate) fn unesc_list(s: &str) -> Vec<String> {
    if s.is_empty() {
        Vec::new()
    } else {
        s.split(ITEM).map(unesc).collect()
    }
}

/// An enum from its serde spelling (`None` when it is not one).
pub(crate) fn choice<T: for<'de> serde::Deserialize<'de>>(s: &str) -> Option<T> {
    use serde::de::IntoDeserializer;
    let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> = s.into_deserializer();
    T::deserialize(de).ok()
}
