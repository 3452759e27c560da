//! `status --verify` under GitHub Actions: the Markdown job summary appended to the file
//! `GITHUB_STEP_SUMMARY` names, with counts and each failing criterion linked.

use super::scripted::commit_all;
use crate::common::*;
use crate::specs::support::*;

/// A repository with one passing and one failing criterion.
fn two_criteria() -> Repo {
    let repo = Repo::initialised();
    repo.write(
        "specs/login.md",
        "# Login\n\n## Success Criteria\n\n- [ ] Users sign in [verify](../tests/login.sh#test_in)\n- [ ] Sessions expire <b>soon</b> | fast [verify](../tests/login.sh#test_expire)\n",
    );
    write_exec(
        &repo,
        "tests/login.sh",
        "#!/usr/bin/env bash\ntest_in() {\n  true\n}\ntest_expire() {\n  false\n}\n\"$@\"\n",
    );
    commit_all(&repo, "login spec");
    repo
}

#[test]
fn status_verify_appends_counts_and_the_failing_criteria_linked_to_github() {
    let repo = two_criteria();
    let summary = repo.join("summary.md");
    std::fs::write(&summary, "earlier step\n").expect("write");
    let env = [
        ("GITHUB_STEP_SUMMARY", summary.to_str().expect("utf-8")),
        ("GITHUB_REPOSITORY", "acme/shop"),
        ("GITHUB_SHA", "0123abc"),
        ("GITHUB_SERVER_URL", "https://github.com"),
    ];
    run_env(&repo, &["status", "--verify"], &env).expect_code(1);
    let text = std::fs::read_to_string(&summary).expect("summary");
    assert!(
        text.starts_with(
            "earlier step\n### vermas status --verify: 1 passed, 1 failed, 0 skipped\n"
        ),
        "{text}"
    );
    assert!(text.contains("| [login](https://github.com/acme/shop/blob/0123abc/specs/login.md) | 1 | 1 | 0 | 0 | 0 |"), "{text}");
    assert!(
        text.contains("- **FAIL** [specs/login.md:6](https://github.com/acme/shop/blob/0123abc/specs/login.md#L6) Sessions expire &lt;b&gt;soon&lt;/b&gt; \\| fast (check [tests/login.sh\\#test\\_expire](https://github.com/acme/shop/blob/0123abc/tests/login.sh#L5))"),
        "{text}"
    );
    assert!(
        !text.contains("Users sign in"),
        "a passing criterion is not listed"
    );
}

#[test]
fn without_the_variable_nothing_is_written_and_without_github_locations_are_text() {
    let repo = two_criteria();
    run(&repo, &["status", "--verify"]).expect_code(1);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let summary = repo.join("s.md");
    let path = summary.to_str().expect("utf-8");
    run_env(
        &repo,
        &["status", "--verify"],
        &[("GITHUB_STEP_SUMMARY", path)],
    )
    .expect_code(1);
    let text = std::fs::read_to_string(&summary).expect("summary");
    assert!(text.contains("- **FAIL** `specs/login.md:6`"), "{text}");
}
