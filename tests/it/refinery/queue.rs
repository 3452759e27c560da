//! The Refinery's queue: `refinery submit` (one record, one commit; every kind of bad
//! input refused with exit 2 and nothing written), `refinery status`, the order requests
//! are taken in, and the `refinery.*` settings.

use crate::refinery::support::*;

#[test]
fn submit_queues_one_record_in_one_commit() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("feature", "main", &[("feature.txt", "new\n")]);
    let before = f.repo.commit_count();
    let out = f
        .repo
        .ok(&["refinery", "submit", "feature", "--bead", "vm-fizz"]);
    assert!(out.starts_with("queued mq-"), "{out}");
    assert!(out.contains("feature -> main"), "{out}");
    assert_eq!(f.repo.commit_count(), before + 1);
    let changed = f.repo.git(&["show", "--name-only", "--format=%s", "HEAD"]);
    let mut lines = changed.lines();
    assert!(
        lines
            .next()
            .unwrap_or("")
            .starts_with("vermas refinery submit: mq-"),
        "{changed}"
    );
    let files: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    assert_eq!(files.len(), 1, "{changed}");
    assert!(files[0].starts_with(".beads/mq/mq-") && files[0].ends_with(".yaml"));
    let req = f.request();
    assert_eq!(req["state"], "queued");
    assert_eq!(req["branch"], "feature");
    assert_eq!(req["target"], "main");
    assert_eq!(req["bead"], "vm-fizz");
    assert_eq!(req["attempts"], 0);
    assert!(req["last_verdict"].is_null());
    assert_eq!(f.repo.git(&["status", "--porcelain"]), "");

    // The same branch and target again: nothing changes.
    let r = f
        .repo
        .run(&["refinery", "submit", "feature", "--bead", "vm-fizz"]);
    assert!(r.status.success());
    assert!(
        crate::common::stderr(&r).contains("nothing changed"),
        "{}",
        crate::common::stderr(&r)
    );
    assert_eq!(f.repo.commit_count(), before + 1);
    assert_eq!(f.queue().len(), 1);
}

#[test]
fn submit_refuses_bad_input_and_writes_nothing() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("feature", "main", &[("feature.txt", "new\n")]);
    let before = f.repo.commit_count();
    let cases: &[(&[&str], &str)] = &[
        (
            &["nope", "--bead", "vm-fizz"],
            "branch 'nope' does not exist",
        ),
        (
            &["--bead", "vm-fizz", "--", "-x"],
            "branch '-x' does not exist",
        ),
        (&["bad..name", "--bead", "vm-fizz"], "does not exist"),
        (
            &["feature", "--bead", "vm-fizz", "--into", "nowhere"],
            "target branch 'nowhere' (--into) does not exist",
        ),
        (&["feature", "--bead", "vm-nope"], "vm-nope"),
        (&["feature"], "no bead to judge branch 'feature' by"),
        (
            &["main", "--bead", "vm-fizz"],
            "cannot be merged into itself",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["refinery", "submit"];
        all.extend_from_slice(args);
        let err = f.repo.fails(&all, 2);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    assert_eq!(f.repo.commit_count(), before, "nothing was committed");
    assert!(!f.repo.join(".beads/mq").exists(), "nothing was written");

    // On a detached HEAD there is no current branch to merge into.
    f.repo.git(&["switch", "-q", "--detach", "main"]);
    let err = f
        .repo
        .fails(&["refinery", "submit", "feature", "--bead", "vm-fizz"], 2);
    assert!(err.contains("HEAD is detached"), "{err}");
    assert!(err.contains("--into"), "{err}");
}

#[test]
fn the_bead_is_found_from_the_branch_name_and_the_target_from_config() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("polecat/vm-fizz", "main", &[("feature.txt", "new\n")]);
    f.repo.ok(&["config", "set", "refinery.target", "release"]);
    f.repo.ok(&["refinery", "submit", "polecat/vm-fizz"]);
    let req = f.request();
    assert_eq!(req["bead"], "vm-fizz");
    assert_eq!(req["target"], "release");
}

#[test]
fn requests_are_taken_oldest_first_and_once_takes_one() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("first", "release", &[("one.txt", "1\n")]);
    f.branch("second", "release", &[("two.txt", "2\n")]);
    for b in ["first", "second"] {
        f.repo.ok(&[
            "refinery", "submit", b, "--bead", "vm-fizz", "--into", "release",
        ]);
    }
    let r = f.vermas(&["refinery", "run", "--once"], &[]);
    r.expect_code(0);
    let q = f.queue();
    assert_eq!(q[0]["branch"], "first");
    assert_eq!(q[0]["state"], "merged");
    assert_eq!(q[1]["state"], "queued");
    let status = f.repo.ok(&["refinery", "status"]);
    assert!(
        status.contains("merged") && status.contains("queued"),
        "{status}"
    );
    assert!(status.contains("1 request waiting"), "{status}");

    f.repo.ok(&["reopen", "vm-fizz"]);
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(0);
    assert_eq!(f.queue()[1]["state"], "merged");
    // Both landed, in order: second's merge sits on first's.
    assert_eq!(f.tip("release^2"), f.tip("second"));
    assert_eq!(f.tip("release^1^2"), f.tip("first"));
    let r = f.vermas(&["refinery", "run"], &[]);
    r.expect_code(0);
    assert!(r.stdout.contains("nothing queued"), "{}", r.stdout);
}

#[test]
fn a_hand_broken_request_is_reported_with_its_place_and_the_rest_still_listed() {
    let f = fixture(&[("ac-1", "true")], &[]);
    f.branch("feature", "main", &[("feature.txt", "new\n")]);
    f.repo
        .ok(&["refinery", "submit", "feature", "--bead", "vm-fizz"]);
    f.repo.write(
        ".beads/mq/mq-zzzz.yaml",
        "id: mq-zzzz\nseq: 9\nbranch: x\nbead: vm-fizz\ntarget: main\nstate: landed\n",
    );
    let r = f.repo.run(&["refinery", "status"]);
    assert!(r.status.success());
    let err = crate::common::stderr(&r);
    assert!(err.contains(".beads/mq/mq-zzzz.yaml:6"), "{err}");
    assert!(crate::common::stdout(&r).contains("feature -> main"));
}

#[test]
fn refinery_settings_are_typed_and_documented_keys() {
    let f = fixture(&[], &[]);
    assert_eq!(
        f.repo.ok(&["config", "get", "refinery.strategy"]).trim(),
        "merge"
    );
    assert_eq!(
        f.repo.ok(&["config", "get", "refinery.max_retries"]).trim(),
        "3"
    );
    let err = f
        .repo
        .fails(&["config", "set", "refinery.strategy", "rebase"], 2);
    assert!(err.contains("refinery.strategy"), "{err}");
    assert!(err.contains("ff-only"), "{err}");
    let err = f
        .repo
        .fails(&["config", "set", "refinery.max_retries", "lots"], 2);
    assert!(err.contains("refinery.max_retries"), "{err}");
    f.repo.ok(&["config", "set", "refinery.strategy", "squash"]);
    assert_eq!(
        f.repo.ok(&["config", "get", "refinery.strategy"]).trim(),
        "squash"
    );
}
