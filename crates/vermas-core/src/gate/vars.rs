//! `{name}` variables in gate commands.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// The variables a gate command may use.
pub(crate) const NAMES: &[&str] = &[
    "mission_id",
    "worktree_dir",
    "test_file",
    "test_dir",
    "ac_index",
    "ac_number",
    "ac_title",
    "surface_area",
    "project_root",
];

/// Replaces every `{name}` in `command` with its value, shell-quoted for where it stands
/// (see [`super::shell::expand`]) so it reaches the command as one word and never runs.
/// `${...}` (shell) and `{{`/`}}` (literal braces) are left for the shell; an unknown name
/// is an error.
pub(crate) fn substitute(command: &str, values: &BTreeMap<&str, String>) -> Result<String> {
    super::shell::expand(command, &mut |name| {
        values.get(name).cloned().ok_or_else(|| {
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
        })
    })
}

/// A URL-safe slug of a title: lowercase letters and digits joined by `-`.
pub(crate) fn slug(title: &str) -> String {
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
        v.insert("ac_index", "AC-2".to_string());
        assert_eq!(
            substitute(
                "go test {test_file} # ac {ac_index} ${HOME} {{x}} { echo; }",
                &v
            )
            .unwrap(),
            "go test 't/x_test.go' # ac 'AC-2' ${HOME} {{x}} { echo; }"
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
