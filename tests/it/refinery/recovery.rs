//! The refinery never loses or doubles a decision: a run killed after moving the target is
//! finished by the next, worktrees of killed runs are pruned, a NEEDS_HUMAN request waits
//! for its answer and is verified again, and `submit` says its true place in the queue.

use crate::refinery::support::*;
use crate::specs::support::*;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Starts `refinery run` in the fixture with its temp folder, output discarded.
fn spawn_run(f: &Fixture) -> Child {
    command(&f.repo, &["refinery", "run"])
        .env("TMPDIR", f.tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vermas")
}

/// Waits (at most a minute) until `path` exists.
fn wait_for(path: &std::path::Path) {
    let until = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills `child` with SIGKILL and reaps it.
fn kill_9(child: &mut Child) {
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let _ = child.wait();
}

#[test]
fn a_run_killed_right_after_moving_the_target_is_finished_by_the_next() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    let feature = f.branch("feature", "release", &[("feature.txt", "new\n")]);
    let old = f.tip("release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    // Once git has moved `release`, the hook pauses there: the window between moving the
    // target and recording it, where the run is killed.
    let paused = f.repo.join(".git/paused");
    let hook = format!(
        "#!/bin/sh\nif [ \"$1\" = committed ] && grep -q ' refs/heads/release$'; then echo $$ > '{}'; sleep 60; fi\nexit 0\n",
        paused.display()
    );
    write_exec(&f.repo, ".git/hooks/reference-transaction", &hook);
    let mut child = spawn_run(&f);
    wait_for(&paused);
    kill_9(&mut child);
    let hook_pid: i32 = std::fs::read_to_string(&paused)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    kill_all(&[hook_pid]);
    std::fs::remove_file(f.repo.join(".git/hooks/reference-transaction")).expect("rm hook");
    let landed = f.tip("release");
    assert_ne!(landed, old, "the target moved before the kill");
    assert_eq!(f.request()["state"], "merging");

    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(0);
    let req = f.request();
    assert_eq!(req["state"], "merged", "{req:#}\n{}", r.stdout);
    assert_eq!(req["merged_commit"], landed.as_str());
    assert_eq!(f.tip("release"), landed, "landed once, not again");
    assert_eq!(f.tip("release^2"), feature);
    let work = f.bead("vm-fizz");
    assert_eq!(work["status"], "closed", "{work:#}");
    assert!(work["labels"].to_string().contains("verified"), "{work:#}");
    assert!(
        f.mayor_mail()
            .iter()
            .any(|s| s == "MERGED: Implement FizzBuzz"),
        "{:?}",
        f.mayor_mail()
    );
    assert!(!f.mayor_mail().iter().any(|s| s.starts_with("NOT MERGED")));
    f.assert_no_worktree_left();
    f.repo.assert_fsck();
}

#[test]
fn worktrees_of_a_killed_run_are_pruned_by_the_next() {
    let slow = "#!/bin/sh\ncommon=$(git rev-parse --path-format=absolute --git-common-dir)\nif [ -e \"$common/slow\" ]; then touch \"$common/started\"; sleep 60; fi\n";
    let f = fixture(&[("ac-1", "./tests/slow.sh")], &[("tests/slow.sh", slow)]);
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    f.repo.write(".git/slow", "");
    let mut child = spawn_run(&f);
    wait_for(&f.repo.join(".git/started"));
    kill_9(&mut child);
    let during = f.repo.git(&["worktree", "list"]);
    assert_eq!(during.lines().count(), 2, "left by the kill: {during}");

    std::fs::remove_file(f.repo.join(".git/slow")).expect("rm");
    f.vermas(&["refinery", "run"], &[]).expect_code(0);
    assert_eq!(f.request()["state"], "merged");
    f.assert_no_worktree_left();
}

#[test]
fn a_needs_human_request_waits_for_its_answer_and_is_verified_again() {
    let f = fixture(&[("ac-1", "test -f feature.txt")], &[]);
    f.branch("feature", "release", &[("feature.txt", "new\n")]);
    let old = f.tip("release");
    f.repo.ok(&[
        "refinery", "submit", "feature", "--bead", "vm-fizz", "--into", "release",
    ]);
    let asks = [("FAKE_NEEDS_ANSWER", "1"), ("FAKE_QUESTION", "Land it?")];
    f.vermas(&["refinery", "run"], &asks).expect_code(4);
    assert_eq!(f.request()["state"], "needs_human");
    // Unanswered, it is not taken again.
    let r = f.vermas(&["refinery", "run"], &asks);
    assert!(r.stdout.contains("nothing queued"), "{}", r.stdout);
    assert_eq!(f.tip("release"), old);

    f.repo.ok(&["answer", "vm-fizz", "Yes, land it"]);
    f.vermas(&["refinery", "run"], &asks).expect_code(0);
    assert_eq!(f.request()["state"], "merged");
    assert_ne!(f.tip("release"), old);
}

#[test]
fn submit_says_its_place_among_the_requests_waiting() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("one", "release", &[("one.txt", "1\n")]);
    f.branch("two", "release", &[("two.txt", "2\n")]);
    let first = f.repo.ok(&[
        "refinery", "submit", "one", "--bead", "vm-fizz", "--into", "release",
    ]);
    assert!(first.contains("position 1 "), "{first}");
    let second = f.repo.ok(&[
        "refinery", "submit", "two", "--bead", "vm-fizz", "--into", "release",
    ]);
    assert!(second.contains("position 2 "), "{second}");
    f.vermas(&["refinery", "run"], &[]);
    f.branch("three", "release", &[("three.txt", "3\n")]);
    let third = f.repo.ok(&[
        "refinery", "submit", "three", "--bead", "vm-fizz", "--into", "release",
    ]);
    assert!(third.contains("position 1 "), "{third}");
}
