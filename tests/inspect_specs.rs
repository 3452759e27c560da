//! The Inspector's spec side end to end: test specs created with their work (the default),
//! criteria added and approved, and `sling` held back until then (or forced, on record).

mod common;
mod live_support;

use common::*;
use live_support::*;

/// Subjects of the messages in `mailbox`.
fn mail_subjects(repo: &Repo, mailbox: &str) -> Vec<String> {
    repo.json(&["mail", "inbox", mailbox])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|m| m["subject"].as_str().map(str::to_string))
        .collect()
}

/// Ids `ready` lists.
fn ready(repo: &Repo) -> Vec<String> {
    repo.json(&["ready", "-n", "0"])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["id"].as_str().map(str::to_string))
        .collect()
}

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
    let llm = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/llm-roles");
    repo.write_llm_command(&llm.display().to_string());
    repo.write(
        "tests/judges/fizz.sh",
        "test_idiomatic() {\n  judge_files fizzbuzz.sh\n  judge_criterion \"Idiomatic shell\"\n}\n",
    );
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
fn no_spec_and_auto_create_false_skip_the_test_spec() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Tiny", "--no-spec"]).trim().to_string();
    assert!(ready(&repo).contains(&work));
    assert_eq!(
        repo.json(&["inspect", "pending"]).as_array().map(Vec::len),
        Some(0)
    );
    // An epic never gets one.
    repo.ok(&["q", "Big theme", "-t", "epic"]);
    assert_eq!(
        repo.json(&["inspect", "pending"]).as_array().map(Vec::len),
        Some(0)
    );
    // create-spec makes one for existing work, once.
    repo.ok(&["inspect", "create-spec", &work]);
    assert_eq!(
        repo.json(&["inspect", "pending"]).as_array().map(Vec::len),
        Some(1)
    );
    let err = repo.fails(&["inspect", "create-spec", &work], 2);
    assert!(err.contains("already has test spec"), "{err}");
}

#[test]
fn add_criteria_refuses_bad_input() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Thing"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    let before = repo.commit_count();
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--cmd",
            "if then fi (",
        ],
        2,
    );
    assert!(err.contains("does not parse as shell"), "{err}");
    let r = run(
        &repo,
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--cmd",
            "true",
            "--verify",
            "t.sh#f",
        ],
    );
    r.expect_code(2);
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--verify",
            "/etc/passwd#f",
        ],
        2,
    );
    assert!(err.contains("absolute path"), "{err}");
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            "vm-nope",
            "-d",
            "x",
            "--cmd",
            "true",
        ],
        2,
    );
    assert!(err.contains("vm-nope"), "{err}");
    assert_eq!(repo.commit_count(), before, "nothing recorded");
}

#[test]
fn audit_plan_hooks_run_around_test_spec_creation_and_a_pre_hook_stops_it() {
    let repo = Repo::initialised_with_test_specs();
    let log = repo.join("plan.log");
    let record = format!(
        "#!/bin/sh\n{{ printf '%s ' \"$VERMAS_HOOK\"; cat; echo; }} >> '{}'\n",
        log.display()
    );
    write_exec(&repo, ".beads/hooks/PreAuditPlan", &record);
    write_exec(&repo, ".beads/hooks/PostAuditPlan", &record);
    let work = repo.ok(&["q", "Planned"]).trim().to_string();
    let text = std::fs::read_to_string(&log).expect("hooks ran");
    assert!(text.starts_with("PreAuditPlan {"), "{text}");
    assert!(
        text.contains(&format!("PostAuditPlan {{\"bead_id\":\"{work}\"")),
        "{text}"
    );
    write_exec(
        &repo,
        ".beads/hooks/PreAuditPlan",
        "#!/bin/sh\necho 'planning is closed' >&2\nexit 1\n",
    );
    let before = repo.commit_count();
    let err = repo.fails(&["q", "Refused"], 2);
    assert!(err.contains("planning is closed"), "{err}");
    assert_eq!(repo.commit_count(), before, "nothing was created");
}
