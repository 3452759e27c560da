//! Every `mol cook` error points into the formula (`file:line:col`, also in `--json`):
//! unknown `needs`, duplicate ids, cycles, missing variables, unknown `{{var}}`, bad TOML,
//! and formula types vermas does not run.

use crate::common::{Repo, cook_fails, repo_with_formulas};
use serde_json::Value;

#[test]
fn unknown_types_gates_and_missing_aspects_are_refused_at_their_place() {
    let other = "formula = 'scan'\ntype = 'pipeline'\n[[steps]]\nid = 'a'\n";
    let gate = "[[steps]]\nid = 'a'\n[[compose.gate]]\nbefore = 'a'\ncondition = 'x'\n";
    let uses = "[[steps]]\nid = 'a'\n[compose]\naspects = ['audit']\n";
    let repo = repo_with_formulas(&[("scan", other), ("gate", gate), ("uses", uses)]);
    let err = cook_fails(&repo, &["scan"]);
    assert!(err.contains("scan.formula.toml:2:8"), "{err}");
    assert!(
        err.contains("type 'pipeline'") && err.contains("does not know"),
        "{err}"
    );
    let err = cook_fails(&repo, &["gate"]);
    assert!(err.contains("`compose.gate` is not supported"), "{err}");
    let err = cook_fails(&repo, &["uses"]);
    assert!(err.contains("uses.formula.toml:4:12"), "{err}");
    assert!(err.contains("no formula named 'audit'"), "{err}");
    repo.fails(&["formula", "show", "scan"], 2);
}

/// Asserts `mol cook NAME` fails pointing at `file:line:col` with `message`, also in JSON.
fn cook_error(text: &str, at: &str, message: &str) {
    let repo = repo_with_formulas(&[("f", text)]);
    let err = cook_fails(&repo, &["f"]);
    let place = format!(".beads/formulas/f.formula.toml:{at}");
    assert!(err.contains(&place), "want {place} in:\n{err}");
    assert!(err.contains(message), "want {message:?} in:\n{err}");
    let out = repo.run(&["mol", "cook", "f", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stderr).expect("JSON error");
    assert_eq!(v["code"], "parse");
    let (line, col) = at.split_once(':').unwrap();
    assert_eq!(v["line"].to_string(), line);
    assert_eq!(v["column"].to_string(), col);
}

#[test]
fn unknown_needs_points_at_the_entry() {
    cook_error(
        "[[steps]]\nid = 'a'\n[[steps]]\nid = 'b'\nneeds = ['a', 'nope']\n",
        "5:15",
        "step 'b' needs 'nope', which is not a step of this formula",
    );
}

#[test]
fn duplicate_step_id_points_at_the_second() {
    cook_error(
        "[[steps]]\nid = 'a'\n[[steps]]\nid = \"a\"\n",
        "4:6",
        "duplicate step id 'a'",
    );
    // A child's full id colliding with a top-level step.
    cook_error(
        "[[steps]]\nid = 'p.c'\n[[steps]]\nid = 'p'\n[[steps.children]]\nid = 'c'\n",
        "6:6",
        "duplicate step id 'p.c'",
    );
}

#[test]
fn cycles_are_printed_and_located() {
    cook_error(
        "[[steps]]\nid = 'a'\nneeds = ['c']\n[[steps]]\nid = 'b'\nneeds = ['a']\n\
         [[steps]]\nid = 'c'\nneeds = ['b']\n[[steps]]\nid = 'd'\n",
        "3:10",
        "needs cycle: a -> c -> b -> a",
    );
    cook_error(
        "[[steps]]\nid = 'a'\nneeds = ['a']\n",
        "3:10",
        "needs cycle: a -> a",
    );
    // A child needing its own parent loops through the parent's wait for its children.
    cook_error(
        "[[steps]]\nid = 'p'\n[[steps.children]]\nid = 'c'\nneeds = ['p']\n",
        "5:10",
        "needs cycle: p.c -> p -> p.c",
    );
}

#[test]
fn missing_required_var_points_at_its_declaration() {
    cook_error(
        "[[steps]]\nid = 'a'\ntitle = 'For {{bead_id}}'\n\n[vars]\n[vars.bead_id]\nrequired = true\n",
        "6:1",
        "missing required variable 'bead_id'",
    );
    let repo = repo_with_formulas(&[(
        "f",
        "[vars.x]\nrequired = true\n[[steps]]\nid = 'a'\ntitle = '{{x}}'\n",
    )]);
    let err = cook_fails(&repo, &["f"]);
    assert!(err.contains("--var x=VALUE"), "{err}");
    let proto = repo.json(&["mol", "cook", "f", "--var", "x=given"]);
    assert_eq!(proto["steps"][0]["title"], "given");
}

#[test]
fn unknown_placeholder_points_at_it() {
    cook_error(
        "[vars]\nname = 'x'\n[[steps]]\nid = 'a'\ndescription = \"\"\"\nline one\n  uses {{nmae}} here\n\"\"\"\n",
        "7:8",
        "`{{nmae}}` is not a variable of this formula",
    );
}

#[test]
fn toml_errors_and_bad_vars_exit_2() {
    cook_error("[[steps]]\nid = 'a'\nneeds = 'a\n", "3:11", "invalid TOML");
    cook_error("[[steps]]\ntitle = 'no id'\n", "1:1", "has no `id`");
    let repo = Repo::initialised();
    let err = cook_fails(&repo, &["mol-inspect", "--var", "no-equals"]);
    assert!(err.contains("--var expects KEY=VALUE"), "{err}");
    let err = cook_fails(&repo, &["../etc/passwd"]);
    assert!(err.contains("not a formula name"), "{err}");
}

#[test]
fn a_very_deep_extends_chain_is_refused_not_a_crash() {
    // f0 extends f1 extends ... f9999: deeper than any real formula, once a stack overflow.
    let files: Vec<(String, String)> = (0..10_000)
        .map(|i| {
            let text = if i == 9_999 {
                "[[steps]]\nid = 'a'\n".to_string()
            } else {
                format!("extends = ['f{}']\n", i + 1)
            };
            (format!("f{i}"), text)
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let repo = repo_with_formulas(&refs);
    let err = cook_fails(&repo, &["f0"]);
    assert!(err.contains("extends chain deeper than 64"), "{err}");
    // A chain within the limit still cooks.
    let out = repo.ok(&["mol", "cook", "f9990"]);
    assert!(out.contains('a'), "{out}");
}
