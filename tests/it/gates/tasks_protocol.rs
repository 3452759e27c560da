//! `tasks verify` speaks smart-ralph's protocol as its spec-executor writes it (issue 30):
//! two signals only, and its failure table row by row: a command not found is SKIP and the
//! run goes on, a timeout is FAIL, all commands missing is VERIFICATION_PASS ("no failures
//! = pass") with a visible "nothing was verified" line, an ambiguous AC is SKIP, a file
//! without `[VERIFY]` items executes normally, long output keeps its last 50 lines in the
//! learnings; and the document's closing V4/V5/V6 template runs as written (V5's command
//! is on its `**Verify**:` line).

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

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

/// Stdout, with the exit code checked (both streams shown when it differs).
fn out_with(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Stdout parsed as JSON.
fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(o), stderr(o)))
}

/// The last line of stdout.
fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_string()
}

#[test]
fn a_missing_command_is_skip_and_the_item_goes_on() {
    let repo = Repo::initialised();
    let text = "- [ ] V3 [VERIFY] Missing cmd: nosuchcommand-xyz && touch after.marker\n";
    repo.write("tasks.md", text);
    let o = verify(&repo, &["tasks.md", "--mark"], &[]);
    let out = out_with(&o, 0);
    assert!(
        out.contains("- nosuchcommand-xyz: SKIP (command not found:"),
        "{out}"
    );
    assert!(out.contains("- touch after.marker: PASS"), "{out}");
    assert!(repo.join("after.marker").exists(), "the next command ran");
    assert!(out.contains("1 passed, 0 failed, 0 skipped"), "{out}");
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_PASS");
    assert_eq!(repo.read("tasks.md"), text.replace("[ ]", "[x]"));
}

#[test]
fn a_timeout_is_fail() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "gates.timeout", "1s"]);
    repo.write("tasks.md", "- [ ] V1 [VERIFY] Slow: sleep 5\n");
    let o = verify(&repo, &["tasks.md", "--json"], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let j = json_of(&o);
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    assert_eq!(j["strict"], false);
    let item = &j["items"][0];
    assert_eq!(item["outcome"], "FAIL");
    assert_eq!(item["commands"][0]["outcome"], "FAIL");
    assert_eq!(item["reason"], "`sleep 5` timed out after 1s");
    let human = verify(&repo, &["tasks.md"], &[]);
    let out = out_with(&human, 1);
    assert!(
        out.contains("- sleep 5: FAIL (timed out after 1s,"),
        "{out}"
    );
    assert_eq!(last_line(&human), "VERIFICATION_FAIL");
}

#[test]
fn all_commands_missing_is_a_pass_that_says_nothing_was_verified() {
    let repo = Repo::initialised();
    repo.write(
        "tasks.md",
        "- [ ] V1 [VERIFY] Quality check: no-lint-zz && no-typecheck-zz\n- [ ] V2 [VERIFY] Tests: no-test-zz\n",
    );
    let o = verify(&repo, &["tasks.md"], &[]);
    let out = out_with(&o, 0);
    assert!(
        out.contains("- no-lint-zz: SKIP (command not found:"),
        "{out}"
    );
    assert!(
        out.contains("- no-typecheck-zz: SKIP (command not found:"),
        "every missing command is tried: {out}"
    );
    assert!(out.contains("0 passed, 0 failed, 2 skipped"), "{out}");
    assert!(
        out.ends_with("nothing was verified: every command was missing\nVERIFICATION_PASS\n"),
        "{out}"
    );
    let j = json_of(&verify(&repo, &["tasks.md", "--json"], &[]));
    assert_eq!(j["verdict"], "VERIFICATION_PASS");
    assert_eq!(
        j["reason"],
        "nothing was verified: every command was missing"
    );
    assert_eq!(j["items"][0]["outcome"], "SKIP");

    // --strict keeps vermas's rule, spelled as the loop's own signal.
    let o = verify(&repo, &["tasks.md", "--strict"], &[]);
    let out = out_with(&o, 3);
    assert!(out.contains("could not be checked: V1, V2"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
}

#[test]
fn a_file_without_verify_items_executes_normally() {
    let repo = Repo::initialised();
    repo.write("tasks.md", "- [ ] 1.1 Just work\n");
    let o = verify(&repo, &["tasks.md"], &[]);
    let out = out_with(&o, 0);
    assert_eq!(
        out,
        "nothing was verified: no [VERIFY] items in tasks.md\nVERIFICATION_PASS\n"
    );
    assert!(!repo.join(".progress.md").exists());
}

#[test]
fn any_failing_command_fails_and_keeps_the_last_50_lines() {
    let repo = Repo::initialised();
    repo.write(
        "specs/feat/tasks.md",
        "- [ ] V1 [VERIFY] Suite: true && no-such-tool-zz && sh -c 'seq 1 80; exit 1'\n",
    );
    let o = verify(&repo, &["specs/feat/tasks.md", "--mark"], &[]);
    let out = out_with(&o, 1);
    assert!(out.contains("failed: V1"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
    let progress = repo.read("specs/feat/.progress.md");
    assert!(
        progress.contains("V1 [VERIFY] Suite: FAIL (`sh -c 'seq 1 80; exit 1'` exit 1)"),
        "{progress}"
    );
    let kept: Vec<&str> = progress
        .lines()
        .skip_while(|l| l.trim() != "```text")
        .skip(1)
        .take_while(|l| l.trim() != "```")
        .map(str::trim)
        .collect();
    let want: Vec<String> = (31..=80).map(|n| n.to_string()).collect();
    assert_eq!(kept, want, "the last 50 lines: {progress}");
    assert!(repo.read("specs/feat/tasks.md").contains("- [ ] V1"));
}

#[test]
fn an_ac_checklist_whose_only_ac_is_skip_passes() {
    let repo = Repo::initialised();
    repo.use_llm(&fake_llm());
    repo.write("spec/tasks.md", "- [ ] V6 [VERIFY] AC checklist\n");
    repo.write(
        "spec/requirements.md",
        "# Requirements\n\n- AC-1.1: The page is friendly\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "all in"]);
    // Nothing changed and the AC names no file: nothing to judge, so SKIP.
    let o = verify(&repo, &["spec/tasks.md", "--json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let j = json_of(&o);
    assert_eq!(j["verdict"], "VERIFICATION_PASS");
    assert_eq!(j["items"][0]["outcome"], "SKIP");
    assert_eq!(j["items"][0]["acs"][0]["outcome"], "SKIP");
    assert!(
        j["items"][0]["acs"][0]["evidence"]
            .as_str()
            .is_some_and(|e| e.contains("no files to judge")),
        "the explanation: {j}"
    );
    assert_eq!(j["reason"], "nothing was verified: every check was skipped");
    let progress = repo.read("spec/.progress.md");
    assert!(
        progress.contains("V6 [VERIFY] AC checklist: SKIP (nothing was judged: 1 AC skipped)"),
        "documented in the learnings: {progress}"
    );

    // A judge that cannot be asked fails the item (the task stays unchecked and is retried).
    repo.write("spec/ui.txt", "hello\n");
    repo.write(
        "spec/requirements.md",
        "# Requirements\n\n- AC-1.1: The page is friendly (`spec/ui.txt`)\n",
    );
    repo.write_llm_command("no-such-llm-zz");
    let o = verify(&repo, &["spec/tasks.md", "--json"], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let j = json_of(&o);
    assert_eq!(j["verdict"], "VERIFICATION_FAIL");
    assert_eq!(j["items"][0]["acs"][0]["outcome"], "FAIL");
    assert!(
        j["items"][0]["acs"][0]["evidence"]
            .as_str()
            .is_some_and(|e| e.starts_with("could not be judged: ")),
        "{j}"
    );
}

/// The closing sequence as smart-ralph's task-planner writes it, with this project's
/// commands in V4's placeholders (`<lint> && <typecheck> && <test> && <build>`).
const TEMPLATE: &str = "## Phase 4: Quality Gates

- [ ] V4 [VERIFY] Full local CI: sh lint.sh && sh typecheck.sh && sh test.sh && sh build.sh
  - **Do**: Run complete local CI suite using discovered commands
  - **Verify**: All commands pass with exit code 0
  - **Done when**: Build succeeds, all tests pass, no lint/type errors
  - **Commit**: `chore(scope): pass local CI` (only if fixes needed)

- [ ] V5 [VERIFY] CI pipeline passes
  - **Do**: Verify GitHub Actions/CI pipeline passes
  - **Verify**: `gh pr checks` shows all checks passing
  - **Done when**: All CI checks green
  - **Commit**: None (verification only)

- [ ] V6 [VERIFY] AC checklist
  - **Do**: Read requirements.md, verify each AC-* is satisfied by implementation
  - **Verify**: Each acceptance criterion has corresponding implementation
  - **Done when**: All acceptance criteria confirmed met
  - **Commit**: None (verification only)
";

/// A repository holding the template, its four scripts and requirements the fake judge
/// passes.
fn template_repo() -> Repo {
    let repo = Repo::initialised();
    repo.use_llm(&fake_llm());
    for s in ["lint", "typecheck", "test", "build"] {
        repo.write(&format!("{s}.sh"), &format!("echo {s} ok\n"));
    }
    repo.write("spec/tasks.md", TEMPLATE);
    repo.write(
        "spec/requirements.md",
        "# Requirements\n\n- AC-1.1: The build says BUILD (`build.sh`)\n",
    );
    repo.write("build.sh", "echo BUILD ok\n");
    repo
}

/// `PATH` with a folder holding a `gh` that prints `what` and exits `code` put first.
fn path_with_gh(dir: &Path, what: &str, code: i32) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(&gh, format!("#!/bin/sh\necho '{what}'\nexit {code}\n")).unwrap();
    make_executable(&gh);
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap())
}

/// `PATH` without any folder that holds a `gh`.
fn path_without_gh() -> String {
    let dirs: Vec<PathBuf> = std::env::split_paths(&std::env::var("PATH").unwrap())
        .filter(|d| !d.join("gh").exists())
        .collect();
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Makes a file executable.
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_documents_closing_template_runs_as_written() {
    let repo = template_repo();
    let scratch = tempfile::tempdir().unwrap();
    let green = path_with_gh(scratch.path(), "all checks passing", 0);
    let o = verify(&repo, &["spec/tasks.md", "--mark"], &[("PATH", &green)]);
    let out = out_with(&o, 0);
    assert!(
        out.contains("Verified V4 [VERIFY] Full local CI  spec/tasks.md:3\n- sh lint.sh: PASS ("),
        "{out}"
    );
    assert!(
        out.contains(
            "Verified V5 [VERIFY] CI pipeline passes  spec/tasks.md:9\n  (commands from its **Verify**: line, spec/tasks.md:11)\n- gh pr checks: PASS"
        ),
        "{out}"
    );
    assert!(
        out.contains("| AC-1.1 | The build says BUILD (`build.sh`) | PASS |"),
        "{out}"
    );
    assert!(out.contains("3 passed, 0 failed, 0 skipped"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_PASS");
    let tasks = repo.read("spec/tasks.md");
    assert_eq!(tasks.matches("- [x] V").count(), 3, "{tasks}");

    // CI red: V5 fails and stays unchecked.
    repo.write("spec/tasks.md", TEMPLATE);
    let red = path_with_gh(scratch.path(), "1 failing check", 1);
    let o = verify(&repo, &["spec/tasks.md", "--mark"], &[("PATH", &red)]);
    let out = out_with(&o, 1);
    assert!(out.contains("- gh pr checks: FAIL (exit 1,"), "{out}");
    assert!(out.contains("  | 1 failing check"), "{out}");
    assert!(out.contains("failed: V5"), "{out}");
    assert_eq!(last_line(&o), "VERIFICATION_FAIL");
    assert!(repo.read("spec/tasks.md").contains("- [ ] V5"));

    // No gh at all: V5 is SKIP, the rest verified, and the signal is a pass.
    repo.write("spec/tasks.md", TEMPLATE);
    let o = verify(
        &repo,
        &["spec/tasks.md", "--json"],
        &[("PATH", &path_without_gh())],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let j = json_of(&o);
    let outcomes: Vec<&str> = j["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["PASS", "SKIP", "PASS"]);
    assert_eq!(j["items"][1]["verify_line"], 11);
    assert_eq!(j["verdict"], "VERIFICATION_PASS");
}
