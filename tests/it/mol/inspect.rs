//! The design's own formulas (issue 30): `mol-inspect` with the document's steps (advocate
//! and critic in parallel, the judge after both) run by `mol run` through the Inspector, with
//! the verdict `inspect run` gives; the document's own `mol-inspect` file driven the same
//! way; and `mol skip`, the document's SKIPPED step status.

use crate::common::*;
use crate::specs::support::*;
use serde_json::Value;

/// fizzbuzz.sh with the bug that 15 prints Fizz.
const BUGGY: &str = "#!/bin/sh\nn=$1\nif [ $((n % 3)) -eq 0 ]; then echo Fizz\nelif [ $((n % 5)) -eq 0 ]; then echo Buzz\nelse echo $n; fi\n";
/// fizzbuzz.sh done right.
const FIXED: &str = "#!/bin/sh\nn=$1\nif [ $((n % 15)) -eq 0 ]; then echo FizzBuzz\nelif [ $((n % 3)) -eq 0 ]; then echo Fizz\nelif [ $((n % 5)) -eq 0 ]; then echo Buzz\nelse echo $n; fi\n";

/// The FizzBuzz criteria.
const CRITERIA: &[(&str, &str)] = &[
    ("ac-1", "./fizzbuzz.sh 15 | grep -qx FizzBuzz"),
    ("ac-2", "./fizzbuzz.sh 3 | grep -qx Fizz"),
];

/// A repository with work `vm-fizz`, its test spec (approved or not) and the role
/// stand-in as the LLM.
fn fizz_repo(fizzbuzz: &str, approved: bool) -> Repo {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.write_fizz(CRITERIA, approved);
    write_exec(&repo, "fizzbuzz.sh", fizzbuzz);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "work and spec"]);
    repo
}

/// Pours mol-inspect for vm-fizz; returns the molecule's id.
fn pour_inspect(repo: &Repo) -> String {
    let mol = repo.json(&["mol", "pour", "mol-inspect", "--bead", "vm-fizz"]);
    mol["id"].as_str().expect("id").to_string()
}

/// The steps of molecule `id` as (step, status, output or reason).
fn steps(repo: &Repo, id: &str) -> Vec<(String, String, String)> {
    let m = repo.json(&["mol", "show", id]);
    m["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| {
            let text = s["output"]
                .as_str()
                .or(s["reason"].as_str())
                .unwrap_or_default();
            (
                s["id"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
                text.to_string(),
            )
        })
        .collect()
}

/// The verdict `inspect run --json` gives in `repo`.
fn inspect_run_verdict(repo: &Repo, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let r = run_env(repo, &["inspect", "run", "vm-fizz", "--json"], env);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    (
        r.code,
        v["verdict"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn mol_run_drives_each_step_and_gives_inspect_runs_verdict() {
    for (script, env_verdict, verdict, code) in [
        (FIXED, "PASS", "PASS", 0),
        (BUGGY, "PASS", "FAIL", 1),
        (FIXED, "NEEDS_HUMAN", "NEEDS_HUMAN", 4),
    ] {
        let env = [("FAKE_VERDICT", env_verdict)];
        let (inspect_code, inspect_verdict) = inspect_run_verdict(&fizz_repo(script, true), &env);
        assert_eq!(
            (inspect_code, inspect_verdict.as_str()),
            (Some(code), verdict)
        );

        let repo = fizz_repo(script, true);
        let id = pour_inspect(&repo);
        let before = repo.commit_count();
        let r = run_env(&repo, &["mol", "run", &id], &env);
        r.expect_code(code);
        assert!(
            r.stdout
                .ends_with(&format!("{id}: {verdict} for vm-fizz\n")),
            "{}",
            r.stdout
        );
        assert_eq!(
            repo.commit_count(),
            before + 1,
            "the verdict and the steps are one commit"
        );
        let subject = repo.git(&["log", "-1", "--format=%s"]);
        assert!(
            subject.starts_with(&format!(
                "vermas mol run: {id} {verdict} Implement FizzBuzz"
            )),
            "{subject}"
        );
        let s = steps(&repo, &id);
        let ids: Vec<&str> = s.iter().map(|(i, _, _)| i.as_str()).collect();
        assert_eq!(
            ids,
            ["verify", "audit", "advocate", "critic", "judge", "route"]
        );
        assert!(
            s.iter().all(|(_, status, _)| status == "completed"),
            "{s:?}"
        );
        assert!(s[0].2.starts_with("2 criteria: "), "{s:?}");
        assert!(s[1].2.contains("ac-1: "), "{s:?}");
        assert!(s[2].2.contains("BRIEF (advocate)"), "{s:?}");
        assert!(s[3].2.contains("BRIEF (critic)"), "{s:?}");
        assert!(
            s[4].2.starts_with(env_verdict),
            "the judge's own answer: {s:?}"
        );
        assert!(s[5].2.starts_with(verdict), "{s:?}");
        let record = repo.read(".beads/results/vm-fizz.yaml");
        assert!(record.contains(&format!("verdict: {verdict}")), "{record}");
        assert_eq!(repo.git(&["status", "--porcelain"]), "");
        // A complete molecule is not inspected twice.
        let again = run(&repo, &["mol", "run", &id]);
        again.expect_code(2);
        assert!(again.stderr.contains("is complete"), "{}", again.stderr);
    }
}

#[test]
fn an_inspection_that_stops_early_skips_the_steps_it_never_reached() {
    let repo = fizz_repo(FIXED, false);
    let (code, verdict) = inspect_run_verdict(&fizz_repo(FIXED, false), &[]);
    let id = pour_inspect(&repo);
    let r = run(&repo, &["mol", "run", &id]);
    r.expect_code(code.expect("an exit code"));
    assert!(
        r.stdout.contains(&format!(": {verdict} for vm-fizz")),
        "{}",
        r.stdout
    );
    let s = steps(&repo, &id);
    for (step, status, why) in &s[..5] {
        assert_eq!(status, "skipped", "{step}: {s:?}");
        assert!(why.starts_with("not run: "), "{why}");
        assert!(why.contains("not approved"), "{why}");
    }
    assert_eq!(s[5].1, "completed", "the verdict is still routed");
    let shown = repo.ok(&["mol", "show", &id]);
    assert!(
        shown.contains("[-] advocate  Build defense  (skipped)"),
        "{shown}"
    );
    assert!(shown.contains("6/6 steps complete"), "{shown}");
}

/// The design document's own mol-inspect file, as its Phase 9 writes it.
const DOCUMENT_MOL_INSPECT: &str = r#"description = """
Inspector verification workflow.
Runs the full adversarial verification process.
"""

formula = "mol-inspect"
version = 1

[[steps]]
id = "verify"
title = "Run objective verification"
description = """
Verifier runs test commands from test spec.
No LLM needed - just shell execution.

Commands:
  gt inspect verify {{bead_id}}

Exit: All test results captured
"""

[[steps]]
id = "audit"
title = "Check compliance"
needs = ["verify"]
description = """
Auditor checks work against acceptance criteria.

Commands:
  gt inspect audit {{bead_id}}

Exit: Compliance report generated
"""

[[steps]]
id = "advocate"
title = "Build defense"
needs = ["audit"]
description = """
Advocate reviews evidence and argues FOR the code.

Commands:
  gt advocate build {{bead_id}}

Exit: Defense brief submitted
"""

[[steps]]
id = "critic"
title = "Build prosecution"
needs = ["audit"]
description = """
Critic reviews evidence and argues AGAINST the code.
Runs in parallel with Advocate.

Commands:
  gt critic build {{bead_id}}

Exit: Prosecution brief submitted
"""

[[steps]]
id = "judge"
title = "Deliver verdict"
needs = ["advocate", "critic"]
description = """
Judge reviews all evidence and briefs.
Delivers PASS, FAIL, or NEEDS_HUMAN.

Commands:
  gt judge deliberate {{bead_id}}

If NEEDS_HUMAN:
  gt mail send mayor/ -s "NEEDS_CLARIFICATION" -m "<question>"
  gt mol await-signal mayor-response

Exit: Verdict delivered
"""

[[steps]]
id = "route"
title = "Route verdict"
needs = ["judge"]
description = """
Route based on verdict:
- PASS → signal refinery to merge
- FAIL → mail mayor with feedback
- NEEDS_HUMAN → wait for response, re-judge

Commands:
  gt inspect route {{bead_id}}
"""

[vars]
[vars.bead_id]
description = "The work item being verified"
required = true
"#;

#[test]
fn the_documents_own_mol_inspect_file_cooks_and_runs() {
    let repo = fizz_repo(FIXED, true);
    repo.write(
        ".beads/formulas/mol-inspect.formula.toml",
        DOCUMENT_MOL_INSPECT,
    );
    let proto = repo.json(&["mol", "cook", "mol-inspect", "--var", "bead_id=vm-fizz"]);
    let needs_of = |id: &str| -> Vec<String> {
        proto["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| {
                s["needs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap()
    };
    assert_eq!(needs_of("judge"), ["advocate", "critic"]);
    let id = pour_inspect(&repo);
    // Advocate and critic are both ready once audit is done, by hand as by the run.
    repo.ok(&["mol", "done", &id, "verify"]);
    repo.ok(&["mol", "done", &id, "audit"]);
    let ready = repo.json(&["mol", "ready", &id]);
    let ready: Vec<&str> = ready
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ready, ["advocate", "critic"]);
    let r = run(&repo, &["mol", "run", &id]);
    r.expect_code(0);
    let s = steps(&repo, &id);
    assert!(s.iter().all(|(_, st, _)| st == "completed"), "{s:?}");
    assert_eq!(s[0].2, "", "a step done by hand keeps what it had");
    assert!(s[4].2.starts_with("PASS"), "{s:?}");
}

#[test]
fn mol_run_without_a_handler_is_for_mol_inspect_only() {
    let repo = Repo::initialised();
    let bead = repo.create("work", &[]);
    let mol = repo.json(&["mol", "pour", "mol-polecat-work", "--bead", &bead]);
    let id = mol["id"].as_str().unwrap();
    let err = repo.fails(&["mol", "run", id], 2);
    assert!(
        err.contains("only a mol-inspect molecule with the steps verify, audit, advocate, critic, judge, route runs without a handler"),
        "{err}"
    );
}

#[test]
fn a_skipped_step_lets_its_dependents_go_on_and_shows_in_the_digest() {
    let repo = Repo::initialised();
    let bead = repo.create("work", &[]);
    let mol = repo.json(&["mol", "pour", "mol-inspect", "--bead", &bead]);
    let id = mol["id"].as_str().unwrap().to_string();
    repo.ok(&["mol", "done", &id, "verify"]);
    repo.ok(&["mol", "done", &id, "audit"]);
    repo.ok(&["mol", "done", &id, "advocate"]);
    let before = repo.commit_count();
    let out = repo.ok(&[
        "mol",
        "skip",
        &id,
        "critic",
        "--reason",
        "one brief is enough here",
    ]);
    assert!(
        out.starts_with(&format!(
            "Skipped step critic of {id} (4/6 steps): one brief is enough here"
        )),
        "{out}"
    );
    assert!(out.contains("Ready now: judge"), "{out}");
    assert_eq!(repo.commit_count(), before + 1);
    assert!(
        repo.git(&["log", "-1", "--format=%s"])
            .starts_with(&format!("vermas mol skip: {id}"))
    );
    let shown = repo.ok(&["mol", "show", &id]);
    assert!(
        shown.contains(
            "  [-] critic  Build prosecution  (skipped)\n        reason: one brief is enough here"
        ),
        "{shown}"
    );
    // A skip needs a reason, and a step done stays done.
    repo.fails(&["mol", "skip", &id, "judge"], 2);
    let err = repo.fails(&["mol", "skip", &id, "audit", "--reason", "x"], 2);
    assert!(err.contains("already completed"), "{err}");
    repo.ok(&["mol", "done", &id, "judge"]);
    repo.ok(&["mol", "skip", &id, "route", "--reason", "routed by hand"]);
    let squashed = repo.ok(&["mol", "squash", &id]);
    assert!(
        squashed.contains("(mol-inspect, 6/6 steps, 2 skipped)"),
        "{squashed}"
    );
    let digest = repo.read(&format!(".beads/mols/archive/{id}.yaml"));
    assert!(digest.contains("status: skipped"), "{digest}");
    assert!(
        digest.contains("reason: one brief is enough here"),
        "{digest}"
    );
}
