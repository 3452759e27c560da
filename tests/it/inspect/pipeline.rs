//! The Inspector's pipeline end to end: `inspect run` on a real repository with a work
//! bead and its approved test spec, the role-aware LLM stand-in (fixtures/llm-roles), and
//! real git: one commit per run, routing by verdict, and the rules no LLM can override.

use crate::common::*;
use crate::specs::support::*;

/// A repository with work `vm-fizz` and its approved test spec of `criteria`
/// (`(id, command)` pairs), fizzbuzz.sh as given, and the role stand-in as the LLM.
fn fizz_repo(fizzbuzz: &str, criteria: &[(&str, &str)], approved: bool) -> Repo {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.write_fizz(criteria, approved);
    write_exec(&repo, "fizzbuzz.sh", fizzbuzz);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "work and spec"]);
    repo
}

/// fizzbuzz.sh with the bug that 15 prints Fizz.
const BUGGY: &str = "#!/bin/sh\nn=$1\nif [ $((n % 3)) -eq 0 ]; then echo Fizz\nelif [ $((n % 5)) -eq 0 ]; then echo Buzz\nelse echo $n; fi\n";
/// fizzbuzz.sh done right.
const FIXED: &str = "#!/bin/sh\nn=$1\nif [ $((n % 15)) -eq 0 ]; then echo FizzBuzz\nelif [ $((n % 3)) -eq 0 ]; then echo Fizz\nelif [ $((n % 5)) -eq 0 ]; then echo Buzz\nelse echo $n; fi\n";

/// The FizzBuzz criteria.
const CRITERIA: &[(&str, &str)] = &[
    ("ac-1", "./fizzbuzz.sh 15 | grep -qx FizzBuzz"),
    ("ac-2", "./fizzbuzz.sh 3 | grep -qx Fizz"),
    ("ac-3", "./fizzbuzz.sh 5 | grep -qx Buzz"),
];

/// The front matter of bead `id`, as JSON.
fn bead(repo: &Repo, id: &str) -> serde_json::Value {
    repo.json(&["show", id])[0].clone()
}

/// Subjects of the messages in mailbox `mayor`.
fn mayor_mail(repo: &Repo) -> Vec<String> {
    let v = repo.json(&["mail", "inbox", "mayor/"]);
    v.as_array()
        .expect("array")
        .iter()
        .filter_map(|m| m["subject"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_failing_criterion_rejects_the_work_and_a_fix_verifies_it() {
    let repo = fizz_repo(BUGGY, CRITERIA, true);
    let before = repo.commit_count();
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz"],
        &[("FAKE_VERDICT", "PASS")],
    );
    r.expect_code(1);
    assert!(r.stdout.contains("[FAIL] ac-1"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("judge said PASS; overruled by ac-1 failing"),
        "{}",
        r.stdout
    );
    assert_eq!(
        repo.commit_count(),
        before + 1,
        "the whole run is one commit"
    );
    assert_eq!(bead(&repo, "vm-fizz")["status"], "rejected");
    let report = bead(&repo, "vm-fizz.1");
    assert_eq!(report["issue_type"], "verification-result");
    assert_eq!(report["parent"], "vm-fizz");
    assert!(
        mayor_mail(&repo)
            .iter()
            .any(|s| s == "REJECTED: Implement FizzBuzz")
    );
    let record = repo.read(".beads/results/vm-fizz.yaml");
    assert!(record.contains("verdict: FAIL"), "{record}");
    let feedback = run(&repo, &["inspect", "feedback", "vm-fizz"]);
    feedback.expect_code(0);
    assert!(feedback.stdout.contains("ac-1"), "{}", feedback.stdout);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    write_exec(&repo, "fizzbuzz.sh", FIXED);
    repo.git(&["commit", "-qam", "fix 15"]);
    let before = repo.commit_count();
    let r = run(&repo, &["inspect", "run", "vm-fizz"]);
    r.expect_code(0);
    assert_eq!(repo.commit_count(), before + 1);
    let work = bead(&repo, "vm-fizz");
    assert!(
        work["labels"]
            .as_array()
            .expect("labels")
            .iter()
            .any(|l| l == "verified"),
        "{work:#}"
    );
    assert!(
        mayor_mail(&repo)
            .iter()
            .any(|s| s == "VERIFIED: Implement FizzBuzz")
    );
    let status = run(&repo, &["inspect", "status"]);
    assert!(
        status.stdout.contains("vm-fizz") && status.stdout.contains("PASS"),
        "{}",
        status.stdout
    );
    repo.assert_fsck();
}

#[test]
fn an_unparseable_judge_is_an_error_never_a_pass() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz"],
        &[("FAKE_GARBAGE_ROLE", "judge")],
    );
    r.expect_code(3);
    assert!(r.stdout.starts_with("Inspect:"), "{}", r.stdout);
    assert!(r.stdout.contains("ERROR"), "{}", r.stdout);
    let work = bead(&repo, "vm-fizz");
    assert!(!work["labels"].to_string().contains("verified"), "{work:#}");
}

#[test]
fn low_confidence_needs_a_person_and_the_answer_settles_it() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz"],
        &[("FAKE_VERDICT", "PASS"), ("FAKE_CONFIDENCE", "0.3")],
    );
    r.expect_code(4);
    assert!(
        r.stdout.contains("below inspect.min_confidence"),
        "{}",
        r.stdout
    );
    let work = bead(&repo, "vm-fizz");
    assert!(
        work["labels"].to_string().contains("awaiting:input"),
        "{work:#}"
    );
    assert!(
        mayor_mail(&repo)
            .iter()
            .any(|s| s == "NEEDS_CLARIFICATION: vm-fizz")
    );
    repo.ok(&["answer", "vm-fizz", "Yes: 15 must print FizzBuzz"]);
    // The judge passes only once the answer is in its evidence.
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz"],
        &[("FAKE_NEEDS_ANSWER", "1")],
    );
    r.expect_code(0);
    let work = bead(&repo, "vm-fizz");
    assert!(
        !work["labels"].to_string().contains("awaiting:input"),
        "{work:#}"
    );
    assert!(work["labels"].to_string().contains("verified"), "{work:#}");
}

#[test]
fn advocate_and_critic_run_in_parallel() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    let log = repo.join("roles.log");
    let r = run_env(
        &repo,
        &["inspect", "review", "vm-fizz", "--no-cache"],
        &[
            ("FAKE_SLEEP_ADVOCATE", "1"),
            ("FAKE_SLEEP_CRITIC", "1"),
            ("FAKE_LOG", &log.display().to_string()),
        ],
    );
    r.expect_code(0);
    let text = std::fs::read_to_string(&log).expect("role log");
    let span = |role: &str| -> (f64, f64) {
        let line = text
            .lines()
            .find(|l| l.starts_with(role))
            .unwrap_or_else(|| panic!("{role} never ran: {text}"));
        let f: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().expect("time"))
            .collect();
        (f[0], f[1])
    };
    let (a0, a1) = span("advocate");
    let (c0, c1) = span("critic");
    assert!(
        a0 < c1 && c0 < a1,
        "advocate {a0}-{a1} and critic {c0}-{c1} overlap"
    );
}

#[test]
fn an_unapproved_spec_or_no_criteria_is_an_error() {
    let repo = fizz_repo(FIXED, CRITERIA, false);
    let r = run(&repo, &["inspect", "verify", "vm-fizz"]);
    r.expect_code(3);
    assert!(
        r.stdout.contains("inspect approve vm-spec-fizz"),
        "{}",
        r.stdout
    );

    let repo = fizz_repo(FIXED, &[], true);
    let r = run(&repo, &["inspect", "verify", "vm-fizz"]);
    r.expect_code(3);
    assert!(r.stdout.contains("nothing to verify"), "{}", r.stdout);
}

#[test]
fn inspect_verify_runs_no_llm_and_writes_nothing() {
    let repo = fizz_repo(BUGGY, CRITERIA, true);
    let log = repo.join("roles.log");
    let before = repo.commit_count();
    let r = run_env(
        &repo,
        &["inspect", "verify", "vm-fizz", "--json"],
        &[("FAKE_LOG", &log.display().to_string())],
    );
    r.expect_code(1);
    let j = r.json();
    assert_eq!(j["verdict"], "FAIL");
    assert_eq!(j["checks"][0]["outcome"], "FAIL");
    assert_eq!(j["checks"][1]["outcome"], "PASS");
    assert!(!log.exists(), "no role was asked");
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn lifecycle_hooks_fire_with_their_payload_and_a_pre_hook_stops_its_step() {
    let repo = fizz_repo(BUGGY, CRITERIA, true);
    let log = repo.join("hooks.log");
    let record = format!(
        "#!/bin/sh\n{{ printf '%s ' \"$VERMAS_HOOK\"; cat; }} >> '{}'\n",
        log.display()
    );
    for point in [
        "PreInspect",
        "PostVerify",
        "PreJudgment",
        "OnVerifyFail",
        "OnVerifyPass",
    ] {
        write_exec(&repo, &format!(".beads/hooks/{point}"), &record);
    }
    // A failing Post hook is a warning; the next one of that point still runs.
    write_exec(
        &repo,
        ".beads/hooks/PostVerify.d/10-fails",
        "#!/bin/sh\necho nope >&2\nexit 5\n",
    );
    write_exec(&repo, ".beads/hooks/PostVerify.d/20-runs", &record);
    commit_hooks(&repo);
    let r = run(&repo, &["inspect", "run", "vm-fizz"]);
    r.expect_code(1);
    assert!(
        r.stderr
            .contains("PostVerify hook .beads/hooks/PostVerify.d/10-fails exited 5: nope"),
        "{}",
        r.stderr
    );
    let text = std::fs::read_to_string(&log).expect("hooks ran");
    let points: Vec<&str> = text
        .lines()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(
        points,
        [
            "PreInspect",
            "PostVerify",
            "PostVerify",
            "PreJudgment",
            "OnVerifyFail"
        ],
        "{text}"
    );
    let pre: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap().split_once(' ').unwrap().1)
            .expect("payload is JSON");
    assert_eq!(pre["bead_id"], "vm-fizz");

    // A Pre hook that fails stops its step: the run is an ERROR, nothing is judged.
    write_exec(
        &repo,
        ".beads/hooks/PreInspect",
        "#!/bin/sh\necho 'not today' >&2\nexit 3\n",
    );
    commit_hooks(&repo);
    let r = run(&repo, &["inspect", "run", "vm-fizz"]);
    r.expect_code(3);
    assert!(
        r.stdout
            .contains("PreInspect hook .beads/hooks/PreInspect exited 3: not today"),
        "{}",
        r.stdout
    );
}

#[test]
fn hooks_list_shows_git_and_lifecycle_hooks() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    repo.ok(&["hooks", "install"]);
    write_exec(&repo, ".beads/hooks/PreInspect", "#!/bin/sh\n");
    repo.write(".beads/hooks/OnVerifyPass.d/notify", "#!/bin/sh\n");
    let out = repo.ok(&["hooks", "list"]);
    assert!(out.contains("git       pre-push"), "{out}");
    assert!(out.contains("installed"), "{out}");
    assert!(
        out.contains("lifecycle PreInspect         .beads/hooks/PreInspect"),
        "{out}"
    );
    assert!(
        out.contains(".beads/hooks/OnVerifyPass.d/notify  (not executable: passed over)"),
        "{out}"
    );
    let j = repo.json(&["hooks", "list"]);
    assert_eq!(j["git"][0]["installed"], true);
    assert_eq!(j["lifecycle"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_question_answered_by_mail_reply_settles_the_next_run() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz"],
        &[
            ("FAKE_NEEDS_ANSWER", "1"),
            ("FAKE_QUESTION", "Which n should print FizzBuzz?"),
        ],
    );
    r.expect_code(4);
    assert!(
        r.stdout
            .contains("question: Which n should print FizzBuzz?"),
        "{}",
        r.stdout
    );
    let inbox = repo.json(&["mail", "inbox", "mayor/"]);
    let asked = inbox
        .as_array()
        .expect("array")
        .iter()
        .find(|m| m["subject"] == "NEEDS_CLARIFICATION: vm-fizz")
        .expect("the question was mailed");
    let id = asked["id"].as_str().expect("id").to_string();
    repo.ok(&[
        "mail",
        "reply",
        &id,
        "-m",
        "Multiples of 15",
        "--from",
        "mayor/",
    ]);
    // The judge passes only once the answer is in its evidence.
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz"],
        &[("FAKE_NEEDS_ANSWER", "1")],
    );
    r.expect_code(0);
    let work = bead(&repo, "vm-fizz");
    assert!(
        work["notes"]
            .to_string()
            .contains("Which n should print FizzBuzz?"),
        "{work:#}"
    );
}

#[test]
fn run_wait_takes_the_answer_given_meanwhile_and_judges_again() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    let child = command(&repo, &["inspect", "run", "vm-fizz", "--wait", "30s"])
        .env("FAKE_NEEDS_ANSWER", "1")
        .env("FAKE_QUESTION", "Ship it?")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Once the question is on the bead, a person answers it.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !bead(&repo, "vm-fizz")["notes"]
        .to_string()
        .contains("Ship it?")
    {
        assert!(
            std::time::Instant::now() < until,
            "the question was never asked"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    repo.ok(&["answer", "vm-fizz", "Yes"]);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        bead(&repo, "vm-fizz")["labels"]
            .to_string()
            .contains("verified")
    );
}

#[test]
fn every_pipeline_hook_point_fires_and_a_failing_role_is_an_error() {
    let repo = fizz_repo(FIXED, CRITERIA, true);
    let log = repo.join("hooks.log");
    let record = format!(
        "#!/bin/sh\necho \"$VERMAS_HOOK\" >> '{}'\ncat >/dev/null\n",
        log.display()
    );
    let points = [
        "PreInspect",
        "PostVerify",
        "PostAudit",
        "PreAdvocate",
        "PostAdvocate",
        "PreCritic",
        "PostCritic",
        "PreJudgment",
        "PostJudgment",
        "OnVerifyPass",
        "OnVerifyFail",
        "OnVerifyEscalate",
    ];
    for p in points {
        write_exec(&repo, &format!(".beads/hooks/{p}"), &record);
    }
    commit_hooks(&repo);
    run(&repo, &["inspect", "run", "vm-fizz"]).expect_code(0);
    let run_points = |repo: &Repo| -> Vec<String> {
        let text = std::fs::read_to_string(repo.join("hooks.log")).unwrap_or_default();
        let _ = std::fs::remove_file(repo.join("hooks.log"));
        let mut v: Vec<String> = text.lines().map(str::to_string).collect();
        v.sort();
        v
    };
    let mut want: Vec<&str> = points
        .iter()
        .copied()
        .filter(|p| !matches!(*p, "OnVerifyFail" | "OnVerifyEscalate"))
        .collect();
    want.sort();
    assert_eq!(run_points(&repo), want);
    run_env(
        &repo,
        &["inspect", "run", "vm-fizz", "--no-cache"],
        &[("FAKE_VERDICT", "NEEDS_HUMAN")],
    )
    .expect_code(4);
    assert!(run_points(&repo).contains(&"OnVerifyEscalate".to_string()));

    // A role whose command fails makes the inspection an ERROR, never a verdict.
    let r = run_env(
        &repo,
        &["inspect", "run", "vm-fizz", "--no-cache"],
        &[("FAKE_FAIL_ROLE", "critic")],
    );
    r.expect_code(3);
    assert!(r.stdout.contains("critic: the LLM command"), "{}", r.stdout);
}

/// Commits the lifecycle hooks written under `.beads/hooks/`: a verdict runs them only as
/// committed.
fn commit_hooks(repo: &Repo) {
    repo.git(&["add", ".beads/hooks"]);
    repo.git(&["commit", "-q", "-m", "hooks"]);
}
