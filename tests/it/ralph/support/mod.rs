//! Shared parts of the ralph front-end tests: a ralph project with two specs and their
//! shell tests, the stand-in `claude`, and running `vermas ralph`.
#![allow(dead_code)]

use crate::common::*;
use std::path::Path;
use std::process::Output;
/// A spec with every kind of criterion; its checks live in `tests/notify.sh`.
pub const NOTIFY_SPEC: &str = "# Notifications

## Success Criteria

- [ ] Notification appears within 2s
  [verify](tests/notify.sh#test_fast)
- [ ] Clear visibility into current state
  [judge](tests/judges/notify.sh#test_visible)
- [ ] Works on both Linux and macOS
- [ ] Retries on failure
  [verify](tests/notify.sh::test_retry)
- [ ] Skipped on CI
  [verify](tests/notify.sh#test_skipped)
- [ ] Not implemented yet
  [verify](tests/notify.sh#test_todo)

## Out of Scope

- [ ] Not a criterion
  [verify](tests/notify.sh#test_retry)
";

/// The checks of `NOTIFY_SPEC`: one passes (and leaves a marker), one fails with seven
/// lines of output, one asks to be skipped, one is not implemented.
pub const NOTIFY_TESTS: &str = "#!/usr/bin/env bash
test_fast() { echo \"fast output\"; touch ran.marker; }
test_retry() { for i in 1 2 3 4 5 6 7; do echo \"retry line $i\"; done; return 3; }
test_skipped() { exit 77; }
test_todo() { exit 78; }
\"$@\"
";

/// A rubric for the judge criterion of `NOTIFY_SPEC`.
pub const NOTIFY_RUBRIC: &str = "test_visible() {\n  judge_files specs/notify.md\n  judge_criterion \"The spec names its criteria\"\n}\n";

/// ralph's pinned-context file with a spec table.
pub const DOCS_README: &str = "# Project

| Spec | Code | Beads | Purpose |
|------|------|-------|---------|
| [notify.md](../specs/notify.md) | lib/ | wx-q6x | Notifications |
| [login.md](../specs/login.md) | lib/ | — | Login |
";

/// A repository (no `.beads`, as a ralph project) with two specs, a README and a draft
/// without criteria under `specs/`, their tests, and ralph's spec table.
pub fn ralph_repo() -> Repo {
    let repo = Repo::new();
    repo.write("specs/notify.md", NOTIFY_SPEC);
    repo.write(
        "specs/login.md",
        "# Login\n\n## Success Criteria\n\n- [x] Logs in\n  [verify](tests/login.sh#test_login)\n",
    );
    repo.write(
        "specs/README.md",
        "# Specs\n\n## Success Criteria\n\n- [ ] Not a spec\n",
    );
    repo.write("specs/draft.md", "# Draft\n\nNo criteria yet.\n");
    repo.write("tests/notify.sh", NOTIFY_TESTS);
    repo.write(
        "tests/login.sh",
        "test_login() { echo \"login output\"; }\n",
    );
    repo.write("tests/judges/notify.sh", NOTIFY_RUBRIC);
    repo.write("docs/README.md", DOCS_README);
    make_executable(&repo.join("tests/notify.sh"));
    repo
}

/// Sets the executable bits of `path`.
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A folder holding `claude`: a link to the scripted LLM stand-in.
pub fn claude_dir() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("vermas-claude")
        .tempdir()
        .expect("tempdir");
    let llm = fake_llm();
    std::os::unix::fs::symlink(llm, dir.path().join("claude")).expect("link claude");
    dir
}

/// PATH with `dir` first.
pub fn path_with(dir: &Path) -> String {
    let old = std::env::var("PATH").unwrap_or_default();
    format!("{}:{old}", dir.display())
}

/// Runs `vermas ralph ARGS` in the repository (ralph's folder at its default place).
pub fn ralph(repo: &Repo, args: &[&str]) -> Output {
    ralph_env(repo, args, &[])
}

/// Runs `vermas ralph ARGS` with extra environment.
pub fn ralph_env(repo: &Repo, args: &[&str], env: &[(&str, String)]) -> Output {
    let mut all = vec!["ralph"];
    all.extend_from_slice(args);
    let mut c = repo.cmd(&all);
    c.env_remove("RALPH_DIR");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run vermas ralph")
}

/// Asserts the exit code and returns stdout.
pub fn exits(out: &Output, code: i32) -> String {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

/// The verify report of `ralph_repo` over every spec.
pub const VERIFY_ALL: &str = "Ralph Verify: login
===================
  [PASS] Logs in
         tests/login.sh::test_login (exit 0)

Ralph Verify: notify (wx-q6x)
=============================
  [PASS] Notification appears within 2s
         tests/notify.sh::test_fast (exit 0)
  [SKIP] Works on both Linux and macOS (no annotation)
  [FAIL] Retries on failure
         tests/notify.sh::test_retry (exit 3)
         | retry line 3
         | retry line 4
         | retry line 5
         | retry line 6
         | retry line 7
  [SKIP] Skipped on CI
         tests/notify.sh::test_skipped (exit 77 — skipped)
  [SKIP] Not implemented yet
         tests/notify.sh::test_todo (exit 78 — not implemented)

Summary: 2 passed, 1 failed, 3 skipped (2 specs)
";
