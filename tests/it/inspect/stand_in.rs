//! `vermas stand-in`: the Inspector tried end to end without a model. It answers every
//! role from the checks alone (FAIL naming the failing criterion, PASS when all passed),
//! and every report says that no model spoke.

use crate::common::*;
use crate::specs::support::*;

#[test]
fn the_pipeline_runs_on_the_stand_in_and_says_so() {
    let repo = Repo::initialised_with_test_specs();
    let bin = vermas_bin().display().to_string();
    repo.ok(&["config", "set", "llm.command", &format!("{bin} stand-in")]);
    write_exec(&repo, "fizz.sh", "#!/bin/sh\necho \"$1\"\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "fizz"]);
    let (work, _) = repo.approved_work(
        "Fizz",
        "15 is FizzBuzz",
        ["--cmd", "./fizz.sh 15 | grep -qx FizzBuzz"],
    );
    let r = run(&repo, &["inspect", "run", &work]);
    r.expect_code(1);
    assert!(r.stdout.contains("auditor: ac-1 not met"), "{}", r.all());
    assert!(
        r.stdout.contains("roles: vermas's stand-in, not a model"),
        "{}",
        r.all()
    );
    assert!(r.stderr.contains("not a model"), "{}", r.all());
    let result = repo.read(&format!(".beads/results/{work}.yaml"));
    assert!(
        result.contains("[vermas stand-in: not a model]"),
        "{result}"
    );
    write_exec(
        &repo,
        "fizz.sh",
        "#!/bin/sh\n[ $(($1 % 15)) -eq 0 ] && echo FizzBuzz || echo \"$1\"\n",
    );
    repo.git(&["commit", "-q", "-am", "fix"]);
    let r = run(&repo, &["inspect", "run", &work]);
    r.expect_code(0);
    assert!(
        r.stdout.contains("PASS (confidence 0.90): 1 check passed"),
        "{}",
        r.all()
    );
    assert!(
        repo.json(&["show", &work])[0]["labels"]
            .to_string()
            .contains("verified")
    );
}

#[test]
fn the_stand_in_answers_a_role_prompt_on_stdin() {
    let repo = Repo::new();
    let out = repo
        .cmd(&["stand-in"])
        .write_stdin("ROLE: judge\n\nCRITERION ac-1\n<<<DATA x\nd\ncheck (cmd): c\noutcome: PASS\nDATA x>>>\n")
        .output()
        .expect("run");
    let text = stdout(&out);
    assert!(text.starts_with("[vermas stand-in: not a model]"), "{text}");
    assert!(text.contains("\"verdict\":\"PASS\""), "{text}");
}
