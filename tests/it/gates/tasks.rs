//! `tasks verify` end to end (issue 4): [VERIFY] items run their commands in order and stop
//! at the first that fails; learnings go to `.progress.md`, and an AC checklist judges
//! requirements.md through the LLM (the scripted stand-in `fixtures/llm`). The `--strict`
//! rules live here too: a command that cannot run (missing, not executable, timed out,
//! killed) is ERROR, never a pass or a skip; only items whose every command ran and passed
//! PASS and get ticked by `--mark`; what could not be checked, or nothing verified, is
//! VERIFICATION_FAIL with the reason, exit 3. smart-ralph's own table (the default) is in
//! `tasks_protocol`.

use crate::common::*;
use std::process::Output;
use std::time::{Duration, Instant};

/// Runs `tasks verify` with extra arguments and environment.
fn verify(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut all = vec!["tasks", "verify"];
    all.extend_from_slice(args);
    let mut c = repo.cmd(&all);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run vermas")
}

/// The last line of stdout.
fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_string()
}

/// Stdout parsed as JSON.
fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(o), stderr(o)))
}

/// Asserts the exit code, showing both streams when it differs.
fn assert_code(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

#[test]
fn passing_items_end_with_verification_pass() {
    let repo = Repo::initialised();
    repo.write(
        "tasks.md",
        "# Tasks\n\n- [ ] 1.1 Build it\n- [ ] V1 [VERIFY] Quality check: true && echo hello\n  - **Do**: run them\n- [ ] V4 [VERIFY] Full local CI: `test -f tasks.md` && `echo ok`\n",
    );
    let o = verify(&repo, &["tasks.md"], &[]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("Verified V1 [VERIFY] Quality check  tasks.md:4"),
        "{out}"
    );
    assert!(out.contains("- true: PASS"), "{out}");
    assert!(out.contains("- echo hello: PASS"), "{out}");
    assert!(out.contains("Verified V4 [VERIFY] Full local CI"), "{out}");
    assert!(out.contains("- test -f tasks.md: PASS"), "{out}");
    assert!(!out.contains("1.1"), "a plain task item is not run: {out}");
    assert_eq!(last_line(&o), "VERIFICATION_PASS");
}

#[test]
fn the_first_failure_stops_the_item_but_not_the_others() {
    let repo = Repo::initialised();
    repo.write(
        "tasks.md",
        "- [ ] V1 [VERIFY] Lint: true && sh -c 'echo lint broke; exit 3' && touch later.marker\n- [ ] V2 [VERIFY] Next: touch next.marker\n",
    );
    let o = verify(&repo, &["tasks.md"], &[]);
    assert_code(&o, 1);
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
    let out = stdout(&o);
    assert!(
        out.contains("- sh -c 'echo lint broke; exit 3': FAIL (exit 3"),
        "{out}"
    );
    assert!(
        out.contains("  | lint broke"),
        "the failure's output: {out}"
    );
    assert!(
        out.contains("- touch later.marker: SKIP (not run:"),
        "{out}"
    );
    assert!(
        !repo.join("later.marker").exists(),
        "a command after the failure ran"
    );
    assert!(
        repo.join("next.marker").exists(),
        "the next item did not run"
    );

    let j = json_of(&verify(&repo, &["tasks.md", "--json"], &[]));
    assert_eq!(j["schema_version"], 1);
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    let cmds = j["items"][0]["commands"].as_array().expect("commands");
    let outcomes: Vec<&str> = cmds
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["PASS", "FAIL", "SKIP"]);
    assert_eq!(cmds[1]["exit_code"], 3);
    assert_eq!(j["items"][0]["outcome"], "FAIL");
    assert_eq!(j["items"][0]["id"], "V1");
    assert_eq!(j["items"][1]["outcome"], "PASS");
}

#[test]
fn strict_a_timeout_is_an_error_and_kills_the_command() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "gates.timeout", "1s"]);
    repo.write(
        "tasks.md",
        "- [ ] V1 [VERIFY] Slow: sleep 30 && touch after.marker\n",
    );
    let start = Instant::now();
    let o = verify(&repo, &["tasks.md", "--json", "--mark", "--strict"], &[]);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "not killed in time"
    );
    assert_code(&o, 3);
    let j = json_of(&o);
    let first = &j["items"][0]["commands"][0];
    assert_eq!(first["outcome"], "ERROR");
    assert_eq!(first["reason"], "timed out after 1s");
    let second = &j["items"][0]["commands"][1];
    assert_eq!(second["outcome"], "SKIP");
    assert_eq!(second["reason"], "not run: `sleep 30` could not run");
    assert!(!repo.join("after.marker").exists());
    assert_eq!(j["items"][0]["outcome"], "ERROR");
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    assert_eq!(j["reason"], "could not be checked: V1");
    assert_eq!(j["strict"], true);
    assert_eq!(j["marked"], 0);
    assert!(repo.read("tasks.md").starts_with("- [ ] V1"));
}

#[test]
fn strict_a_command_killed_by_a_signal_or_not_executable_is_an_error() {
    let repo = Repo::initialised();
    repo.write("not-executable.sh", "#!/bin/sh\necho hi\n");
    repo.write(
        "tasks.md",
        "- [ ] V1 [VERIFY] Crash: kill -9 $$\n- [ ] V2 [VERIFY] Not executable: ./not-executable.sh\n",
    );
    let o = verify(&repo, &["tasks.md", "--json", "--mark", "--strict"], &[]);
    assert_code(&o, 3);
    let j = json_of(&o);
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    let crash = &j["items"][0];
    assert_eq!(crash["outcome"], "ERROR", "{crash}");
    assert_eq!(crash["commands"][0]["reason"], "killed by signal 9");
    let denied = &j["items"][1];
    assert_eq!(denied["outcome"], "ERROR", "{denied}");
    assert!(
        denied["commands"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("cannot execute")),
        "{denied}"
    );
    assert_eq!(j["marked"], 0);
}

/// A tasks file with an item whose programs are all missing, one whose first program is
/// missing and second passes, and one that passes.
const MISSING: &str = "- [ ] V1 [VERIFY] Missing: cargo-nothere fmt --check && cargo-nothere test\n\
                       - [ ] V2 [VERIFY] First missing: no-such-linter-zz --check && touch ran.marker\n\
                       - [ ] V3 [VERIFY] Good: true\n";

#[test]
fn strict_missing_programs_are_errors_never_a_pass() {
    let repo = Repo::initialised();
    repo.write("tasks.md", MISSING);
    let o = verify(&repo, &["tasks.md", "--mark", "--strict"], &[]);
    assert_code(&o, 3);
    let out = stdout(&o);
    assert!(
        out.contains("- cargo-nothere fmt --check: ERROR (command not found:"),
        "{out}"
    );
    assert!(
        out.contains(
            "- cargo-nothere test: SKIP (not run: `cargo-nothere fmt --check` could not run)"
        ),
        "{out}"
    );
    assert!(
        out.contains("- no-such-linter-zz --check: ERROR (command not found:"),
        "{out}"
    );
    assert!(out.contains("1 passed, 0 failed, 2 errors"), "{out}");
    assert!(out.contains("could not be checked: V1, V2"), "{out}");
    assert!(out.contains("marked 1 item [x] in tasks.md"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
    assert!(
        !repo.join("ran.marker").exists(),
        "nothing runs after a command that could not run"
    );
    assert_eq!(
        repo.read("tasks.md"),
        MISSING.replace("- [ ] V3", "- [x] V3"),
        "only the passing item is ticked"
    );
    let progress = repo.read(".progress.md");
    assert!(
        progress.contains(
            "V1 [VERIFY] Missing: ERROR (`cargo-nothere fmt --check` could not run: command not found:"
        ),
        "{progress}"
    );

    repo.write("tasks.md", MISSING);
    let j = json_of(&verify(
        &repo,
        &["tasks.md", "--json", "--mark", "--strict"],
        &[],
    ));
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    let items = j["items"].as_array().expect("items");
    let outcomes: Vec<&str> = items
        .iter()
        .map(|i| i["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["ERROR", "ERROR", "PASS"]);
    let v1: Vec<&str> = items[0]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(v1, ["ERROR", "SKIP"]);
    let marked: Vec<bool> = items
        .iter()
        .map(|i| i["marked"].as_bool().unwrap())
        .collect();
    assert_eq!(marked, [false, false, true]);
    assert!(
        j["reason"]
            .as_str()
            .is_some_and(|r| r.contains("could not be checked")),
        "{j}"
    );
}

#[test]
fn strict_an_item_without_commands_is_not_a_pass() {
    let repo = Repo::initialised();
    let text = "- [ ] V5 [VERIFY] CI pipeline passes\n";
    repo.write("tasks.md", text);
    let o = verify(&repo, &["tasks.md", "--mark", "--strict"], &[]);
    assert_code(&o, 3);
    let out = stdout(&o);
    assert!(
        out.contains("- ERROR (no commands: nothing was verified"),
        "{out}"
    );
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
    assert_eq!(repo.read("tasks.md"), text, "not ticked");
}

#[test]
fn strict_mark_ticks_only_passing_items() {
    let repo = Repo::initialised();
    let text = "# Tasks\r\n\r\n- [ ] V1 [VERIFY] Good: true\r\n- [ ] V2 [VERIFY] Bad: false\r\n- [ ] V3 [VERIFY] No commands\r\n- [ ] 2.1 Plain task\r\n* [ ] V4 [VERIFY] Also good: echo fine\r\n\r\n```\r\n- [ ] V9 [VERIFY] In a code block: true\r\n```\r\n";
    repo.write("tasks.md", text);
    let o = verify(&repo, &["tasks.md", "--mark", "--strict"], &[]);
    assert_code(&o, 1);
    assert!(stdout(&o).contains("marked 2 items [x] in tasks.md"));
    let expected = text
        .replace("- [ ] V1", "- [x] V1")
        .replace("* [ ] V4", "* [x] V4");
    assert_eq!(
        repo.read("tasks.md"),
        expected,
        "only the two checkboxes change"
    );

    // Without --mark nothing is written to the tasks file.
    repo.write("tasks.md", text);
    verify(&repo, &["tasks.md"], &[]);
    assert_eq!(repo.read("tasks.md"), text);
}

#[test]
fn learnings_are_appended_under_one_heading() {
    let repo = Repo::initialised();
    repo.write(
        "specs/feat/tasks.md",
        "- [ ] V1 [VERIFY] Good: true\n- [ ] V2 [VERIFY] Bad: echo x && false\n",
    );
    repo.write("specs/feat/.progress.md", "# Progress\n\nStarted.\n");
    let env = [("VERMAS_NOW", "2026-01-02T03:04:05Z")];
    verify(&repo, &["specs/feat/tasks.md"], &env);
    let o = verify(&repo, &["specs/feat/tasks.md"], &env);
    assert!(stdout(&o).contains("learnings appended to specs/feat/.progress.md"));
    let progress = repo.read("specs/feat/.progress.md");
    assert!(
        progress.starts_with("# Progress\n\nStarted.\n"),
        "{progress}"
    );
    assert_eq!(progress.matches("## Learnings").count(), 1, "{progress}");
    let good = "- 2026-01-02T03:04:05Z V1 [VERIFY] Good: PASS";
    let bad = "- 2026-01-02T03:04:05Z V2 [VERIFY] Bad: FAIL (`false` exit 1)";
    assert_eq!(progress.matches(good).count(), 2, "{progress}");
    assert_eq!(progress.matches(bad).count(), 2, "{progress}");
}

#[test]
fn commands_run_in_the_repository_root() {
    let repo = Repo::initialised();
    repo.write("root.marker", "");
    repo.write(
        "specs/feat/tasks.md",
        "- [ ] V1 [VERIFY] Root: test -f root.marker && touch made.marker\n",
    );
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let o = repo
        .cmd_in(
            &repo.join("src/deep"),
            &["tasks", "verify", "../../specs/feat/tasks.md"],
        )
        .output()
        .unwrap();
    assert_code(&o, 0);
    assert!(repo.join("made.marker").exists());
    assert!(repo.join("specs/feat/.progress.md").exists());
}

#[test]
fn works_without_a_beads_folder() {
    let repo = Repo::new();
    repo.write("tasks.md", "- [ ] V1 [VERIFY] Good: true\n");
    let o = verify(&repo, &["tasks.md", "--mark"], &[]);
    assert_code(&o, 0);
    assert_eq!(repo.read("tasks.md"), "- [x] V1 [VERIFY] Good: true\n");
    assert!(repo.read(".progress.md").contains("V1 [VERIFY] Good: PASS"));
    let leftovers: Vec<_> = std::fs::read_dir(repo.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn bad_input_exits_2() {
    let repo = Repo::initialised();
    let e = repo.fails(&["tasks", "verify", "missing.md"], 2);
    assert!(e.contains("missing.md: no such tasks file"), "{e}");
    repo.write("tasks.md", "- [ ] V6 [VERIFY] AC checklist\n");
    let e = repo.fails(&["tasks", "verify", "tasks.md"], 2);
    assert!(
        e.contains("requirements.md: no such requirements file"),
        "{e}"
    );
    repo.write("reqs.md", "# Requirements\n\n- AC-1.1:\n");
    let e = repo.fails(
        &["tasks", "verify", "tasks.md", "--requirements", "reqs.md"],
        2,
    );
    assert!(e.contains("AC-1.1 has no description"), "{e}");
    repo.write("reqs.md", "# Requirements\n\nNothing here.\n");
    let e = repo.fails(
        &["tasks", "verify", "tasks.md", "--requirements", "reqs.md"],
        2,
    );
    assert!(e.contains("has no AC-x.y acceptance criteria"), "{e}");
    assert!(
        !repo.join(".progress.md").exists(),
        "nothing recorded on bad input"
    );
}

#[test]
fn strict_a_file_without_verify_items_is_not_a_pass() {
    let repo = Repo::initialised();
    repo.write("tasks.md", "- [ ] 1.1 Just work\n");
    let o = verify(&repo, &["tasks.md", "--strict"], &[]);
    assert_code(&o, 3);
    assert!(
        stdout(&o).contains("nothing was verified: no [VERIFY] items in tasks.md"),
        "{}",
        stdout(&o)
    );
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
    assert!(!repo.join(".progress.md").exists());
    let j = json_of(&verify(&repo, &["tasks.md", "--json", "--strict"], &[]));
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    assert_eq!(j["items"], serde_json::json!([]));
}

/// A repository whose LLM is the fake, with requirements naming files in backticks.
fn ac_repo() -> (Repo, tempfile::TempDir) {
    let repo = Repo::initialised();
    repo.use_llm(&fake_llm());
    repo.write(
        "spec/tasks.md",
        "- [ ] V4 [VERIFY] Full local CI: true\n- [ ] V6 [VERIFY] AC checklist\n  - **Do**: check each AC\n",
    );
    repo.write(
        "spec/requirements.md",
        "# Requirements\n\n## US-1\n\n**Acceptance Criteria:**\n- [ ] AC-1.1: The page shows a BANNER (`src/ui.txt`)\n- [ ] AC-1.2: Users can LOGIN via `src/login.txt`\n\n| AC | Description |\n|----|-------------|\n| AC-2.1 | The LOGIN page | \n",
    );
    repo.write("src/ui.txt", "<BANNER> Welcome\n");
    repo.write("src/login.txt", "form: LOGIN\n");
    let scratch = tempfile::tempdir().expect("tempdir");
    (repo, scratch)
}

#[test]
fn ac_checklist_passes_with_a_table() {
    let (repo, scratch) = ac_repo();
    let log = scratch.path().join("calls.log");
    let log_s = log.display().to_string();
    let env = [("FAKE_LLM_MODE", "pass"), ("FAKE_LLM_LOG", log_s.as_str())];
    let o = verify(&repo, &["spec/tasks.md", "--mark"], &env);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("| AC | Description | Status | Evidence |"),
        "{out}"
    );
    assert!(
        out.contains("| AC-1.1 | The page shows a BANNER (`src/ui.txt`) | PASS | The fake judge"),
        "{out}"
    );
    assert!(out.contains("| AC-2.1 | The LOGIN page | PASS |"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_PASS");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().lines().count(),
        3,
        "one LLM call per AC"
    );
    assert!(
        repo.read("spec/tasks.md")
            .contains("- [x] V6 [VERIFY] AC checklist")
    );
    assert!(
        repo.read("spec/.progress.md")
            .contains("V6 [VERIFY] AC checklist: PASS")
    );
}

#[test]
fn ac_checklist_fails_when_the_judge_says_so() {
    let (repo, _scratch) = ac_repo();
    // keyword mode: PASS only when the ALL-CAPS words are in the judged files.
    repo.write("src/login.txt", "form: password only\n");
    let o = verify(
        &repo,
        &["spec/tasks.md", "--mark", "--json"],
        &[("FAKE_LLM_MODE", "keyword")],
    );
    assert_code(&o, 1);
    let j = json_of(&o);
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    let item = &j["items"][1];
    assert_eq!(item["outcome"], "FAIL");
    assert_eq!(item["reason"], "2 AC failed: AC-1.2, AC-2.1");
    let acs = item["acs"].as_array().expect("acs");
    assert_eq!(acs[0]["outcome"], "PASS");
    assert_eq!(acs[0]["files"], serde_json::json!(["src/ui.txt"]));
    assert_eq!(acs[1]["outcome"], "FAIL");
    assert!(acs[1]["evidence"].as_str().unwrap().contains("LOGIN"));
    // AC-2.1 names no file: it is judged against the changed files (all untracked here).
    assert_eq!(acs[2]["outcome"], "FAIL");
    assert!(
        !acs[2]["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().starts_with("spec/")),
        "the tasks and requirements files are not evidence: {}",
        acs[2]["files"]
    );
    let tasks = repo.read("spec/tasks.md");
    assert!(tasks.contains("- [x] V4"), "{tasks}");
    assert!(tasks.contains("- [ ] V6"), "{tasks}");

    let o = verify(&repo, &["spec/tasks.md"], &[("FAKE_LLM_MODE", "keyword")]);
    let out = stdout(&o);
    assert!(out.contains("| AC-1.2 | Users can LOGIN via `src/login.txt` | FAIL | Missing from the files: LOGIN. |"), "{out}");
    assert!(out.contains("\n2 AC failed: AC-1.2, AC-2.1\n"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
}

#[test]
fn strict_ac_checklist_without_an_llm_is_an_error_not_a_pass() {
    let (repo, _scratch) = ac_repo();
    repo.write_llm_command("no-such-llm-zz");
    let o = verify(
        &repo,
        &["spec/tasks.md", "--json", "--mark", "--strict"],
        &[],
    );
    assert_code(&o, 3);
    let j = json_of(&o);
    let item = &j["items"][1];
    let acs = item["acs"].as_array().expect("acs");
    assert!(acs.iter().all(|a| a["outcome"] == "ERROR"), "{acs:?}");
    assert_eq!(item["outcome"], "ERROR");
    assert_eq!(
        item["reason"],
        "3 AC could not be judged: AC-1.1, AC-1.2, AC-2.1"
    );
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    let tasks = repo.read("spec/tasks.md");
    assert!(tasks.contains("- [x] V4"), "{tasks}");
    assert!(tasks.contains("- [ ] V6"), "not ticked: {tasks}");
}

#[test]
fn strict_ac_checklist_with_an_unjudged_ac_is_not_a_pass() {
    let (repo, _scratch) = ac_repo();
    // Everything committed: AC-2.1 names no file and nothing changed, so it is not judged.
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "all in"]);
    let o = verify(
        &repo,
        &["spec/tasks.md", "--json", "--mark", "--strict"],
        &[("FAKE_LLM_MODE", "pass")],
    );
    assert_code(&o, 3);
    let j = json_of(&o);
    let item = &j["items"][1];
    let outcomes: Vec<&str> = item["acs"]
        .as_array()
        .expect("acs")
        .iter()
        .map(|a| a["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["PASS", "PASS", "SKIP"]);
    assert_eq!(item["outcome"], "ERROR");
    assert_eq!(item["reason"], "1 AC could not be judged: AC-2.1");
    assert_eq!(item["marked"], false);
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    assert!(repo.read("spec/tasks.md").contains("- [ ] V6"));
}
