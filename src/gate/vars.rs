//! `{name}` variables in gate commands.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// The variables a gate command may use.
pub const NAMES: &[&str] = &[
    "mission_id",
    "worktree_dir",
    "test_file",
    "test_dir",
    "ac_index",
    "ac_title",
    "surface_area",
    "project_root",
];

/// Replaces every `{name}` in `command` with its value. `${...}` (shell) and `{{`/`}}`
/// (literal braces) are left for the shell; an unknown name is an error.
pub fn substitute(command: &str, values: &BTreeMap<&str, String>) -> Result<String> {
    let mut out = String::with_capacity(command.len());
    let mut rest = command;
    while let Some(open) = rest.find('{') {
        let (before, from_brace) = rest.split_at(open);
        out.push_str(before);
        if before.ends_with('$') {
            out.push('{');
            rest = &from_brace[1..];
            continue;
        }
        if let Some(after) = from_brace.strip_prefix("{{") {
            out.push_str("{{");
            rest = after;
            continue;
        }
        let Some(close) = from_brace.find('}') else {
            out.push_str(from_brace);
            rest = "";
            break;
        };
        let name = &from_brace[1..close];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            // Not a variable (a shell brace group, JSON...): keep it as written.
            out.push_str(&from_brace[..=close]);
        } else {
            let value = values.get(name).ok_or_else(|| {
                Error::invalid_with_help(
                    format!("unknown variable {{{name}}} in gate command: {command}"),
                    format!(
                        "variables: {}",
                        NAMES
                            .iter()
                            .map(|n| format!("{{{n}}}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                )
            })?;
            out.push_str(value);
        }
        rest = &from_brace[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A URL-safe slug of a title: lowercase letters and digits joined by `-`.
pub fn slug(title: &str) -> String {
    let mut s = String::new();
    for word in title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !s.is_empty() {
            s.push('-');
        }
        s.push_str(&word.to_ascii_lowercase());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_and_refuses_unknown() {
        let mut v = BTreeMap::new();
        v.insert("test_file", "t/x_test.go".to_string());
        v.insert("ac_index", "2".to_string());
        assert_eq!(
            substitute(
                "go test {test_file} # ac {ac_index} ${HOME} {{x}} { echo; }",
                &v
            )
            .unwrap(),
            "go test t/x_test.go # ac 2 ${HOME} {{x}} { echo; }"
        );
        assert!(
            substitute("run {nope}", &v)
                .unwrap_err()
                .to_string()
                .contains("{nope}")
        );
        assert_eq!(slug("Prints FizzBuzz for 15!"), "prints-fizzbuzz-for-15");
    }
}
