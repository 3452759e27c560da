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

#[test]
fn ctrl_c_during_the_baseline_run_leaves_no_worktree_and_no_process() {
    use crate::specs::support::{alive, command, kill_all, wait_gone, write_exec};
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::time::{Duration, Instant};
    let repo = Repo::initialised();
    repo.write(
        "specs/hang.md",
        "# Hang\n\n## Success Criteria\n\n- [ ] Hangs on the baseline [verify](../tests/hang.sh#test_hang)\n",
    );
    // Passes at once in the checkout (which has the untracked marker); hangs in the
    // baseline's worktree, recording the pid of a child.
    write_exec(
        &repo,
        "tests/hang.sh",
        "#!/bin/bash\ntest_hang() {\n  [ -f here.marker ] && return 0\n  sleep 300 &\n  echo $! > \"$HANG_PID_FILE\"\n  wait\n}\n\"$@\"\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "a check that hangs in a worktree"]);
    repo.write("here.marker", "");
    let pid_file = repo.join("hang.pid");
    let mut child = command(&repo, &["status", "--verify", "--baseline", "HEAD"])
        .env("HANG_PID_FILE", &pid_file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn vermas");
    let until = Instant::now() + Duration::from_secs(30);
    while !pid_file.exists() || std::fs::read_to_string(&pid_file).unwrap().is_empty() {
        assert!(Instant::now() < until, "the baseline's check never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let listed = repo.git(&["worktree", "list", "--porcelain"]);
    let tree = listed
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .nth(1)
        .expect("the baseline's worktree")
        .to_string();
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    // SAFETY: kill only sends a signal to the group of the child we started.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let status = child.wait().expect("wait vermas");
    let left = wait_gone(&[pid], Duration::from_secs(1));
    kill_all(&left);
    assert_eq!(
        status.signal(),
        Some(libc::SIGINT),
        "vermas ends by the signal"
    );
    assert!(left.is_empty() && !alive(pid), "left running: {left:?}");
    assert!(
        !std::path::Path::new(&tree).exists(),
        "the baseline's worktree {tree} is left"
    );
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
}
