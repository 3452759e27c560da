//! Gas Town's four formula types cooked as gt cooks them, from formulas written the way
//! its repository writes them: a workflow, an expansion applied by `compose.expand`, an
//! aspect woven in through `compose.aspects` (`[[advice]]` with `around.before/after` and
//! `[[pointcuts]]`), and a convoy (parallel `[[legs]]`, a `[synthesis]` that needs them all).
//! Also: a file that takes the place of the built-in `vermas plan` runs cooks and pours as
//! written, and `plan` refuses it, saying which steps and variables it needs and why; a `{{name}}` no variable declares is the agent's
//! text (a near typo of one is refused); a step's `gate` becomes a `gate-<step>` step it needs.

use crate::common::{cook_fails, repo_with_formulas, roles_llm};
use serde_json::Value;

/// A workflow in gt's style (double-quoted, `[vars.x]` tables, `type` given).
const SHINY: &str = r#"description = "Design before you code. Review before you ship."
formula = "shiny"
type = "workflow"
version = 1

[[steps]]
description = "Think about {{feature}} first."
id = "design"
title = "Design {{feature}}"

[[steps]]
id = "implement"
needs = ["design"]
title = "Implement {{feature}}"

[[steps]]
id = "review"
needs = ["implement"]
title = "Review implementation"

[[steps]]
id = "test"
needs = ["review"]
title = "Test {{feature}}"

[[steps]]
id = "submit"
needs = ["test"]
title = "Submit for merge"

[vars]
[vars.feature]
description = "The feature being implemented"
required = true
"#;

/// An expansion: a draft then a refinement of the step it replaces.
const TWICE: &str = r#"description = "Draft, then refine."
formula = "rule-of-two"
type = "expansion"
version = 1

[[template]]
id = "{target}.draft"
title = "Draft: {target.title}"

[[template]]
id = "{target}.refine"
needs = ["{target}.draft"]
title = "Refine: {target.title}"
"#;

/// An aspect as gt's security-audit is written: `around` advice on two targets, the
/// `after` lists before the `before` ones, and pointcuts naming the same steps.
const AUDIT: &str = r#"description = "Cross-cutting security concern."
formula = "audit"
type = "aspect"
version = 1

[[advice]]
target = "implement"
[advice.around]

[[advice.around.after]]
description = "Scan the new code of {step.id}."
id = "{step.id}-postscan"
title = "Postscan for {step.id}"

[[advice.around.before]]
id = "{step.id}-prescan"
title = "Prescan for {step.id}"

[[advice]]
target = "submit"
[advice.around]

[[advice.around.after]]
id = "{step.id}-postscan"
title = "Postscan for {step.title}"

[[advice.around.before]]
id = "{step.id}-prescan"
title = "Prescan for {step.id}"

[[pointcuts]]
glob = "implement"

[[pointcuts]]
glob = "submit"
"#;

/// A workflow that extends shiny, expands its review and weaves the aspect in.
const SECURE: &str = r#"description = "Shiny with the audit aspect applied."
extends = ["shiny"]
formula = "shiny-secure"
type = "workflow"
version = 1

[[compose.expand]]
target = "review"
with = "rule-of-two"

[compose]
aspects = ["audit"]
"#;

/// A convoy in the shape of gt's design and review convoys.
const PANEL: &str = r#"# Parallel analysts, then one synthesis.
description = "Review a proposal from several sides at once."
formula = "panel"
type = "convoy"
version = 1

[inputs]
[inputs.problem]
description = "What is reviewed"
type = "string"
required = true

[inputs.scope]
description = "small, medium or large"
type = "string"
default = "medium"

[prompts]
base = """
Leg {{.leg.id}} ({{.leg.focus}}) of {{.formula_name}}: {{.problem}}, scope {{.scope}}.
{{if .context}}{{.context}}{{end}}
Write to {{.output_path}}
"""

[output]
directory = ".reviews/{{.review_id}}"
leg_pattern = "{{.leg.id}}.md"
synthesis = "review.md"

[[legs]]
id = "api"
title = "Interface of {{.problem}}"
focus = "Interfaces"
description = "Look at the interfaces."

[[legs]]
id = "data"
title = "Data model"
focus = "Storage"
description = "Look at the data."

[synthesis]
title = "Synthesis"
description = "Combine {{.output.directory}} into one review of {{.problem}}."
depends_on = ["api", "data"]
"#;

/// `(id, needs)` of each step of a cooked proto, in order.
fn shape(proto: &Value) -> Vec<(String, Vec<String>)> {
    proto["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| {
            let needs = s["needs"]
                .as_array()
                .expect("needs")
                .iter()
                .map(|n| n.as_str().unwrap_or("").to_string())
                .collect();
            (s["id"].as_str().unwrap_or("").to_string(), needs)
        })
        .collect()
}

fn expected(rows: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    rows.iter()
        .map(|(id, needs)| {
            (
                id.to_string(),
                needs.iter().map(|n| n.to_string()).collect(),
            )
        })
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

#[test]
fn an_aspect_woven_through_compose_gives_the_steps_gt_gives() {
    let repo = repo_with_formulas(&[
        ("shiny", SHINY),
        ("rule-of-two", TWICE),
        ("audit", AUDIT),
        ("shiny-secure", SECURE),
    ]);
    let proto = repo.json(&["mol", "cook", "shiny-secure", "--var", "feature=login"]);
    // gt's order: each advised step between its before and after steps; a before step
    // needs nothing, the advised step needs it, the first after step needs the advised
    // step, and what needed the advised step still needs it alone.
    assert_eq!(
        shape(&proto),
        expected(&[
            ("design", &[]),
            ("implement-prescan", &[]),
            ("implement", &["design", "implement-prescan"]),
            ("implement-postscan", &["implement"]),
            ("review.draft", &["implement"]),
            ("review.refine", &["review.draft"]),
            ("test", &["review.refine"]),
            ("submit-prescan", &[]),
            ("submit", &["test", "submit-prescan"]),
            ("submit-postscan", &["submit"]),
        ])
    );
    assert_eq!(
        step(&proto, "implement-prescan")["title"],
        "Prescan for implement"
    );
    assert_eq!(
        step(&proto, "implement-postscan")["description"],
        "Scan the new code of implement."
    );
    // {step.title} is the advised step's title, its variables filled in like any other.
    assert_eq!(
        step(&proto, "submit-postscan")["title"],
        "Postscan for Submit for merge"
    );
    assert_eq!(step(&proto, "implement")["title"], "Implement login");
    assert_eq!(
        step(&proto, "review.draft")["title"],
        "Draft: Review implementation"
    );

    // The plain workflow is untouched by the aspect.
    let plain = repo.json(&["mol", "cook", "shiny", "--var", "feature=login"]);
    let ids: Vec<String> = shape(&plain).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["design", "implement", "review", "test", "submit"]);

    // The aspect alone: no steps of its own, and cooking says how it is applied.
    let err = cook_fails(&repo, &["audit"]);
    assert!(err.contains("'audit' is an aspect"), "{err}");
    assert!(err.contains("[compose] aspects = ['audit']"), "{err}");
    let info = repo.json(&["formula", "show", "audit"]);
    assert_eq!(info["type"], "aspect");
    assert_eq!(info["advice"][0]["target"], "implement");
    assert_eq!(info["advice"][0]["before"][0], "{step.id}-prescan");
    assert_eq!(info["advice"][0]["after"][0], "{step.id}-postscan");
    assert_eq!(
        info["pointcuts"],
        serde_json::json!(["implement", "submit"])
    );
    let human = repo.ok(&["formula", "show", "audit"]);
    assert!(
        human.contains("implement: before {step.id}-prescan; after {step.id}-postscan"),
        "{human}"
    );
    let secure = repo.json(&["formula", "show", "shiny-secure"]);
    assert_eq!(secure["aspects"], serde_json::json!(["audit"]));
}

#[test]
fn pointcuts_narrow_the_steps_an_aspect_advises_and_advice_never_advises_itself() {
    // A target of every step, narrowed by a pointcut to steps ending in "t".
    let wide = r#"formula = "trace"
type = "aspect"
version = 1

[[advice]]
target = "*"
[advice.after]
id = "{step.id}-log"
title = "Log {step.id}"

[[pointcuts]]
glob = "*t"
"#;
    let flow = r#"formula = "flow"
version = 1
[[steps]]
id = "start"
title = "Start"
[[steps]]
id = "middle"
title = "Middle"
needs = ["start"]
[compose]
aspects = ["trace"]
"#;
    let repo = repo_with_formulas(&[("trace", wide), ("flow", flow)]);
    let proto = repo.json(&["mol", "cook", "flow"]);
    assert_eq!(
        shape(&proto),
        expected(&[
            ("start", &[]),
            ("start-log", &["start"]),
            ("middle", &["start"]),
        ])
    );
    // compose.aspects must name an aspect.
    let wrong = flow.replace("\"trace\"", "\"flow\"");
    repo.write(".beads/formulas/flow.formula.toml", &wrong);
    let err = cook_fails(&repo, &["flow"]);
    assert!(err.contains("'flow' is not an aspect formula"), "{err}");
    assert!(err.contains("flow.formula.toml:11:"), "{err}");
}

#[test]
fn a_convoy_cooks_its_legs_in_parallel_and_pour_makes_them_ready_at_once() {
    let repo = repo_with_formulas(&[("panel", PANEL)]);
    let proto = repo.json(&["mol", "cook", "panel", "--var", "problem=auth"]);
    assert_eq!(
        shape(&proto),
        expected(&[("api", &[]), ("data", &[]), ("synthesis", &["api", "data"]),])
    );
    assert_eq!(step(&proto, "api")["title"], "Interface of auth");
    // Each leg carries the base prompt with its own fields and the inputs filled in; the
    // rest of gt's template text is left for the agent.
    assert_eq!(
        step(&proto, "api")["description"],
        "Look at the interfaces.\n\n---\nBase Prompt:\nLeg api (Interfaces) of panel: auth, scope medium.\n{{if .context}}{{.context}}{{end}}\nWrite to {{.output_path}}\n"
    );
    assert_eq!(
        step(&proto, "synthesis")["description"],
        "Combine {{.output.directory}} into one review of auth."
    );
    assert_eq!(proto["vars"]["scope"], "medium");
    let human = repo.ok(&["mol", "cook", "panel", "--var", "problem=auth"]);
    assert!(
        human.contains("3. synthesis  Synthesis  (needs api, data)"),
        "{human}"
    );

    // A required input is required.
    let err = cook_fails(&repo, &["panel"]);
    assert!(
        err.contains("missing required variable 'problem' (What is reviewed)"),
        "{err}"
    );

    let list = repo.json(&["formula", "list"]);
    assert_eq!(list[0]["name"], "panel");
    assert_eq!(list[0]["type"], "convoy");
    assert_eq!(list[0]["steps"], 3);

    // Poured, both legs are ready at once; the synthesis waits for both.
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "the panel convoy"]);
    let bead = repo.create("Review auth", &[]);
    let mol = repo.json(&[
        "mol",
        "pour",
        "panel",
        "--var",
        "problem=auth",
        "--bead",
        &bead,
    ]);
    let id = mol["id"].as_str().expect("id").to_string();
    let ready: Vec<String> = repo
        .json(&["mol", "ready", &id])
        .as_array()
        .expect("ready")
        .iter()
        .map(|s| s["id"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(ready, ["api", "data"]);
    repo.ok(&["mol", "done", &id, "api"]);
    let ready = repo.json(&["mol", "ready", &id]);
    assert_eq!(ready.as_array().expect("ready").len(), 1, "{ready}");
    repo.ok(&["mol", "done", &id, "data"]);
    let ready = repo.json(&["mol", "ready", &id]);
    assert_eq!(ready[0]["id"], "synthesis", "{ready}");
}

/// A planning formula as a seed document writes it: the built-in's name, other steps,
/// and variables `vermas plan` never gives.
const SEED_PLANNING: &str = r#"description = """
Spec planning, the way a design document sketched it.
"""
formula = "mol-spec-planning"
version = 1

[[steps]]
id = "design"
title = "Elaborate requirements"
description = "Work out {{request}}."

[[steps]]
id = "approve-design"
title = "Get approval"
needs = ["design"]

[[steps]]
id = "create-spec"
title = "Create the spec"
needs = ["approve-design"]
description = "Approve {{spec_id}} for {{bead_id}}."

[vars]
[vars.request]
description = "The request"
required = true
[vars.bead_id]
description = "The work item"
required = true
[vars.spec_id]
description = "The test spec"
required = true
"#;

#[test]
fn a_file_in_place_of_the_planning_builtin_cooks_as_written_and_plan_says_what_it_needs() {
    let repo = repo_with_formulas(&[("mol-spec-planning", SEED_PLANNING)]);
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "a planning formula of our own"]);
    let before = repo.commit_count();
    let all = [
        "mol",
        "cook",
        "mol-spec-planning",
        "--var",
        "request=x",
        "--var",
        "bead_id=vm-1",
        "--var",
        "spec_id=vm-2",
    ];
    // As a formula it is fine: it cooks (and pours) as written.
    let proto = repo.json(&all);
    assert_eq!(
        step(&proto, "create-spec")["description"],
        "Approve vm-2 for vm-1."
    );
    // `plan` refuses it before asking the designer, saying what it needs and why, and
    // writes nothing.
    let asked = repo.join("designer-asked");
    repo.write_llm_command(&format!("touch '{}'", asked.display()));
    let err = repo.fails(&["plan", "fizzbuzz", "--yes"], 2);
    for said in [
        ".beads/formulas/mol-spec-planning.formula.toml:27:1: this file takes the place of the built-in mol-spec-planning",
        "which `vermas plan` runs with the variable request and the steps design, create, strategize: it requires bead_id, spec_id and it has no step create, strategize; `vermas plan` starts from the request alone and creates the work and its test spec itself once the design is approved, so it has no bead_id or spec_id to give before it starts",
    ] {
        assert!(err.contains(said), "{said:?} not in {err}");
    }
    assert!(
        err.contains("rename the file to keep it as a formula of your own"),
        "{err}"
    );
    assert!(!asked.exists(), "the designer was asked first");
    assert_eq!(repo.commit_count(), before);
    // Only the LLM command set by hand above is changed.
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        " M .beads/vermas.yaml\n"
    );

    // Renamed, it is a formula of its own and cooks with its variables.
    std::fs::rename(
        repo.join(".beads/formulas/mol-spec-planning.formula.toml"),
        repo.join(".beads/formulas/seed-planning.formula.toml"),
    )
    .expect("rename");
    let mut renamed = all.to_vec();
    renamed[2] = "seed-planning";
    let proto = repo.json(&renamed);
    assert_eq!(
        step(&proto, "create-spec")["description"],
        "Approve vm-2 for vm-1."
    );
    // A file that keeps the steps and needs only the request still takes the built-in's
    // place.
    let own = "formula = \"mol-spec-planning\"\nversion = 9\n\
               [[steps]]\nid = \"design\"\ntitle = \"Design {{request}}\"\n\
               [[steps]]\nid = \"create\"\ntitle = \"Create\"\nneeds = [\"design\"]\n\
               [[steps]]\nid = \"strategize\"\ntitle = \"Criteria\"\nneeds = [\"create\"]\n\
               [vars]\nbead_id = \"\"\n[vars.request]\nrequired = true\n";
    repo.write(".beads/formulas/mol-spec-planning.formula.toml", own);
    let proto = repo.json(&["mol", "cook", "mol-spec-planning", "--var", "request=x"]);
    let ids: Vec<String> = shape(&proto).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["design", "create", "strategize"]);
}

/// A review formula in gt's style whose steps speak of `{{rig}}` and `{{pr_title}}` without
/// declaring them: for gt they are the agent's text, not inputs.
const REVIEW_TASK: &str = r#"description = """
Review a change and file beads for what is found.
"""
formula = "review-task"
version = 1

[[steps]]
id = "read"
title = "Read {{issue}}"
description = """
bd show {{issue}}
"""

[[steps]]
id = "escalate"
title = "Escalate what is critical"
needs = ["read"]
description = """
gt mail send {{rig}}/witness -s "CRITICAL in {{pr_title}}" -m "Issue: {{issue}}"
"""

[vars]
[vars.issue]
description = "The tracking issue"
required = true
"#;

#[test]
fn an_undeclared_placeholder_is_left_for_the_agent_and_a_near_typo_still_refused() {
    let typo = REVIEW_TASK.replace("Issue: {{issue}}", "Issue: {{isue}}");
    let repo = repo_with_formulas(&[("review-task", REVIEW_TASK), ("review-typo", &typo)]);
    let proto = repo.json(&["mol", "cook", "review-task", "--var", "issue=gt-7"]);
    assert_eq!(
        shape(&proto),
        expected(&[("read", &[]), ("escalate", &["read"])])
    );
    assert_eq!(step(&proto, "read")["title"], "Read gt-7");
    let text = step(&proto, "escalate")["description"].as_str().unwrap();
    assert_eq!(
        text,
        "gt mail send {{rig}}/witness -s \"CRITICAL in {{pr_title}}\" -m \"Issue: gt-7\"\n"
    );

    let err = cook_fails(&repo, &["review-typo", "--var", "issue=gt-7"]);
    assert!(err.contains("`{{isue}}` is not a variable"), "{err}");
    assert!(err.contains("did you mean `{{issue}}`?"), "{err}");
    assert!(err.contains("review-typo.formula.toml:19:"), "{err}");
}

/// A deploy workflow in gt's style whose steps wait on gates: an inline `gate = { ... }` and
/// a `[steps.gate]` table with an `id`.
const DEPLOY: &str = r#"description = "Ship once CI and a human agree."
formula = "deploy"
version = 1

[[steps]]
id = "build"
title = "Build {{service}}"

[[steps]]
id = "canary"
title = "Canary {{service}}"
needs = ["build"]
gate = { type = "timer", timeout = "1h" }

[[steps]]
id = "promote"
title = "Promote {{service}}"
needs = ["canary"]

[steps.gate]
type = "gh:run"
id = "release-{{service}}"

[vars.service]
required = true
"#;

#[test]
fn a_gated_step_waits_on_a_gate_step_that_is_ready_at_once() {
    let repo = repo_with_formulas(&[("deploy", DEPLOY)]);
    let proto = repo.json(&["mol", "cook", "deploy", "--var", "service=api"]);
    assert_eq!(
        shape(&proto),
        expected(&[
            ("build", &[]),
            ("gate-canary", &[]),
            ("canary", &["build", "gate-canary"]),
            ("gate-promote", &[]),
            ("promote", &["canary", "gate-promote"]),
        ])
    );
    assert_eq!(step(&proto, "gate-canary")["title"], "Gate: timer");
    assert_eq!(
        step(&proto, "gate-promote")["title"],
        "Gate: gh:run release-api"
    );
    assert_eq!(
        step(&proto, "gate-promote")["description"],
        "Async gate for step promote"
    );

    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "the deploy formula"]);
    let bead = repo.create("Ship api", &[]);
    let mol = repo.json(&[
        "mol",
        "pour",
        "deploy",
        "--var",
        "service=api",
        "--bead",
        &bead,
    ]);
    let id = mol["id"].as_str().expect("id").to_string();
    let ready = |repo: &crate::common::Repo| -> Vec<String> {
        repo.json(&["mol", "ready", &id])
            .as_array()
            .expect("ready")
            .iter()
            .map(|s| s["id"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(ready(&repo), ["build", "gate-canary", "gate-promote"]);
    repo.ok(&["mol", "done", &id, "build"]);
    assert_eq!(ready(&repo), ["gate-canary", "gate-promote"]);
    repo.ok(&["mol", "done", &id, "gate-canary"]);
    assert_eq!(ready(&repo), ["canary", "gate-promote"]);
}
