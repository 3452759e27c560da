//! Formulas end to end: `formula list/show` and `mol cook` on real repositories with
//! formula files written the way Gas Town writes them, and every cook error.

use crate::common::{Repo, cook_fails, repo_with_formulas};
use serde_json::Value;
use std::collections::BTreeMap;

/// A formula in Gas Town's own style: single quotes, multi-line descriptions, both `[vars]`
/// forms, `depends_on`, and keys vermas does not use (`tier`, `[steps.backoff]`, `[meta]`).
const RELEASE: &str = r#"# .beads/formulas/release.formula.toml
description = """
Ship a release of {{component}}.

Runs tests, then builds and publishes.
"""
formula = 'release'
version = 3
phase = 'vapor'

[meta]
owner = 'infra'

[vars]
channel = 'stable'

[vars.component]
description = 'What is released'
required = true

[[steps]]
id = 'test'
title = 'Test {{component}}'
tier = 'haiku'
description = """
Run the whole suite:

1. `make test`
2. Check for regressions
"""

[[steps]]
id = 'build'
title = 'Build {{component}} for {{channel}}'
depends_on = ['test']
[steps.backoff]
initial = '5m'

[[steps]]
id = 'publish'
title = 'Publish'
needs = ['build']
description = "Push {{component}} to the {{channel}} channel."
"#;

fn ids(proto: &Value) -> Vec<String> {
    proto["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["id"].as_str().unwrap_or("").to_string())
        .collect()
}

fn step<'a>(proto: &'a Value, id: &str) -> &'a Value {
    proto["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {proto}"))
}

fn needs(proto: &Value, id: &str) -> Vec<String> {
    step(proto, id)["needs"]
        .as_array()
        .expect("needs")
        .iter()
        .map(|n| n.as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn list_shows_files_then_builtins_and_a_broken_file_without_hiding_others() {
    let repo = repo_with_formulas(&[
        ("release", RELEASE),
        ("broken", "formula = 'broken'\n[[steps]\n"),
        (
            "mol-polecat-work",
            "formula = 'mol-polecat-work'\n[[steps]]\nid = 'only'\ntitle = 'Only'\n",
        ),
    ]);
    let rows = repo.json(&["formula", "list"]);
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "broken",
            "mol-polecat-work",
            "release",
            "mol-inspect",
            "mol-spec-planning"
        ]
    );
    assert!(
        rows[0]["error"]
            .as_str()
            .unwrap()
            .contains("broken.formula.toml:2:")
    );
    assert_eq!(rows[1]["overrides_builtin"], true);
    assert_eq!(rows[2]["steps"], 3);
    assert_eq!(rows[2]["version"], "3");
    assert_eq!(rows[2]["path"], ".beads/formulas/release.formula.toml");
    assert_eq!(rows[3]["source"], "builtin");

    let human = repo.ok(&["formula", "list"]);
    assert!(human.starts_with("NAME"), "{human}");
    assert!(human.contains("(overrides built-in)"), "{human}");
    assert!(human.contains("mol-spec-planning"), "{human}");
}

#[test]
fn show_builtin_mol_inspect_steps_through_the_inspector_commands() {
    let repo = Repo::initialised();
    let info = repo.json(&["formula", "show", "mol-inspect"]);
    assert_eq!(info["schema_version"], 1);
    assert_eq!(info["source"], "builtin");
    // The design document's steps: advocate and critic in parallel, the judge after both.
    assert_eq!(
        ids(&info),
        ["verify", "audit", "advocate", "critic", "judge", "route"]
    );
    assert_eq!(needs(&info, "advocate"), ["audit"]);
    assert_eq!(needs(&info, "critic"), ["audit"]);
    assert_eq!(needs(&info, "judge"), ["advocate", "critic"]);
    assert_eq!(needs(&info, "route"), ["judge"]);
    assert_eq!(info["vars"][0]["name"], "bead_id");
    assert_eq!(info["vars"][0]["required"], true);
    // Steps name vermas's own commands, never another tool's.
    for step in info["steps"].as_array().expect("steps") {
        let d = step["description"].as_str().unwrap_or_default();
        assert!(!d.contains("gt "), "{d}");
    }
    for id in ["verify", "audit", "route"] {
        let d = step(&info, id)["description"].as_str().unwrap_or_default();
        assert!(d.contains("vermas inspect "), "{d}");
    }

    let human = repo.ok(&["formula", "show", "mol-inspect"]);
    assert!(
        human.starts_with("mol-inspect (workflow, version 3, built-in)"),
        "{human}"
    );
    assert!(
        human.contains("bead_id  required  The work item being verified"),
        "{human}"
    );

    let planning = repo.json(&["formula", "show", "mol-spec-planning"]);
    for step in planning["steps"].as_array().expect("steps") {
        let d = step["description"].as_str().unwrap_or_default();
        assert!(!d.contains("gt "), "{d}");
    }
    assert_eq!(ids(&planning), ["design", "create", "strategize"]);
    assert_eq!(needs(&planning, "strategize"), ["create"]);
    let polecat = repo.json(&["formula", "show", "mol-polecat-work"]);
    assert_eq!(
        ids(&polecat),
        ["understand", "implement", "test", "complete"]
    );
    repo.fails(&["formula", "show", "nope"], 2);
}

#[test]
fn builtins_cook_outside_a_workspace() {
    let repo = Repo::new();
    let proto = repo.json(&["mol", "cook", "mol-inspect", "--var", "bead_id=vm-k3f9"]);
    assert_eq!(proto["formula"], "mol-inspect");
    assert!(
        step(&proto, "verify")["description"]
            .as_str()
            .unwrap()
            .contains("verify vm-k3f9")
    );
    let list = repo.json(&["formula", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 3);
}

#[test]
fn gas_town_formula_cooks_with_vars_and_ignores_unknown_keys() {
    let repo = repo_with_formulas(&[("release", RELEASE)]);
    let before = repo.commit_count();
    let proto = repo.json(&["mol", "cook", "release", "--var", "component=api"]);
    assert_eq!(proto["schema_version"], 1);
    assert_eq!(proto["version"], "3");
    assert_eq!(ids(&proto), ["test", "build", "publish"]);
    assert_eq!(needs(&proto, "build"), ["test"]);
    assert_eq!(step(&proto, "build")["title"], "Build api for stable");
    assert_eq!(
        step(&proto, "publish")["description"],
        "Push api to the stable channel."
    );
    assert!(
        proto["description"]
            .as_str()
            .unwrap()
            .starts_with("Ship a release of api.")
    );
    assert_eq!(proto["vars"]["channel"], "stable");
    assert_eq!(proto["vars"]["component"], "api");

    let beta = repo.json(&[
        "mol",
        "cook",
        "release",
        "--var",
        "component=api",
        "--var",
        "channel=beta",
    ]);
    assert_eq!(step(&beta, "build")["title"], "Build api for beta");

    let human = repo.ok(&["mol", "cook", "release", "--var", "component=api"]);
    assert!(human.contains("3 steps"), "{human}");
    assert!(human.contains("publish  Publish  (needs build)"), "{human}");

    let info = repo.json(&["formula", "show", "release"]);
    let unknown = info["unknown_keys"].as_array().unwrap();
    assert!(unknown.contains(&Value::from("meta")) && unknown.contains(&Value::from("phase")));
    assert_eq!(repo.commit_count(), before, "cook writes nothing");
    assert!(!repo.join(".beads/mols").exists(), "cook writes nothing");
}

/// A formula as Gas Town writes its patrol and convoy formulas: Handlebars blocks, `{{else}}`,
/// `{{this}}`, paths and Go template's `{{end}}` in step text, for the agent to read.
const HANDLEBARS: &str = r#"
formula = 'convoy-report'
[vars]
rig = 'gastown'

[[steps]]
id = 'collect'
title = 'Collect convoys of {{rig}}'
description = """
{{#each convoys}}
- {{title}} ({{this}}, by {{dependent.id}}) #{{@index}}
{{else}}
No convoys on {{rig}}.
{{/each}}
{{#if urgent}}Escalate.{{end}}
"""
"#;

#[test]
fn gas_town_handlebars_is_left_for_the_agent_and_plain_names_still_checked() {
    let repo = repo_with_formulas(&[
        ("convoy-report", HANDLEBARS),
        (
            "typo",
            "formula = 'typo'\n[vars]\nrig = 'x'\n[[steps]]\nid = 'a'\ntitle = '{{#if rig}}{{rgi}}{{/if}} {{rgi}}'\n",
        ),
    ]);
    let proto = repo.json(&["mol", "cook", "convoy-report"]);
    let step = step(&proto, "collect");
    assert_eq!(step["title"], "Collect convoys of gastown");
    let text = step["description"].as_str().unwrap();
    assert!(text.starts_with("{{#each convoys}}\n- {{title}} ({{this}}, by {{dependent.id}}) #{{@index}}\n{{else}}\nNo convoys on gastown.\n{{/each}}"), "{text}");
    assert!(text.contains("{{#if urgent}}Escalate.{{end}}"), "{text}");

    let bead = repo.create("Report convoys", &[]);
    let poured = repo.json(&["mol", "pour", "convoy-report", "--bead", &bead]);
    let id = poured["id"].as_str().unwrap().to_string();
    let file = std::fs::read_to_string(repo.join(&format!(".beads/mols/{id}.yaml"))).unwrap();
    assert!(file.contains("{{#each convoys}}"), "{file}");

    let err = cook_fails(&repo, &["typo"]);
    assert!(
        err.contains("`{{rgi}}` is not a variable of this formula"),
        "{err}"
    );
    assert!(err.contains("typo.formula.toml:6:"), "{err}");
}

const CHILDREN: &str = r#"
formula = 'feature'

[[steps]]
id = 'design'
title = 'Design'

[[steps]]
id = 'implement'
title = 'Implement'
needs = ['design']

[[steps.children]]
id = 'backend'
title = 'Backend'

[[steps.children]]
id = 'frontend'
title = 'Frontend'
needs = ['backend']

[[steps]]
id = 'ship'
title = 'Ship'
needs = ['implement']
"#;

#[test]
fn children_become_parent_dot_child_and_the_parent_waits_for_them() {
    let repo = repo_with_formulas(&[("feature", CHILDREN)]);
    let proto = repo.json(&["mol", "cook", "feature"]);
    assert_eq!(
        ids(&proto),
        [
            "design",
            "implement.backend",
            "implement.frontend",
            "implement",
            "ship"
        ]
    );
    assert_eq!(needs(&proto, "implement.backend"), ["design"]);
    assert_eq!(
        needs(&proto, "implement.frontend"),
        ["design", "implement.backend"]
    );
    assert_eq!(
        needs(&proto, "implement"),
        ["design", "implement.backend", "implement.frontend"]
    );
    assert_eq!(needs(&proto, "ship"), ["implement"]);
}

#[test]
fn extends_inherits_steps_and_vars_and_overrides_by_id() {
    let base = r#"
formula = 'base'
description = 'Base workflow'
[vars.who]
default = 'alice'
[vars.what]
required = true
[[steps]]
id = 'plan'
title = 'Plan {{what}}'
[[steps]]
id = 'work'
title = 'Work'
needs = ['plan']
"#;
    let child = r#"
formula = 'child'
extends = ['base']
[vars.who]
default = 'bob'
[[steps]]
id = 'work'
title = 'Work hard, {{who}}'
needs = ['plan']
[[steps]]
id = 'review'
title = 'Review'
needs = ['work']
"#;
    let repo = repo_with_formulas(&[("base", base), ("child", child)]);
    let proto = repo.json(&["mol", "cook", "child", "--var", "what=x"]);
    assert_eq!(ids(&proto), ["plan", "work", "review"]);
    assert_eq!(step(&proto, "plan")["title"], "Plan x");
    assert_eq!(step(&proto, "work")["title"], "Work hard, bob");
    assert_eq!(proto["description"], "Base workflow");
    let err = cook_fails(&repo, &["child"]);
    assert!(err.contains("base.formula.toml:6:"), "{err}");
    assert!(err.contains("missing required variable 'what'"), "{err}");

    // A file extending its own name extends the built-in.
    let local = "formula = 'mol-polecat-work'\nextends = ['mol-polecat-work']\n\
                 [[steps]]\nid = 'inspect'\ntitle = 'Inspect'\nneeds = ['complete']\n";
    repo.write(".beads/formulas/mol-polecat-work.formula.toml", local);
    let proto = repo.json(&["mol", "cook", "mol-polecat-work"]);
    assert_eq!(
        ids(&proto),
        ["understand", "implement", "test", "complete", "inspect"]
    );

    repo.write(".beads/formulas/a.formula.toml", "extends = ['b']\n");
    repo.write(".beads/formulas/b.formula.toml", "extends = ['a']\n");
    let err = cook_fails(&repo, &["a"]);
    assert!(err.contains("extends cycle: a -> b -> a"), "{err}");
}

const RULE_OF_TWO: &str = r#"
formula = 'rule-of-two'
type = 'expansion'
[vars]
rounds = '2'
[[template]]
id = '{target}.draft'
title = 'Draft {target.title}'
description = 'First pass ({rounds} rounds) for {{component}}.'
[[template]]
id = '{target}.review'
title = 'Review {target}'
needs = ['{target}.draft']
"#;

#[test]
fn compose_expand_replaces_the_target_with_the_template() {
    let main = r#"
formula = 'shiny'
[vars.component]
default = 'core'
[[steps]]
id = 'design'
title = 'Design'
[[steps]]
id = 'implement'
title = 'Implement it'
needs = ['design']
[[steps]]
id = 'ship'
title = 'Ship'
needs = ['implement']
[compose]
[[compose.expand]]
target = 'implement'
with = 'rule-of-two'
vars = { rounds = 3 }
"#;
    let repo = repo_with_formulas(&[("shiny", main), ("rule-of-two", RULE_OF_TWO)]);
    let proto = repo.json(&["mol", "cook", "shiny"]);
    assert_eq!(
        ids(&proto),
        ["design", "implement.draft", "implement.review", "ship"]
    );
    assert_eq!(needs(&proto, "implement.draft"), ["design"]);
    assert_eq!(needs(&proto, "implement.review"), ["implement.draft"]);
    assert_eq!(needs(&proto, "ship"), ["implement.review"]);
    let draft = step(&proto, "implement.draft");
    assert_eq!(draft["title"], "Draft Implement it");
    assert_eq!(draft["description"], "First pass (3 rounds) for core.");
    assert_eq!(
        step(&proto, "implement.review")["title"],
        "Review implement"
    );

    // An expansion cooked on its own expands a step named after it.
    let alone = repo.json(&["mol", "cook", "rule-of-two", "--var", "component=x"]);
    assert_eq!(ids(&alone), ["rule-of-two.draft", "rule-of-two.review"]);

    // Expanding with a workflow is refused at the `with`.
    repo.write(
        ".beads/formulas/bad.formula.toml",
        "[[steps]]\nid = 'a'\n[[compose.expand]]\ntarget = 'a'\nwith = 'shiny'\n",
    );
    let err = cook_fails(&repo, &["bad"]);
    assert!(err.contains("bad.formula.toml:5:8"), "{err}");
    assert!(err.contains("not an expansion formula"), "{err}");
}

#[test]
fn map_inline_expand_and_bare_child_ids() {
    let main = r#"
formula = 'multi'
[[steps]]
id = 'api'
title = 'API'
[[steps.children]]
id = 'implement'
title = 'API code'
[[steps]]
id = 'ui'
title = 'UI'
needs = ['api']
[[steps.children]]
id = 'implement'
title = 'UI code'
[[steps]]
id = 'docs'
title = 'Docs'
expand = 'rule-of-two'
expand_vars = { rounds = '1' }
[[steps]]
id = 'release'
title = 'Release'
needs = ['docs', 'ui.implement']
[[compose.map]]
select = '*.implement'
with = 'rule-of-two'
"#;
    let repo = repo_with_formulas(&[("multi", main), ("rule-of-two", RULE_OF_TWO)]);
    let proto = repo.json(&["mol", "cook", "multi", "--var", "component=c"]);
    assert_eq!(
        ids(&proto),
        [
            "api.implement.draft",
            "api.implement.review",
            "api",
            "ui.implement.draft",
            "ui.implement.review",
            "ui",
            "docs.draft",
            "docs.review",
            "release"
        ]
    );
    assert_eq!(needs(&proto, "api"), ["api.implement.review"]);
    assert_eq!(needs(&proto, "ui.implement.draft"), ["api"]);
    assert_eq!(
        needs(&proto, "release"),
        ["docs.review", "ui.implement.review"]
    );
    assert_eq!(
        step(&proto, "docs.draft")["description"],
        "First pass (1 rounds) for c."
    );

    // A bare child id names the child when it is the only one; two make it ambiguous.
    let bare = "[[steps]]\nid = 'p'\n[[steps.children]]\nid = 'only'\n\
                [[steps]]\nid = 'q'\nneeds = ['only']\n";
    let repo = repo_with_formulas(&[("bare", bare), ("multi", main)]);
    let proto = repo.json(&["mol", "cook", "bare"]);
    assert_eq!(needs(&proto, "q"), ["p.only"]);
    repo.write(
        ".beads/formulas/two.formula.toml",
        "[[steps]]\nid = 'a'\n[[steps.children]]\nid = 'x'\n\
         [[steps]]\nid = 'b'\n[[steps.children]]\nid = 'x'\n\
         [[steps]]\nid = 'c'\nneeds = ['x']\n",
    );
    let err = cook_fails(&repo, &["two"]);
    assert!(err.contains("two.formula.toml:11:10"), "{err}");
    assert!(err.contains("'x' is ambiguous: it names a.x, b.x"), "{err}");
}

#[test]
fn a_thousand_step_formula_cooks_in_order_through_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let beads = dir.path().join(".beads");
    std::fs::create_dir_all(beads.join("formulas")).unwrap();
    let mut text = String::from("formula = 'big'\n[vars.who]\ndefault = 'me'\n");
    for i in (0..1000).rev() {
        let needs = match i {
            0 => String::new(),
            i if i % 10 == 0 => format!("needs = ['s{}', 's{}']\n", i - 1, i - 10),
            i => format!("needs = ['s{}']\n", i - 1),
        };
        text.push_str(&format!(
            "[[steps]]\nid = 's{i}'\ntitle = 'Step {i} by {{{{who}}}}'\n{needs}"
        ));
    }
    std::fs::write(beads.join("formulas/big.formula.toml"), text).unwrap();
    let started = std::time::Instant::now();
    let proto = vermas_core::mol::cook(Some(&beads), "big", &BTreeMap::new()).unwrap();
    let took = started.elapsed();
    assert_eq!(proto.steps.len(), 1000);
    let order: Vec<String> = proto.steps.iter().map(|s| s.id.clone()).collect();
    let want: Vec<String> = (0..1000).map(|i| format!("s{i}")).collect();
    assert_eq!(order, want);
    assert_eq!(proto.steps[10].needs, ["s9", "s0"]);
    assert_eq!(proto.steps[999].title, "Step 999 by me");
    assert!(
        took.as_secs_f64() < 1.0,
        "cooking 1,000 steps took {took:?}"
    );
}
