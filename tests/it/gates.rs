//! Deterministic gates end to end (issue 4, part 1):
//! `vermas gate red|green|refactor|implement ID [--ac N] [--cmd CMD] [--json]`.
//!
//! Every test builds a real repository, writes test-spec beads by hand where it needs
//! them, runs the real binary with commands that print what go test, cargo test, pytest,
//! jest, vitest, node --test, bats and plain shell really print, and checks the
//! classification, the exit code, the evidence in `.beads/results/<ID>.yaml`, the note on
//! the bead and the one commit per gate run. No LLM is ever asked: `llm.command` points at
//! a script that leaves a marker file, and every test ends by checking it is absent.

use crate::common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Where the fake LLM would leave its trace.
const LLM_MARKER: &str = "llm-was-called";

/// A repository with `gates.timeout 1s`, an LLM command that would leave a marker, and a
/// work bead labelled `surface:api` and `surface:cli`; returns the bead's id.
fn setup() -> (Repo, String) {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "gates.timeout", "1s"]);
    let llm = repo.join("fake-llm.sh");
    repo.write(
        "fake-llm.sh",
        &format!(
            "#!/bin/sh\ntouch '{}'\necho PASS\n",
            repo.join(LLM_MARKER).display()
        ),
    );
    chmod_x(&llm);
    repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("'{}'", llm.display()),
    ]);
    let id = repo.create(
        "Fizzbuzz prints FizzBuzz",
        &["-l", "surface:api", "-l", "surface:cli"],
    );
    (repo, id)
}

fn chmod_x(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(path).expect("stat").permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(path, perm).expect("chmod");
}

/// Writes a test-spec bead `spec_id` gating `parent` with the given criteria (YAML flow
/// mappings, one per element) and commits it with real git.
fn write_spec(repo: &Repo, spec_id: &str, parent: &str, criteria: &[&str]) {
    let mut text = format!(
        "---\nid: {spec_id}\ntitle: Tests for {parent}\nstatus: open\npriority: 2\n\
         issue_type: test-spec\nparent: {parent}\n\
         dependencies:\n  - {{depends_on_id: {parent}, type: blocks}}\n\
         acceptance_criteria:\n"
    );
    for c in criteria {
        text.push_str("  - ");
        text.push_str(c);
        text.push('\n');
    }
    text.push_str("---\nThe acceptance criteria of the work item.\n");
    let path = format!(".beads/issues/{spec_id}.md");
    repo.write(&path, &text);
    repo.git(&["add", "--", &path]);
    repo.git(&["commit", "-q", "-m", "test spec by hand"]);
}

/// A shell command that prints `lines` (each its own line, exactly) and exits `code`.
fn sim(lines: &[&str], code: i32) -> String {
    let quoted: Vec<String> = lines
        .iter()
        .map(|l| format!("'{}'", l.replace('\'', r"'\''")))
        .collect();
    format!("printf '%s\\n' {}; exit {code}", quoted.join(" "))
}

/// How one `vermas gate ... --json` ended.
struct Gate {
    code: Option<i32>,
    json: Value,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Gate {
    fn class(&self) -> &str {
        self.json["classification"].as_str().unwrap_or("<none>")
    }
}

/// Runs `vermas gate ARGS --json`; stdout must be exactly one JSON object.
fn gate(repo: &Repo, args: &[&str]) -> Gate {
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    all.push("--json");
    let start = Instant::now();
    let out = repo.run(&all);
    let elapsed = start.elapsed();
    let text = stdout(&out);
    let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "vermas {all:?}: stdout is not one JSON object ({e}):\n{text}\nstderr: {}",
            stderr(&out)
        )
    });
    Gate {
        code: out.status.code(),
        json,
        stdout: text,
        stderr: stderr(&out),
        elapsed,
    }
}

/// Runs a gate and asserts its classification and the exit code that goes with it.
fn expect(repo: &Repo, args: &[&str], class: &str) -> Gate {
    let g = gate(repo, args);
    assert_eq!(
        g.class(),
        class,
        "vermas gate {args:?}: classification\n{}\nstderr: {}",
        g.stdout,
        g.stderr
    );
    let code = if class == "accept" { 0 } else { 1 };
    assert_eq!(
        g.code,
        Some(code),
        "vermas gate {args:?}: exit code for {class}\n{}\nstderr: {}",
        g.stdout,
        g.stderr
    );
    g
}

/// The result record of `id`, parsed as YAML (it must be valid YAML).
fn record(repo: &Repo, id: &str) -> Value {
    let text = repo.read(&format!(".beads/results/{id}.yaml"));
    serde_saphyr::from_str::<Value>(&text)
        .unwrap_or_else(|e| panic!("results/{id}.yaml is not valid YAML ({e}):\n{text}"))
}

/// The `checks:` list of `id`'s result record.
fn checks(repo: &Repo, id: &str) -> Vec<Value> {
    record(repo, id)["checks"]
        .as_array()
        .expect("checks: is a list")
        .clone()
}

/// The notes on bead `id`, as text.
fn notes(repo: &Repo, id: &str) -> Vec<String> {
    let v = repo.json(&["show", id]);
    let bead = if v.is_array() { v[0].clone() } else { v };
    bead["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `.beads` is committed, git is sound, and no LLM was ever asked.
fn finish(repo: &Repo) {
    assert_eq!(
        repo.status(".beads"),
        "",
        "every gate leaves .beads/ committed"
    );
    repo.assert_fsck();
    assert!(
        !repo.join(LLM_MARKER).exists(),
        "a deterministic gate asked the LLM"
    );
}

/// Paths changed by the HEAD commit.
fn head_paths(repo: &Repo) -> Vec<String> {
    let mut v: Vec<String> = repo
        .git(&["show", "--name-only", "--format=", "HEAD"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Asserts a gate run that failed on bad input changed nothing: exit 2, no commit, no
/// result file; returns stderr.
fn refused(repo: &Repo, args: &[&str], id: &str) -> String {
    let before = repo.commit_count();
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let err = repo.fails(&all, 2);
    assert_eq!(
        repo.commit_count(),
        before,
        "{args:?}: no commit on bad input"
    );
    assert!(
        !repo.join(&format!(".beads/results/{id}.yaml")).exists(),
        "{args:?}: no evidence on bad input"
    );
    err
}

/// True when process `pid` no longer runs (gone, or a zombie waiting to be reaped).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Err(_) => true,
        Ok(status) => status
            .lines()
            .find(|l| l.starts_with("State:"))
            .is_some_and(|l| l.contains('Z')),
    }
}

/// Waits up to `grace` for `pid` to be gone.
fn gone_within(pid: u32, grace: Duration) -> bool {
    let until = Instant::now() + grace;
    loop {
        if process_gone(pid) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pid(repo: &Repo, rel: &str) -> u32 {
    repo.read(rel)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{rel} holds no pid ({e})"))
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

#[test]
fn the_command_comes_from_cmd_then_the_criterion_then_config() {
    let (repo, id) = setup();
    repo.write(
        "tests/fizz.sh",
        "test_unit() {\n  echo \"unit test of fizz ran\"\n}\n",
    );
    repo.git(&["add", "tests/fizz.sh"]);
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "fizzbuzz 15 prints FizzBuzz", verify_command: "echo criterion one"}"#,
            r#"{id: ac-2, description: "Unit tests pass", verify: "tests/fizz.sh#test_unit"}"#,
            r#"{id: ac-3, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
        ],
    );

    let g = expect(&repo, &["green", &id, "--ac", "1"], "accept");
    assert_eq!(g.json["command"], "echo criterion one");
    assert_eq!(g.json["criterion"], "ac-1");
    assert_eq!(g.json["snippet"], "criterion one\n");

    let g = expect(&repo, &["green", &id, "--ac", "2"], "accept");
    assert_eq!(g.json["criterion"], "ac-2");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.contains("tests/fizz.sh") && c.contains("test_unit")),
        "a verify target runs its file's function: {}",
        g.stdout
    );
    assert!(
        g.json["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("unit test of fizz ran")),
        "{}",
        g.stdout
    );

    // --cmd wins over the criterion, which still names the evidence.
    let g = expect(
        &repo,
        &["green", &id, "--ac", "1", "--cmd", "echo given"],
        "accept",
    );
    assert_eq!(g.json["command"], "echo given");
    assert_eq!(g.json["criterion"], "ac-1");

    // Two runnable criteria and nothing configured: which one is ambiguous.
    let err = refused_keep(&repo, &["green", &id]);
    assert!(err.contains("--ac"), "the hint names --ac: {err}");

    // Config's command for the phase, when no criterion is picked.
    repo.ok(&["config", "set", "gates.green", "echo from config"]);
    let g = expect(&repo, &["green", &id], "accept");
    assert_eq!(g.json["command"], "echo from config");
    // The criterion's own command wins over config's.
    let g = expect(&repo, &["green", &id, "--ac", "1"], "accept");
    assert_eq!(g.json["command"], "echo criterion one");
    // Config's command is per phase.
    refused_keep(&repo, &["red", &id]);
    finish(&repo);
}

/// Like [`refused`] for a bead that already has evidence: exit 2 and no commit.
fn refused_keep(repo: &Repo, args: &[&str]) -> String {
    let before = repo.commit_count();
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let err = repo.fails(&all, 2);
    assert_eq!(
        repo.commit_count(),
        before,
        "{args:?}: no commit on bad input"
    );
    err
}

/// A test spec with one judged criterion and one runnable one (ac-2).
fn one_runnable_criterion(repo: &Repo, id: &str) {
    write_spec(
        repo,
        &format!("{id}-spec"),
        id,
        &[
            r#"{id: ac-1, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
            r#"{id: ac-2, description: "fizzbuzz 15 prints FizzBuzz", verify_command: "echo the only one {ac_index}"}"#,
        ],
    );
}

#[test]
fn a_single_runnable_criterion_needs_no_ac_and_is_named_in_the_evidence() {
    let (repo, id) = setup();
    one_runnable_criterion(&repo, &id);
    let g = expect(&repo, &["green", &id], "accept");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("echo the only one")),
        "the criterion's command ran: {}",
        g.stdout
    );
    assert_eq!(
        g.json["criterion"], "ac-2",
        "the criterion that ran is named in the evidence: {}",
        g.stdout
    );
    assert_eq!(
        g.json["command"], "echo the only one '2'",
        "{{ac_index}} is the criterion's number: {}",
        g.stdout
    );
    let c = checks(&repo, &id).pop().expect("a check");
    assert_eq!(c["criterion"], "ac-2", "{c}");
    let notes = notes(&repo, &id);
    assert!(
        notes
            .last()
            .is_some_and(|n| n.starts_with("Gate green ac-2: accept (")),
        "{notes:?}"
    );
    finish(&repo);
}

#[test]
fn a_single_runnable_criterion_comes_before_config() {
    // --cmd, else the criterion's command, else gates.<phase>.
    let (repo, id) = setup();
    one_runnable_criterion(&repo, &id);
    repo.ok(&["config", "set", "gates.green", "echo from config"]);
    let g = expect(&repo, &["green", &id], "accept");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("echo the only one")),
        "with one runnable criterion, its command wins over gates.green: {}",
        g.stdout
    );
    // A phase with nothing configured still finds it.
    let g = expect(&repo, &["red", &id], "reject_vanity");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("echo the only one"))
    );
    finish(&repo);
}

#[test]
fn config_gives_the_command_of_a_bead_without_a_test_spec() {
    let (repo, id) = setup();
    repo.ok(&[
        "config",
        "set",
        "gates.implement",
        "echo built {mission_id}",
    ]);
    let g = expect(&repo, &["implement", &id], "accept");
    assert_eq!(g.json["command"], format!("echo built '{id}'"));
    assert_eq!(g.json["snippet"], format!("built {id}\n"));
    assert!(g.json["criterion"].is_null(), "{}", g.stdout);
    finish(&repo);
}

#[test]
fn variables_are_substituted_and_shell_syntax_is_left_alone() {
    let (repo, id) = setup();
    repo.write("tests/unit/fizz.sh", "test_unit() { echo unit; }\n");
    repo.git(&["add", "tests/unit/fizz.sh"]);
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "Judged", judge: "tests/judges/x.sh#test_x"}"#,
            r#"{id: ac-2, description: "Prints FizzBuzz for 15!", verify: "tests/unit/fizz.sh#test_unit"}"#,
        ],
    );
    let root = std::fs::canonicalize(repo.path()).expect("canonical root");
    let root = root.display().to_string();
    let cmd = "echo mission={mission_id} wt={worktree_dir} file={test_file} dir={test_dir} \
               ac={ac_index} title={ac_title} surface={surface_area} root={project_root}";
    let g = expect(&repo, &["green", &id, "--ac", "2", "--cmd", cmd], "accept");
    let want = format!(
        "echo mission='{id}' wt='{root}' file='tests/unit/fizz.sh' dir='tests/unit' \
         ac='2' title='prints-fizzbuzz-for-15' surface='api,cli' root='{root}'"
    );
    assert_eq!(
        g.json["command"],
        want.as_str(),
        "the command after substitution, each value quoted"
    );
    assert_eq!(
        g.json["snippet"],
        format!("{}\n", want[5..].replace('\'', ""))
    );

    // ${HOME} and {{ are the shell's.
    let g = expect(
        &repo,
        &[
            "implement",
            &id,
            "--cmd",
            "echo \"home=${HOME}\" '{{x}}'; { echo grouped; }",
        ],
        "accept",
    );
    assert_eq!(
        g.json["command"],
        "echo \"home=${HOME}\" '{{x}}'; { echo grouped; }"
    );
    assert_eq!(
        g.json["snippet"],
        format!("home={} {{{{x}}}}\ngrouped\n", repo.path().display())
    );
    finish(&repo);
}

#[test]
fn an_unknown_variable_is_refused_before_anything_runs() {
    let (repo, id) = setup();
    let err = refused(
        &repo,
        &["red", &id, "--cmd", "touch ran-anyway; echo {nope}"],
        &id,
    );
    assert!(err.contains("{nope}"), "names the variable: {err}");
    assert!(
        err.contains("{mission_id}") || err.contains("mission_id"),
        "lists the known ones: {err}"
    );
    assert!(!repo.join("ran-anyway").exists(), "nothing ran");
    // Same for a command from config.
    repo.ok(&["config", "set", "gates.green", "echo {test_name}"]);
    let err = refused(&repo, &["green", &id], &id);
    assert!(err.contains("{test_name}"), "{err}");
    finish(&repo);
}

#[test]
fn an_unknown_phase_is_refused_naming_the_valid_ones() {
    let (repo, id) = setup();
    let err = refused(&repo, &["blue", &id, "--cmd", "touch ran-anyway"], &id);
    for phase in ["red", "green", "refactor", "implement"] {
        assert!(err.contains(phase), "names {phase}: {err}");
    }
    assert!(err.contains("blue"), "names what was given: {err}");
    assert!(!repo.join("ran-anyway").exists());
    finish(&repo);
}

#[test]
fn ac_out_of_range_or_without_a_test_spec_is_refused() {
    let (repo, id) = setup();
    let bare = repo.create("No test spec here", &[]);
    let err = refused(
        &repo,
        &["green", &bare, "--ac", "1", "--cmd", "touch ran-anyway"],
        &bare,
    );
    assert!(
        err.contains("test spec"),
        "says there is no test spec: {err}"
    );
    assert!(!repo.join("ran-anyway").exists());

    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "One", verify_command: "true"}"#,
            r#"{id: ac-2, description: "Two", verify_command: "true"}"#,
        ],
    );
    for n in ["3", "0", "99"] {
        let err = refused(&repo, &["green", &id, "--ac", n], &id);
        assert!(err.contains(n), "--ac {n}: names the number: {err}");
        if n != "0" {
            assert!(
                err.contains('2'),
                "--ac {n}: says how many there are: {err}"
            );
        }
    }
    let err = refused(&repo, &["green", &id, "--ac", "x"], &id);
    assert!(!err.is_empty());
    finish(&repo);
}

#[test]
fn no_command_anywhere_is_refused_with_a_hint() {
    let (repo, id) = setup();
    let err = refused(&repo, &["green", &id], &id);
    assert!(
        err.contains("--cmd") && err.contains("gates.green"),
        "the hint says where a command can come from: {err}"
    );
    // A test spec whose only criterion is judged has no command either.
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
        ],
    );
    let err = refused(&repo, &["red", &id], &id);
    assert!(err.contains("gates.red"), "{err}");
    let err = refused(&repo, &["red", &id, "--ac", "1"], &id);
    assert!(err.contains("judge criterion"), "{err}");
    finish(&repo);
}

#[test]
fn a_command_that_is_not_found_is_a_failure() {
    let (repo, id) = setup();
    for phase in ["red", "green", "implement"] {
        let g = expect(
            &repo,
            &[phase, &id, "--cmd", "definitely-not-a-command-7f3a --flag"],
            "reject_failure",
        );
        assert_eq!(g.json["exit_code"], 127);
        assert!(
            g.json["reason"]
                .as_str()
                .is_some_and(|r| r.contains("not found")),
            "{phase}: the reason says not found: {}",
            g.stdout
        );
    }
    // The human report says so too.
    let out = repo.run(&[
        "gate",
        "green",
        &id,
        "--cmd",
        "definitely-not-a-command-7f3a",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("not found"), "{}", stdout(&out));
    assert!(stdout(&out).contains("reject_failure"), "{}", stdout(&out));
    finish(&repo);
}

#[test]
fn a_hanging_command_times_out_and_its_whole_group_is_killed() {
    let (repo, id) = setup();
    // A test that already printed a failure, then hangs with a background grandchild.
    let cmd = "printf -- '--- FAIL: TestX (0.00s)\\n'; sleep 30 & echo $! > bg.pid; sleep 30";
    let g = gate(&repo, &["red", &id, "--cmd", cmd]);
    assert_ne!(
        g.class(),
        "accept",
        "a timeout is never accept: {}",
        g.stdout
    );
    assert_eq!(g.code, Some(1), "{}", g.stdout);
    assert!(g.json["exit_code"].is_null(), "killed: no exit code");
    assert!(
        g.json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("timed out")),
        "{}",
        g.stdout
    );
    assert!(
        g.elapsed < Duration::from_secs(10),
        "gates.timeout 1s: took {:?}",
        g.elapsed
    );
    let ms = g.json["duration_ms"].as_u64().expect("duration_ms");
    assert!((900..10_000).contains(&ms), "duration_ms {ms}");
    let pid = read_pid(&repo, "bg.pid");
    assert!(
        gone_within(pid, Duration::from_secs(3)),
        "background grandchild {pid} still runs"
    );

    // GREEN hanging: not accept either.
    let g = gate(&repo, &["green", &id, "--cmd", "sleep 30"]);
    assert_eq!((g.class() != "accept", g.code), (true, Some(1)));

    // A command that exits at once but leaves a grandchild holding the output open.
    let cmd = "sleep 30 & echo $! > bg2.pid; echo done";
    let g = expect(&repo, &["implement", &id, "--cmd", cmd], "accept");
    assert!(g.elapsed < Duration::from_secs(10), "took {:?}", g.elapsed);
    let pid = read_pid(&repo, "bg2.pid");
    assert!(
        gone_within(pid, Duration::from_secs(3)),
        "left-behind grandchild {pid} still runs"
    );
    finish(&repo);
}

#[test]
fn huge_output_is_capped_and_the_snippet_starts_at_the_first_failure() {
    let (repo, id) = setup();
    repo.ok(&["config", "set", "gates.timeout", "60s"]);
    let cmd = "echo preamble; printf -- '--- FAIL: TestHuge (0.00s)\\n'; \
               yes 'padding padding padding padding padding' | head -c 100000000; exit 1";
    let g = expect(&repo, &["red", &id, "--cmd", cmd], "accept");
    assert!(
        g.elapsed < Duration::from_secs(30),
        "100 MB took {:?}",
        g.elapsed
    );
    let snippet = g.json["snippet"].as_str().expect("snippet");
    assert!(snippet.len() <= 1024, "snippet is {} bytes", snippet.len());
    assert!(
        snippet.starts_with("--- FAIL: TestHuge"),
        "snippet starts at the failure: {snippet:.80}"
    );
    let size = std::fs::metadata(repo.join(&format!(".beads/results/{id}.yaml")))
        .expect("record")
        .len();
    assert!(size < 8 * 1024, "record file is {size} bytes");
    assert!(
        g.stdout.len() < 8 * 1024,
        "JSON is {} bytes",
        g.stdout.len()
    );
    let c = checks(&repo, &id);
    assert!(c[0]["snippet"].as_str().is_some_and(|s| s.len() <= 1024));

    // A failure line in the middle of moderate output: the snippet starts there.
    let noise = "echo 'noise line that is not interesting at all, just filler text here'";
    let cmd = format!(
        "for i in $(seq 60); do {noise}; done; echo '--- FAIL: TestMiddle (0.01s)'; \
         echo '    fizz_test.go:9: got 14'; for i in $(seq 60); do {noise}; done; exit 1"
    );
    let g = expect(&repo, &["red", &id, "--cmd", &cmd], "accept");
    let snippet = g.json["snippet"].as_str().expect("snippet");
    assert!(snippet.len() <= 1024, "snippet is {} bytes", snippet.len());
    assert!(
        snippet.starts_with("--- FAIL: TestMiddle (0.01s)\n    fizz_test.go:9: got 14\n"),
        "{snippet:.120}"
    );
    // GREEN with huge passing output.
    let g = expect(
        &repo,
        &["implement", &id, "--cmd", "head -c 20000000 /dev/zero"],
        "accept",
    );
    assert!(g.json["snippet"].as_str().is_some_and(|s| s.len() <= 1024));
    finish(&repo);
}

#[test]
fn non_utf8_and_control_bytes_keep_the_record_valid_yaml() {
    let (repo, id) = setup();
    let cmd = "printf 'bad \\377\\376 bytes \\300\\n\\033[31mred\\033[0m \\001\\002 \\r\\n\
               key: value\\n- item\\n# hash\\n\\000nul\\n--- FAIL: TestBytes \\377\\n'; exit 1";
    let g1 = expect(&repo, &["red", &id, "--cmd", cmd], "accept");
    assert_eq!(g1.json["attempt"], 1);
    record(&repo, &id);
    // vermas reads its own record back to append the second attempt.
    let g2 = expect(&repo, &["red", &id, "--cmd", cmd], "accept");
    assert_eq!(g2.json["attempt"], 2, "{}\n{}", g2.stdout, g2.stderr);
    let c = checks(&repo, &id);
    assert_eq!(c.len(), 2);
    let snippet = c[1]["snippet"].as_str().expect("snippet");
    assert!(snippet.contains("TestBytes"), "{snippet:?}");
    assert_eq!(c[1]["attempt"], 2);
    // And a third, GREEN this time, still reads it.
    expect(
        &repo,
        &["green", &id, "--cmd", "printf '\\377ok\\n'"],
        "accept",
    );
    assert_eq!(checks(&repo, &id).len(), 3);
    finish(&repo);
}

#[test]
fn every_attempt_is_evidence_in_one_commit_with_a_note() {
    let (repo, id) = setup();
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "fizzbuzz 15 prints FizzBuzz", verify_command: "printf -- '--- FAIL: TestFizz (0.00s)\\nFAIL\\n'; exit 1"}"#,
            r#"{id: ac-2, description: "fizz 3 prints Fizz", verify_command: "echo Fizz"}"#,
        ],
    );
    // The user's own staged and unstaged work is none of the gate's business.
    repo.write("mine-staged.txt", "staged\n");
    repo.git(&["add", "mine-staged.txt"]);
    repo.write("mine-unstaged.txt", "unstaged\n");

    let runs: [(&str, &str, &str, u64); 5] = [
        ("red", "1", "accept", 1),
        ("red", "1", "accept", 2),
        ("green", "1", "reject_failure", 1),
        ("red", "2", "reject_vanity", 1),
        ("green", "2", "accept", 1),
    ];
    for (n, (phase, ac, class, attempt)) in runs.iter().enumerate() {
        let before = repo.commit_count();
        let g = expect(&repo, &[phase, &id, "--ac", ac], class);
        assert_eq!(g.json["attempt"], *attempt, "{phase} ac-{ac}");
        assert_eq!(
            repo.commit_count(),
            before + 1,
            "exactly one commit per gate"
        );
        assert_eq!(
            head_paths(&repo),
            vec![
                format!(".beads/issues/{id}.md"),
                format!(".beads/results/{id}.yaml"),
            ],
            "the commit holds the evidence and the bead, nothing else"
        );
        let subject = repo.git(&["log", "-1", "--format=%s"]);
        assert!(
            subject.starts_with(&format!("vermas gate {phase}: {id}")),
            "{subject}"
        );
        assert_eq!(repo.status(".beads"), "");

        let record = record(&repo, &id);
        assert_eq!(record["key"], id.as_str());
        let checks = record["checks"].as_array().expect("checks");
        assert_eq!(checks.len(), n + 1, "checks: grows by one per gate run");
        let c = &checks[n];
        assert_eq!(c["criterion"], format!("ac-{ac}"));
        assert!(
            c["kind"].as_str().is_some_and(|k| k.contains(phase)),
            "the phase is recorded: {c}"
        );
        assert_eq!(c["classification"], *class);
        assert_eq!(c["attempt"], *attempt);
        assert_eq!(c["command"], g.json["command"]);
        assert_eq!(c["exit_code"], g.json["exit_code"]);
        assert_eq!(c["snippet"], g.json["snippet"]);
        assert_eq!(c["duration_ms"], g.json["duration_ms"]);
        assert!(
            ["at", "timestamp", "started_at"]
                .iter()
                .any(|k| c[k].as_str().is_some_and(|t| t.ends_with('Z'))),
            "each attempt's evidence carries its own timestamp: {c}"
        );

        let notes = notes(&repo, &id);
        assert_eq!(notes.len(), n + 1, "one note per gate run");
        assert!(
            notes[n].starts_with(&format!("Gate {phase} ac-{ac}: {class} (")),
            "note: {}",
            notes[n]
        );
    }
    assert_eq!(
        record(&repo, &id)["verdict"],
        "PASS",
        "the latest run decides"
    );
    let first = &checks(&repo, &id)[0];
    assert_eq!(first["exit_code"], 1);
    assert!(
        first["snippet"]
            .as_str()
            .is_some_and(|s| s.starts_with("--- FAIL: TestFizz"))
    );

    // The user's files are where they were.
    let staged = repo.git(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged.trim(), "mine-staged.txt");
    assert!(repo.status("mine-unstaged.txt").starts_with("??"));
    finish(&repo);
}

#[test]
fn json_is_one_versioned_object_with_the_evidence() {
    let (repo, id) = setup();
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[r#"{id: ac-1, description: "fizz", verify_command: "echo fine"}"#],
    );
    let g = expect(&repo, &["refactor", &id, "--ac", "1"], "accept");
    let o = g.json.as_object().expect("an object");
    assert_eq!(o["schema_version"], 1);
    assert_eq!(o["phase"], "refactor");
    assert_eq!(o["bead"], id.as_str());
    assert_eq!(o["criterion"], "ac-1");
    assert_eq!(o["command"], "echo fine");
    assert_eq!(o["exit_code"], 0);
    assert_eq!(o["classification"], "accept");
    assert_eq!(o["snippet"], "fine\n");
    assert!(o["duration_ms"].is_u64());
    assert!(o["at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(o["attempt"], 1);
    // Errors are JSON on stderr, never half an object on stdout.
    let out = repo.run(&["gate", "purple", &id, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let err: Value = serde_json::from_str(&stderr(&out)).expect("stderr JSON");
    assert!(err.is_object());
    finish(&repo);
}

#[test]
fn gating_the_test_spec_itself_and_by_id_prefix() {
    let (repo, id) = setup();
    let prefix = &id[..id.len() - 1];
    let g = expect(
        &repo,
        &["green", prefix, "--cmd", "echo {mission_id}"],
        "accept",
    );
    assert_eq!(g.json["bead"], id.as_str());
    assert_eq!(g.json["snippet"], format!("{id}\n"));
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[r#"{id: ac-1, description: "fizz", verify_command: "echo {mission_id}"}"#],
    );
    let g = expect(&repo, &["green", &spec, "--ac", "1"], "accept");
    assert_eq!(g.json["criterion"], "ac-1");
    assert_eq!(g.json["bead"], spec.as_str());
    finish(&repo);
}

#[test]
fn concurrent_gates_on_one_bead_both_append() {
    let (repo, id) = setup();
    std::thread::scope(|s| {
        let runs: Vec<_> = ["one", "two"]
            .into_iter()
            .map(|tag| {
                let (repo, id) = (&repo, &id);
                s.spawn(move || {
                    let cmd = format!("sleep 0.2; echo {tag}");
                    repo.run(&["gate", "implement", id, "--cmd", &cmd])
                })
            })
            .collect();
        for r in runs {
            let out = r.join().expect("thread");
            assert!(out.status.success(), "{}", stderr(&out));
        }
    });
    let c = checks(&repo, &id);
    assert_eq!(c.len(), 2, "neither attempt is lost");
    let mut attempts: Vec<u64> = c.iter().filter_map(|c| c["attempt"].as_u64()).collect();
    attempts.sort();
    assert_eq!(attempts, vec![1, 2]);
    assert_eq!(notes(&repo, &id).len(), 2);
    finish(&repo);
}

#[test]
fn an_unreadable_record_is_never_overwritten() {
    let (repo, id) = setup();
    let path = format!(".beads/results/{id}.yaml");
    repo.write(&path, "key: [unclosed\nchecks: {{{\n");
    repo.git(&["add", &path]);
    repo.git(&["commit", "-q", "-m", "broken record by hand"]);
    let before = repo.commit_count();
    let out = repo.run(&["gate", "implement", &id, "--cmd", "true"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(repo.read(&path), "key: [unclosed\nchecks: {{{\n");
    assert_eq!(repo.commit_count(), before);
    finish(&repo);
}

#[test]
fn a_judge_criterion_is_refused_and_nothing_is_recorded() {
    let (repo, id) = setup();
    repo.ok(&[
        "config",
        "set",
        "gates.green",
        "touch ran-anyway; echo from config",
    ]);
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "One", verify_command: "echo one"}"#,
            r#"{id: ac-2, description: "Two", verify_command: "echo two"}"#,
            r#"{id: ac-3, description: "Three", verify_command: "echo three"}"#,
            r#"{id: ac-4, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
        ],
    );
    // Earlier evidence exists and must stay as it is.
    expect(&repo, &["green", &id, "--ac", "1"], "accept");
    let record_path = format!(".beads/results/{id}.yaml");
    let record_before = repo.read(&record_path);
    let log_before = repo.git(&["log", "--format=%H %s"]);
    for args in [
        vec!["green", id.as_str(), "--ac", "4"],
        vec!["red", id.as_str(), "--ac", "4"],
        vec![
            "green",
            id.as_str(),
            "--ac",
            "4",
            "--cmd",
            "touch ran-anyway",
        ],
        vec!["green", spec.as_str(), "--ac", "4"],
    ] {
        let err = refused_keep(&repo, &args);
        assert!(err.contains("ac-4"), "{args:?}: names the criterion: {err}");
        assert!(err.contains("judge criterion"), "{args:?}: says why: {err}");
        assert!(
            err.contains("status --judge") && err.contains("not by gates"),
            "{args:?}: says what decides it: {err}"
        );
    }
    assert_eq!(
        repo.git(&["log", "--format=%H %s"]),
        log_before,
        "no commit"
    );
    assert_eq!(repo.read(&record_path), record_before, "no evidence added");
    assert!(!repo.join("ran-anyway").exists(), "no command ran");
    assert!(
        !checks(&repo, &id).iter().any(|c| c["criterion"] == "ac-4"),
        "no ac-4 evidence"
    );
    finish(&repo);
}

#[test]
fn a_hostile_label_reaches_the_command_as_one_word_and_never_runs() {
    let repo = Repo::initialised();
    let hostile = "surface:x;touch${IFS}PWNED";
    let quotes = "surface:$(touch${IFS}PWNED2)'\"`touch${IFS}PWNED3`";
    let id = repo.create("Hostile labels", &["-l", hostile, "-l", quotes]);
    let want = "x;touch${IFS}PWNED,$(touch${IFS}PWNED2)'\"`touch${IFS}PWNED3`\n";
    for cmd in [
        "printf '%s\\n' {surface_area} > got.txt",
        "printf '%s\\n' \"{surface_area}\" > got.txt",
        "printf '%s\\n' '{surface_area}' > got.txt",
        "printf '%s\\n' \"$(printf %s {surface_area})\" > got.txt",
    ] {
        let g = expect(&repo, &["implement", &id, "--cmd", cmd], "accept");
        assert_eq!(
            repo.read("got.txt"),
            want,
            "{cmd}: the value arrives intact as one word\n{}",
            g.stdout
        );
        for marker in ["PWNED", "PWNED2", "PWNED3"] {
            assert!(
                !repo.join(marker).exists(),
                "{cmd}: the label ran as shell code ({marker})"
            );
        }
    }
    // The same through a command from config.
    repo.ok(&[
        "config",
        "set",
        "gates.green",
        "echo {surface_area} > got.txt",
    ]);
    expect(&repo, &["green", &id], "accept");
    assert_eq!(repo.read("got.txt"), want);
    assert!(!repo.join("PWNED").exists());
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();
}

#[test]
fn a_hostile_folder_name_reaches_the_command_as_one_word_and_never_runs() {
    // The repository lives in a folder whose name is shell code.
    let outer = Repo::new();
    let root = outer.join("a $(touch PWNED) b");
    std::fs::create_dir_all(&root).expect("mkdir");
    let r = root.display().to_string();
    outer.git(&["init", "-q", "-b", "main", &r]);
    outer.git(&["-C", &r, "config", "user.name", "Test User"]);
    outer.git(&["-C", &r, "config", "user.email", "test@example.com"]);
    outer.git(&["-C", &r, "config", "commit.gpgsign", "false"]);
    let in_root = |args: &[&str]| {
        let out = outer.cmd_in(&root, args).output().expect("run vermas");
        assert!(
            out.status.success(),
            "vermas {args:?}: {}\n{}",
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    };
    in_root(&["init", "--prefix", "vm"]);
    let id = in_root(&["q", "Lives in a strange folder"])
        .trim()
        .to_string();
    let cmd = "printf '%s\\n' {project_root} \"{worktree_dir}\" '{project_root}' > got.txt";
    in_root(&["gate", "implement", &id, "--cmd", cmd]);
    let canonical = std::fs::canonicalize(&root).expect("canonical root");
    let want = format!("{}\n", canonical.display()).repeat(3);
    assert_eq!(
        std::fs::read_to_string(root.join("got.txt")).expect("got.txt"),
        want,
        "the folder arrives intact, one word each time"
    );
    assert!(
        !root.join("PWNED").exists() && !outer.join("PWNED").exists(),
        "the folder name ran as shell code"
    );
    let status = outer.git(&["-C", &r, "status", "--porcelain", "--", ".beads"]);
    assert_eq!(status, "", "the gate's evidence is committed");
}
