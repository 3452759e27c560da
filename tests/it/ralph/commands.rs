//! The ralph front end: `vermas ralph spec|annotations` and a real symlink named `ralph`,
//! on real temporary git repositories with real shell tests, and a stand-in `claude` (the
//! scripted `fixtures/llm`, linked as `claude` on PATH) for judge runs.

use crate::common::*;
use crate::ralph::support::*;
use std::path::{Path, PathBuf};
use std::process::Output;

// ---- the index ----

#[test]
fn index_counts_each_spec_in_ralphs_layout_and_runs_nothing() {
    let repo = ralph_repo();
    let before = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    let out = exits(&ralph(&repo, &["spec"]), 0);
    assert_eq!(
        out,
        "Ralph Specs
============================
  login.md                 1 verify, 0 judge, 0 unannotated
  notify.md                4 verify, 1 judge, 1 unannotated

Total: 5 verify, 1 judge, 1 unannotated
"
    );
    assert!(!repo.join("ran.marker").exists(), "the index ran a check");
    let after = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(before, after, "the index wrote files");
}

#[test]
fn index_verbose_lists_each_criterion_with_its_kind_and_test() {
    let repo = ralph_repo();
    let out = exits(&ralph(&repo, &["spec", "--verbose"]), 0);
    assert_eq!(
        out,
        "Ralph Specs
============================
  login.md                 1 verify, 0 judge, 0 unannotated
    [verify] Logs in → tests/login.sh::test_login
  notify.md                4 verify, 1 judge, 1 unannotated
    [verify] Notification appears within 2s → tests/notify.sh::test_fast
    [judge ] Clear visibility into current state → tests/judges/notify.sh::test_visible
    [none  ] Works on both Linux and macOS
    [verify] Retries on failure → tests/notify.sh::test_retry
    [verify] Skipped on CI → tests/notify.sh::test_skipped
    [verify] Not implemented yet → tests/notify.sh::test_todo

Total: 5 verify, 1 judge, 1 unannotated
"
    );
    assert!(!repo.join("ran.marker").exists());
}

#[test]
fn verbose_has_no_short_flag() {
    let repo = ralph_repo();
    // `-v` is --verify: it runs the checks.
    ralph(&repo, &["spec", "-v"]);
    assert!(repo.join("ran.marker").exists());
}

#[test]
fn no_spec_files_is_said_plainly() {
    let repo = Repo::new();
    repo.write("specs/README.md", "# Specs\n");
    for args in [&["spec"][..], &["spec", "--verify"][..]] {
        let out = exits(&ralph(&repo, args), 0);
        assert_eq!(out, "No spec files found in specs/\n", "{args:?}");
    }
}

// ---- running checks ----

#[test]
fn verify_groups_every_spec_under_its_header_and_ends_with_a_summary() {
    let repo = ralph_repo();
    let out = exits(&ralph(&repo, &["spec", "--verify"]), 1);
    assert_eq!(out, VERIFY_ALL);
    assert!(repo.join("ran.marker").exists());
}

#[test]
fn short_and_long_flags_give_the_same_run() {
    let repo = ralph_repo();
    let long = exits(&ralph(&repo, &["spec", "--verify"]), 1);
    let short = exits(&ralph(&repo, &["spec", "-v"]), 1);
    assert_eq!(long, short);
    let dir = claude_dir();
    let env = [("PATH", path_with(dir.path()))];
    let all = exits(&ralph_env(&repo, &["spec", "--all"], &env), 1);
    assert!(all.starts_with("Ralph Verify+Judge: login\n"), "{all}");
    for args in [
        &["spec", "-a"][..],
        &["spec", "-vj"][..],
        &["spec", "-jv"][..],
    ] {
        let out = exits(&ralph_env(&repo, args, &env), 1);
        assert_eq!(out, all, "{args:?}");
    }
    let named = exits(&ralph_env(&repo, &["spec", "-vjs", "login"], &env), 0);
    assert_eq!(
        named,
        exits(
            &ralph_env(&repo, &["spec", "--all", "--spec", "login"], &env),
            0
        )
    );
    assert!(named.starts_with("Ralph Verify+Judge: login\n"), "{named}");
}

#[test]
fn one_named_spec_ends_with_the_plain_tally() {
    let repo = ralph_repo();
    let out = exits(&ralph(&repo, &["spec", "-v", "-s", "login"]), 0);
    assert_eq!(
        out,
        "Ralph Verify: login
===================
  [PASS] Logs in
         tests/login.sh::test_login (exit 0)

1 passed, 0 failed, 0 skipped
"
    );
    let out = exits(&ralph(&repo, &["spec", "--verify", "--spec", "notify"]), 1);
    assert!(
        out.ends_with("\n\n1 passed, 1 failed, 3 skipped\n"),
        "{out}"
    );
    assert!(!out.contains("Summary:"), "{out}");
    assert!(out.starts_with("Ralph Verify: notify (wx-q6x)\n=============================\n"));
}

#[test]
fn verbose_shows_passing_output_too() {
    let repo = ralph_repo();
    let plain = exits(&ralph(&repo, &["spec", "-v", "-s", "notify"]), 1);
    assert!(!plain.contains("fast output"), "{plain}");
    let verbose = exits(
        &ralph(&repo, &["spec", "-v", "-s", "notify", "--verbose"]),
        1,
    );
    assert!(
        verbose.contains("tests/notify.sh::test_fast (exit 0)\n         | fast output\n"),
        "{verbose}"
    );
    // The whole failure output, not only its tail.
    assert!(verbose.contains("         | retry line 1\n"), "{verbose}");
    assert_eq!(verbose.matches("| retry line").count(), 7, "{verbose}");
}

#[test]
fn specs_without_criteria_are_skipped_silently() {
    let repo = ralph_repo();
    let out = exits(&ralph(&repo, &["spec", "-v"]), 1);
    assert!(!out.contains("draft"), "{out}");
    assert!(!out.contains("Not a spec"), "README.md is no spec: {out}");
    // Out-of-section items are no criteria.
    assert!(!out.contains("Not a criterion"), "{out}");
}

#[test]
fn a_run_where_everything_passes_exits_zero() {
    let repo = Repo::new();
    repo.write(
        "specs/ok.md",
        "# Ok\n\n## Success Criteria\n\n- [ ] Works\n  [verify](tests/ok.sh#test_ok)\n- [ ] Later\n",
    );
    repo.write("tests/ok.sh", "test_ok() { true; }\n");
    let out = exits(&ralph(&repo, &["spec", "-v"]), 0);
    assert!(
        out.ends_with("\nSummary: 1 passed, 0 failed, 1 skipped (1 specs)\n"),
        "{out}"
    );
}

#[test]
fn judge_runs_the_llm_and_leaves_verify_criteria_out() {
    let repo = ralph_repo();
    let dir = claude_dir();
    let env = [("PATH", path_with(dir.path()))];
    let out = exits(&ralph_env(&repo, &["spec", "-j", "-s", "notify"], &env), 0);
    assert_eq!(
        out,
        "Ralph Judge: notify (wx-q6x)
============================
  [PASS] Clear visibility into current state
         \"The fake judge read the files and found the criterion met.\"
  [SKIP] Works on both Linux and macOS (no annotation)

1 passed, 0 failed, 1 skipped
"
    );
    assert!(
        !repo.join("ran.marker").exists(),
        "judge mode ran a verify check"
    );
    let mut env = env.to_vec();
    env.push(("FAKE_LLM_MODE", "fail".to_string()));
    let out = exits(
        &ralph_env(&repo, &["spec", "--judge", "-s", "notify"], &env),
        1,
    );
    assert!(
        out.contains("  [FAIL] Clear visibility into current state\n         \"The fake judge read the files and found the criterion unmet.\"\n"),
        "{out}"
    );
    assert!(out.ends_with("\n0 passed, 1 failed, 1 skipped\n"), "{out}");
}

#[test]
fn judge_prompt_reaches_claude_with_the_rubric_and_files() {
    let repo = ralph_repo();
    let dir = claude_dir();
    let prompts = dir.path().join("prompts");
    let env = [
        ("PATH", path_with(dir.path())),
        ("FAKE_LLM_PROMPTS", prompts.display().to_string()),
    ];
    exits(&ralph_env(&repo, &["spec", "-j", "-s", "notify"], &env), 0);
    let saved: Vec<PathBuf> = std::fs::read_dir(&prompts)
        .expect("prompts")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(saved.len(), 1);
    let prompt = std::fs::read_to_string(&saved[0]).expect("prompt");
    assert!(prompt.contains("The spec names its criteria"), "{prompt}");
    assert!(prompt.contains("=== specs/notify.md ==="), "{prompt}");
}

#[test]
fn a_check_that_could_not_run_is_a_fail_with_its_reason_never_a_pass() {
    let repo = Repo::new();
    repo.write(
        "specs/broken.md",
        "# Broken\n\n## Success Criteria\n\n- [ ] Missing test\n  [verify](tests/gone.sh#test_gone)\n- [ ] Missing function\n  [verify](tests/here.sh#test_absent)\n- [ ] Unanswered judge\n  [judge](tests/judges/j.sh#test_j)\n",
    );
    repo.write("tests/here.sh", "test_here() { true; }\n");
    repo.write(
        "tests/judges/j.sh",
        "test_j() { judge_files specs/broken.md; judge_criterion \"Has a title\"; }\n",
    );
    let dir = claude_dir();
    for mode in ["garbage", "exit1", "empty"] {
        let env = [
            ("PATH", path_with(dir.path())),
            ("FAKE_LLM_MODE", mode.to_string()),
        ];
        let out = exits(&ralph_env(&repo, &["spec", "--all"], &env), 1);
        assert!(!out.contains("[PASS]"), "{mode}: {out}");
        assert!(
            out.contains(
                "  [FAIL] Missing test\n         tests/gone.sh::test_gone (could not run: "
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "  [FAIL] Missing function\n         tests/here.sh::test_absent (could not run: "
            ),
            "{out}"
        );
        assert!(
            out.contains("  [FAIL] Unanswered judge\n         could not run: "),
            "{mode}: {out}"
        );
        assert!(
            out.ends_with("Summary: 0 passed, 3 failed, 0 skipped (1 specs)\n"),
            "{out}"
        );
    }
}

#[test]
fn an_unknown_spec_name_is_refused() {
    let repo = ralph_repo();
    let out = ralph(&repo, &["spec", "-v", "-s", "nope"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no spec named 'nope'"), "{err}");
    assert!(stdout(&out).is_empty());
    assert!(!repo.join("ran.marker").exists());
}

#[test]
fn bad_flags_are_usage_errors() {
    let repo = ralph_repo();
    for args in [
        &["spec", "-x"][..],
        &["spec", "-s"][..],
        &["spec", "--verbosity"][..],
        &["status", "-v"][..],
    ] {
        let out = ralph(&repo, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    assert!(!repo.join("ran.marker").exists());
}

#[test]
fn json_is_refused_with_where_to_get_it() {
    let repo = ralph_repo();
    let out = ralph(&repo, &["spec", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("status --verify --json"),
        "{}",
        stderr(&out)
    );
}

// ---- the molecule in headers ----

#[test]
fn the_molecule_comes_from_the_configured_pinned_context_file() {
    let repo = ralph_repo();
    repo.write(
        ".wrapix/ralph/config.nix",
        "{\n  # pinnedContext = \"docs/README.md\";\n  pinnedContext = \"docs/OVERVIEW.md\";\n}\n",
    );
    repo.write(
        "docs/OVERVIEW.md",
        "| Spec | Code | Beads | Purpose |\n|---|---|---|---|\n| login.md | src/ | `wx-login` | Login |\n| notify.md | | - | Notify |\n",
    );
    let out = exits(&ralph(&repo, &["spec", "-v"]), 1);
    assert!(
        out.starts_with("Ralph Verify: login (wx-login)\n==============================\n"),
        "{out}"
    );
    assert!(
        out.contains("\nRalph Verify: notify\n====================\n"),
        "{out}"
    );
    // Without a config, docs/README.md is read.
    std::fs::remove_file(repo.join(".wrapix/ralph/config.nix")).expect("rm");
    let out = exits(&ralph(&repo, &["spec", "-v"]), 1);
    assert!(out.starts_with("Ralph Verify: login\n"), "{out}");
    assert!(out.contains("\nRalph Verify: notify (wx-q6x)\n"), "{out}");
    // Without the file, no molecule at all.
    std::fs::remove_file(repo.join("docs/README.md")).expect("rm");
    let out = exits(&ralph(&repo, &["spec", "-v"]), 1);
    assert!(out.contains("\nRalph Verify: notify\n"), "{out}");
}

// ---- the `ralph` symlink and other commands ----

/// A folder with `ralph`, a symlink to the vermas binary.
fn ralph_link() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("vermas-ralph")
        .tempdir()
        .expect("tempdir");
    let link = dir.path().join("ralph");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("vermas"), &link).expect("symlink");
    (dir, link)
}

/// Runs the `ralph` symlink with `args` in the repository.
fn run_link(repo: &Repo, link: &Path, args: &[&str]) -> Output {
    let mut c = std::process::Command::new(link);
    c.current_dir(repo.path()).args(args);
    for var in LEAKY_ENV {
        c.env_remove(var);
    }
    c.env_remove("RALPH_DIR")
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path());
    c.output().expect("run ralph")
}

#[test]
fn a_symlink_named_ralph_is_vermas_ralph() {
    let repo = ralph_repo();
    let (_dir, link) = ralph_link();
    let out = run_link(&repo, &link, &["spec", "--verify"]);
    assert_eq!(exits(&out, 1), VERIFY_ALL);
    let index = run_link(&repo, &link, &["spec"]);
    assert_eq!(exits(&index, 0), exits(&ralph(&repo, &["spec"]), 0));
    let lines = run_link(&repo, &link, &["annotations", "specs/login.md"]);
    assert_eq!(
        exits(&lines, 0),
        "Logs in\tverify\ttests/login.sh\ttest_login\tx\n"
    );
    let help = run_link(&repo, &link, &["spec", "--help"]);
    assert!(exits(&help, 0).contains("--verify"), "{}", stdout(&help));
}

#[test]
fn other_ralph_commands_are_refused_naming_what_vermas_provides() {
    let repo = ralph_repo();
    let (_dir, link) = ralph_link();
    for out in [
        ralph(&repo, &["run"]),
        ralph(&repo, &["plan", "notify"]),
        run_link(&repo, &link, &["run", "--once"]),
        run_link(&repo, &link, &["todo"]),
    ] {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("vermas provides `ralph spec` and `ralph status` only"),
            "{err}"
        );
        assert!(stdout(&out).is_empty());
    }
    let out = ralph(&repo, &["plan", "notify"]);
    assert!(stderr(&out).contains("`ralph plan`"), "{}", stderr(&out));
}

// ---- annotation records ----

#[test]
fn annotations_prints_ralphs_records_exactly() {
    let repo = ralph_repo();
    let out = exits(&ralph(&repo, &["annotations", "specs/notify.md"]), 0);
    assert_eq!(
        out,
        "Notification appears within 2s\tverify\ttests/notify.sh\ttest_fast\t
Clear visibility into current state\tjudge\ttests/judges/notify.sh\ttest_visible\t
Works on both Linux and macOS\tnone\t\t\t
Retries on failure\tverify\ttests/notify.sh\ttest_retry\t
Skipped on CI\tverify\ttests/notify.sh\ttest_skipped\t
Not implemented yet\tverify\ttests/notify.sh\ttest_todo\t
"
    );
    // From a subfolder, the path is the caller's; spec-relative targets resolve.
    repo.write(
        "specs/sub/deep.md",
        "## Success Criteria\n- [x] Up\n  [verify](../../tests/login.sh#test_login)\n- [ ] Boxed\n  [verify:wrapix](tests/box.sh)\n",
    );
    let mut c = repo.cmd_in(
        &repo.join("specs"),
        &["ralph", "annotations", "sub/deep.md"],
    );
    let out = c.env_remove("RALPH_DIR").output().expect("run");
    assert_eq!(
        exits(&out, 0),
        "Up\tverify\ttests/login.sh\ttest_login\tx\nBoxed\tverify-wrapix\ttests/box.sh\t\t\n"
    );
}

#[test]
fn annotations_read_subtest_names_with_spaces_and_rooted_paths() {
    let repo = Repo::new();
    repo.write(
        "specs/city.md",
        "# City\n\n## Success Criteria\n\n- [x] Workers use worktrees\n  [verify](tests/city/integration.nix::Wait for worker worktree)\n- [ ] Two links, the first counts\n  [verify](tests/city.nix::city-scan), [judge](tests/j.sh#j)\n- [ ] Rooted\n  [verify](/tests/root.sh#test_root)\n",
    );
    let out = ralph(&repo, &["annotations", "specs/city.md"]);
    assert_eq!(
        exits(&out, 0),
        "Workers use worktrees\tverify\ttests/city/integration.nix\tWait for worker worktree\tx
Two links, the first counts\tverify\ttests/city.nix\tcity-scan\t
Rooted\tverify\ttests/root.sh\ttest_root\t
"
    );
    let index = exits(&ralph(&repo, &["spec", "--verbose"]), 0);
    assert!(
        index.contains("  city.md                  3 verify, 0 judge, 0 unannotated\n    [verify] Workers use worktrees → tests/city/integration.nix::Wait for worker worktree\n"),
        "{index}"
    );
}

#[test]
fn annotations_of_a_file_without_criteria_or_no_file() {
    let repo = ralph_repo();
    let out = ralph(&repo, &["annotations", "specs/draft.md"]);
    assert_eq!(exits(&out, 1), "");
    assert!(stderr(&out).contains("no success criteria in specs/draft.md"));
    let out = ralph(&repo, &["annotations", "specs/missing.md"]);
    assert_eq!(exits(&out, 2), "");
    assert!(
        stderr(&out).contains("spec file not found: specs/missing.md"),
        "{}",
        stderr(&out)
    );
    std::fs::write(
        repo.join("specs/bad.md"),
        b"## Success Criteria\n- [ ] \xff\n",
    )
    .expect("write");
    let out = ralph(&repo, &["annotations", "specs/bad.md"]);
    assert_eq!(exits(&out, 2), "");
    assert!(stderr(&out).contains("not UTF-8"), "{}", stderr(&out));
    let out = ralph(&repo, &["annotations"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_broken_spec_file_is_a_fail_line_naming_where() {
    let repo = ralph_repo();
    repo.write(
        "specs/fenced.md",
        "# Fenced\n\n## Success Criteria\n\n- [ ] Works\n  [verify](tests/login.sh#test_login)\n\n```sh\necho never closed\n",
    );
    let out = exits(&ralph(&repo, &["spec", "-v", "-s", "fenced"]), 1);
    assert_eq!(
        out,
        "Ralph Verify: fenced
====================
  [FAIL] specs/fenced.md:8:1: this code fence is never closed: everything after it is read as code
  [PASS] Works
         tests/login.sh::test_login (exit 0)

1 passed, 1 failed, 0 skipped
"
    );
}
