//! Reading the verdict: passing and failing judges, JSON and decorated replies, the cache, samples.

use super::*;

#[test]
fn a_passing_judge_shows_its_reasoning() {
    let t = Judged::new();
    let r = t.run(&["status", "--judge"], "pass");
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "Judge: ui", "{}", r.stdout);
    assert!(
        lines.contains(&"  [PASS] The banner is shown"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .lines()
            .any(|l| l.contains("tests/judges/ui.sh#test_banner") && l.contains("specs/ui.md:5")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("The fake judge read the files and found the criterion met."),
        "the reasoning is shown under a PASS:\n{}",
        r.stdout
    );
    assert_eq!(r.last_line(), "1 passed, 0 failed, 0 skipped");
    assert_eq!(t.calls(), 1);
    let (_, o, why) = t.judge_json("pass", &[]);
    assert_eq!(o, "PASS");
    assert!(why.contains("found the criterion met"), "{why}");
}

#[test]
fn a_failing_judge_fails_the_run_with_its_reasoning() {
    let t = Judged::new();
    let r = t.run(&["status", "--judge"], "fail");
    r.expect_code(1);
    assert!(
        r.stdout.contains("  [FAIL] The banner is shown"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("found the criterion unmet"),
        "{}",
        r.stdout
    );
    assert_eq!(r.last_line(), "0 passed, 1 failed, 0 skipped");
}

#[test]
fn json_and_decorated_replies_are_understood() {
    let t = Judged::new();
    let (r, o, why) = t.judge_json("json-pass", &["--no-cache"]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert!(why.contains("fake json judge"), "{why}");
    let (r, o, _) = t.judge_json("json-fail", &["--no-cache"]);
    r.expect_code(1);
    assert_eq!(o, "FAIL");
    for (reply, want, code) in [
        ("Looks fine overall.\n\n**PASS**", "PASS", 0),
        ("Verdict: FAIL\nThe banner is missing.", "FAIL", 1),
        ("Reasoning first.\nPASS", "PASS", 0),
        ("```json\n{\"pass\": false}\n```", "FAIL", 1),
    ] {
        let r = t.run_with(
            &["status", "--judge", "--json", "--no-cache"],
            "pass",
            &[("FAKE_LLM_REPLY", reply)],
        );
        assert_eq!(
            outcome(&r.json(), "The banner is shown"),
            want,
            "reply {reply:?}"
        );
        r.expect_code(code);
    }
}

/// Runs `status --judge` (text, then `--json`) with the fake answering `reply`; returns
/// the text run and the criterion's JSON outcome and reason.
fn judged_reply(t: &Judged, reply: &str) -> (Run, String, String) {
    let text = t.run_with(
        &["status", "--judge", "--no-cache"],
        "pass",
        &[("FAKE_LLM_REPLY", reply)],
    );
    let r = t.run_with(
        &["status", "--judge", "--json", "--no-cache"],
        "pass",
        &[("FAKE_LLM_REPLY", reply)],
    );
    let j = r.json();
    assert_eq!(r.code, text.code, "text and JSON runs agree for {reply:?}");
    (
        text,
        outcome(&j, "The banner is shown"),
        reason(&j, "The banner is shown"),
    )
}

#[test]
fn json_quoted_in_a_failing_reply_does_not_make_it_pass() {
    let t = Judged::new();
    // The judged file itself holds JSON that looks like a verdict.
    t.repo.write("src/ui.txt", "line one\n{\"pass\": true}\n");
    for reply in [
        "FAIL\nThe page has no banner. A passing answer would read {\"verdict\": \"PASS\"}.",
        "Verdict: FAIL\nsrc/ui.txt only holds {\"pass\": true}, which is data, not a banner.",
        "**FAIL**\nThe format asked for:\n```json\n{\"verdict\": \"PASS\"}\n```\nNo banner in:\n```\nline one\n```",
    ] {
        let (r, o, why) = judged_reply(&t, reply);
        r.expect_code(1);
        assert!(
            r.stdout.contains("  [FAIL] The banner is shown"),
            "reply {reply:?}:\n{}",
            r.stdout
        );
        assert_eq!(o, "FAIL", "reply {reply:?}");
        assert!(!why.is_empty(), "reply {reply:?}: the reasoning is kept");
    }
}

#[test]
fn a_final_json_block_must_agree_with_the_verdict_line() {
    let t = Judged::new();
    let (r, o, why) = judged_reply(
        &t,
        "FAIL\nThe banner is missing.\n```json\n{\"verdict\": \"PASS\"}\n```",
    );
    r.expect_code(3);
    assert!(
        r.stdout.contains("  [ERROR] The banner is shown"),
        "{}",
        r.stdout
    );
    assert_eq!(o, "ERROR");
    assert!(
        why.contains("contradicts") && why.contains("says PASS") && why.contains("says FAIL"),
        "{why}"
    );
    // Agreeing, or with no verdict line at all, the final block decides.
    let (r, o, _) = judged_reply(
        &t,
        "FAIL\n```json\n{\"verdict\": \"FAIL\", \"reasoning\": \"no banner\"}\n```",
    );
    r.expect_code(1);
    assert_eq!(o, "FAIL");
    let (r, o, why) = judged_reply(
        &t,
        "The banner is there.\n```\n{\"verdict\": \"PASS\", \"reasoning\": \"banner found\"}\n```",
    );
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert_eq!(why, "banner found");
}

#[test]
fn unchanged_inputs_are_answered_from_the_cache() {
    let t = Judged::new();
    t.repo.write(
        "specs/more.md",
        "# More\n\n## Success Criteria\n\n- [ ] Second judged thing [judge](tests/judges/ui.sh#test_banner)\n",
    );
    let before = t.repo.commit_count();
    let r = t.run(&["status", "--judge", "--jobs", "2"], "pass");
    r.expect_code(0);
    assert_eq!(t.calls(), 2, "one call per judged criterion");
    let r2 = t.run(&["status", "--judge", "--jobs", "2"], "pass");
    r2.expect_code(0);
    assert_eq!(t.calls(), 2, "an unchanged second run makes no LLM call");
    assert_eq!(r2.last_line(), "2 passed, 0 failed, 0 skipped");
    assert!(
        r2.stdout.contains("found the criterion met"),
        "cached reasoning is shown too:\n{}",
        r2.stdout
    );
    // Even when the fake would now say FAIL: the cached verdict stands.
    let r3 = t.run(&["status", "--judge"], "fail");
    r3.expect_code(0);
    assert_eq!(t.calls(), 2);
    let cache = t.repo.join(".beads/.cache/judge");
    assert!(
        std::fs::read_dir(&cache).is_ok_and(|d| d.count() >= 1),
        "replies are kept in .beads/.cache/judge"
    );
    assert_eq!(t.repo.status(".beads"), "", "the cache is not tracked");
    assert_eq!(t.repo.commit_count(), before, "judging commits nothing");

    // --no-cache asks again (both criteria).
    let r = t.run(&["status", "--judge", "--no-cache"], "pass");
    r.expect_code(0);
    assert_eq!(t.calls(), 4);

    // A changed judged file, rubric criterion, spec criterion or command: new calls.
    t.repo
        .write("src/ui.txt", "line one\n<BANNER> Welcome back\n");
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 5, "judged file changed");
    t.repo.write(
        "tests/judges/ui.sh",
        &UI_RUBRIC.replace("shows a BANNER", "shows a big BANNER"),
    );
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 6, "rubric criterion changed");
    t.repo.write(
        "specs/ui.md",
        &UI_SPEC.replace("The banner is shown", "The banner is visible"),
    );
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 7, "spec criterion changed");
    t.repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("'{}' --model other", fake_llm().display()),
    ]);
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 8, "LLM command changed");
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 8);
}

#[test]
fn disagreeing_samples_are_unstable() {
    let t = Judged::new();
    t.repo.ok(&["config", "set", "judge.samples", "3"]);
    let r = t.run(&["status", "--judge"], "alternate");
    r.expect_code(1);
    assert_eq!(t.calls(), 3, "three samples");
    assert!(
        r.stdout.contains("  [UNSTABLE] The banner is shown"),
        "{}",
        r.stdout
    );
    assert!(
        r.last_line().starts_with("0 passed, 0 failed, 0 skipped"),
        "{}",
        r.stdout
    );
    let (r, o, why) = t.judge_json("alternate", &["--no-cache"]);
    r.expect_code(1);
    assert_eq!(o, "UNSTABLE");
    assert!(!why.is_empty(), "UNSTABLE says why");
    assert_eq!(t.calls(), 6);
    let xml_run = t.run(&["status", "--judge", "--junit", "j.xml"], "alternate");
    xml_run.expect_code(1);
    assert!(
        t.repo.read("j.xml").contains("<failure"),
        "UNSTABLE is a JUnit failure"
    );
    // Agreeing samples decide.
    let (r, o, _) = t.judge_json("pass", &["--no-cache"]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    let (r, o, _) = t.judge_json("fail", &["--no-cache"]);
    r.expect_code(1);
    assert_eq!(o, "FAIL");
}
