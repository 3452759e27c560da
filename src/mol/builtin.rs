//! The formulas vermas ships with, used when `.beads/formulas/` has none of that name.

/// Every built-in formula: its name and its `.formula.toml` text.
pub const BUILTINS: &[(&str, &str)] = &[
    (
        "mol-inspect",
        include_str!("builtins/mol-inspect.formula.toml"),
    ),
    (
        "mol-polecat-work",
        include_str!("builtins/mol-polecat-work.formula.toml"),
    ),
    (
        "mol-spec-planning",
        include_str!("builtins/mol-spec-planning.formula.toml"),
    ),
];

/// The text of the built-in formula `name`, if there is one.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The names of the built-in formulas, sorted.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_found() {
        let names: Vec<_> = builtin_names().collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert!(builtin("mol-inspect").is_some());
        assert!(builtin("nope").is_none());
    }
}
