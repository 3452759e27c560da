//! The Inspector's spec side end to end: test specs created with their work (the default),
//! criteria added and approved, and `sling` held back until then (or forced, on record).

use crate::common::*;
use crate::live_support::*;

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
fn no_spec_and_epics_skip_the_test_spec_and_create_spec_adds_one_once() {
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
            "../../etc/passwd#f",
        ],
        2,
    );
    // A leading `/` is the repository root (as on GitHub); climbing out is what is refused.
    assert!(err.contains("leaves the repository"), "{err}");
    let r = run(&repo, &["inspect", "add-criteria", &spec, "-d", "x"]);
    r.expect_code(2);
    assert!(r.stderr.contains("--cmd"), "{}", r.stderr);
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "two\nlines",
            "--cmd",
            "true",
        ],
        2,
    );
    assert!(err.contains("one non-empty line"), "{err}");
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--judge",
            "j.sh#",
        ],
        2,
    );
    assert!(err.contains("empty function name"), "{err}");
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

/// The bead `id` as `show --json` gives it.
fn bead(repo: &Repo, id: &str) -> serde_json::Value {
    repo.json(&["show", id])[0].clone()
}

/// Ids of the open test specs, as `inspect pending` orders them.
fn pending(repo: &Repo) -> Vec<String> {
    repo.json(&["inspect", "pending"])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn tasks_features_and_bugs_get_a_test_spec_in_their_one_commit_and_nothing_else_does() {
    let repo = Repo::initialised_with_test_specs();
    for kind in ["task", "feature", "bug"] {
        let before = repo.commit_count();
        let created = repo.json(&["create", &format!("A {kind}"), "-t", kind]);
        let work = created["id"].as_str().expect("id").to_string();
        assert_eq!(repo.commit_count(), before + 1, "{kind}: one commit");
        let spec_id = work.replacen("vm-", "vm-spec-", 1);
        let spec = bead(&repo, &spec_id);
        assert_eq!(spec["issue_type"], "test-spec", "{spec:#}");
        assert_eq!(spec["parent"], work.as_str(), "{spec:#}");
        assert_eq!(spec["status"], "open", "{spec:#}");
        let deps = bead(&repo, &work)["dependencies"].to_string();
        assert!(
            deps.contains(&spec_id) && deps.contains("blocks"),
            "{kind}: {deps}"
        );
        let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
        assert!(
            files.contains(&format!(".beads/issues/{spec_id}.md")),
            "{files}"
        );
        assert!(files.contains(".beads/mail/inspector/"), "{files}");
        assert!(
            mail_subjects(&repo, "inspector/").contains(&format!("NEW SPEC NEEDED: A {kind}")),
            "{kind}"
        );
    }
    assert_eq!(pending(&repo).len(), 3);
    for kind in ["epic", "chore", "message", "test-spec"] {
        let before = repo.commit_count();
        repo.ok(&["q", &format!("A {kind}"), "-t", kind]);
        assert_eq!(repo.commit_count(), before + 1);
        let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
        assert_eq!(
            files.trim().lines().count(),
            1,
            "{kind}: only its file: {files}"
        );
    }
    // The hand-made test spec is pending too; no other spec appeared.
    assert_eq!(pending(&repo).len(), 4);
    let err = repo.fails(&["inspect", "create-spec", &pending(&repo)[3]], 2);
    assert!(err.contains("is itself a test spec"), "{err}");
}

#[test]
fn auto_create_false_and_no_spec_create_the_work_alone() {
    let repo = Repo::initialised_with_test_specs();
    let before = repo.commit_count();
    let work = repo.create("Tiny", &["--no-spec"]);
    assert_eq!(repo.commit_count(), before + 1);
    assert!(ready(&repo).contains(&work), "no spec: ready at once");
    assert!(mail_subjects(&repo, "inspector/").is_empty());
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    let plain = repo.create("Plain task", &[]);
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.trim(), format!(".beads/issues/{plain}.md"), "{files}");
    assert!(ready(&repo).contains(&plain));
    assert!(pending(&repo).is_empty());
    // Sling of work with no test spec names the command that creates one.
    let err = repo.fails(&["sling", &plain, "polecat"], 2);
    assert!(
        err.contains("has no test spec")
            && err.contains(&format!("vermas inspect create-spec {plain}")),
        "{err}"
    );
    let before = repo.commit_count();
    let created = repo.json(&["inspect", "create-spec", &plain]);
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(created["work"], plain.as_str());
    assert!(!ready(&repo).contains(&plain), "now it waits for its spec");
}

#[test]
fn pending_lists_open_test_specs_oldest_first_and_ready_shows_them_when_asked() {
    let repo = Repo::initialised_with_test_specs();
    let mut made = Vec::new();
    // Created out of time order: pending follows created_at, not creation order.
    for (title, at) in [
        ("Third", "3000000000"),
        ("First", "1000000000"),
        ("Second", "2000000000"),
    ] {
        let r = run_env(&repo, &["q", title], &[("VERMAS_NOW", at)]);
        r.expect_code(0);
        made.push(r.stdout.trim().replacen("vm-", "vm-spec-", 1));
    }
    assert_eq!(
        pending(&repo),
        [made[1].clone(), made[2].clone(), made[0].clone()]
    );
    let text = repo.ok(&["inspect", "pending"]);
    assert!(text.contains("0 criteria  Test spec: First"), "{text}");
    repo.ok(&[
        "inspect",
        "add-criteria",
        &made[2],
        "-d",
        "works",
        "--cmd",
        "true",
    ]);
    let text = repo.ok(&["inspect", "pending"]);
    assert!(text.contains("1 criterion  Test spec: Second"), "{text}");
    repo.ok(&["inspect", "approve", &made[2]]);
    assert_eq!(
        pending(&repo),
        [made[1].clone(), made[0].clone()],
        "approved specs leave"
    );
    let asked: Vec<String> = repo
        .json(&["ready", "-t", "test-spec"])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked.contains(&made[0]) && asked.contains(&made[1]));
    assert!(ready(&repo).iter().all(|id| !id.contains("-spec-")));
    let err = repo.fails(&["ready", "-t", "nonsense"], 2);
    assert!(err.contains("nonsense"), "{err}");
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
