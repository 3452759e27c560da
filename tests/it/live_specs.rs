//! Live specs end to end (issue 3), the verify side: `status` with and
//! without `--verify`, its reports (human, JSON, JUnit, TAP), `--record`, and
//! `spec list/show/check`. Every test builds a real repository with specs and test
//! scripts, runs the real binary, and checks output, exit codes, files and git.

use crate::common::*;
use crate::live_support::*;
use std::time::Duration;

const OUTCOMES: &[&str] = &["PASS", "FAIL", "SKIP", "ERROR", "UNSTABLE"];

/// The issue's example spec, with the PASS check at line 10.
const NOTIFICATIONS: &str = "---
bead: vm-k3f9
---
# Notifications

Some intro text.

## Success Criteria

- [ ] Notification appears within 2s
  [verify](tests/notify-test.sh#test_notification_timing)
- [ ] Clear visibility into current state
  [judge](tests/judges/notify.sh#test_clear_visibility)
- [ ] Works on both Linux and macOS
";

/// A repository with the example spec, its (sourced, not executable) test script and a
/// rubric that leaves a marker if it is ever run.
fn notifications_repo() -> Repo {
    let repo = Repo::initialised();
    repo.write("specs/notifications.md", NOTIFICATIONS);
    repo.write(
        "tests/notify-test.sh",
        "test_notification_timing() {\n  echo \"notified in 0.4s\"\n}\n",
    );
    repo.write(
        "tests/judges/notify.sh",
        "test_clear_visibility() {\n  touch judge-rubric-ran\n  judge_files specs/notifications.md\n  judge_criterion \"The state is VISIBLE\"\n}\n",
    );
    repo
}

/// Environment that points the LLM at the fake and logs its calls to `log`.
fn llm_env(repo: &Repo, log: &std::path::Path) -> Vec<(&'static str, String)> {
    repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("'{}'", fake_llm().display()),
    ]);
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
fn exit_codes_and_spec_selection() {
    let repo = Repo::initialised();
    repo.write(
        "specs/good.md",
        "# Good\n\n## Success Criteria\n\n- [ ] It works [verify](tests/t.sh#test_ok)\n",
    );
    repo.write(
        "specs/bad.md",
        "# Bad\n\n## Success Criteria\n\n- [ ] It adds up [verify](tests/t.sh#test_sum)\n",
    );
    repo.write(
        "specs/broken.md",
        "# Broken\n\n## Success Criteria\n\n- [ ] It is there [verify](tests/missing.sh#test_gone)\n",
    );
    repo.write(
        "tests/t.sh",
        "test_ok() { echo fine; }\ntest_sum() {\n  echo \"checking the sum\"\n  echo \"expected 3, got 4\" >&2\n  return 1\n}\n",
    );

    let r = run(&repo, &["status", "--verify", "--spec", "good"]);
    r.expect_code(0);
    assert!(r.stdout.contains("Verify: good"), "{}", r.stdout);
    assert!(!r.stdout.contains("Verify: bad") && !r.stdout.contains("Verify: broken"));
    assert_eq!(r.last_line(), "1 passed, 0 failed, 0 skipped");

    let r = run(&repo, &["status", "--verify", "--spec", "bad"]);
    r.expect_code(1);
    assert!(r.stdout.contains("  [FAIL] It adds up"), "{}", r.stdout);
    assert!(
        r.stdout.contains("tests/t.sh#test_sum (exit 1, "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("expected 3, got 4"),
        "the failure snippet (from stderr, merged) is shown:\n{}",
        r.stdout
    );
    let j = run(&repo, &["status", "--verify", "--spec", "bad", "--json"]).json();
    let out = criterion(&j, "It adds up")["checks"][0]["output"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert_eq!(
        out, "checking the sum\nexpected 3, got 4\n",
        "stdout and stderr merged"
    );
    assert!(r.stdout.contains("specs/bad.md:5"), "{}", r.stdout);
    assert_eq!(r.last_line(), "0 passed, 1 failed, 0 skipped");

    let r = run(&repo, &["status", "--verify", "--spec", "broken"]);
    r.expect_code(3);
    assert!(r.stdout.contains("  [ERROR] It is there"), "{}", r.stdout);
    assert!(r.stdout.contains("does not exist"), "{}", r.stdout);
    assert_eq!(r.last_line(), "0 passed, 0 failed, 0 skipped, 1 error");

    // FAIL outranks ERROR.
    let r = run(
        &repo,
        &["status", "--verify", "--spec", "bad", "--spec", "broken"],
    );
    r.expect_code(1);
    assert!(r.stdout.contains("Verify: bad") && r.stdout.contains("Verify: broken"));
    assert!(!r.stdout.contains("Verify: good"));
    assert_eq!(r.last_line(), "0 passed, 1 failed, 0 skipped, 1 error");

    // A spec named by path, with or without .md.
    run(&repo, &["status", "--verify", "--spec", "specs/good.md"]).expect_code(0);
    run(&repo, &["status", "--verify", "--spec", "specs/good"]).expect_code(0);

    // Everything: in path order.
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(1);
    let at = |h: &str| {
        r.stdout
            .find(h)
            .unwrap_or_else(|| panic!("{h}:\n{}", r.stdout))
    };
    assert!(at("Verify: bad") < at("Verify: broken") && at("Verify: broken") < at("Verify: good"));
    assert_eq!(r.last_line(), "1 passed, 1 failed, 0 skipped, 1 error");

    // Usage errors are 2.
    let r = run(&repo, &["status", "--verify", "--spec", "nope"]);
    r.expect_code(2);
    assert!(r.stderr.contains("nope"), "{}", r.stderr);
    let r = run(&repo, &["status", "--verify", "--spec", "nope", "--json"]);
    r.expect_code(2);
    let e: serde_json::Value = serde_json::from_str(&r.stderr)
        .unwrap_or_else(|e| panic!("--json errors are JSON on stderr ({e}): {}", r.stderr));
    assert!(e.to_string().contains("nope"), "{e}");
    run(&repo, &["status", "--verify", "--bogus"]).expect_code(2);
    run(&repo, &["status", "--verify", "--jobs", "many"]).expect_code(2);
}

#[test]
fn skip_codes_77_and_78_are_skips_other_codes_fail() {
    let repo = Repo::initialised();
    repo.write(
        "specs/skips.md",
        "# Skips\n\n## Success Criteria\n\n- [ ] Seventy seven [verify](tests/s.sh#test_77)\n- [ ] Seventy eight [verify](tests/s.sh#test_78)\n- [ ] Seventy nine [verify](tests/s.sh#test_79)\n",
    );
    repo.write(
        "tests/s.sh",
        "test_77() { echo 'no display'; return 77; }\ntest_78() { exit 78; }\ntest_79() { return 79; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(1);
    let j = r.json();
    for t in ["Seventy seven", "Seventy eight"] {
        assert_eq!(outcome(&j, t), "SKIP", "{j:#}");
        assert!(!reason(&j, t).is_empty(), "a SKIP has a reason: {j:#}");
    }
    assert_eq!(outcome(&j, "Seventy nine"), "FAIL");
    assert_eq!(criterion(&j, "Seventy seven")["checks"][0]["exit_code"], 77);
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(1);
    assert!(
        r.stdout.contains("  [SKIP] Seventy seven ("),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("  [SKIP] Seventy eight ("),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  [FAIL] Seventy nine"), "{}", r.stdout);
    assert_eq!(r.last_line(), "0 passed, 1 failed, 2 skipped");
}

#[test]
fn executable_targets_get_the_function_as_their_one_argument_in_the_repo_root() {
    let repo = Repo::initialised();
    repo.write(
        "specs/exec.md",
        "# Exec\n\n## Success Criteria\n\n- [ ] Named check [verify](tests/exec-check#test_arg)\n- [ ] Whole file [verify](tests/exec-noarg)\n- [ ] Executable sh [verify](tests/direct.sh#test_direct)\n- [ ] Sourced whole file [verify](tests/whole.sh)\n",
    );
    // No extension at all: only the executable bit says how to run it.
    write_exec(
        &repo,
        "tests/exec-check",
        "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > args.txt\npwd -P > cwd.txt\n[ \"$1\" = test_arg ]\n",
    );
    write_exec(
        &repo,
        "tests/exec-noarg",
        "#!/bin/sh\nprintf '%s\\n' \"$#\" > noargs.txt\n",
    );
    // Executable .sh: run directly, not sourced; its own dispatcher calls the function.
    write_exec(
        &repo,
        "tests/direct.sh",
        "#!/bin/bash\ntest_direct() { [ \"${BASH_SOURCE[0]}\" = \"$0\" ]; }\necho \"$1\" > direct.txt\n\"$@\"\n",
    );
    repo.write("tests/whole.sh", "touch whole-ran\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    let j = r.json();
    for t in [
        "Named check",
        "Whole file",
        "Executable sh",
        "Sourced whole file",
    ] {
        assert_eq!(outcome(&j, t), "PASS", "{t}: {j:#}");
    }
    assert_eq!(repo.read("args.txt"), "1\ntest_arg\n");
    assert_eq!(repo.read("noargs.txt"), "0\n", "no function: no argument");
    assert_eq!(repo.read("direct.txt"), "test_direct\n");
    assert!(repo.join("whole-ran").exists());
    let root = std::fs::canonicalize(repo.path()).expect("canon");
    assert_eq!(repo.read("cwd.txt").trim(), root.to_string_lossy());
}

#[test]
fn checks_run_in_the_repo_root_when_vermas_starts_in_a_subfolder() {
    let repo = Repo::initialised();
    repo.write(
        "specs/sub.md",
        "# Sub\n\n## Success Criteria\n\n- [ ] Executable [verify](tests/exec-check#test_arg)\n- [ ] Sourced [verify](tests/sourced.sh#test_src)\n",
    );
    write_exec(
        &repo,
        "tests/exec-check",
        "#!/bin/sh\npwd -P > exec-cwd.txt\n[ \"$1\" = test_arg ]\n",
    );
    repo.write("tests/sourced.sh", "test_src() { pwd -P > src-cwd.txt; }\n");
    let r = vermas(
        &repo,
        &["status", "--verify", "--json"],
        Opts {
            dir: Some(repo.join("specs")),
            ..Opts::default()
        },
    );
    let j = r.json();
    assert_eq!(outcome(&j, "Executable"), "PASS", "{j:#}");
    assert_eq!(outcome(&j, "Sourced"), "PASS", "{j:#}");
    r.expect_code(0);
    let root = std::fs::canonicalize(repo.path()).expect("canon");
    assert_eq!(repo.read("exec-cwd.txt").trim(), root.to_string_lossy());
    assert_eq!(repo.read("src-cwd.txt").trim(), root.to_string_lossy());
}

#[test]
fn a_test_reading_stdin_gets_eof_at_once() {
    let repo = Repo::initialised();
    repo.write(
        "specs/stdin.md",
        "# Stdin\n\n## Success Criteria\n\n- [ ] Reads stdin [verify](tests/in.sh#test_reads \"timeout=20s\")\n- [ ] Reads stdin too [verify](tests/in-exec#test_cat \"timeout=20s\")\n",
    );
    repo.write(
        "tests/in.sh",
        "test_reads() {\n  if read -r line; then echo \"got: $line\"; return 1; fi\n  echo eof\n}\n",
    );
    write_exec(
        &repo,
        "tests/in-exec",
        "#!/bin/sh\nn=$(cat | wc -c)\n[ \"$n\" -eq 0 ]\n",
    );
    // vermas's own stdin is a pipe the test keeps open: a check that inherited it would
    // block until the 20 s timeout.
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    let j = r.json();
    assert_eq!(outcome(&j, "Reads stdin"), "PASS", "{j:#}");
    assert_eq!(outcome(&j, "Reads stdin too"), "PASS", "{j:#}");
    assert!(
        r.elapsed < Duration::from_secs(10),
        "took {:?}: stdin was not closed",
        r.elapsed
    );
}

#[test]
fn relative_targets_resolve_against_the_spec_folder() {
    let repo = Repo::initialised();
    repo.write(
        "specs/sub/feature.md",
        "# Feature\n\n## Success Criteria\n\n- [ ] Next to the spec [verify](./helpers/check.sh#test_here)\n- [ ] One folder up [verify](../common/up.sh#test_up)\n- [ ] From the root [verify](tests/root.sh#test_root)\n",
    );
    repo.write(
        "specs/sub/helpers/check.sh",
        "test_here() { touch here-ran; }\n",
    );
    repo.write("specs/common/up.sh", "test_up() { touch up-ran; }\n");
    repo.write("tests/root.sh", "test_root() { touch root-ran; }\n");
    let list = repo.json(&["spec", "list"]);
    let anns = &list[0]["criteria"];
    assert_eq!(
        anns[0]["annotations"][0]["file"],
        "specs/sub/helpers/check.sh"
    );
    assert_eq!(anns[1]["annotations"][0]["file"], "specs/common/up.sh");
    assert_eq!(anns[2]["annotations"][0]["file"], "tests/root.sh");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert_eq!(
        r.last_line(),
        "3 passed, 0 failed, 0 skipped",
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("specs/sub/helpers/check.sh#test_here"));
    assert!(r.stdout.contains("specs/sub/feature.md:5"), "{}", r.stdout);
    for m in ["here-ran", "up-ran", "root-ran"] {
        assert!(repo.join(m).exists(), "{m}");
    }
    let show = repo.ok(&["spec", "show", "feature"]);
    assert!(
        show.contains("specs/sub/helpers/check.sh#test_here"),
        "{show}"
    );
    assert!(show.contains("specs/common/up.sh#test_up"), "{show}");
}

#[test]
fn legacy_double_colon_targets_still_run() {
    let repo = Repo::initialised();
    repo.write(
        "specs/legacy.md",
        "# Legacy\n\n## Success Criteria\n\n- [ ] Old style [verify](tests/legacy.sh::test_old)\n",
    );
    repo.write("tests/legacy.sh", "test_old() { touch legacy-ran; }\n");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert!(r.stdout.contains("  [PASS] Old style"), "{}", r.stdout);
    assert!(repo.join("legacy-ran").exists());
}

#[test]
fn named_verify_kinds_skip_without_a_runner_and_run_with_one() {
    let repo = Repo::initialised();
    repo.write(
        "specs/lint.md",
        "# Lint\n\n## Success Criteria\n\n- [ ] Lint is clean [verify:lint](tests/lint.sh#test_lint)\n- [ ] Plain check [verify](tests/plain.sh#test_plain)\n",
    );
    repo.write(
        "tests/lint.sh",
        "touch lint-ran\necho \"args: $*\" > lint-args.txt\n[ \"$1\" = test_lint ]\n",
    );
    repo.write("tests/plain.sh", "test_plain() { :; }\n");
    let list = repo.json(&["spec", "list"]);
    assert_eq!(
        list[0]["criteria"][0]["annotations"][0]["kind"],
        "verify:lint"
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    let j = r.json();
    assert_eq!(outcome(&j, "Lint is clean"), "SKIP", "{j:#}");
    assert!(
        reason(&j, "Lint is clean").contains("verify:lint"),
        "the reason names the kind: {j:#}"
    );
    assert_eq!(outcome(&j, "Plain check"), "PASS");
    assert!(!repo.join("lint-ran").exists(), "no runner: not run");

    repo.ok(&["config", "set", "verify.runners.verify:lint", "bash"]);
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(outcome(&r.json(), "Lint is clean"), "PASS", "{}", r.stdout);
    assert!(repo.join("lint-ran").exists());
    assert_eq!(repo.read("lint-args.txt"), "args: test_lint\n");
}

/// A folder beside the repository (same parent), to aim escaping targets at.
fn outside_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("vermas-outside")
        .tempdir()
        .expect("tempdir")
}

#[test]
fn invalid_targets_are_errors_and_never_run() {
    let repo = Repo::initialised();
    let outside = outside_dir();
    let out_name = outside
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    std::fs::write(
        outside.path().join("escape.sh"),
        format!(
            "#!/bin/sh\ntouch '{}/escaped-ran'\n",
            outside.path().display()
        ),
    )
    .expect("write");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            outside.path().join("escape.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .expect("chmod");
    }
    let abs = outside.path().join("escape.sh").display().to_string();
    let spec = format!(
        "# Bad\n\n## Success Criteria\n\n\
         - [ ] Missing file [verify](tests/nope.sh#test_x)\n\
         - [ ] Not runnable [verify](tests/x.rb#test_x)\n\
         - [ ] Dash function [verify](tests/evil.sh#-rf)\n\
         - [ ] Dash on executable [verify](tests/evil-exec#--help)\n\
         - [ ] Semicolon [verify](tests/evil.sh#test_ok;touch${{IFS}}pwned1)\n\
         - [ ] Substitution [verify](tests/evil.sh#$(touch${{IFS}}pwned2))\n\
         - [ ] Pipe [verify](tests/evil.sh#test_ok|touch${{IFS}}pwned3)\n\
         - [ ] And [verify](tests/evil-exec#test_ok&&touch${{IFS}}pwned4)\n\
         - [ ] Escapes [verify](../../{out_name}/escape.sh#test_x)\n\
         - [ ] Escapes via tests [verify](tests/../../{out_name}/escape.sh#test_x)\n\
         - [ ] Absolute [verify]({abs}#test_x)\n\
         - [ ] Fine [verify](tests/fine.sh#test_ok)\n"
    );
    repo.write("specs/bad.md", &spec);
    repo.write("tests/x.rb", "File.write('rb-ran', '')\n");
    repo.write(
        "tests/evil.sh",
        "touch evil-sourced\ntest_ok() { touch evil-called; }\n",
    );
    repo.write("tests/fine.sh", "test_ok() { touch fine-ran; }\n");
    write_exec(&repo, "tests/evil-exec", "#!/bin/sh\ntouch evil-exec-ran\n");

    let r = run(&repo, &["status", "--verify", "--spec", "bad", "--json"]);
    let j = r.json();
    r.expect_code(3);
    let texts = [
        "Missing file",
        "Not runnable",
        "Dash function",
        "Dash on executable",
        "Semicolon",
        "Substitution",
        "Pipe",
        "And",
        "Escapes",
        "Escapes via tests",
        "Absolute",
    ];
    for t in texts {
        assert_eq!(outcome(&j, t), "ERROR", "{t}: {j:#}");
        assert!(!reason(&j, t).is_empty(), "{t}: an ERROR has a reason");
    }
    assert!(reason(&j, "Missing file").contains("tests/nope.sh"));
    assert!(reason(&j, "Missing file").contains("does not exist"));
    let rb = reason(&j, "Not runnable");
    assert!(
        rb.contains("tests/x.rb") && (rb.contains("chmod +x") || rb.contains("verify.runners")),
        "says how to make it runnable: {rb}"
    );
    // Every refused target was refused before anything ran.
    for m in [
        "evil-sourced",
        "evil-called",
        "evil-exec-ran",
        "pwned1",
        "pwned2",
        "pwned3",
        "pwned4",
        "rb-ran",
    ] {
        assert!(!repo.join(m).exists(), "{m} exists: an invalid target ran");
    }
    assert!(
        !outside.path().join("escaped-ran").exists(),
        "a target outside the repository ran"
    );
    // Only the valid one ran.
    assert_eq!(outcome(&j, "Fine"), "PASS");
    assert!(repo.join("fine-ran").exists());

    // The human report lists each as ERROR; the count line has the errors.
    let r = run(&repo, &["status", "--verify", "--spec", "bad"]);
    r.expect_code(3);
    assert_eq!(
        r.stdout.matches("[ERROR]").count(),
        texts.len(),
        "{}",
        r.stdout
    );
    assert_eq!(r.last_line(), "1 passed, 0 failed, 0 skipped, 11 errors");
    for m in [
        "evil-sourced",
        "evil-exec-ran",
        "pwned1",
        "pwned2",
        "pwned3",
        "pwned4",
    ] {
        assert!(!repo.join(m).exists(), "{m}");
    }

    // spec check flags each with its place and exits 1.
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    let all = r.all();
    for (i, line) in spec.lines().enumerate() {
        // (spec check looks at files and functions; whether a file can be run is for
        // status to say.)
        if let Some(col) = line.find("[verify]")
            && !line.contains("Fine")
            && !line.contains("Not runnable")
        {
            let at = format!("specs/bad.md:{}:{}", i + 1, col + 1);
            assert!(all.contains(&at), "no finding at {at}:\n{all}");
        }
    }
}

#[test]
fn bad_link_options_are_errors_and_never_run() {
    let repo = Repo::initialised();
    repo.write(
        "specs/opt.md",
        "# Opt\n\n## Success Criteria\n\n- [ ] Bad duration [verify](tests/o.sh#test_o \"timeout=soon\")\n- [ ] Not key value [verify](tests/o.sh#test_o \"fast\")\n- [ ] Good [verify](tests/o.sh#test_good \"timeout=30s\")\n",
    );
    repo.write(
        "tests/o.sh",
        "test_o() { touch o-ran; }\ntest_good() { :; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "Bad duration"), "ERROR", "{j:#}");
    assert!(reason(&j, "Bad duration").contains("soon"), "{j:#}");
    assert_eq!(outcome(&j, "Not key value"), "ERROR", "{j:#}");
    assert_eq!(outcome(&j, "Good"), "PASS", "{j:#}");
    assert!(!repo.join("o-ran").exists());
}

/// Polls until every pid file exists.
fn wait_for_files(repo: &Repo, files: &[&str]) {
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while !files.iter().all(|f| repo.join(f).exists()) {
        assert!(
            std::time::Instant::now() < until,
            "pid files never appeared: {files:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_hanging_test_times_out_and_its_whole_process_group_is_killed() {
    let repo = Repo::initialised();
    repo.write(
        "specs/hang.md",
        "# Hang\n\n## Success Criteria\n\n- [ ] Hangs [verify](tests/hang.sh#test_hang \"timeout=1s\")\n- [ ] Quick [verify](tests/hang.sh#test_quick)\n",
    );
    repo.write(
        "tests/hang.sh",
        r#"test_hang() {
  sleep 300 &
  echo $! > child.pid
  bash -c 'sleep 300 & echo $! > grandchild.pid; wait' &
  echo $! > middle.pid
  echo started
  wait
}
test_quick() { echo quick; }
"#,
    );
    let r = vermas(
        &repo,
        &["status", "--verify", "--json"],
        Opts {
            deadline: Some(Duration::from_secs(60)),
            ..Opts::default()
        },
    );
    wait_for_files(&repo, &["child.pid", "middle.pid", "grandchild.pid"]);
    let pids = read_pids(&repo, &["child.pid", "middle.pid", "grandchild.pid"]);
    let left = wait_gone(&pids, Duration::from_secs(3));
    kill_all(&left);
    let j = r.json();
    r.expect_code(3);
    assert_eq!(outcome(&j, "Hangs"), "ERROR", "{j:#}");
    assert!(
        reason(&j, "Hangs").contains("timed out"),
        "{}",
        reason(&j, "Hangs")
    );
    let hang = &criterion(&j, "Hangs")["checks"][0];
    assert!(
        hang["output"]
            .as_str()
            .is_some_and(|o| o.contains("started")),
        "output written before the timeout is kept: {hang:#}"
    );
    assert_eq!(outcome(&j, "Quick"), "PASS");
    assert!(
        r.elapsed < Duration::from_secs(15),
        "a 1s timeout took {:?}",
        r.elapsed
    );
    assert!(
        left.is_empty(),
        "processes left running after the timeout: {left:?} (of child, middle, grandchild {pids:?})"
    );
}

#[test]
fn a_background_process_holding_the_output_does_not_stall_a_passing_test() {
    let repo = Repo::initialised();
    repo.write(
        "specs/bg.md",
        "# Bg\n\n## Success Criteria\n\n- [ ] Leaves a child [verify](tests/bg.sh#test_bg \"timeout=20s\")\n",
    );
    repo.write(
        "tests/bg.sh",
        "test_bg() {\n  sleep 300 &\n  echo $! > bg.pid\n  echo done\n}\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let pids = read_pids(&repo, &["bg.pid"]);
    let left = wait_gone(&pids, Duration::from_secs(3));
    kill_all(&left);
    r.expect_code(0);
    assert_eq!(outcome(&r.json(), "Leaves a child"), "PASS", "{}", r.stdout);
    assert!(r.elapsed < Duration::from_secs(15), "took {:?}", r.elapsed);
}

#[test]
fn a_test_printing_100_mb_finishes_with_its_output_capped() {
    let repo = Repo::initialised();
    repo.write(
        "specs/flood.md",
        "# Flood\n\n## Success Criteria\n\n- [ ] Floods and fails [verify](tests/flood.sh#test_flood \"timeout=60s\")\n- [ ] Floods one line [verify](tests/flood.sh#test_line \"timeout=60s\")\n",
    );
    repo.write(
        "tests/flood.sh",
        "test_flood() {\n  yes | head -c 100000000\n  echo 'final line'\n  return 1\n}\ntest_line() {\n  head -c 100000000 /dev/zero | tr '\\0' x\n}\n",
    );
    let r = vermas(
        &repo,
        &["status", "--verify", "--json", "--junit", "flood.xml"],
        Opts {
            deadline: Some(Duration::from_secs(60)),
            ..Opts::default()
        },
    );
    r.expect_code(1);
    let j = r.json();
    let cap = 1usize << 20;
    for (t, want) in [("Floods and fails", "FAIL"), ("Floods one line", "PASS")] {
        let c = criterion(&j, t);
        assert_eq!(c["outcome"], want, "{t}");
        let chk = &c["checks"][0];
        let out = chk["output"].as_str().expect("output");
        assert!(
            out.len() <= cap && out.len() >= cap / 2,
            "{t}: kept {} bytes, the cap is {cap}",
            out.len()
        );
        assert_eq!(chk["truncated"], true, "{t}: truncation is marked");
    }
    assert!(
        r.raw.len() < 4 * cap,
        "JSON holds capped output only: {} bytes",
        r.raw.len()
    );
    let xml = repo.read("flood.xml");
    assert_xml_well_formed(&xml);
    assert_eq!(xml.matches("<testcase").count(), 2);

    let r = vermas(
        &repo,
        &["status", "--verify"],
        Opts {
            deadline: Some(Duration::from_secs(60)),
            ..Opts::default()
        },
    );
    r.expect_code(1);
    assert!(
        r.stdout.contains("  [FAIL] Floods and fails"),
        "{}",
        &r.stdout[..r.stdout.len().min(2000)]
    );
    assert!(r.stdout.contains("  [PASS] Floods one line"));
    assert_eq!(r.last_line(), "1 passed, 1 failed, 0 skipped");
    assert!(
        r.stdout.len() < 64 * 1024,
        "the human report shows a snippet, not the flood: {} bytes",
        r.stdout.len()
    );
}

#[test]
fn verify_output_cap_comes_from_config() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "verify.output_cap", "1000"]);
    repo.write(
        "specs/cap.md",
        "# Cap\n\n## Success Criteria\n\n- [ ] Chatty [verify](tests/c.sh#test_chatty)\n",
    );
    repo.write("tests/c.sh", "test_chatty() { seq 1 10000; }\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    let c = criterion(&r.json(), "Chatty");
    let out = c["checks"][0]["output"].as_str().expect("output");
    assert!(
        out.len() <= 1000 && out.starts_with("1\n2\n3\n"),
        "{}",
        out.len()
    );
    assert_eq!(c["checks"][0]["truncated"], true);
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

/// A loose well-formedness check: tags nest and close, attribute values are quoted,
/// `<` never appears in text or values, every `&` starts a known entity.
fn assert_xml_well_formed(xml: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = xml.trim_start();
    assert!(rest.starts_with("<?xml"), "no XML declaration");
    let check_text = |t: &str| {
        let mut s = t;
        while let Some(i) = s.find('&') {
            let after = &s[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                    .iter()
                    .any(|e| after.starts_with(e)),
                "bare & in XML: {:?}",
                &after[..after.len().min(20)]
            );
            s = &s[i + 1..];
        }
    };
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        rest = &rest[open..];
        if rest.starts_with("<?") {
            let end = rest.find("?>").expect("unclosed <?");
            rest = &rest[end + 2..];
            continue;
        }
        if rest.starts_with("<!--") {
            let end = rest.find("-->").expect("unclosed comment");
            rest = &rest[end + 3..];
            continue;
        }
        // Find the end of the tag, skipping quoted attribute values.
        let bytes = rest.as_bytes();
        let mut i = 1;
        let mut quote: Option<u8> = None;
        while i < bytes.len() {
            match (quote, bytes[i]) {
                (Some(q), b) if b == q => quote = None,
                (Some(_), b'<') => panic!("'<' inside an attribute value"),
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(bytes[i]),
                (None, b'>') => break,
                (None, b'<') => panic!("'<' inside a tag: {}", &rest[..i.min(80)]),
                _ => {}
            }
            i += 1;
        }
        assert!(i < bytes.len(), "unterminated tag");
        let tag = &rest[1..i];
        check_text(tag);
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(top, name.trim(), "mismatched closing tag");
        } else {
            let self_closing = tag.ends_with('/');
            let name: String = tag
                .trim_end_matches('/')
                .split_whitespace()
                .next()
                .expect("tag name")
                .to_string();
            // Attributes: name="value" pairs.
            let attrs = tag.trim_end_matches('/')[name.len()..].trim();
            let mut a = attrs;
            while !a.is_empty() {
                let eq = a
                    .find('=')
                    .unwrap_or_else(|| panic!("attribute without value: {a}"));
                let q = a[eq + 1..].chars().next().expect("value");
                assert!(q == '"' || q == '\'', "unquoted attribute in <{name}>");
                let close = a[eq + 2..].find(q).expect("closing quote") + eq + 2;
                a = a[close + 1..].trim_start();
            }
            if !self_closing {
                stack.push(name);
            }
        }
        rest = &rest[i + 1..];
    }
    check_text(rest);
    assert!(rest.trim().is_empty(), "text after the root element");
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
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

#[test]
fn jobs_sets_how_many_checks_run_at_once_and_results_keep_spec_order() {
    let repo = Repo::initialised();
    // Four checks that each wait (up to 5 s) until all four are running at once.
    repo.write(
        "specs/parallel.md",
        "# Parallel\n\n## Success Criteria\n\n- [ ] One [verify](tests/p.sh#test_p1)\n- [ ] Two [verify](tests/p.sh#test_p2)\n- [ ] Three [verify](tests/p.sh#test_p3)\n- [ ] Four [verify](tests/p.sh#test_p4)\n",
    );
    repo.write(
        "tests/p.sh",
        r#"barrier() {
  mkdir -p active && touch "active/$1"
  for _ in $(seq 100); do
    [ "$(ls active | wc -l)" -ge 4 ] && return 0
    sleep 0.05
  done
  echo "only $(ls active | wc -l) ran at once"
  return 1
}
test_p1() { barrier p1 && sleep 0.5; }
test_p2() { barrier p2; }
test_p3() { barrier p3; }
test_p4() { barrier p4; }
"#,
    );
    // Four checks that fail if any other runs at the same time.
    repo.write(
        "specs/serial.md",
        "# Serial\n\n## Success Criteria\n\n- [ ] S1 [verify](tests/s.sh#test_s)\n- [ ] S2 [verify](tests/s.sh#test_s)\n- [ ] S3 [verify](tests/s.sh#test_s)\n- [ ] S4 [verify](tests/s.sh#test_s)\n",
    );
    repo.write(
        "tests/s.sh",
        "test_s() {\n  mkdir running.lock 2>/dev/null || { echo overlap; return 1; }\n  sleep 0.2\n  rmdir running.lock\n}\n",
    );
    let r = run(
        &repo,
        &["status", "--verify", "--spec", "parallel", "--jobs", "4"],
    );
    r.expect_code(0);
    let order: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("  [PASS] "))
        .collect();
    assert_eq!(
        order,
        [
            "  [PASS] One",
            "  [PASS] Two",
            "  [PASS] Three",
            "  [PASS] Four"
        ],
        "results print in spec order: {}",
        r.stdout
    );
    let r = run(
        &repo,
        &["status", "--verify", "--spec", "serial", "--jobs", "1"],
    );
    r.expect_code(0);
    assert_eq!(r.last_line(), "4 passed, 0 failed, 0 skipped");
    let r = run(
        &repo,
        &["status", "--verify", "--spec", "serial", "-j", "1"],
    );
    r.expect_code(0);
}

#[test]
fn a_spec_without_success_criteria_is_listed_and_skipped_elsewhere_without_a_word() {
    let repo = Repo::initialised();
    repo.write(
        "specs/notes.md",
        "# Notes\n\nJust prose.\n\n- [ ] a task outside any criteria section [verify](tests/x.sh#test_x)\n",
    );
    repo.write("tests/x.sh", "touch x-ran\ntest_x() { touch x-ran; }\n");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert!(r.stderr.contains("nothing was verified"), "{}", r.stderr);
    assert!(!r.stdout.contains("Verify: notes"), "{}", r.stdout);
    assert!(!r.all().contains("Success Criteria"), "{}", r.all());
    assert!(!repo.join("x-ran").exists());
    // spec list shows it, with zero counts, as ralph does.
    let list = repo.json(&["spec", "list"]);
    assert_eq!(list[0]["path"], "specs/notes.md");
    assert_eq!(list[0]["criteria"].as_array().map(Vec::len), Some(0));
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(!r.all().contains("Success Criteria"), "{}", r.all());
    run(&repo, &["status"]).expect_code(0);
}

#[test]
fn an_unclosed_code_fence_is_reported_with_its_line() {
    let repo = Repo::initialised();
    repo.write(
        "specs/fence.md",
        "# Fence\n\n## Success Criteria\n\n- [ ] Before the fence [verify](tests/f.sh#test_ok)\n\n```sh\necho never closed\n- [ ] Inside the fence [verify](tests/f.sh#test_marker)\n",
    );
    repo.write(
        "tests/f.sh",
        "test_ok() { :; }\ntest_marker() { touch fenced-ran; }\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    assert!(
        r.all().contains("specs/fence.md:7:"),
        "the finding points at the fence's line:\n{}",
        r.all()
    );
    assert!(r.all().to_lowercase().contains("fence"), "{}", r.all());

    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert!(r.stdout.contains("[ERROR]"), "{}", r.stdout);
    assert!(r.stdout.contains("specs/fence.md:7"), "{}", r.stdout);
    assert!(
        r.stdout.contains("  [PASS] Before the fence"),
        "{}",
        r.stdout
    );
    assert!(!repo.join("fenced-ran").exists());
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert!(j["counts"]["errors"].as_u64().unwrap_or(0) >= 1, "{j:#}");
}

#[test]
fn code_blocks_and_inline_code_are_never_annotations() {
    let repo = Repo::initialised();
    repo.write(
        "specs/code.md",
        "# Code\n\n## Success Criteria\n\n- [ ] Fenced example\n  ```\n  [verify](tests/evil.sh#test_x)\n  ```\n- [ ] Inline example `[verify](tests/evil.sh#test_x)`\n- [ ] Indented example\n\n      [verify](tests/evil.sh#test_x)\n",
    );
    repo.write(
        "tests/evil.sh",
        "touch evil-ran\ntest_x() { touch evil-ran; }\n",
    );
    let list = repo.json(&["spec", "list"]);
    let crit = list[0]["criteria"].as_array().expect("criteria");
    assert_eq!(crit.len(), 3, "{list:#}");
    for c in crit {
        assert_eq!(c["annotations"].as_array().map(Vec::len), Some(0), "{c:#}");
    }
    assert_eq!(crit[0]["text"], "Fenced example");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert_eq!(
        r.last_line(),
        "0 passed, 0 failed, 3 skipped",
        "{}",
        r.stdout
    );
    assert!(!repo.join("evil-ran").exists());
}

#[test]
fn every_annotation_of_a_criterion_must_pass() {
    let repo = Repo::initialised();
    repo.write(
        "specs/multi.md",
        "# Multi\n\n## Success Criteria\n\n- [ ] Both pass [verify](tests/m.sh#test_a) [verify](tests/m.sh#test_b)\n- [ ] One fails\n  [verify](tests/m.sh#test_a)\n  [verify](tests/m.sh#test_fail)\n",
    );
    repo.write(
        "tests/m.sh",
        "test_a() { touch a-ran; }\ntest_b() { touch b-ran; }\ntest_fail() { touch fail-ran; return 1; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(1);
    let j = r.json();
    assert_eq!(outcome(&j, "Both pass"), "PASS");
    assert_eq!(outcome(&j, "One fails"), "FAIL");
    assert_eq!(
        criterion(&j, "One fails")["checks"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    for m in ["a-ran", "b-ran", "fail-ran"] {
        assert!(repo.join(m).exists(), "{m}");
    }
}

#[test]
fn python_targets_run_under_pytest_with_a_node_id() {
    let repo = Repo::initialised();
    repo.write(
        "specs/py.md",
        "# Py\n\n## Success Criteria\n\n- [ ] Adds [verify](tests/test_calc.py#test_add)\n- [ ] Multiplies [verify](tests/test_calc.py::TestCalc::test_mul)\n",
    );
    repo.write(
        "tests/test_calc.py",
        "def test_add():\n    assert 1 + 1 == 2\n\nclass TestCalc:\n    def test_mul(self):\n        assert 2 * 3 == 6\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    let chk = &criterion(&j, "Adds")["checks"][0];
    assert_eq!(
        chk["command"], "python3 -m pytest -q tests/test_calc.py::test_add",
        "{j:#}"
    );
    // The legacy form splits on the first `::`, keeping `Class::test` whole.
    let chk = &criterion(&j, "Multiplies")["checks"][0];
    assert_eq!(
        chk["command"], "python3 -m pytest -q tests/test_calc.py::TestCalc::test_mul",
        "{j:#}"
    );
    let have_pytest = std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    for t in ["Adds", "Multiplies"] {
        if have_pytest {
            assert_eq!(outcome(&j, t), "PASS", "{j:#}");
        } else {
            assert_ne!(outcome(&j, t), "PASS", "no pytest here: {j:#}");
        }
    }
    if have_pytest {
        r.expect_code(0);
    }
}

/// Front matter, multi-line and multi-annotation items, options, `[x]`/`[X]`, items
/// outside the section.
const SHAPE: &str = "---
bead: vm-abcd
title: Front Title
---
# Heading Title

## Success Criteria

- [ ] First [verify](tests/a.sh#test_a \"timeout=30s\") trailing words
- [x] Second checked
  [verify](tests/a.sh#test_b)
  [judge](tests/judges/j.sh#test_j)
- [X] Third capital [verify:lint](tests/a.sh#test_c)
- plain bullet, not a criterion

## Later

- [ ] not a criterion [verify](tests/a.sh#test_a)
";

#[test]
fn spec_list_json_has_the_documented_shape() {
    let repo = Repo::initialised();
    repo.write("specs/shape.md", SHAPE);
    repo.write(
        "specs/another.md",
        "# Another One\n\n## Success Criteria\n\n- [ ] Lonely\n",
    );
    let j = repo.json(&["spec", "list"]);
    let specs = j.as_array().expect("an array");
    assert_eq!(specs.len(), 2);
    assert_eq!(specs[0]["path"], "specs/another.md");
    assert_eq!(specs[0]["title"], "Another One");
    assert!(specs[0]["bead"].is_null());
    let s = &specs[1];
    assert_eq!(s["path"], "specs/shape.md");
    assert_eq!(s["title"], "Front Title");
    assert_eq!(s["bead"], "vm-abcd");
    let c = s["criteria"].as_array().expect("criteria");
    assert_eq!(c.len(), 3, "{s:#}");
    assert_eq!(c[0]["text"], "First trailing words");
    assert_eq!(c[0]["checked"], false);
    assert_eq!(c[0]["line"], 9);
    let a = &c[0]["annotations"][0];
    assert_eq!(a["kind"], "verify");
    assert_eq!(a["file"], "tests/a.sh");
    assert_eq!(a["function"], "test_a");
    assert_eq!(a["line"], 9);
    assert_eq!(a["options"]["timeout"], "30s");
    assert_eq!(c[1]["text"], "Second checked");
    assert_eq!(c[1]["checked"], true);
    assert_eq!(c[1]["line"], 10);
    let anns = c[1]["annotations"].as_array().expect("annotations");
    assert_eq!(anns.len(), 2);
    assert_eq!(anns[0]["line"], 11);
    assert_eq!(anns[1]["kind"], "judge");
    assert_eq!(anns[1]["file"], "tests/judges/j.sh");
    assert_eq!(anns[1]["function"], "test_j");
    assert_eq!(anns[1]["line"], 12);
    assert!(anns[1]["options"].as_object().is_some_and(|o| o.is_empty()));
    assert_eq!(c[2]["text"], "Third capital");
    assert_eq!(c[2]["checked"], true);
    assert_eq!(c[2]["annotations"][0]["kind"], "verify:lint");
    for k in ["path", "title", "bead", "criteria"] {
        assert!(s.get(k).is_some(), "{k}");
    }

    let human = repo.ok(&["spec", "list"]);
    assert!(
        human.contains("specs/shape.md") && human.contains("Front Title"),
        "{human}"
    );
    assert!(human.contains("specs/another.md"), "{human}");
}

#[test]
fn success_criteria_sections_end_at_the_next_heading_of_the_same_level() {
    let repo = Repo::initialised();
    repo.write(
        "specs/levels.md",
        "# Levels\n\n## Part one\n\n- [ ] before the section\n\n### Success criteria\n\n- [ ] In the section\n\n#### Details\n\n- [ ] Under a deeper heading\n\n### Other\n\n- [ ] after the section\n\n# Success Criteria\n\n- [ ] Top level section\n",
    );
    let j = repo.json(&["spec", "list"]);
    let texts: Vec<&str> = j[0]["criteria"]
        .as_array()
        .expect("criteria")
        .iter()
        .map(|c| c["text"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        texts,
        [
            "In the section",
            "Under a deeper heading",
            "Top level section"
        ]
    );
}

#[test]
fn a_check_that_cannot_start_is_an_error_not_a_failure() {
    let repo = Repo::initialised();
    repo.write(
        "specs/start.md",
        "# Start\n\n## Success Criteria\n\n- [ ] Bad interpreter [verify](tests/bad-interp#test_x)\n",
    );
    write_exec(
        &repo,
        "tests/bad-interp",
        "#!/nonexistent/interpreter\nexit 0\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "Bad interpreter"), "ERROR", "{j:#}");
    assert!(!reason(&j, "Bad interpreter").is_empty());
}

#[test]
fn spec_commands_work_without_beads() {
    let repo = Repo::new();
    repo.write("specs/shape.md", SHAPE);
    repo.write(
        "tests/a.sh",
        "test_a() { :; }\ntest_b() { :; }\ntest_c() { :; }\n",
    );
    repo.write(
        "tests/judges/j.sh",
        "test_j() { judge_files tests/a.sh; judge_criterion \"X\"; }\n",
    );
    let j = repo.json(&["spec", "list"]);
    assert_eq!(j[0]["path"], "specs/shape.md");
    assert_eq!(j[0]["criteria"].as_array().map(Vec::len), Some(3));
    repo.ok(&["spec", "list"]);
    let show = repo.ok(&["spec", "show", "shape"]);
    assert!(show.contains("specs/shape.md:9"), "{show}");
    run(&repo, &["spec", "check"]).expect_code(0);
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert!(
        r.stdout.contains("  [PASS] First trailing words"),
        "{}",
        r.stdout
    );
    // From a subfolder, the repository's specs are found.
    let r = vermas(
        &repo,
        &["spec", "list", "--json"],
        Opts {
            dir: Some(repo.join("tests")),
            ..Opts::default()
        },
    );
    r.expect_code(0);
    assert_eq!(r.json()[0]["path"], "specs/shape.md");
    assert!(
        !repo.join(".beads").exists(),
        "reading specs must not create .beads"
    );
}

#[test]
fn spec_show_lists_criteria_and_annotations_with_locations() {
    let repo = notifications_repo();
    let out = repo.ok(&["spec", "show", "notifications"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].contains("Notifications") && lines[0].contains("vm-k3f9"),
        "{out}"
    );
    assert!(out.contains("Notification appears within 2s"), "{out}");
    assert!(out.contains("specs/notifications.md:10"), "{out}");
    assert!(
        out.lines().any(|l| l.contains("verify")
            && l.contains("tests/notify-test.sh#test_notification_timing")
            && l.contains("specs/notifications.md:11")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.contains("judge")
            && l.contains("tests/judges/notify.sh#test_clear_visibility")
            && l.contains("specs/notifications.md:13")),
        "{out}"
    );
    assert!(out.contains("specs/notifications.md:14"), "{out}");
    let j = repo.json(&["spec", "show", "notifications"]);
    assert_eq!(j["schema_version"], 1);
    assert_eq!(j["criteria"].as_array().map(Vec::len), Some(3));
    let r = run(&repo, &["spec", "show", "nope"]);
    r.expect_code(2);
    assert!(r.stderr.contains("nope"), "{}", r.stderr);
}

#[test]
fn spec_check_reports_missing_functions_and_files_at_their_links() {
    let repo = Repo::initialised();
    repo.write(
        "specs/x.md",
        "# X\n\n## Success Criteria\n\n- [ ] Present [verify](../tests/a.sh#test_present)\n- [ ] Missing function\n  [verify](../tests/a.sh#test_missing)\n- [ ] Missing file [verify](../tests/nope.sh#test_x)\n",
    );
    repo.write(
        "tests/a.sh",
        "helper() { :; }\ntest_present() { helper; }\nfunction test_unused {\n  :\n}\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    let all = r.all();
    assert!(
        all.contains("specs/x.md:7:3"),
        "missing function at its link:\n{all}"
    );
    assert!(all.contains("test_missing"), "{all}");
    assert!(
        all.contains("specs/x.md:8:20"),
        "missing file at its link:\n{all}"
    );
    assert!(all.contains("tests/nope.sh"), "{all}");
    assert!(
        all.contains("test_unused") && all.contains("not referenced"),
        "unreferenced test_* function warned:\n{all}"
    );
    assert!(
        !all.contains("helper is not"),
        "only test_* functions: {all}"
    );

    let r = run(&repo, &["spec", "check", "--json"]);
    r.expect_code(1);
    let f = r.json();
    let f = f.as_array().expect("findings");
    let find = |needle: &str| {
        f.iter()
            .find(|x| x["message"].as_str().is_some_and(|m| m.contains(needle)))
            .unwrap_or_else(|| panic!("{needle}: {f:#?}"))
            .clone()
    };
    let m = find("test_missing");
    assert_eq!(m["level"], "error");
    assert_eq!(
        (m["file"].as_str(), m["line"].as_u64(), m["column"].as_u64()),
        (Some("specs/x.md"), Some(7), Some(3))
    );
    let u = find("test_unused");
    assert_eq!(u["level"], "warning");
    assert_eq!(u["file"], "tests/a.sh");
    assert_eq!(u["line"], 3);

    // Fixed: only the warning is left, and that exits 0.
    repo.write(
        "specs/x.md",
        "# X\n\n## Success Criteria\n\n- [ ] Present [verify](../tests/a.sh#test_present)\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(r.all().contains("test_unused"));
}

#[test]
fn spec_check_fix_rewrites_legacy_links_and_prints_a_diff() {
    let repo = Repo::initialised();
    let before = "# Legacy\n\n## Success Criteria\n\n- [ ] Old one [verify](tests/a.sh::test_a)\n- [ ] New one [verify](tests/a.sh#test_b)\n- [ ] Pytest id [verify](tests/t.py::TestX::test_y)\n\nProse mentioning tests/a.sh::test_a stays.\n";
    repo.write("specs/legacy.md", before);
    repo.write("tests/a.sh", "test_a() { :; }\ntest_b() { :; }\n");
    repo.write(
        "tests/t.py",
        "class TestX:\n    def test_y(self):\n        pass\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    let all = r.all();
    assert!(
        all.contains("specs/legacy.md:5:15"),
        "legacy warning at its link:\n{all}"
    );
    assert!(all.contains("specs/legacy.md:7:17"), "{all}");
    assert!(all.contains("::"), "{all}");

    // The fix writes `#`, and a path from the spec's folder (GitHub reads it from there).
    let r = run(&repo, &["spec", "check", "--fix"]);
    r.expect_code(0);
    assert!(
        r.stdout
            .contains("-- [ ] Old one [verify](tests/a.sh::test_a)"),
        "diff shows the old line:\n{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("+- [ ] Old one [verify](../tests/a.sh#test_a)"),
        "diff shows the new line:\n{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("+- [ ] Pytest id [verify](../tests/t.py#TestX::test_y)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("specs/legacy.md"), "{}", r.stdout);
    let after = before
        .replace("(tests/a.sh::test_a)", "(../tests/a.sh#test_a)")
        .replace("(tests/a.sh#test_b)", "(../tests/a.sh#test_b)")
        .replace(
            "(tests/t.py::TestX::test_y)",
            "(../tests/t.py#TestX::test_y)",
        );
    assert_eq!(
        repo.read("specs/legacy.md"),
        after,
        "only the links changed"
    );

    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(
        !r.all().contains("legacy"),
        "no legacy warning after --fix:\n{}",
        r.all()
    );
    let r = run(&repo, &["spec", "check", "--fix"]);
    r.expect_code(0);
    assert!(
        !r.stdout.contains("+- [ ]"),
        "nothing left to fix: {}",
        r.stdout
    );
    assert_eq!(repo.read("specs/legacy.md"), after);
    let r = run(&repo, &["status", "--verify", "--spec", "legacy"]);
    assert!(r.stdout.contains("  [PASS] Old one"), "{}", r.stdout);
}
