//! The formulas vermas ships with, used when `.beads/formulas/` has none of that name.

/// Every built-in formula: its name and its `.formula.toml` text.
pub(crate) const BUILTINS: &[(&str, &str)] = &[
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

/// What a vermas command that runs a built-in formula relies on, so a `.beads/formulas/`
/// file that takes the built-in's place must keep it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Contract {
    /// The command that runs the formula.
    pub runner: &'static str,
    /// Step ids the command drives.
    pub steps: &'static [&'static str],
    /// The only variables the command gives; no other may be required.
    pub vars: &'static [&'static str],
    /// Why the command needs them, said when a file breaks the contract.
    pub why: &'static str,
}

/// The built-ins that vermas's own commands run, with what each command relies on.
pub(crate) const CONTRACTS: &[(&str, Contract)] = &[(
    "mol-spec-planning",
    Contract {
        runner: "vermas plan",
        steps: &["design", "create", "strategize"],
        vars: &["request"],
        why: "`vermas plan` starts from the request alone and creates the work and its test \
              spec itself once the design is approved, so it has no bead_id or spec_id to give \
              before it starts and records that work in the step create; a person's approval \
              is part of design and strategize (the design document's approve-design and \
              approve-strategy), and approving the spec is `vermas plan --approve` (its \
              create-spec)",
    },
)];

/// What the command running built-in `name` relies on, if a command runs it.
pub(crate) fn contract(name: &str) -> Option<&'static Contract> {
    CONTRACTS.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
}

/// The text of the built-in formula `name`, if there is one.
pub(crate) fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The names of the built-in formulas, sorted.
pub(crate) fn builtin_names() -> impl Iterator<Item = &'static str> {
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

    #[test]
    fn every_contract_holds_for_its_own_builtin() {
        for (name, c) in CONTRACTS {
            let text = builtin(name).expect("a contract names a built-in");
            for step in c.steps {
                assert!(text.contains(&format!("id = \"{step}\"")), "{name}: {step}");
            }
        }
    }
}
