//! Status reports: the human report, JSON, JUnit, TAP, plain `status`, `--record`, and odd output bytes.

use super::*;

const OUTCOMES: &[&str] = &["PASS", "FAIL", "SKIP", "ERROR", "UNSTABLE"];

/// Environment that points the LLM at the fake and logs its calls to `log`.
fn llm_env(repo: &Repo, log: &std::path::Path) -> Vec<(&'static str, String)> {
    repo.use_llm(&fake_llm());
    vec![
        ("FAKE_LLM_MODE", "pass".to_string()),
        ("FAKE_LLM_LOG", log.display().to_string()),
    ]
}

#[test]
fn human_report_has_the_documented_shape() {
    let repo = notifications_repo();
    let scratch = tempfile::tempdir().expect("tempdir");
    let log = scratch.path().join("llm.log");
    let env = llm_env(&repo, &log);
    let r = vermas(
        &repo,
        &["status", "--verify"],
        Opts {
            env,
            ..Opts::default()
        },
    );
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines.len() >= 7, "report too short:\n{}", r.stdout);
    assert_eq!(lines[0], "Verify: notifications (vm-k3f9)", "{}", r.stdout);
    assert!(
        lines[1].chars().all(|c| c == '=') && lines[1].len() >= lines[0].len(),
        "heading is underlined with '=':\n{}",
        r.stdout
    );
    assert_eq!(lines[2], "  [PASS] Notification appears within 2s");
    assert!(
        lines[3].starts_with("         tests/notify-test.sh#test_notification_timing (exit 0, ")
            && lines[3].ends_with("s)  specs/notifications.md:10  tests/notify-test.sh:1"),
        "check line names the target, exit code, duration, the criterion's path:line and the function's: {:?}",
        lines[3]
    );
    assert_eq!(
        lines[4],
        "  [SKIP] Clear visibility into current state (judge only)"
    );
    assert_eq!(
        lines[5],
        "  [SKIP] Works on both Linux and macOS (no check defined)"
    );
    assert_eq!(r.last_line(), "1 passed, 0 failed, 2 skipped");
    assert!(
        !r.stdout.contains('\x1b'),
        "NO_COLOR and a pipe: no colour codes"
    );
    // --verify alone never runs a rubric or asks the LLM.
    assert!(!repo.join("judge-rubric-ran").exists());
    assert_eq!(line_count(&log), 0, "no LLM call in a verify-only run");
}

#[test]
fn non_utf8_output_keeps_every_report_valid() {
    let repo = Repo::initialised();
    repo.write(
        "specs/bytes.md",
        "# Bytes\n\n## Success Criteria\n\n- [ ] Odd bytes [verify](tests/b.sh#test_bytes)\n- [ ] Fine [verify](tests/b.sh#test_fine)\n",
    );
    repo.write(
        "tests/b.sh",
        "test_bytes() {\n  printf 'bad bytes: \\377\\376\\200 end\\n'\n  printf 'control: \\001\\002\\033[31m red\\n'\n  echo 'assertion failed'\n  return 1\n}\ntest_fine() { printf '\\377\\n'; }\n",
    );
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(1);
    assert!(
        std::str::from_utf8(&r.raw).is_ok(),
        "the human report is valid UTF-8"
    );
    assert!(r.stdout.contains("  [FAIL] Odd bytes"), "{}", r.stdout);
    assert!(r.stdout.contains("bad bytes:"), "{}", r.stdout);
    assert_eq!(r.last_line(), "1 passed, 1 failed, 0 skipped");

    let r = run(&repo, &["status", "--verify", "--json", "--junit", "b.xml"]);
    r.expect_code(1);
    let j = r.json();
    let out = criterion(&j, "Odd bytes")["checks"][0]["output"]
        .as_str()
        .expect("output")
        .to_string();
    assert!(out.contains("bad bytes:") && out.contains("end"), "{out:?}");
    let xml = std::fs::read(repo.join("b.xml")).expect("junit");
    let xml = String::from_utf8(xml).expect("JUnit XML is valid UTF-8");
    assert_xml_well_formed(&xml);
    assert!(
        !xml.chars()
            .any(|c| (c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t')),
        "XML 1.0 forbids control characters"
    );

    let r = run(&repo, &["status", "--verify", "--tap"]);
    r.expect_code(1);
    assert!(std::str::from_utf8(&r.raw).is_ok());
    assert!(
        r.stdout.starts_with("TAP version 13\n1..2\n"),
        "{}",
        r.stdout
    );
}

/// A spec with one criterion of each outcome a verify run can give.
const MIXED: &str = "# Mixed\n\n## Success Criteria\n\n\
- [ ] Passes [verify](tests/m.sh#test_pass)\n\
- [ ] Fails [verify](tests/m.sh#test_fail)\n\
- [ ] Unchecked idea\n\
- [ ] Asks to skip [verify](tests/m.sh#test_skip)\n\
- [ ] Missing [verify](tests/gone.sh#test_gone)\n\
- [x] Handles <tags> & \"quotes\" [verify](tests/m.sh#test_pass)\n";

fn mixed_repo() -> Repo {
    let repo = Repo::initialised();
    repo.write("specs/mixed.md", MIXED);
    repo.write(
        "tests/m.sh",
        "test_pass() { echo ok; }\ntest_fail() { echo 'expected <1> & got \"2\"'; return 1; }\ntest_skip() { return 77; }\n",
    );
    repo
}

#[test]
fn json_report_carries_schema_version_outcomes_and_reasons() {
    let repo = mixed_repo();
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(1);
    let j = r.json();
    assert_eq!(j["schema_version"], 1, "{j:#}");
    let spec = &j["specs"][0];
    assert_eq!(spec["path"], "specs/mixed.md");
    let crit = criteria(&j, 0);
    assert_eq!(crit.len(), 6);
    for c in &crit {
        let o = c["outcome"].as_str().expect("outcome");
        assert!(OUTCOMES.contains(&o), "{o}");
        if o == "SKIP" || o == "ERROR" {
            assert!(
                c["reason"].as_str().is_some_and(|r| !r.is_empty()),
                "a {o} carries its reason: {c:#}"
            );
        }
        assert!(c["line"].as_u64().is_some(), "{c:#}");
    }
    let got: Vec<&str> = crit
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["PASS", "FAIL", "SKIP", "SKIP", "ERROR", "PASS"]);
    assert_eq!(crit[0]["line"], 5);
    assert_eq!(crit[2]["reason"], "no check defined");
    assert_eq!(crit[5]["text"], "Handles <tags> & \"quotes\"");
    assert_eq!(crit[5]["checked"], true);
    let pass = &crit[0]["checks"][0];
    assert_eq!(pass["outcome"], "PASS");
    assert_eq!(pass["exit_code"], 0);
    assert_eq!(pass["kind"], "verify");
    assert!(pass["duration_ms"].as_u64().is_some());
    let fail = &crit[1]["checks"][0];
    assert_eq!(fail["exit_code"], 1);
    assert!(fail["output"].as_str().unwrap().contains("expected <1>"));
}

#[test]
fn junit_report_is_well_formed_xml() {
    let repo = mixed_repo();
    let r = run(&repo, &["status", "--verify", "--junit", "report.xml"]);
    r.expect_code(1);
    // The human report still goes to stdout.
    assert!(r.stdout.contains("Verify: mixed"), "{}", r.stdout);
    let xml = repo.read("report.xml");
    assert_xml_well_formed(&xml);
    assert_eq!(xml.matches("<testcase").count(), 6, "{xml}");
    assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
    assert_eq!(xml.matches("<skipped").count(), 2, "{xml}");
    assert_eq!(xml.matches("<error").count(), 1, "{xml}");
    assert!(
        xml.contains("Handles &lt;tags&gt; &amp; &quot;quotes&quot;"),
        "{xml}"
    );
    assert!(xml.contains("<testsuite"), "{xml}");
    // A path in a subfolder that does not exist yet is an error, not a panic.
    let r = run(
        &repo,
        &["status", "--verify", "--junit", "no/such/dir/r.xml"],
    );
    assert!(
        r.code != Some(0) && r.code != Some(101),
        "a JUnit file that cannot be written fails cleanly: {:?}\n{}",
        r.code,
        r.stderr
    );
}

#[test]
fn tap_report_has_a_plan_and_a_point_per_criterion() {
    let repo = mixed_repo();
    let r = run(&repo, &["status", "--verify", "--tap"]);
    r.expect_code(1);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "TAP version 13", "{}", r.stdout);
    assert!(lines.contains(&"1..6"), "{}", r.stdout);
    let points: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("ok ") || l.starts_with("not ok "))
        .collect();
    assert_eq!(points.len(), 6, "{}", r.stdout);
    assert!(points[0].starts_with("ok 1 "), "{}", points[0]);
    assert!(points[1].starts_with("not ok 2 "), "{}", points[1]);
    assert!(points[2].contains("# SKIP"), "{}", points[2]);
    assert!(points[3].contains("# SKIP"), "{}", points[3]);
    assert!(points[4].starts_with("not ok 5 "), "{}", points[4]);
    assert!(
        !r.stdout.contains("Verify: mixed"),
        "TAP replaces the human report"
    );
}

#[test]
fn record_writes_the_result_and_makes_exactly_one_commit() {
    let repo = mixed_repo();
    repo.write(
        "specs/green.md",
        "# Green\n\n## Success Criteria\n\n- [ ] All good [verify](tests/m.sh#test_pass)\n",
    );
    // The user's own staged and unstaged work must stay as it is.
    repo.write("notes.txt", "staged by the user\n");
    repo.git(&["add", "notes.txt"]);
    repo.write("scratch.txt", "untracked\n");

    let before = repo.commit_count();
    run(&repo, &["status", "--verify"]).expect_code(1);
    assert_eq!(
        repo.commit_count(),
        before,
        "without --record nothing is committed"
    );
    assert!(!repo.join(".beads/results/spec-mixed.yaml").exists());

    let r = run(
        &repo,
        &["status", "--verify", "--record", "--spec", "mixed"],
    );
    r.expect_code(1);
    assert_eq!(repo.commit_count(), before + 1, "exactly one commit");
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("vermas verify: "), "{subject}");
    let touched = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(touched.trim(), ".beads/results/spec-mixed.yaml");
    assert_eq!(repo.status(".beads"), "", "the recorded file is committed");
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]).trim(),
        "notes.txt",
        "the user's staged file is still staged, not committed"
    );
    assert!(repo.status("scratch.txt").starts_with("??"));

    let text = repo.read(".beads/results/spec-mixed.yaml");
    let rec: serde_json::Value = serde_saphyr::from_str(&text)
        .unwrap_or_else(|e| panic!("result is not YAML ({e}):\n{text}"));
    assert_eq!(rec["key"], "spec:mixed", "{text}");
    assert_eq!(rec["verdict"], "FAIL", "{text}");
    assert!(
        rec["at"].as_str().is_some_and(|a| a.ends_with('Z')),
        "{text}"
    );
    let checks = rec["checks"].as_array().expect("checks");
    let outcomes: Vec<&str> = checks
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    for o in ["PASS", "FAIL", "SKIP", "ERROR"] {
        assert!(outcomes.contains(&o), "{o} in {outcomes:?}");
    }
    let first = &checks[0];
    assert_eq!(first["criterion"], "specs/mixed.md:5");
    assert_eq!(first["kind"], "verify");
    assert_eq!(first["exit_code"], 0);
    assert!(
        first["command"]
            .as_str()
            .is_some_and(|c| c.contains("tests/m.sh"))
    );
    assert!(first["duration_ms"].as_u64().is_some());
    let failing = checks
        .iter()
        .find(|c| c["outcome"] == "FAIL")
        .expect("fail");
    assert!(
        failing["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("expected <1>")),
        "{text}"
    );

    // The summary shows what was recorded; a passing spec records PASS.
    let s = run(&repo, &["status"]);
    s.expect_code(0);
    let line = s
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("mixed"))
        .unwrap_or_else(|| panic!("{}", s.stdout));
    assert!(line.contains("last FAIL"), "{line}");
    run(
        &repo,
        &["status", "--verify", "--record", "--spec", "green"],
    )
    .expect_code(0);
    assert_eq!(repo.commit_count(), before + 2);
    let green = repo.read(".beads/results/spec-green.yaml");
    assert!(green.contains("verdict: PASS"), "{green}");
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();
}

#[test]
fn plain_status_summarises_and_runs_nothing() {
    let repo = Repo::initialised();
    let done = repo.create("First task", &[]);
    let asked = repo.create("Second task", &[]);
    repo.create("Third task", &[]);
    repo.ok(&["close", &done, "-r", "done"]);
    repo.ok(&["clarify", &asked, "GitHub Actions or Buildkite?"]);
    repo.write(
        "specs/watched.md",
        "# Watched\n\n## Success Criteria\n\n- [ ] Would leave a marker [verify](tests/w.sh#test_marker)\n- [ ] Would ask the LLM [judge](tests/judges/w.sh#test_j)\n",
    );
    repo.write(
        "tests/w.sh",
        "touch verify-ran\ntest_marker() { touch verify-ran; }\n",
    );
    repo.write(
        "tests/judges/w.sh",
        "touch rubric-ran\ntest_j() { judge_files tests/w.sh; judge_criterion \"ANY\"; }\n",
    );
    let scratch = tempfile::tempdir().expect("tempdir");
    let log = scratch.path().join("llm.log");
    let env = llm_env(&repo, &log);
    let before = repo.commit_count();
    let r = vermas(
        &repo,
        &["status"],
        Opts {
            env: env.clone(),
            ..Opts::default()
        },
    );
    r.expect_code(0);
    let s = &r.stdout;
    assert!(s.contains("Beads: 3 (33% done)"), "{s}");
    assert!(s.contains("Ready: 1"), "{s}");
    assert!(
        s.contains(&format!("[awaiting] {asked} Second task")),
        "{s}"
    );
    let q = s
        .lines()
        .find(|l| l.contains("\"GitHub Actions or Buildkite?\" ("))
        .unwrap_or_else(|| panic!("question line: {s}"));
    assert!(q.trim_end().ends_with("ago)"), "{q}");
    assert!(s.contains("watched"), "the spec is listed: {s}");
    assert!(
        !repo.join("verify-ran").exists(),
        "plain status ran a check"
    );
    assert!(
        !repo.join("rubric-ran").exists(),
        "plain status ran a rubric"
    );
    assert_eq!(line_count(&log), 0, "plain status asked the LLM");
    assert_eq!(repo.commit_count(), before);
    assert!(r.elapsed < Duration::from_secs(5));

    let r = vermas(
        &repo,
        &["status", "--json"],
        Opts {
            env,
            ..Opts::default()
        },
    );
    r.expect_code(0);
    let j = r.json();
    assert_eq!(j["schema_version"], 1);
    assert_eq!(j["ready"], 1);
    assert_eq!(j["total"], 3);
    assert_eq!(j["percent_done"], 33);
    assert_eq!(j["awaiting"][0]["id"], asked.as_str());
    assert!(!repo.join("verify-ran").exists());
    assert_eq!(line_count(&log), 0);
}
