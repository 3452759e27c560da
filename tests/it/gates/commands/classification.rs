//! How each phase classifies a run: real test failures, syntax errors, vanity passes, flaky runs, configured patterns.

use super::*;

/// A shell command that prints `lines` (each its own line, exactly) and exits `code`.
fn sim(lines: &[&str], code: i32) -> String {
    let quoted: Vec<String> = lines
        .iter()
        .map(|l| format!("'{}'", l.replace('\'', r"'\''")))
        .collect();
    format!("printf '%s\\n' {}; exit {code}", quoted.join(" "))
}

/// Output of each tool when one test ran and failed.
fn test_failures() -> Vec<(&'static str, Vec<&'static str>, i32)> {
    vec![
        (
            "go test (minimal)",
            vec!["--- FAIL: TestX (0.00s)", "FAIL"],
            1,
        ),
        (
            "go test",
            vec![
                "=== RUN   TestFizz",
                "--- FAIL: TestFizz (0.00s)",
                "    fizz_test.go:9: got \"14\", want \"FizzBuzz\"",
                "FAIL",
                "FAIL\texample.com/fizz\t0.002s",
                "FAIL",
            ],
            1,
        ),
        (
            "cargo test (minimal)",
            vec!["test result: FAILED. 0 passed; 1 failed"],
            101,
        ),
        (
            "cargo test",
            vec![
                "running 1 test",
                "test tests::fizz_15 ... FAILED",
                "",
                "failures:",
                "",
                "---- tests::fizz_15 stdout ----",
                "",
                "thread 'tests::fizz_15' panicked at src/lib.rs:9:9:",
                "assertion `left == right` failed",
                "  left: \"14\"",
                " right: \"FizzBuzz\"",
                "",
                "failures:",
                "    tests::fizz_15",
                "",
                "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
                "",
                "error: test failed, to rerun pass `--lib`",
            ],
            101,
        ),
        ("pytest (failures header)", vec!["=== FAILURES ==="], 1),
        ("pytest (summary)", vec!["1 failed in 0.02s"], 1),
        (
            "pytest",
            vec![
                "============================= test session starts ==============================",
                "collected 1 item",
                "",
                "test_fizz.py F                                                           [100%]",
                "",
                "=================================== FAILURES ===================================",
                "__________________________________ test_fizz ___________________________________",
                "",
                "    def test_fizz():",
                ">       assert fizz(15) == \"FizzBuzz\"",
                "E       AssertionError: assert '14' == 'FizzBuzz'",
                "",
                "test_fizz.py:4: AssertionError",
                "=========================== short test summary info ============================",
                "FAILED test_fizz.py::test_fizz - AssertionError: assert '14' == 'FizzBuzz'",
                "============================== 1 failed in 0.02s ===============================",
            ],
            1,
        ),
        ("jest (minimal)", vec!["Tests:       1 failed, 1 total"], 1),
        (
            "jest",
            vec![
                " FAIL  ./fizz.test.js",
                "  fizz",
                "    ✕ prints FizzBuzz for 15 (3 ms)",
                "",
                "  ● fizz › prints FizzBuzz for 15",
                "",
                "    expect(received).toBe(expected) // Object.is equality",
                "",
                "    Expected: \"FizzBuzz\"",
                "    Received: \"14\"",
                "",
                "Test Suites: 1 failed, 1 total",
                "Tests:       1 failed, 1 total",
                "Snapshots:   0 total",
                "Time:        0.31 s",
            ],
            1,
        ),
        (
            "vitest",
            vec![
                " ❯ fizz.test.ts (1 test | 1 failed) 4ms",
                "   × fizz > prints FizzBuzz for 15 3ms",
                "     → expected '14' to be 'FizzBuzz' // Object.is equality",
                "",
                " Test Files  1 failed (1)",
                "      Tests  1 failed (1)",
            ],
            1,
        ),
        ("node --test (minimal)", vec!["# fail 1"], 1),
        (
            "node --test",
            vec![
                "TAP version 13",
                "# Subtest: prints FizzBuzz for 15",
                "not ok 1 - prints FizzBuzz for 15",
                "  ---",
                "  duration_ms: 0.61",
                "  failureType: 'testCodeFailure'",
                "  error: |-",
                "    Expected values to be strictly equal:",
                "  ...",
                "1..1",
                "# tests 1",
                "# pass 0",
                "# fail 1",
            ],
            1,
        ),
        ("bats (minimal)", vec!["not ok 1 x"], 1),
        (
            "bats",
            vec![
                "1..2",
                "ok 1 addition works",
                "not ok 2 fizz 15 prints FizzBuzz",
                "# (in test file test/fizz.bats, line 7)",
                "#   `[ \"$output\" = FizzBuzz ]' failed",
            ],
            1,
        ),
        (
            "plain shell",
            vec!["FAIL: fizz 15: expected FizzBuzz, got 14"],
            1,
        ),
    ]
}

/// Output of each tool when the code did not compile, parse or import.
fn syntax_errors() -> Vec<(&'static str, Vec<&'static str>, i32)> {
    vec![
        (
            "cargo (rustc)",
            vec![
                "   Compiling fizz v0.1.0 (/src/fizz)",
                "error[E0425]: cannot find function `fizz` in this scope",
                " --> tests/fizz.rs:3:5",
                "  |",
                "3 |     fizz(15);",
                "  |     ^^^^ not found in this scope",
                "",
                "error: could not compile `fizz` (test \"fizz\") due to 1 previous error",
            ],
            101,
        ),
        (
            "pytest SyntaxError",
            vec![
                "==================================== ERRORS ====================================",
                "________________________ ERROR collecting test_fizz.py _________________________",
                "E     File \"/src/test_fizz.py\", line 3",
                "E       def test_fizz(:",
                "E                     ^",
                "E   SyntaxError: invalid syntax",
                "=========================== short test summary info ============================",
                "ERROR test_fizz.py",
                "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
                "1 error in 0.05s",
            ],
            2,
        ),
        (
            "pytest ModuleNotFoundError",
            vec![
                "ImportError while importing test module '/src/test_fizz.py'.",
                "E   ModuleNotFoundError: No module named 'fizz'",
                "1 error in 0.03s",
            ],
            2,
        ),
        (
            "go build",
            vec![
                "# example.com/fizz [example.com/fizz.test]",
                "./fizz_test.go:8:9: undefined: Foo",
                "FAIL\texample.com/fizz [build failed]",
                "FAIL",
            ],
            1,
        ),
        (
            "bash",
            vec![
                "tests/fizz.sh: line 4: syntax error near unexpected token `fi'",
                "tests/fizz.sh: line 4: `fi'",
            ],
            2,
        ),
        (
            "node / jest SyntaxError",
            vec![
                "/src/fizz.test.js:3",
                "  expect(fizz(15).toBe('FizzBuzz')",
                "                                 ^",
                "",
                "SyntaxError: missing ) after argument list",
            ],
            1,
        ),
    ]
}

#[test]
fn red_accepts_a_real_test_failure_from_every_tool() {
    let (repo, id) = setup();
    for (n, (tool, lines, code)) in test_failures().into_iter().enumerate() {
        let before = repo.commit_count();
        let g = gate(&repo, &["red", &id, "--cmd", &sim(&lines, code)]);
        assert_eq!(
            (g.class(), g.code),
            ("accept", Some(0)),
            "RED on {tool}'s failure output must accept:\n{}\nstderr: {}",
            g.stdout,
            g.stderr
        );
        assert_eq!(g.json["exit_code"], code, "{tool}");
        assert_eq!(g.json["attempt"], n + 1, "{tool}: RED attempts count up");
        assert_eq!(
            repo.commit_count(),
            before + 1,
            "{tool}: one commit per gate"
        );
    }
    finish(&repo);
}

#[test]
fn syntax_errors_are_reject_syntax_in_every_phase() {
    let (repo, id) = setup();
    for (tool, lines, code) in syntax_errors() {
        let cmd = sim(&lines, code);
        for phase in ["red", "green", "refactor"] {
            let g = expect(&repo, &[phase, &id, "--cmd", &cmd], "reject_syntax");
            assert!(
                g.json["snippet"]
                    .as_str()
                    .is_some_and(|s| !s.trim().is_empty()),
                "{tool} {phase}: the snippet shows the error"
            );
        }
    }
    // A syntax error printed by a test that exited 0 still is no vanity pass.
    let cmd = sim(&["SyntaxError: Unexpected token '}'"], 0);
    expect(&repo, &["red", &id, "--cmd", &cmd], "reject_syntax");
    finish(&repo);
}

#[test]
fn a_shell_syntax_error_in_the_gate_command_itself_is_reject_syntax() {
    // The gate runs its command under `sh -c`; a command that does not parse is a syntax
    // error of plain shell, whichever sh it is (dash says "Syntax error: ...").
    let (repo, id) = setup();
    let g = expect(
        &repo,
        &["green", &id, "--cmd", "if true; then echo unterminated"],
        "reject_syntax",
    );
    assert_ne!(g.json["exit_code"], 0);
    expect(
        &repo,
        &["red", &id, "--cmd", "echo ( broken"],
        "reject_syntax",
    );
    finish(&repo);
}

#[test]
fn red_rejects_a_vanity_pass() {
    let (repo, id) = setup();
    for lines in [
        vec!["ok  \texample.com/fizz\t0.002s"],
        vec!["test result: ok. 1 passed; 0 failed; 0 ignored"],
        vec!["1 passed in 0.01s"],
        vec![],
    ] {
        let g = expect(
            &repo,
            &["red", &id, "--cmd", &sim(&lines, 0)],
            "reject_vanity",
        );
        assert_eq!(g.json["exit_code"], 0);
    }
    finish(&repo);
}

#[test]
fn red_rejects_a_failure_that_is_not_a_test_failure() {
    let (repo, id) = setup();
    for (what, lines, code) in [
        ("a crash", vec!["Segmentation fault (core dumped)"], 139),
        (
            "a network error",
            vec!["curl: (7) Could not connect to server"],
            7,
        ),
        (
            "cargo: all passed but exit 1",
            vec!["test result: ok. 3 passed; 0 failed; 0 ignored"],
            1,
        ),
        (
            "node --test: zero failures",
            vec!["# tests 3", "# pass 3", "# fail 0"],
            1,
        ),
        ("silence", vec![], 1),
    ] {
        let g = gate(&repo, &["red", &id, "--cmd", &sim(&lines, code)]);
        assert_eq!(
            (g.class(), g.code),
            ("reject_failure", Some(1)),
            "RED on {what}: {}",
            g.stdout
        );
    }
    finish(&repo);
}

#[test]
fn green_refactor_and_implement_accept_exit_zero_only() {
    let (repo, id) = setup();
    let go_fail = sim(&["--- FAIL: TestX (0.00s)", "FAIL"], 1);
    let cargo_fail = sim(&["test result: FAILED. 0 passed; 1 failed"], 101);
    let quiet_fail = sim(&["something went wrong"], 3);
    for phase in ["green", "refactor", "implement"] {
        let g = expect(&repo, &[phase, &id, "--cmd", "echo all good"], "accept");
        assert_eq!(g.json["exit_code"], 0);
        assert_eq!(g.json["phase"], phase);
        for cmd in [&go_fail, &cargo_fail, &quiet_fail] {
            let g = gate(&repo, &[phase, &id, "--cmd", cmd]);
            assert_ne!(g.class(), "accept", "{phase} on {cmd}");
            assert_eq!(g.code, Some(1), "{phase} on {cmd}");
            if phase != "implement" {
                assert_eq!(g.class(), "reject_failure", "{phase} on {cmd}");
            }
        }
    }
    finish(&repo);
}

#[test]
fn green_runs_its_command_n_times_and_the_other_phases_once() {
    let (repo, id) = setup();
    let count = "echo run >> runs.log; echo ok";
    let g = expect(&repo, &["green", &id, "--cmd", count], "accept");
    assert_eq!(
        repo.read("runs.log").lines().count(),
        3,
        "default green_runs 3"
    );
    assert_eq!(g.json["runs"], 3);

    repo.ok(&["config", "set", "gates.green_runs", "5"]);
    std::fs::remove_file(repo.join("runs.log")).expect("rm");
    expect(&repo, &["green", &id, "--cmd", count], "accept");
    assert_eq!(
        repo.read("runs.log").lines().count(),
        5,
        "gates.green_runs 5"
    );

    for phase in ["red", "refactor", "implement"] {
        std::fs::remove_file(repo.join("runs.log")).expect("rm");
        gate(&repo, &[phase, &id, "--cmd", count]);
        assert_eq!(
            repo.read("runs.log").lines().count(),
            1,
            "{phase} runs its command once"
        );
    }
    finish(&repo);
}

#[test]
fn green_rejects_runs_that_disagree_as_flaky() {
    let (repo, id) = setup();
    // Passes on odd runs, fails on even ones.
    let alternating = "n=$(cat counter 2>/dev/null || echo 0); n=$((n+1)); echo $n > counter; \
                       if [ $((n % 2)) -eq 1 ]; then echo \"run $n ok\"; \
                       else echo \"--- FAIL: TestFlaky (run $n)\"; exit 1; fi";
    let g = expect(&repo, &["green", &id, "--cmd", alternating], "reject_flaky");
    assert_eq!(repo.read("counter").trim(), "3", "all three runs happened");
    assert!(
        g.json["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("--- FAIL: TestFlaky")),
        "the snippet shows the failing run: {}",
        g.stdout
    );
    let check = checks(&repo, &id).pop().expect("a check");
    assert_eq!(check["classification"], "reject_flaky");
    assert!(
        notes(&repo, &id)
            .last()
            .is_some_and(|n| n.contains("reject_flaky")),
        "the note says flaky"
    );

    // Fails first, then passes: flaky too, never accept.
    let late = "n=$(cat late 2>/dev/null || echo 0); n=$((n+1)); echo $n > late; \
                [ $n -ge 2 ] || { echo \"--- FAIL: TestLate\"; exit 1; }";
    expect(&repo, &["green", &id, "--cmd", late], "reject_flaky");
    finish(&repo);
}

#[test]
fn configured_patterns_extend_the_classification() {
    let (repo, id) = setup();
    let boom = sim(&["BOOM: widget count 3 != 4"], 1);
    expect(&repo, &["red", &id, "--cmd", &boom], "reject_failure");
    repo.ok(&["config", "set", "gates.failure_patterns", r#"["BOOM"]"#]);
    expect(&repo, &["red", &id, "--cmd", &boom], "accept");

    let parse = sim(&["PARSE FAILURE at widget.w:3"], 1);
    expect(&repo, &["green", &id, "--cmd", &parse], "reject_failure");
    repo.ok(&[
        "config",
        "set",
        "gates.syntax_patterns",
        r#"["PARSE FAILURE"]"#,
    ]);
    expect(&repo, &["green", &id, "--cmd", &parse], "reject_syntax");
    expect(&repo, &["red", &id, "--cmd", &parse], "reject_syntax");
    // The built-in patterns still hold.
    let go = sim(&["--- FAIL: TestX (0.00s)", "FAIL"], 1);
    expect(&repo, &["red", &id, "--cmd", &go], "accept");
    finish(&repo);
}
