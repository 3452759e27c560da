//! The Refinery end to end on real repositories, real branches and the scripted LLM
//! stand-in: a branch lands only when the Inspector passes the exact commit that would
//! land (built onto the target's tip in a temporary worktree), the target moves by
//! compare-and-swap, and the user's checkout, index and working tree stay as they were.

use crate::refinery::support::*;
use crate::specs::support::*;
use std::time::{Duration, Instant};

/// Passes only on the merge result: `feature.txt` comes from the branch, `later.txt` from
/// the target after the branch left it. Also leaves a file where it runs.
const BOTH: (&str, &str) = (
    "ac-1",
    "touch ran-here && test -f feature.txt && test -f later.txt",
);

#[test]
fn a_passing_branch_lands_as_exactly_the_verified_merge() {
    let f = fixture(&[BOTH], &[]);
    let feature = f.branch("feature", "release", &[("feature.txt", "new\n")]);
    let old = f.commit_on("release", &[("later.txt", "later\n")], "later on release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let status_before = f.repo.git(&["status", "--porcelain"]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(0);
    assert!(r.stdout.contains("[PASS] ac-1"), "{}", r.stdout);
    assert!(r.stdout.contains("MERGED (PASS)"), "{}", r.stdout);

    // The target moved by exactly one merge commit of the old tip and the branch.
    assert_eq!(f.tip("release^1"), old);
    assert_eq!(f.tip("release^2"), feature);
    let added = f.repo.git(&["rev-list", &format!("{old}..release")]);
    assert_eq!(
        added.lines().count(),
        2,
        "the branch's commit and the merge"
    );
    let req = f.request();
    assert_eq!(req["state"], "merged");
    assert_eq!(req["last_verdict"], "PASS");
    assert_eq!(req["merged_commit"], f.tip("release"));
    assert_eq!(
        req["candidate"],
        f.tip("release"),
        "the commit verified landed"
    );
    assert_eq!(req["target_tip"], old);
    assert_eq!(req["attempts"], 1);

    let mail = f.mayor_mail();
    assert!(
        mail.iter().any(|s| s == "MERGED: Implement FizzBuzz"),
        "{mail:?}"
    );
    let body = f.mayor_body("MERGED: Implement FizzBuzz");
    assert!(body.contains("feature landed on release"), "{body}");
    let work = f.bead("vm-fizz");
    assert_eq!(work["status"], "closed");
    assert!(
        work["close_reason"]
            .as_str()
            .unwrap_or("")
            .contains("merged into release"),
        "{work:#}"
    );
    // The checks ran in the temporary worktree: nothing of them in the user's checkout.
    assert!(!f.repo.join("ran-here").exists());
    assert!(!f.repo.join("feature.txt").exists());
    assert_eq!(f.repo.git(&["status", "--porcelain"]), status_before);
    assert_eq!(status_before, "");
    assert_eq!(f.repo.git(&["branch", "--show-current"]).trim(), "main");
    f.assert_no_worktree_left();
    f.repo.assert_fsck();
}

#[test]
fn landing_on_the_checked_out_branch_brings_the_checkout_along() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    let feature = f.branch("feature", "main", &[("feature.txt", "new\n")]);
    f.repo.write("notes.txt", "my own unstaged work\n");
    f.repo
        .ok(&["refinery", "submit", "feature", "--bead", "vm-fizz"]);
    let r = f.vermas(&["refinery", "run", "--once"], &[]);
    r.expect_code(0);
    let merge = f.request()["merged_commit"]
        .as_str()
        .expect("merged")
        .to_string();
    // vermas's own record commit follows the merge on the checked-out branch.
    assert_eq!(f.tip("main~1"), merge);
    assert_eq!(f.tip(&format!("{merge}^2")), feature);
    let after = f.repo.git(&["diff", "--name-only", &merge, "main"]);
    assert!(after.lines().all(|p| p.starts_with(".beads/")), "{after}");
    // The checkout followed the merge; the user's own file is untouched.
    assert_eq!(f.repo.read("feature.txt"), "new\n");
    assert_eq!(f.repo.read("notes.txt"), "my own unstaged work\n");
    assert_eq!(f.repo.git(&["status", "--porcelain"]), "?? notes.txt\n");
    f.assert_no_worktree_left();
}

#[test]
fn a_local_change_in_the_way_stops_the_landing_before_the_target_moves() {
    let f = fixture(&[("ac-1", "grep -qx changed base.txt")], &[]);
    f.branch("feature", "main", &[("base.txt", "changed\n")]);
    f.repo
        .ok(&["refinery", "submit", "feature", "--bead", "vm-fizz"]);
    let before = f.tip("main");
    f.repo.write("base.txt", "my own edit\n");
    let r = f.vermas(&["refinery", "run", "--json"], &[]);
    r.expect_code(3);
    let taken = &r.json()["taken"][0];
    assert_eq!(taken["request"]["state"], "error");
    assert_eq!(
        taken["request"]["last_verdict"], "PASS",
        "verified, not landed"
    );
    let reason = taken["request"]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("local changes"), "{reason}");
    // Only vermas's two record commits moved main; the merge did not land.
    assert_eq!(f.tip("main~2"), before);
    let landed = f.repo.git(&["diff", "--name-only", &before, "main"]);
    assert!(landed.lines().all(|p| p.starts_with(".beads/")), "{landed}");
    assert_eq!(f.repo.read("base.txt"), "my own edit\n");
    assert_eq!(f.repo.git(&["status", "--porcelain"]), " M base.txt\n");
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "NOT MERGED: Implement FizzBuzz")
    );
    f.assert_no_worktree_left();
}

#[test]
fn a_failing_branch_is_refused_and_the_target_stays() {
    let f = fixture(&[BOTH], &[]);
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    // Nothing added to release: later.txt is missing from the merge result.
    let old = f.tip("release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[("FAKE_VERDICT", "PASS")]);
    r.expect_code(1);
    assert!(r.stdout.contains("[FAIL] ac-1"), "{}", r.stdout);
    assert_eq!(f.tip("release"), old, "the target is untouched");
    let req = f.request();
    assert_eq!(req["state"], "rejected");
    assert_eq!(req["last_verdict"], "FAIL");
    assert!(req["merged_commit"].is_null());
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "REJECTED: Implement FizzBuzz")
    );
    assert_eq!(f.bead("vm-fizz")["status"], "rejected");
    assert_eq!(f.bead("vm-fizz.1")["issue_type"], "verification-result");
    assert_eq!(f.repo.git(&["status", "--porcelain"]), "");
    f.assert_no_worktree_left();
}

#[test]
fn a_conflict_is_refused_with_the_conflicting_paths() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("feature", "release", &[("base.txt", "the branch's\n")]);
    let old = f.commit_on("release", &[("base.txt", "the target's\n")], "edit base");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(1);
    assert!(r.stdout.contains("CONFLICT"), "{}", r.stdout);
    assert!(r.stdout.contains("base.txt"), "{}", r.stdout);
    assert_eq!(f.tip("release"), old);
    let req = f.request();
    assert_eq!(req["state"], "conflict");
    assert_eq!(req["conflicts"], serde_json::json!(["base.txt"]));
    let body = f.mayor_body("CONFLICT: Implement FizzBuzz");
    assert!(body.contains("- base.txt"), "{body}");
    assert!(body.contains("refinery submit feature"), "{body}");
    // No inspection ran: the work is neither rejected nor verified.
    assert_eq!(f.bead("vm-fizz")["status"], "in_progress");
    assert_eq!(f.repo.git(&["status", "--porcelain"]), "");
    f.assert_no_worktree_left();
}

/// A check that moves `release` (a commit adding `moved-N.txt`) on each of its first
/// `$1` runs, counting its runs in the git folder.
const MOVER: &str = r#"#!/bin/sh
set -e
common=$(git rev-parse --path-format=absolute --git-common-dir)
echo run >> "$common/mover-runs"
runs=$(wc -l < "$common/mover-runs")
if [ "$runs" -le "$1" ]; then
    blob=$(echo "moved $runs" | git hash-object -w --stdin)
    tree=$( (git ls-tree release; printf '100644 blob %s\tmoved-%s.txt\n' "$blob" "$runs") | git mktree)
    commit=$(git commit-tree "$tree" -p release -m "someone else's change $runs")
    git update-ref refs/heads/release "$commit"
fi
"#;

/// Lines in `.git/mover-runs`: how often the mover ran.
fn mover_runs(f: &Fixture) -> usize {
    line_count(&f.repo.join(".git/mover-runs"))
}

#[test]
fn a_target_that_moves_during_verification_is_verified_again_then_merged() {
    let f = fixture(
        &[("ac-1", "./tests/mover.sh 1")],
        &[("tests/mover.sh", MOVER)],
    );
    let feature = f.branch("feature", "release", &[("feature.txt", "new\n")]);
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(0);
    assert_eq!(mover_runs(&f), 2, "verified twice");
    let req = f.request();
    assert_eq!(req["state"], "merged");
    assert_eq!(req["attempts"], 2);
    // The merge sits on the commit that moved the target meanwhile.
    let moved = f.tip("release^1");
    assert_eq!(
        f.repo.git(&["log", "-1", "--format=%s", &moved]).trim(),
        "someone else's change 1"
    );
    assert_eq!(f.tip("release^2"), feature);
    assert_eq!(req["target_tip"], moved);
    f.assert_no_worktree_left();
}

#[test]
fn a_target_that_keeps_moving_is_given_up_after_max_retries() {
    let f = fixture(
        &[("ac-1", "./tests/mover.sh 99")],
        &[("tests/mover.sh", MOVER)],
    );
    f.repo.ok(&["config", "set", "refinery.max_retries", "1"]);
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(3);
    assert_eq!(mover_runs(&f), 2, "once, then one retry");
    let req = f.request();
    assert_eq!(req["state"], "error");
    assert_eq!(req["attempts"], 2);
    assert!(
        req["reason"]
            .as_str()
            .unwrap_or("")
            .contains("moved during each of 2"),
        "{req:#}"
    );
    // Not merged: release is where the mover left it.
    assert_eq!(
        f.repo.git(&["log", "-1", "--format=%s", "release"]).trim(),
        "someone else's change 2"
    );
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "NOT MERGED: Implement FizzBuzz")
    );
    f.assert_no_worktree_left();
}

#[test]
fn ff_only_moves_the_target_to_the_branch_and_refuses_a_diverged_one() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    f.repo
        .ok(&["config", "set", "refinery.strategy", "ff-only"]);
    let feature = f.branch("feature", "release", &[("feature.txt", "new\n")]);
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    f.vermas(&["refinery", "run"], &[]).expect_code(0);
    assert_eq!(f.tip("release"), feature, "release is the branch itself");

    f.repo.ok(&["reopen", "vm-fizz"]);
    let old = f.commit_on("release", &[("later.txt", "later\n")], "later on release");
    f.branch(
        "diverged",
        &format!("{old}~1"),
        &[("feature.txt", "other\n")],
    );
    f.repo.ok(&[
        "refinery", "submit", "diverged", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(1);
    assert!(r.stdout.contains("not a fast-forward"), "{}", r.stdout);
    assert_eq!(f.tip("release"), old);
    assert_eq!(f.queue()[1]["state"], "rejected");
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "NOT MERGED: Implement FizzBuzz")
    );
}

#[test]
fn squash_lands_one_commit_holding_the_merged_tree() {
    let f = fixture(&[BOTH], &[]);
    f.repo.ok(&["config", "set", "refinery.strategy", "squash"]);
    f.repo.git(&["switch", "-q", "-c", "feature", "release"]);
    f.repo.write("feature.txt", "new\n");
    f.repo.git(&["add", "feature.txt"]);
    f.repo.git(&["commit", "-q", "-m", "first step"]);
    f.repo.write("feature.txt", "newer\n");
    f.repo.git(&["commit", "-q", "-am", "second step"]);
    f.repo.git(&["switch", "-q", "main"]);
    let old = f.commit_on("release", &[("later.txt", "later\n")], "later on release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    f.vermas(&["refinery", "run"], &[]).expect_code(0);
    let parents = f.repo.git(&["rev-list", "--parents", "-n", "1", "release"]);
    assert_eq!(
        parents.split_whitespace().count(),
        2,
        "one parent: {parents}"
    );
    assert_eq!(f.tip("release^"), old);
    assert_eq!(f.repo.git(&["show", "release:feature.txt"]), "newer\n");
    assert_eq!(f.repo.git(&["show", "release:later.txt"]), "later\n");
    let message = f.repo.git(&["log", "-1", "--format=%B", "release"]);
    assert!(
        message.starts_with("Squash branch 'feature' into release"),
        "{message}"
    );
    assert!(message.contains("* first step\n* second step"), "{message}");
}

#[test]
fn needs_human_and_error_never_merge() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    let old = f.tip("release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[("FAKE_VERDICT", "NEEDS_HUMAN")]);
    r.expect_code(4);
    assert_eq!(f.tip("release"), old);
    assert_eq!(f.request()["state"], "needs_human");
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "NEEDS_CLARIFICATION: vm-fizz")
    );

    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(
        &["refinery", "run", "--no-cache"],
        &[("FAKE_GARBAGE_ROLE", "judge")],
    );
    r.expect_code(3);
    assert_eq!(f.tip("release"), old);
    let q = f.queue();
    assert_eq!(q[1]["state"], "error");
    assert_eq!(q[1]["last_verdict"], "ERROR");
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "NOT MERGED: Implement FizzBuzz")
    );
    f.assert_no_worktree_left();
}

#[test]
fn a_branch_cannot_weaken_the_test_spec_it_is_judged_by() {
    let f = fixture(
        &[("ac-1", "test -f feature.txt && grep -qx right feature.txt")],
        &[],
    );
    let spec = f.repo.read(".beads/issues/vm-spec-fizz.md");
    let weakened = spec.replace("test -f feature.txt && grep -qx right feature.txt", "true");
    assert_ne!(spec, weakened);
    f.branch(
        "feature",
        "release",
        &[
            ("feature.txt", "wrong\n"),
            (".beads/issues/vm-spec-fizz.md", &weakened),
        ],
    );
    let old = f.tip("release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(1);
    // Refused before anything runs: a branch never changes the criteria it is judged by.
    let reason = f.request()["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.contains(".beads/issues/vm-spec-fizz.md"),
        "{reason}\n{}",
        r.stdout
    );
    assert_eq!(f.tip("release"), old);
}

#[test]
fn ctrl_c_mid_run_leaves_no_worktree_and_the_next_run_takes_the_request_again() {
    let slow = "#!/bin/sh\ncommon=$(git rev-parse --path-format=absolute --git-common-dir)\nif [ -e \"$common/slow\" ]; then touch \"$common/started\"; sleep 60; fi\n";
    let f = fixture(&[("ac-1", "./tests/slow.sh")], &[("tests/slow.sh", slow)]);
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    let old = f.tip("release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    f.repo.write(".git/slow", "");
    let mut child = command(&f.repo, &["refinery", "run"])
        .env("TMPDIR", f.tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn vermas");
    let until = Instant::now() + Duration::from_secs(60);
    while !f.repo.join(".git/started").exists() {
        assert!(Instant::now() < until, "the check never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let during = f.repo.git(&["worktree", "list"]);
    assert_eq!(
        during.lines().count(),
        2,
        "a worktree while verifying: {during}"
    );
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let until = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("vermas did not end after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    f.assert_no_worktree_left();
    assert_eq!(f.tip("release"), old);
    assert_eq!(f.repo.git(&["status", "--porcelain"]), "");
    assert_eq!(f.request()["state"], "verifying");

    std::fs::remove_file(f.repo.join(".git/slow")).expect("rm");
    f.vermas(&["refinery", "run"], &[]).expect_code(0);
    let req = f.request();
    assert_eq!(req["state"], "merged");
    assert_eq!(req["attempts"], 2);
    f.assert_no_worktree_left();
}

#[test]
fn a_branch_that_changes_its_own_judges_is_rejected_and_the_target_stays() {
    for (what, path, text) in [
        (
            "a weakened test spec",
            ".beads/issues/vm-spec-fizz.md",
            "---\nid: vm-spec-fizz\ntitle: 'Test spec: Implement FizzBuzz'\nstatus: closed\npriority: 2\nissue_type: test-spec\nparent: vm-fizz\nacceptance_criteria:\n  - {id: ac-1, description: \"ac-1 holds\", verify_command: \"true\"}\n---\n",
        ),
        (
            "a lifecycle hook",
            ".beads/hooks/PreInspect",
            "#!/bin/sh\nexit 0\n",
        ),
        ("the settings", ".beads/vermas.yaml", "prefix: vm\n"),
    ] {
        let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
        f.branch(
            "feature",
            "release",
            &[("feature.txt", "new\n"), (path, text)],
        );
        let before = f.tip("release");
        f.repo.ok(&[
            "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
        ]);
        let r = f.vermas(&["refinery", "run"], &[]);
        assert_eq!(f.tip("release"), before, "{what}: the target stays");
        let req = f.request();
        assert_eq!(req["state"], "rejected", "{what}: {req:#} {r:?}");
        let reason = req["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("the Inspector's own records") && reason.contains(path),
            "{what}: {reason}"
        );
        assert!(
            f.mayor_mail().iter().any(|s| s.starts_with("NOT MERGED")),
            "{what}"
        );
    }
}
