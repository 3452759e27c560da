//! The FizzBuzz walk-through from `create` to `sling`, a forced sling, and what show/approve/sling report.

use super::*;

#[test]
fn the_fizzbuzz_walk_through_from_create_to_sling() {
    let repo = Repo::initialised_with_test_specs();
    repo.git(&["config", "user.name", "alice"]);
    let before = repo.commit_count();
    let work = repo.ok(&["q", "Implement FizzBuzz"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    assert_eq!(
        repo.commit_count(),
        before + 1,
        "work, spec and mail in one commit"
    );
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        files.contains(&format!(".beads/issues/{work}.md")),
        "{files}"
    );
    assert!(
        files.contains(&format!(".beads/issues/{spec}.md")),
        "{files}"
    );
    assert!(files.contains(".beads/mail/inspector/"), "{files}");
    assert!(
        mail_subjects(&repo, "inspector/")
            .contains(&"NEW SPEC NEEDED: Implement FizzBuzz".to_string())
    );
    assert!(!ready(&repo).contains(&work), "work waits for its spec");
    // list shows no test specs unless asked.
    let listed = repo.json(&["list"]);
    let ids: Vec<&str> = listed
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert_eq!(ids, [work.as_str()]);
    assert!(
        repo.json(&["list", "-t", "test-spec"])
            .to_string()
            .contains(&spec)
    );
    let pending = repo.json(&["inspect", "pending"]);
    assert_eq!(pending[0]["id"], spec.as_str());

    // Not approved: sling is refused and says how to approve.
    let err = repo.fails(&["sling", &work, "polecat"], 2);
    assert!(
        err.contains(&format!("vermas inspect approve {spec}")),
        "{err}"
    );
    // Approving with no criteria is refused.
    let err = repo.fails(&["inspect", "approve", &spec], 2);
    assert!(err.contains("no criteria"), "{err}");

    for (d, cmd) in [
        ("15 prints FizzBuzz", "./fizzbuzz.sh 15 | grep -qx FizzBuzz"),
        ("3 prints Fizz", "./fizzbuzz.sh 3 | grep -qx Fizz"),
        ("5 prints Buzz", "./fizzbuzz.sh 5 | grep -qx Buzz"),
    ] {
        repo.ok(&["inspect", "add-criteria", &spec, "-d", d, "--cmd", cmd]);
    }
    // A rubric target is checked when it is added: it must exist and define the function.
    repo.write(
        "tests/judges/fizz.sh",
        "test_idiomatic() {\n  judge_files fizzbuzz.sh\n  judge_criterion \"Idiomatic shell\"\n}\n",
    );
    let out = repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "Idiomatic",
        "--judge",
        "tests/judges/fizz.sh#test_idiomatic",
    ]);
    assert!(out.contains("Added ac-4"), "{out}");
    // Approval freezes the checks as committed: the rubric is committed first.
    let err = repo.fails(&["inspect", "approve", &spec], 2);
    assert!(
        err.contains("the check file tests/judges/fizz.sh is not committed"),
        "{err}"
    );
    repo.git(&["add", "tests/judges/fizz.sh"]);
    repo.git(&["commit", "-q", "-m", "the rubric"]);
    repo.ok(&["inspect", "approve", &spec]);
    assert!(
        mail_subjects(&repo, "mayor/")
            .iter()
            .any(|s| s.starts_with("SPEC APPROVED"))
    );
    assert!(ready(&repo).contains(&work), "approved: the work is ready");
    let shown = repo.json(&["inspect", "show", &work]);
    assert_eq!(shown["spec"]["approved"], true);
    assert_eq!(shown["spec"]["criteria"].as_array().map(Vec::len), Some(4));

    let before = repo.commit_count();
    let out = repo.ok(&["sling", &work, "polecat"]);
    assert!(out.contains("mailed polecat/"), "{out}");
    assert_eq!(repo.commit_count(), before + 1);
    let bead = &repo.json(&["show", &work])[0];
    assert_eq!(bead["status"], "in_progress");
    assert_eq!(bead["assignee"], "polecat");
    let assigned = mail_subjects(&repo, "polecat/");
    assert!(
        assigned.contains(&"WORK ASSIGNED: Implement FizzBuzz".to_string()),
        "{assigned:?}"
    );

    // The agent delivers a buggy fizzbuzz.sh (15 prints Fizz): the Inspector rejects it.
    let llm = roles_llm();
    repo.write_llm_command(&llm.display().to_string());
    write_exec(
        &repo,
        "fizzbuzz.sh",
        "#!/bin/sh\nn=$1\nif [ $((n % 3)) -eq 0 ]; then echo Fizz\nelif [ $((n % 5)) -eq 0 ]; then echo Buzz\nelse echo $n; fi\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "fizzbuzz"]);
    let r = run(&repo, &["inspect", "run", &work]);
    r.expect_code(1);
    assert_eq!(repo.json(&["show", &work])[0]["status"], "rejected");
    assert!(mail_subjects(&repo, "mayor/").contains(&"REJECTED: Implement FizzBuzz".to_string()));
    let shown = repo.ok(&["inspect", "show", &work]);
    assert!(shown.contains("latest verdict: FAIL"), "{shown}");
    let feedback = repo.ok(&["inspect", "feedback", &work]);
    assert!(
        feedback.contains("ac-1") && feedback.contains("15 prints FizzBuzz"),
        "{feedback}"
    );

    // Fixed: verified.
    write_exec(
        &repo,
        "fizzbuzz.sh",
        "#!/bin/sh\nn=$1\nif [ $((n % 15)) -eq 0 ]; then echo FizzBuzz\nelif [ $((n % 3)) -eq 0 ]; then echo Fizz\nelif [ $((n % 5)) -eq 0 ]; then echo Buzz\nelse echo $n; fi\n",
    );
    repo.git(&["commit", "-qam", "fix 15"]);
    let r = run(&repo, &["inspect", "run", &work]);
    r.expect_code(0);
    assert!(
        repo.json(&["show", &work])[0]["labels"]
            .to_string()
            .contains("verified")
    );
    assert!(mail_subjects(&repo, "mayor/").contains(&"VERIFIED: Implement FizzBuzz".to_string()));
    assert_eq!(
        repo.json(&["inspect", "show", &work])["latest"]["verdict"],
        "PASS"
    );
    repo.assert_fsck();
}

#[test]
fn an_emergency_sling_is_forced_with_a_reason_on_record() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Hotfix"]).trim().to_string();
    let r = run(&repo, &["sling", &work, "--force"]);
    r.expect_code(2);
    assert!(r.stderr.contains("--reason"), "{}", r.stderr);
    let r = run(
        &repo,
        &[
            "sling",
            &work,
            "oncall",
            "--force",
            "--reason",
            "prod is down",
        ],
    );
    r.expect_code(0);
    assert!(r.stderr.contains("past its test-spec gate"), "{}", r.stderr);
    let bead = &repo.json(&["show", &work])[0];
    assert!(
        bead["labels"].to_string().contains("gate-bypassed"),
        "{bead:#}"
    );
    assert!(
        bead["notes"]
            .to_string()
            .contains("GATE_BYPASS: prod is down (by "),
        "{bead:#}"
    );
}

#[test]
fn show_approve_and_sling_report_what_they_did() {
    let repo = Repo::initialised_with_test_specs();
    repo.git(&["config", "user.name", "alice"]);
    let work = repo.create("Parse dates", &[]);
    let spec = work.replacen("vm-", "vm-spec-", 1);
    write_exec(&repo, "tests/dates.sh", "test_iso() { true; }\n");
    repo.write(
        "tests/judges/dates.sh",
        "test_clear() { judge_criterion x; }\n",
    );
    repo.ok(&[
        "inspect",
        "add-criteria",
        &work,
        "-d",
        "ISO dates parse",
        "--verify",
        "tests/dates.sh#test_iso",
    ]);
    let added = repo.json(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "Clear errors",
        "--judge",
        "tests/judges/dates.sh#test_clear",
    ]);
    assert_eq!(added["criterion"], "ac-2");
    let text = repo.ok(&["inspect", "show", &spec]);
    assert!(
        text.contains(&format!("test spec {spec}: pending approval")),
        "{text}"
    );
    assert!(
        text.contains("ac-1 ISO dates parse\n      verify: tests/dates.sh#test_iso"),
        "{text}"
    );
    assert!(
        text.contains("ac-2 Clear errors\n      judge: tests/judges/dates.sh#test_clear"),
        "{text}"
    );
    let shown = repo.json(&["inspect", "show", &spec]);
    assert_eq!(
        shown["work"]["id"],
        work.as_str(),
        "a spec id shows its work"
    );
    assert_eq!(shown["spec"]["approved"], false);
    assert_eq!(shown["spec"]["criteria"][1]["kind"], "judge");
    assert_eq!(shown["latest"], serde_json::Value::Null);

    repo.git(&["add", "tests"]);
    repo.git(&["commit", "-q", "-m", "the checks"]);
    let before = repo.commit_count();
    let approved = repo.json(&["inspect", "approve", &spec]);
    assert_eq!(approved["approved"], true);
    assert_eq!(repo.commit_count(), before + 1, "approve is one commit");
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(files.contains(".beads/mail/mayor/"), "{files}");
    assert_eq!(bead(&repo, &spec)["close_reason"], "approved");
    assert!(
        mail_subjects(&repo, "mayor/")
            .contains(&"SPEC APPROVED: Test spec: Parse dates".to_string())
    );
    let err = repo.fails(&["inspect", "approve", &spec], 2);
    assert!(err.contains("approved already"), "{err}");
    // Approved criteria are frozen: reopen to change them.
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "More",
            "--cmd",
            "true",
        ],
        2,
    );
    assert!(err.contains(&format!("vermas reopen {spec}")), "{err}");
    assert!(repo.ok(&["inspect", "show", &work]).contains("approved"));

    // A test spec is not work; an agent that is an address is mailed there.
    let err = repo.fails(&["sling", &spec], 2);
    assert!(err.contains(&format!("sling {work} instead")), "{err}");
    let err = repo.fails(&["sling", &work, "bad name"], 2);
    assert!(err.contains("not a mail address"), "{err}");
    let err = repo.fails(&["sling", &work, "--reason", "why"], 2);
    assert!(err.contains("--force"), "{err}");
    let before = repo.commit_count();
    let slung = repo.json(&["sling", &work, "gastown/polecat"]);
    assert_eq!(slung["mailed"], "gastown/polecat");
    assert_eq!(slung["forced"], false);
    assert_eq!(repo.commit_count(), before + 1);
    let inbox = repo.json(&["mail", "inbox", "gastown/polecat"]);
    assert_eq!(inbox[0]["subject"], "WORK ASSIGNED: Parse dates");
    let body = inbox[0]["body"].as_str().unwrap_or_default();
    assert!(
        body.contains("- ac-1: ISO dates parse  (verify: tests/dates.sh#test_iso)"),
        "{body}"
    );
    assert!(
        body.contains("- ac-2: Clear errors  (judge: tests/judges/dates.sh#test_clear)"),
        "{body}"
    );
    // Slung by the actor to nobody else: the actor's own mailbox.
    let other = repo.create("Other", &["--no-spec"]);
    let r = run(&repo, &["sling", &other, "--force", "--reason", "tiny"]);
    r.expect_code(0);
    assert_eq!(bead(&repo, &other)["assignee"], "alice");
    assert!(mail_subjects(&repo, "alice/").contains(&"WORK ASSIGNED: Other".to_string()));
}
