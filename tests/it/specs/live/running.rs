//! How checks run: exit and skip codes, spec selection, where they run and with what argument, stdin, pytest, `--jobs`.

use super::*;

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
        "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > args.txt\npwd -P > cwd.txt\ntest_arg() { [ \"$1\" = \"\" ]; }\n\"$@\"\n",
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
        "#!/bin/sh\npwd -P > exec-cwd.txt\ntest_arg() { true; }\n\"$@\"\n",
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
        "#!/bin/sh\ntest_cat() { n=$(cat | wc -c); [ \"$n\" -eq 0 ]; }\n\"$@\"\n",
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
        chk["command"], "python3 -P -m pytest -q tests/test_calc.py::test_add",
        "{j:#}"
    );
    // The legacy form splits on the first `::`, keeping `Class::test` whole.
    let chk = &criterion(&j, "Multiplies")["checks"][0];
    assert_eq!(
        chk["command"], "python3 -P -m pytest -q tests/test_calc.py::TestCalc::test_mul",
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
