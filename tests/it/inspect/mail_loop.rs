//! The Inspector's own loop (`inspector run`) on real repositories with the scripted LLM
//! stand-in (fixtures/llm-roles): each kind of `inspector/` message acted on exactly once
//! across restarts, a run killed between taking a message and finishing it, an unknown
//! message left unread, Ctrl-C, and bad input. The role files are in tests/role_contexts.rs.

use crate::common::*;
use crate::refinery::support::*;
use crate::specs::support::*;
use std::time::{Duration, Instant};

/// Messages of mailbox `addr` (live ones; `archived` for its archive) as JSON.
fn inbox(repo: &Repo, addr: &str) -> Vec<serde_json::Value> {
    repo.json(&["mail", "inbox", addr])
        .as_array()
        .expect("array")
        .clone()
}

/// The files of `.beads/mail/inspector/archive/`, by message id, with their text.
fn archived(repo: &Repo) -> Vec<(String, String)> {
    let dir = repo.join(".beads/mail/inspector/archive");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| {
                    let name = e
                        .file_name()
                        .to_string_lossy()
                        .trim_end_matches(".md")
                        .to_string();
                    (name, std::fs::read_to_string(e.path()).expect("read"))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Subjects of `git log`, newest first.
fn log(repo: &Repo) -> Vec<String> {
    repo.git(&["log", "--format=%s"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// How many commit subjects start with `prefix`.
fn commits(repo: &Repo, prefix: &str) -> usize {
    log(repo).iter().filter(|s| s.starts_with(prefix)).count()
}

/// Sends a message to `inspector/` from `mayor/`; returns its id.
fn mail_inspector(repo: &Repo, subject: &str, body: &str) -> String {
    let v = repo.json(&[
        "mail",
        "send",
        "inspector/",
        "-s",
        subject,
        "-m",
        body,
        "--from",
        "mayor/",
    ]);
    let m = if v.is_array() { v[0].clone() } else { v };
    m["id"]
        .as_str()
        .or_else(|| m["messages"][0]["id"].as_str())
        .unwrap_or_else(|| panic!("no id in {m:#}"))
        .to_string()
}

/// A task `title` with its test spec (unapproved, no criteria); returns (work, spec).
/// Making the spec mails `inspector/` "NEW SPEC NEEDED: <title>".
fn work_needing_a_spec(repo: &Repo, title: &str) -> (String, String) {
    let work = repo.create(title, &[]);
    let v = repo.json(&["inspect", "create-spec", &work]);
    let spec = v["id"]
        .as_str()
        .or_else(|| v["spec"]["id"].as_str())
        .or_else(|| v["spec"].as_str())
        .unwrap_or_else(|| panic!("no spec id in {v:#}"))
        .to_string();
    (work, spec)
}

/// The id of the one message in `mayor/` whose subject is `subject`.
fn mayor_msg(repo: &Repo, subject: &str) -> serde_json::Value {
    let all = inbox(repo, "mayor/");
    let found: Vec<_> = all.iter().filter(|m| m["subject"] == subject).collect();
    assert_eq!(found.len(), 1, "{subject:?} in {all:#?}");
    found[0].clone()
}

#[test]
fn each_kind_of_message_is_acted_on_exactly_once_across_a_restart() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    let repo = &f.repo;
    // NEW SPEC NEEDED, from making a test spec for new work.
    let (buzz, buzz_spec) = work_needing_a_spec(repo, "Add Buzz");
    // A merge request for a branch the refinery has queued.
    let feature = f.branch("feature", "release", &[("feature.txt", "new\n")]);
    let old_release = f.tip("release");
    repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let merge = mail_inspector(repo, "MERGE REQUEST: feature", "vm-fizz is ready to land.");
    // A question the judge asked, answered by the mayor's reply.
    repo.write(
        ".beads/issues/vm-ci.md",
        "---\nid: vm-ci\ntitle: Set up CI\nstatus: in_progress\npriority: 2\nissue_type: task\n---\nRun the tests on every push.\n",
    );
    repo.write(
        ".beads/issues/vm-spec-ci.md",
        &format!(
            "---\nid: vm-spec-ci\ntitle: 'Test spec: Set up CI'\nstatus: closed\npriority: 2\nissue_type: test-spec\nparent: vm-ci\nacceptance_criteria:\n  - {{id: ac-1, description: \"ci holds\", verify_command: \"true\"}}\n{}---\n",
            approval_stamp(&[("ac-1".into(), "ci holds".into(), "verify_command", "true".into())])
        ),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "ci work"]);
    f.vermas(
        &["inspect", "run", "vm-ci"],
        &[
            ("FAKE_VERDICT", "NEEDS_HUMAN"),
            ("FAKE_QUESTION", "Which CI?"),
        ],
    )
    .expect_code(4);
    let question = mayor_msg(repo, "NEEDS_CLARIFICATION: vm-ci");
    repo.ok(&[
        "mail",
        "reply",
        question["id"].as_str().expect("id"),
        "-m",
        "GitHub Actions",
        "--from",
        "mayor/",
    ]);
    // Something the loop does not know.
    let lunch = mail_inspector(repo, "Lunch on Friday?", "At noon.");

    // Outside the repository, so the tree stays clean.
    let prompts = f.tmp.path().join("prompts.log");
    let prompts_env = prompts.display().to_string();
    let before = repo.commit_count();
    let r = f.vermas(
        &["inspector", "run", "--once"],
        &[("FAKE_PROMPT_LOG", &prompts_env)],
    );
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "one line per message:\n{}", r.stdout);
    let line = |needle: &str| {
        lines
            .iter()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?}:\n{}", r.stdout))
            .to_string()
    };
    let spec_line = line("NEW SPEC NEEDED: Add Buzz");
    assert!(spec_line.starts_with("done "), "{spec_line}");
    assert!(
        spec_line.contains(&format!("on {buzz_spec}")),
        "{spec_line}"
    );
    let merge_line = line(&merge);
    assert!(merge_line.starts_with("done "), "{merge_line}");
    assert!(
        merge_line.contains("feature -> release merged (PASS)"),
        "{merge_line}"
    );
    let answer_line = line("RE: NEEDS_CLARIFICATION: vm-ci");
    assert!(answer_line.starts_with("done "), "{answer_line}");
    assert!(
        answer_line.contains("inspected vm-ci again: PASS"),
        "{answer_line}"
    );
    let lunch_line = line(&lunch);
    assert!(lunch_line.starts_with("unknown "), "{lunch_line}");

    // NEW SPEC NEEDED: the strategist's criteria on the spec, not approved; mayor asked.
    let spec = repo.json(&["show", &buzz_spec])[0].clone();
    assert_eq!(spec["status"], "open", "never approved by the inspector");
    assert_eq!(
        spec["acceptance_criteria"].as_array().map(Vec::len),
        Some(2),
        "{spec:#}"
    );
    let proposal = mayor_msg(repo, "SPEC PROPOSED: Add Buzz");
    let body = proposal["body"].as_str().unwrap_or_default();
    assert!(
        body.contains(&format!("vermas inspect approve {buzz_spec}")) && body.contains(&buzz),
        "{body}"
    );
    // MERGE REQUEST: the refinery landed the branch on release as one merge.
    assert_eq!(f.tip("release^1"), old_release);
    assert_eq!(f.tip("release^2"), feature);
    assert_eq!(f.request()["state"], "merged");
    mayor_msg(repo, "MERGED: Implement FizzBuzz");
    // RE: NEEDS_CLARIFICATION: answered on the bead, judged again with the answer.
    let ci = repo.json(&["show", "vm-ci"])[0].clone();
    let labels = ci["labels"].to_string();
    assert!(
        labels.contains("verified") && !labels.contains("awaiting:input"),
        "{ci:#}"
    );
    assert!(
        ci["notes"].to_string().contains("Answer: GitHub Actions"),
        "{ci:#}"
    );
    let log_text = std::fs::read_to_string(&prompts).expect("prompt log");
    // The answer is in the judge's prompt, fenced as data.
    let answer = log_text
        .split("ANSWER FROM A PERSON\n<<<DATA ")
        .nth(1)
        .expect("the judge saw the answer section");
    assert!(
        answer.lines().nth(1) == Some("GitHub Actions"),
        "the judge saw the answer: {answer}"
    );
    mayor_msg(repo, "VERIFIED: Set up CI");

    // The three messages are archived, read, with what was done; the unknown one is
    // still unread in the live mailbox.
    let arch = archived(repo);
    assert_eq!(arch.len(), 3, "{arch:#?}");
    for (id, text) in &arch {
        assert!(text.contains("\nread: true\n"), "{id}: {text}");
        assert!(text.contains("\nInspector-Taken: "), "{id}: {text}");
        assert!(text.contains("\nInspector-Done: "), "{id}: {text}");
    }
    let live = inbox(repo, "inspector/");
    assert_eq!(live.len(), 1, "{live:#?}");
    assert_eq!(live[0]["id"], lunch.as_str());
    assert_eq!(live[0]["read"], false);
    // One take and one finish commit per message acted on; the tree is clean.
    assert_eq!(
        commits(repo, "vermas inspector take: "),
        3,
        "{:#?}",
        log(repo)
    );
    assert_eq!(commits(repo, "vermas inspector: "), 3, "{:#?}", log(repo));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert!(repo.commit_count() > before);

    // A restart does nothing: no line but "nothing to do", no commit, no mail.
    let after = repo.commit_count();
    let mayor_before = inbox(repo, "mayor/").len();
    let again = f.vermas(&["inspector", "run", "--once"], &[]);
    again.expect_code(0);
    assert_eq!(again.stdout.trim(), "nothing to do", "{}", again.stdout);
    assert_eq!(repo.commit_count(), after);
    assert_eq!(inbox(repo, "mayor/").len(), mayor_before);
    assert_eq!(archived(repo), arch);
    assert_eq!(inbox(repo, "inspector/")[0]["read"], false);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn a_run_killed_between_taking_and_finishing_is_resumed_not_repeated() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    let (_, spec) = work_needing_a_spec(repo, "Add Buzz");
    let mut child = command(repo, &["inspector", "run", "--once"])
        .env("FAKE_SLEEP_STRATEGIST", "5")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while commits(repo, "vermas inspector take: ") == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "never took it");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().expect("kill");
    child.wait().expect("wait");

    // Taken and committed as taken; nothing else written.
    let live = inbox(repo, "inspector/");
    assert_eq!(live.len(), 1, "{live:#?}");
    assert_eq!(live[0]["read"], true);
    assert!(
        live[0]["body"]
            .as_str()
            .unwrap_or_default()
            .contains("Inspector-Taken: "),
        "{live:#?}"
    );
    assert!(archived(repo).is_empty());
    let spec_now = repo.json(&["show", &spec])[0].clone();
    assert!(
        spec_now["acceptance_criteria"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{spec_now:#}"
    );

    let r = f.vermas(&["inspector", "run", "--once"], &[]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("resumed "), "{}", r.stdout);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    let spec_now = repo.json(&["show", &spec])[0].clone();
    assert_eq!(
        spec_now["acceptance_criteria"].as_array().map(Vec::len),
        Some(2)
    );
    mayor_msg(repo, "SPEC PROPOSED: Add Buzz");
    assert_eq!(archived(repo).len(), 1);
    assert_eq!(commits(repo, "vermas inspector take: "), 1, "taken once");
    assert_eq!(commits(repo, "vermas inspector: "), 1);

    let third = f.vermas(&["inspector", "run", "--once"], &[]);
    assert_eq!(third.stdout.trim(), "nothing to do");
    mayor_msg(repo, "SPEC PROPOSED: Add Buzz");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn an_unknown_message_is_left_unread_and_reported_once() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    let id = mail_inspector(repo, "Lunch on Friday?", "At noon.");
    let before = repo.commit_count();
    let r = f.vermas(&["inspector", "run", "--once"], &[]);
    r.expect_code(0);
    assert!(
        r.stdout
            .starts_with(&format!("unknown    {id} Lunch on Friday?: ")),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("left unread"), "{}", r.stdout);
    assert_eq!(repo.commit_count(), before, "nothing committed");
    assert_eq!(inbox(repo, "inspector/")[0]["read"], false);
    let again = f.vermas(&["inspector", "run", "--once"], &[]);
    assert_eq!(again.stdout.trim(), "nothing to do", "reported once");
    // Still there for a person, who can read it as usual.
    assert!(repo.ok(&["mail", "read", &id]).contains("At noon."));
}

#[test]
fn a_message_naming_nothing_is_archived_with_the_reason_and_a_failing_strategist_is_retried() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    let nothing = mail_inspector(repo, "NEW SPEC NEEDED: Something", "No bead here.");
    let r = f.vermas(&["inspector", "run", "--once"], &[]);
    r.expect_code(0);
    assert!(
        r.stdout.starts_with(&format!("refused    {nothing}")),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("names no bead"), "{}", r.stdout);
    let arch = archived(repo);
    assert_eq!(arch.len(), 1);
    assert!(
        arch[0].1.contains("not done: the message names no bead"),
        "{}",
        arch[0].1
    );

    // The strategist's model is down: the message stays taken, exit 3, tried next start.
    let (_, spec) = work_needing_a_spec(repo, "Add Buzz");
    let down = f.vermas(
        &["inspector", "run", "--once"],
        &[("FAKE_FAIL_ROLE", "strategist")],
    );
    down.expect_code(3);
    assert!(down.stderr.contains("failed "), "{}", down.stderr);
    assert!(down.stderr.contains("tries it again"), "{}", down.stderr);
    assert_eq!(inbox(repo, "inspector/")[0]["read"], true);
    let ok = f.vermas(&["inspector", "run", "--once"], &[]);
    ok.expect_code(0);
    assert!(ok.stdout.starts_with("resumed "), "{}", ok.stdout);
    let s = repo.json(&["show", &spec])[0].clone();
    assert_eq!(s["acceptance_criteria"].as_array().map(Vec::len), Some(2));
}

#[test]
fn ctrl_c_stops_the_waiting_loop_cleanly() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    let before = repo.commit_count();
    let mut child = command(repo, &["inspector", "run", "--interval", "200ms"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(800));
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "still running");
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().expect("output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!status.success());
    assert!(err.contains("inspector: stopped"), "{err}");
    assert_eq!(repo.commit_count(), before);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn bad_arguments_are_usage_errors() {
    let repo = Repo::initialised();
    for args in [
        &["inspector", "run", "--interval", "soon"][..],
        &["inspector", "run", "--interval", "0s"],
        &["inspector", "walk"],
        &["init", "--force"],
    ] {
        let err = repo.fails(args, 2);
        assert!(!err.is_empty(), "{args:?}");
    }
    // Outside any workspace: an error naming the missing .beads, nothing written.
    let bare = Repo::new();
    let err = bare.fails(&["inspector", "run", "--once"], 2);
    assert!(err.contains(".beads"), "{err}");
}

#[test]
fn answers_naming_nothing_are_refused_and_someone_elses_message_is_left_alone() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    let no_bead = mail_inspector(repo, "RE: NEEDS_CLARIFICATION: vm-nope", "Yes.");
    let read_first = mail_inspector(repo, "NEW SPEC NEEDED: Implement FizzBuzz", "vm-fizz");
    repo.ok(&["mail", "read", &read_first]);
    let before = repo.commit_count();
    let r = f.vermas(&["inspector", "run", "--once", "--json"], &[]);
    r.expect_code(0);
    let events: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(events.len(), 1, "{}", r.stdout);
    let e = &events[0];
    assert_eq!(e["schema_version"], 1);
    assert_eq!(e["message"], no_bead.as_str());
    assert_eq!(e["kind"], "answered");
    assert_eq!(e["outcome"], "refused");
    assert_eq!(e["note"], "not done: the subject names no bead");
    assert_eq!(repo.commit_count(), before + 2, "the take and the refusal");
    // The message a person read first is still live and untouched.
    let live = inbox(repo, "inspector/");
    assert_eq!(live.len(), 1, "{live:#?}");
    assert_eq!(live[0]["id"], read_first.as_str());
    assert!(
        !live[0]["body"]
            .as_str()
            .unwrap_or_default()
            .contains("Inspector-")
    );
}

#[test]
fn a_merge_request_already_settled_is_only_noted() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    let repo = &f.repo;
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let mq = f.request()["id"].as_str().expect("id").to_string();
    let msg = mail_inspector(repo, &format!("MERGE REQUEST: {mq}"), "Land it.");
    // Someone ran the refinery by hand meanwhile.
    f.vermas(&["refinery", "run", "--once"], &[]).expect_code(0);
    let release = f.tip("release");
    let r = f.vermas(&["inspector", "run", "--once"], &[]);
    r.expect_code(0);
    assert!(
        r.stdout.starts_with(&format!("done       {msg}")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("{mq} was settled already: merged")),
        "{}",
        r.stdout
    );
    assert_eq!(f.tip("release"), release, "nothing merged twice");
    assert_eq!(f.request()["attempts"], 1);
}

#[test]
fn ctrl_c_while_acting_ends_the_model_call_and_the_next_start_resumes() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    let (_, spec) = work_needing_a_spec(repo, "Add Buzz");
    let calls = f.tmp.path().join("calls.log");
    let mut child = command(repo, &["inspector", "run", "--interval", "1s"])
        .env("FAKE_SLEEP_STRATEGIST", "30")
        .env("FAKE_LOG", &calls)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while commits(repo, "vermas inspector take: ") == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "never took it");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let stopped = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "Ctrl-C did not stop it"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    assert!(String::from_utf8_lossy(&out.stderr).contains("inspector: stopped"));
    assert!(
        !calls.exists(),
        "the strategist never answered: it was ended"
    );
    assert_eq!(inbox(repo, "inspector/")[0]["read"], true);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    let r = f.vermas(&["inspector", "run", "--once"], &[]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("resumed "), "{}", r.stdout);
    let s = repo.json(&["show", &spec])[0].clone();
    assert_eq!(s["acceptance_criteria"].as_array().map(Vec::len), Some(2));
}
