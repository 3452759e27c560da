//! The vanity check: `status --verify --baseline [REV]` runs the checks on an earlier
//! revision in a temporary worktree and flags criteria that passed there already.

use crate::common::*;

/// A repository whose first commit has a passing check for one criterion, and whose
/// second commit adds a new check (failing before, passing now) for another.
fn two_revisions() -> (Repo, String) {
    let repo = Repo::initialised();
    repo.write(
        "specs/feature.md",
        "# Feature\n\n## Success Criteria\n\n- [ ] Old behaviour [verify](../tests/old.sh#test_old)\n- [ ] New behaviour [verify](../tests/new.sh#test_new)\n",
    );
    repo.write("tests/old.sh", "test_old() { true; }\n");
    repo.write("tests/new.sh", "test_new() { test -f feature.txt; }\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "before the change"]);
    let base = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.write("feature.txt", "done\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "the change"]);
    (repo, base)
}

#[test]
fn flags_criteria_that_passed_before_the_change() {
    let (repo, base) = two_revisions();
    let out = repo.ok(&["status", "--verify", "--baseline", &base]);
    let old = out.find("Old behaviour").expect("old criterion listed");
    let new = out.find("New behaviour").expect("new criterion listed");
    let vanity = out.find("passed before the change").expect(&out);
    assert!(
        old < vanity && vanity < new,
        "only the old criterion is flagged:\n{out}"
    );
    assert_eq!(out.matches("passed before the change").count(), 1, "{out}");

    let json = repo.json(&["status", "--verify", "--baseline", &base]);
    let criteria = &json["specs"][0]["criteria"];
    assert_eq!(criteria[0]["passed_before"], true, "{json}");
    assert_eq!(criteria[1]["passed_before"], false, "{json}");

    // The temporary worktree is gone.
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
}

#[test]
fn a_baseline_that_does_not_exist_is_refused() {
    let (repo, _) = two_revisions();
    let err = repo.fails(&["status", "--verify", "--baseline", "no-such-rev"], 2);
    assert!(
        err.contains("no-such-rev") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn the_default_baseline_needs_an_upstream() {
    let (repo, _) = two_revisions();
    let err = repo.fails(&["status", "--verify", "--baseline"], 2);
    assert!(err.contains("no upstream"), "{err}");
}

#[test]
fn the_default_baseline_is_the_merge_base_with_upstream() {
    let (repo, base) = two_revisions();
    // A remote-tracking branch at the first commit plays the upstream.
    repo.git(&["remote", "add", "origin", "/nonexistent/remote.git"]);
    repo.git(&["update-ref", "refs/remotes/origin/main", &base]);
    repo.git(&["config", "branch.main.remote", "origin"]);
    repo.git(&["config", "branch.main.merge", "refs/heads/main"]);
    let out = repo.ok(&["status", "--verify", "--baseline"]);
    assert_eq!(out.matches("passed before the change").count(), 1, "{out}");
}

#[test]
fn baseline_goes_with_verify() {
    let (repo, base) = two_revisions();
    let err = repo.fails(&["status", "--baseline", &base], 2);
    assert!(err.contains("--verify"), "{err}");
}
