//! The Inspector's loop acts on each message once: two passes at once never both take a
//! message, and a second NEW SPEC NEEDED for the same work is recognised, not answered
//! with the same criteria again.

use crate::common::*;
use crate::specs::support::*;
use std::process::Stdio;

/// Sends `inspector/` a NEW SPEC NEEDED for `work` from `mayor/`.
fn ask_for_spec(repo: &Repo, work: &str) {
    repo.ok(&[
        "mail",
        "send",
        "inspector/",
        "-s",
        "NEW SPEC NEEDED: again",
        "-m",
        &format!("{work} needs criteria"),
        "--from",
        "mayor/",
    ]);
}

/// The criteria ids of test spec `spec`.
fn criteria(repo: &Repo, spec: &str) -> Vec<String> {
    repo.json(&["show", spec])[0]["acceptance_criteria"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn two_passes_at_once_act_on_each_message_once() {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    let works: Vec<String> = ["One", "Two", "Three"]
        .iter()
        .map(|t| repo.ok(&["q", t]).trim().to_string())
        .collect();
    let calls = repo.join("calls.log");
    let start = || {
        command(&repo, &["inspector", "run", "--once"])
            .env("FAKE_LOG", &calls)
            .env("FAKE_SLEEP_STRATEGIST", "0.3")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn vermas")
    };
    let (a, b) = (start(), start());
    let (a, b) = (
        a.wait_with_output().expect("wait"),
        b.wait_with_output().expect("wait"),
    );
    for out in [&a, &b] {
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("failed"));
    }
    let log = std::fs::read_to_string(&calls).expect("calls");
    let asked = log.lines().filter(|l| l.starts_with("strategist ")).count();
    assert_eq!(asked, 3, "the strategist is asked once per message:\n{log}");
    for w in &works {
        let spec = w.replacen("vm-", "vm-spec-", 1);
        assert_eq!(criteria(&repo, &spec), ["ac-1", "ac-2"], "{spec}");
    }
    repo.assert_fsck();
}

#[test]
fn a_second_request_for_the_same_work_adds_no_copy_of_its_criteria() {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    let work = repo.ok(&["q", "Only once"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    // `q` asked for criteria already; the mayor asks again before the loop runs.
    ask_for_spec(&repo, &work);
    let calls = repo.join("calls.log");
    let out = command(&repo, &["inspector", "run", "--once"])
        .env("FAKE_LOG", &calls)
        .output()
        .expect("vermas");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("duplicate request"), "{text}");
    assert_eq!(criteria(&repo, &spec), ["ac-1", "ac-2"], "{text}");
    let log = std::fs::read_to_string(&calls).expect("calls");
    assert_eq!(
        log.lines().filter(|l| l.starts_with("strategist ")).count(),
        1
    );
}
