//! `status --verify` in CI: under GitHub Actions (GITHUB_ACTIONS=true, or `--format
//! github`) each FAIL and ERROR becomes a workflow annotation at the criterion's line, so it
//! shows on the pull request's diff, and the human report follows.

use crate::common::{Repo, stdout};
use crate::specs::support::write_exec;

/// A spec (its name has a comma, which a property must escape) with a passing, a failing
/// (its text has `%`, `:` and `,`) and an erroring criterion (its function is missing).
fn repo() -> Repo {
    let repo = Repo::initialised();
    repo.write(
        "specs/ci,a.md",
        "# CI\n\n## Success Criteria\n\n- [ ] passes\n  [verify](../tests/a.sh#test_ok)\n\
         - [ ] counts to 100%: one, two\n  [verify](../tests/a.sh#test_count)\n\
         - [ ] names the missing\n  [verify](../tests/a.sh#test_gone)\n",
    );
    write_exec(
        &repo,
        "tests/a.sh",
        "#!/bin/bash\ntest_ok() { true; }\n\ntest_count() {\n  echo one\n  return 3\n}\n\"$@\"\n",
    );
    repo
}

/// The annotations vermas prints for [`repo`]'s spec.
const ANNOTATIONS: &str = "::error file=specs/ci%2Ca.md,line=7,title=vermas FAIL::FAIL: counts to 100%25: one, two%0Atests/a.sh#test_count (tests/a.sh:4): exit 3\n\
::error file=specs/ci%2Ca.md,line=9,title=vermas ERROR::ERROR: names the missing%0Atests/a.sh#test_gone: test_gone never ran: tests/a.sh exited without calling it (in its own process, not a subshell); add \"$@\" at the end of tests/a.sh so it runs the function named on its command line\n";

/// Runs `status ARGS` with `env`, asserting exit 1 (a criterion failed); returns stdout.
fn status(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut all = vec!["status"];
    all.extend_from_slice(args);
    let mut c = repo.cmd(&all);
    c.env_remove("GITHUB_ACTIONS");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run vermas");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    stdout(&out)
}

#[test]
fn under_github_actions_each_fail_and_error_is_annotated_at_its_criterion() {
    let repo = repo();
    let out = status(&repo, &["--verify"], &[("GITHUB_ACTIONS", "true")]);
    assert!(out.starts_with(ANNOTATIONS), "{out}");
    // The human report follows, whole.
    let report = &out[ANNOTATIONS.len()..];
    assert!(report.starts_with("Verify: ci,a\n"), "{report}");
    assert!(
        report.contains("[FAIL] counts to 100%: one, two"),
        "{report}"
    );
    assert!(
        report.ends_with("1 passed, 1 failed, 0 skipped, 1 error\n"),
        "{report}"
    );

    // --format github asks for them anywhere; --format human turns them off.
    let out = status(&repo, &["--verify", "--format", "github"], &[]);
    assert!(out.starts_with(ANNOTATIONS), "{out}");
    let out = status(
        &repo,
        &["--verify", "--format", "human"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert!(out.starts_with("Verify: ci,a\n"), "{out}");
    // Outside GitHub Actions the report is as it was.
    let out = status(&repo, &["--verify"], &[("GITHUB_ACTIONS", "false")]);
    assert!(!out.contains("::error"), "{out}");
}

#[test]
fn machine_reports_stay_machine_readable_under_github_actions() {
    let repo = repo();
    let out = status(
        &repo,
        &["--verify", "--json"],
        &[("GITHUB_ACTIONS", "true")],
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(v.is_object() || v.is_array(), "{v}");
    let out = status(&repo, &["--verify", "--tap"], &[("GITHUB_ACTIONS", "true")]);
    assert!(
        out.starts_with("TAP version") || out.starts_with("1.."),
        "{out}"
    );
    assert!(!out.contains("::error"), "{out}");
    let err = repo.fails(&["status", "--verify", "--tap", "--format", "github"], 2);
    assert!(err.contains("--format is for the human report"), "{err}");
}
