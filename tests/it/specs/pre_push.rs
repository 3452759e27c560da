//! The pre-push gate end to end (issue 4): `hooks install`,
//! `uninstall`, `run pre-push` and `init --hooks`. Every push is a real `git push` to a
//! real bare repository on disk; each test checks whether the remote ref moved.

use crate::common::*;
use crate::inspect::lifecycle_support::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn failing_check_refuses_the_push_and_a_fixed_one_lets_it_through() {
    let s = Setup::new();
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    let out = s.repo.ok(&["hooks", "install"]);
    assert!(out.contains("Installed the pre-push hook"), "{out}");
    let commits = s.repo.commit_count();

    let out = s.push();
    s.assert_refused(&out, None);
    assert!(stdout(&out).contains("[FAIL] alpha works"), "{}", all(&out));
    assert!(stderr(&out).contains("push refused"), "{}", all(&out));
    assert_eq!(s.runs("alpha"), 1);

    s.check("tests/alpha.sh", "alpha", 0);
    s.commit("fix alpha");
    let out = s.push();
    s.assert_accepted(&out);
    assert!(stdout(&out).contains("[PASS] alpha works"), "{}", all(&out));
    // The hook never commits, and leaves the work tree as it was.
    assert_eq!(s.repo.commit_count(), commits + 1);
    assert_eq!(s.repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn an_erroring_check_refuses_the_push_too() {
    let s = Setup::new();
    s.repo.write(
        "specs/broken.md",
        "# broken\n\n## Success Criteria\n\n- [ ] runs\n  [verify](tests/missing.sh#test_missing \"timeout=soon\")\n",
    );
    s.commit("a check that cannot run");
    s.repo.ok(&["hooks", "install"]);
    let out = s.push();
    s.assert_refused(&out, None);
    assert!(stdout(&out).contains("[ERROR]"), "{}", all(&out));
}

#[test]
fn foreign_hook_is_kept_runs_first_its_failure_blocks_and_uninstall_restores_it() {
    let s = Setup::new();
    let log = s.marks.path().join("foreign.log");
    let code = s.marks.path().join("foreign.code");
    let hook = s.hooks_dir().join("pre-push");
    let original = foreign_hook(&log, &code);
    write_exec(&hook, &original);

    let out = s.repo.ok(&["hooks", "install", "pre-push"]);
    assert!(out.contains("kept as"), "{out}");
    let chained = s.hooks_dir().join("pre-push.vermas-chained");
    assert_eq!(std::fs::read_to_string(&chained).unwrap(), original);
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("vermas-managed-hook")
    );

    // The foreign hook fails: the push is refused before vermas runs anything.
    std::fs::write(&code, "1").unwrap();
    let out = s.push();
    s.assert_refused(&out, None);
    assert_eq!(
        s.runs("alpha"),
        0,
        "vermas ran after the chained hook failed"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains(&format!("args: origin {}", s.remote.path().display())),
        "{logged}"
    );
    assert!(
        logged.contains(&format!("refs/heads/main {}", s.local("HEAD"))),
        "{logged}"
    );

    // It passes: vermas gets the same stdin and runs the checks.
    std::fs::write(&code, "0").unwrap();
    let out = s.push();
    s.assert_accepted(&out);
    assert_eq!(s.runs("alpha"), 1);

    // A failing vermas check blocks even though the foreign hook passed.
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    let before = s.remote_ref("refs/heads/main");
    let out = s.push();
    s.assert_refused(&out, before.as_deref());

    let out = s.repo.ok(&["hooks", "uninstall"]);
    assert!(out.contains("restored"), "{out}");
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), original);
    assert!(!chained.exists());
    assert!(std::fs::metadata(&hook).unwrap().permissions().mode() & 0o111 != 0);
}

#[test]
fn install_twice_changes_nothing_with_and_without_a_foreign_hook() {
    for foreign in [false, true] {
        let s = Setup::new();
        if foreign {
            write_exec(&s.hooks_dir().join("pre-push"), "#!/bin/sh\nexit 0\n");
        }
        s.repo.ok(&["hooks", "install"]);
        let listing = |s: &Setup| {
            let mut names: Vec<(String, Vec<u8>)> = std::fs::read_dir(s.hooks_dir())
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect();
            names.sort();
            names
        };
        let first = listing(&s);
        let out = s.repo.ok(&["hooks", "install"]);
        assert!(out.contains("already installed"), "{out}");
        assert_eq!(
            listing(&s),
            first,
            "second install changed the hooks folder"
        );
        let json = s.repo.json(&["hooks", "install"]);
        assert_eq!(json["changed"], false);
        assert_eq!(json["chained"].is_string(), foreign);
    }
}

#[test]
fn uninstall_without_a_chained_hook_removes_it_and_is_idempotent() {
    let s = Setup::new();
    s.repo.ok(&["hooks", "install"]);
    let hook = s.hooks_dir().join("pre-push");
    assert!(hook.exists());
    let out = s.repo.ok(&["hooks", "uninstall", "pre-push"]);
    assert!(out.contains("Removed"), "{out}");
    assert!(!hook.exists());
    let out = s.repo.ok(&["hooks", "uninstall"]);
    assert!(out.contains("No vermas pre-push hook installed"), "{out}");

    // Another tool's hook alone is never touched by uninstall.
    write_exec(&hook, "#!/bin/sh\nexit 0\n");
    let out = s.repo.ok(&["hooks", "uninstall"]);
    assert!(out.contains("another tool"), "{out}");
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}

#[test]
fn core_hooks_path_is_honoured() {
    let s = Setup::new();
    s.repo.git(&["config", "core.hooksPath", "my-hooks"]);
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    let out = s.repo.ok(&["hooks", "install"]);
    assert!(out.contains("my-hooks/pre-push"), "{out}");
    assert!(s.repo.join("my-hooks/pre-push").exists());
    assert!(!s.hooks_dir().join("pre-push").exists());
    let out = s.push();
    s.assert_refused(&out, None);
    assert_eq!(s.runs("alpha"), 1);
}

#[test]
fn linked_worktree_installs_into_the_shared_hooks_and_is_gated() {
    let s = Setup::new();
    let wt_parent = tempdir("vermas-wt");
    let wt = wt_parent.path().join("wt");
    s.repo.git(&[
        "worktree",
        "add",
        "-q",
        &wt.display().to_string(),
        "-b",
        "feature",
    ]);
    let out = s.repo.cmd_in(&wt, &["hooks", "install"]).output().unwrap();
    assert!(out.status.success(), "{}", all(&out));
    assert!(s.hooks_dir().join("pre-push").exists(), "{}", all(&out));

    std::fs::write(
        wt.join("tests/alpha.sh"),
        format!(
            "test_alpha() {{\n  echo ran >> '{}'\n  return 1\n}}\n",
            s.mark("alpha").display()
        ),
    )
    .unwrap();
    git_in(&wt, &["commit", "-q", "-am", "break alpha on feature"]);
    let out = s.push_env(&wt, &["origin", "feature"], &[]);
    assert!(!out.status.success(), "{}", all(&out));
    assert_eq!(s.remote_ref("refs/heads/feature"), None);
    assert_eq!(s.runs("alpha"), 1);

    let out = s.push_env(&wt, &["--no-verify", "origin", "feature"], &[]);
    assert!(out.status.success(), "{}", all(&out));
    assert!(s.remote_ref("refs/heads/feature").is_some());
}

#[test]
fn vermas_skip_bypasses_and_says_so() {
    let s = Setup::new();
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    s.repo.ok(&["hooks", "install"]);
    let out = s.push_env(s.repo.path(), &["origin", "main"], &[("VERMAS_SKIP", "1")]);
    s.assert_accepted(&out);
    assert!(stderr(&out).contains("VERMAS_SKIP is set"), "{}", all(&out));
    assert_eq!(s.runs("alpha"), 0);
}

#[test]
fn no_verify_bypasses() {
    let s = Setup::new();
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    s.repo.ok(&["hooks", "install"]);
    let out = s.push_env(s.repo.path(), &["--no-verify", "origin", "main"], &[]);
    s.assert_accepted(&out);
    assert_eq!(s.runs("alpha"), 0);
}

#[test]
fn a_tree_that_already_passed_with_the_same_specs_passes_at_once() {
    let s = Setup::new();
    s.repo.ok(&["config", "set", "hooks.pre_push.scope", "all"]);
    s.repo.ok(&["hooks", "install"]);
    let out = s.push();
    s.assert_accepted(&out);
    assert_eq!(s.runs("alpha"), 1);
    assert!(s.repo.join(".beads/.cache/pre-push.stamp").exists());

    // The same tree to a second remote: the stamp answers, the check is not run again.
    let backup = bare_remote();
    s.repo.git(&[
        "remote",
        "add",
        "backup",
        &backup.path().display().to_string(),
    ]);
    let out = s.push_env(s.repo.path(), &["backup", "main"], &[]);
    assert!(out.status.success(), "{}", all(&out));
    assert!(stderr(&out).contains("already passed"), "{}", all(&out));
    assert_eq!(s.runs("alpha"), 1, "the stamp did not stop the check");

    // A different tree runs again.
    s.repo.write("README.md", "changed\n");
    s.commit("another tree");
    let out = s.push();
    s.assert_accepted(&out);
    assert_eq!(s.runs("alpha"), 2);
}

#[test]
fn a_failed_run_is_not_stamped() {
    let s = Setup::new();
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    s.repo.ok(&["hooks", "install"]);
    s.assert_refused(&s.push(), None);
    s.assert_refused(&s.push(), None);
    assert_eq!(s.runs("alpha"), 2);
}

#[test]
fn scope_changed_runs_every_spec_a_code_change_can_break() {
    let s = Setup::new();
    // beta checks the code in fizzbuzz.out, which no spec links.
    s.repo.write(
        "specs/beta.md",
        "# beta\n\n## Success Criteria\n\n- [ ] 15 prints FizzBuzz\n  [verify](tests/beta.sh#test_beta)\n",
    );
    s.repo.write(
        "tests/beta.sh",
        &format!(
            "test_beta() {{\n  echo ran >> '{}'\n  grep -qx FizzBuzz fizzbuzz.out\n}}\n",
            s.mark("beta").display()
        ),
    );
    s.repo.write("fizzbuzz.out", "FizzBuzz\n");
    s.commit("beta spec");
    s.repo.ok(&["hooks", "install"]);
    s.assert_accepted(&s.push());
    assert_eq!((s.runs("alpha"), s.runs("beta")), (1, 1));

    // A change to the code alone (no spec, no linked test) still runs every spec, and
    // the regression it brings is caught.
    s.clear_marks();
    let before = s.remote_ref("refs/heads/main");
    s.repo.write("fizzbuzz.out", "Fizz\n");
    s.commit("break fizzbuzz");
    s.assert_refused(&s.push(), before.as_deref());
    assert_eq!((s.runs("alpha"), s.runs("beta")), (1, 1));
    s.repo.write("fizzbuzz.out", "FizzBuzz\n");
    s.commit("fix fizzbuzz");

    // alpha narrows itself to src/alpha/: a change elsewhere skips it, and says why.
    let text = s.repo.read("specs/alpha.md");
    s.repo.write(
        "specs/alpha.md",
        &format!("---\ncovers: [\"src/alpha/*\"]\n---\n{text}"),
    );
    s.commit("alpha covers src/alpha");
    s.assert_accepted(&s.push());
    s.clear_marks();
    s.repo.write("notes.txt", "hello\n");
    s.commit("unrelated");
    let out = s.push();
    s.assert_accepted(&out);
    assert!(
        stderr(&out)
            .contains("specs/alpha.md skipped: no changed file matches its covers (src/alpha/*)"),
        "{}",
        all(&out)
    );
    assert_eq!((s.runs("alpha"), s.runs("beta")), (0, 1));
    s.clear_marks();
    s.repo.write("src/alpha/lib.txt", "x\n");
    s.commit("alpha code");
    s.assert_accepted(&s.push());
    assert_eq!((s.runs("alpha"), s.runs("beta")), (1, 1));

    // Records alone (vermas's own commits under .beads/) run nothing.
    s.clear_marks();
    s.repo.ok(&["create", "Just a record"]);
    let out = s.push();
    s.assert_accepted(&out);
    assert!(
        stderr(&out).contains("the push changes only .beads/ records"),
        "{}",
        all(&out)
    );
    assert_eq!((s.runs("alpha"), s.runs("beta")), (0, 0));

    // Scope all runs every spec.
    s.repo.ok(&["config", "set", "hooks.pre_push.scope", "all"]);
    s.assert_accepted(&s.push());
    assert_eq!((s.runs("alpha"), s.runs("beta")), (1, 1));
}

#[test]
fn a_new_branch_is_compared_with_what_the_remote_has() {
    let s = Setup::new();
    s.spec("beta", "tests/beta.sh");
    s.check("tests/beta.sh", "beta", 0);
    s.narrow("alpha");
    s.narrow("beta");
    s.commit("beta spec");
    s.repo.ok(&["hooks", "install"]);
    s.assert_accepted(&s.push());
    s.clear_marks();

    // A new branch (the remote's sha is all zeros) that breaks beta only.
    s.repo.git(&["checkout", "-q", "-b", "topic"]);
    s.check("tests/beta.sh", "beta", 1);
    s.commit("break beta");
    let out = s.push_env(s.repo.path(), &["origin", "topic"], &[]);
    assert!(!out.status.success(), "{}", all(&out));
    assert!(stderr(&out).contains("new on the remote"), "{}", all(&out));
    assert_eq!(s.remote_ref("refs/heads/topic"), None);
    assert_eq!((s.runs("alpha"), s.runs("beta")), (0, 1));

    // A new branch holding only commits the remote has: nothing to check.
    s.clear_marks();
    let out = s.push_env(s.repo.path(), &["origin", "main:refs/heads/copy"], &[]);
    assert!(out.status.success(), "{}", all(&out));
    assert!(
        stderr(&out).contains("already has every pushed commit"),
        "{}",
        all(&out)
    );
    assert_eq!((s.runs("alpha"), s.runs("beta")), (0, 0));
}

#[test]
fn a_remote_commit_unknown_here_falls_back_to_the_tracking_refs() {
    let s = Setup::new();
    s.spec("beta", "tests/beta.sh");
    s.check("tests/beta.sh", "beta", 0);
    s.narrow("alpha");
    s.narrow("beta");
    s.commit("beta spec");
    s.repo.ok(&["hooks", "install"]);
    s.assert_accepted(&s.push());
    // Someone else moves the remote's main; this clone never fetches it.
    let other = tempdir("vermas-other");
    let remote = s.remote.path().display().to_string();
    git_in(other.path(), &["clone", "-q", &remote, "c"]);
    let clone = other.path().join("c");
    git_in(
        &clone,
        &[
            "-c",
            "user.name=O",
            "-c",
            "user.email=o@e",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "theirs",
        ],
    );
    git_in(&clone, &["push", "-q", "--no-verify", "origin", "main"]);
    s.clear_marks();
    s.check("tests/alpha.sh", "alpha", 0);
    s.repo.write(
        "tests/alpha.sh",
        &format!("# mine\n{}", s.repo.read("tests/alpha.sh")),
    );
    s.commit("touch alpha's test");
    let out = s.push_env(s.repo.path(), &["--force", "origin", "main"], &[]);
    s.assert_accepted(&out);
    assert!(
        stderr(&out).contains("the remote's commit is not here"),
        "{}",
        all(&out)
    );
    assert_eq!((s.runs("alpha"), s.runs("beta")), (1, 0));
}

#[test]
fn judges_run_only_when_configured() {
    let s = Setup::new();
    let rubric_mark = s.mark("rubric");
    s.repo.write(
        "specs/looks.md",
        "# looks\n\n## Success Criteria\n\n- [ ] looks right\n  [judge](tests/judges/looks.sh#test_looks)\n",
    );
    s.repo.write(
        "tests/judges/looks.sh",
        &format!(
            "test_looks() {{\n  echo ran >> '{}'\n  judge_files specs/looks.md\n  judge_criterion \"LOOKS\"\n}}\n",
            rubric_mark.display()
        ),
    );
    let llm = fake_llm();
    s.repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("'{}'", llm.display()),
    ]);
    s.commit("judge spec");
    s.repo.ok(&["hooks", "install"]);
    let out = s.push();
    s.assert_accepted(&out);
    assert!(stdout(&out).contains("[SKIP] looks right"), "{}", all(&out));
    assert_eq!(s.runs("rubric"), 0);
    let pushed = s.local("HEAD");

    s.repo
        .ok(&["config", "set", "hooks.pre_push.judge", "true"]);
    s.repo.ok(&["config", "set", "hooks.pre_push.scope", "all"]);
    let out = s.push_env(
        s.repo.path(),
        &["origin", "main"],
        &[("FAKE_LLM_MODE", "fail")],
    );
    s.assert_refused(&out, Some(&pushed));
    assert!(stdout(&out).contains("[FAIL] looks right"), "{}", all(&out));
    assert_eq!(s.runs("rubric"), 1);
}

#[test]
fn unwritable_hooks_folder_is_a_clear_error() {
    // A hooks path that cannot be a folder (a file is in the way): refused even for root.
    let s = Setup::new();
    s.repo.write("blocker", "a file, not a folder\n");
    s.repo.git(&["config", "core.hooksPath", "blocker/hooks"]);
    let err = s.repo.fails(&["hooks", "install"], 1);
    assert!(err.contains("cannot write git hooks"), "{err}");
    assert!(err.contains("blocker/hooks"), "{err}");

    // A read-only hooks folder (only meaningful when not running as root).
    let s = Setup::new();
    let dir = s.hooks_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join("probe");
    let writable = std::fs::write(&probe, "x").is_ok();
    let _ = std::fs::remove_file(&probe);
    if !writable {
        let err = s.repo.fails(&["hooks", "install"], 1);
        assert!(err.contains("cannot write git hooks"), "{err}");
        assert!(!dir.join("pre-push").exists());
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn unknown_hook_names_are_refused_with_what_exists() {
    let s = Setup::new();
    let err = s.repo.fails(&["hooks", "install", "pre-commit"], 2);
    assert!(err.contains("vermas has no pre-commit hook"), "{err}");
    assert!(err.contains("pre-push"), "{err}");
    let err = s.repo.fails(&["hooks", "run", "prepush"], 2);
    assert!(err.contains("unknown hook 'prepush'"), "{err}");
    let err = s.repo.fails(&["hooks", "uninstall", "nonsense"], 2);
    assert!(err.contains("unknown hook 'nonsense'"), "{err}");
    assert!(!s.hooks_dir().join("pre-commit").exists());
}

#[test]
fn malformed_ref_lines_are_refused() {
    let s = Setup::new();
    let out = s
        .repo
        .cmd(&["hooks", "run", "pre-push", "origin"])
        .write_stdin("refs/heads/main not-a-sha refs/heads/main 0\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", all(&out));
    assert!(stderr(&out).contains("line 1"), "{}", all(&out));
}

#[test]
fn hooks_outside_git_are_refused() {
    let dir = tempdir("vermas-nogit");
    let repo = Repo { dir };
    let err = repo.fails(&["hooks", "install"], 2);
    assert!(err.contains("not inside a git work tree"), "{err}");
    let err = repo.fails(&["init", "--hooks"], 2);
    assert!(err.contains("not inside a git work tree"), "{err}");
    assert!(
        !repo.join(".beads").exists(),
        "init --hooks wrote before refusing"
    );
}

#[test]
fn init_hooks_installs_the_gate() {
    let repo = Repo::new();
    let out = repo.ok(&["init", "--prefix", "vm", "--hooks"]);
    assert!(out.contains("Initialised"), "{out}");
    assert!(out.contains("Installed the pre-push hook"), "{out}");
    let hook = repo.join(".git/hooks/pre-push");
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("vermas-managed-hook")
    );
    let json = repo.json(&["init", "--hooks"]);
    assert_eq!(json["hook"]["changed"], false);
    assert_eq!(json["prefix"], "vm");
}
