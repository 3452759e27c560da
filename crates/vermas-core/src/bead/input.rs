//! What a person may type for a bead's fields: the spellings of statuses, types and
//! dependency types, and the checks on priorities, titles, one-line values and spec paths.

use crate::error::Result;
use serde::Deserialize;

/// Parses an enum from the spelling serde uses, listing the valid ones on failure.
pub(crate) fn parse_choice<T: for<'de> Deserialize<'de>>(
    what: &str,
    text: &str,
    valid: &[&str],
) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).map_err(|_| {
        crate::error::Error::invalid_with_help(
            format!("unknown {what} '{text}'"),
            format!("valid values: {}", valid.join(", ")),
        )
    })
}

/// Every status spelling.
pub const STATUSES: &[&str] = &[
    "open",
    "in_progress",
    "blocked",
    "deferred",
    "hooked",
    "closed",
    "rejected",
    "pinned",
];
/// Every issue type spelling.
pub const TYPES: &[&str] = &[
    "task",
    "feature",
    "bug",
    "epic",
    "chore",
    "test-spec",
    "verification-result",
    "message",
    "molecule",
    "gate",
];
/// Every dependency type spelling.
pub const DEP_TYPES: &[&str] = &[
    "blocks",
    "parent-child",
    "related",
    "discovered-from",
    "conditional-blocks",
    "waits-for",
    "replies-to",
    "relates-to",
    "duplicates",
    "supersedes",
    "authored-by",
    "assigned-to",
    "approved-by",
    "attests",
    "tracks",
    "until",
    "caused-by",
    "validates",
    "delegated-from",
];

/// Parses a priority given as `0`-`4` or `P0`-`P4`.
pub fn parse_priority(text: &str) -> Result<u8> {
    let digits = text.strip_prefix(['P', 'p']).unwrap_or(text);
    match digits.parse::<u8>() {
        Ok(p) if p <= 4 => Ok(p),
        _ => Err(crate::error::Error::invalid_with_help(
            format!("unknown priority '{text}'"),
            "use 0 (critical) to 4, or P0 to P4",
        )),
    }
}

/// Longest title bd accepts, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 500;

/// Checks a title given on the command line: not empty, one line, at most
/// [`MAX_TITLE_CHARS`] characters.
pub(crate) fn check_title(title: &str) -> Result<()> {
    let help = "put the details in the description (-d TEXT or --body-file FILE)";
    if title.trim().is_empty() {
        return Err(crate::error::Error::Invalid("the title is empty".into()));
    }
    check_single_line("title", title)
        .map_err(|m| crate::error::Error::invalid_with_help(m, help))?;
    let n = title.trim().chars().count();
    if n > MAX_TITLE_CHARS {
        return Err(crate::error::Error::invalid_with_help(
            format!("the title is {n} characters long; the limit is {MAX_TITLE_CHARS}"),
            help,
        ));
    }
    Ok(())
}

/// Checks that `value` (the `what` of a record, e.g. `actor`) is one line without control
/// characters, as everything that reaches a commit subject or trailer must be.
pub fn check_single_line(what: &str, value: &str) -> std::result::Result<(), String> {
    let Some(bad) = value.chars().find(|c| c.is_control()) else {
        return Ok(());
    };
    let which = match bad {
        '\n' => "a newline".to_string(),
        '\r' => "a carriage return".to_string(),
        c => format!("a control character (U+{:04X})", c as u32),
    };
    let shown: String = value.chars().take(80).collect();
    let more = if value.chars().count() > 80 {
        "..."
    } else {
        ""
    };
    Err(format!(
        "the {what} must be a single line without control characters, but it contains \
         {which}: {shown:?}{more}"
    ))
}

/// Checks a bead's `spec:` link: a relative path that stays inside the repository.
pub(crate) fn check_spec_path(spec: &str) -> Result<()> {
    use std::path::Component;
    let refuse = |why: &str| {
        crate::error::Error::invalid_with_help(
            format!("spec '{}' {why}", spec.escape_debug()),
            "give the spec's path relative to the repository root, e.g. specs/login.md",
        )
    };
    check_single_line("spec path", spec).map_err(|m| refuse(&format!("is refused: {m}")))?;
    let mut depth = 0usize;
    for part in std::path::Path::new(spec).components() {
        match part {
            Component::Prefix(_) | Component::RootDir => {
                return Err(refuse("is an absolute path; it must be relative"));
            }
            Component::ParentDir if depth == 0 => {
                return Err(refuse("climbs out of the repository with '..'"));
            }
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
        }
    }
    Ok(())
}
