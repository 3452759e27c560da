//! Processes left behind: a check's descendants never outlive it, also those that leave
//! its process group, at its end, at its timeout, and when vermas gets Ctrl-C or SIGTERM
//! in `status --verify` or `gate ... --cmd`.

use crate::common::*;
use crate::specs::support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A check that starts a child in its group and one that leaves it (setsid), records both
/// pids, then (with `hang`) waits for them.
fn escaping_script(hang: bool) -> String {
    format!(
        "#!/bin/bash\ntest_esc() {{\n  sleep 300 &\n  echo $! > grouped.pid\n  setsid sleep 300 &\n  echo $! > escaped.pid\n  {}\n}}\n\"$@\"\n",
        if hang { "wait" } else { "true" }
    )
}

/// A repository whose one spec runs `tests/esc.sh#test_esc`.
fn escaping_repo(hang: bool, title: &str) -> Repo {
    let repo = Repo::initialised();
    repo.write(
        "specs/esc.md",
        &format!("# Esc\n\n## Success Criteria\n\n- [ ] escapes\n  [verify](tests/esc.sh#test_esc{title})\n"),
    );
    write_exec(&repo, "tests/esc.sh", &escaping_script(hang));
    repo
}

/// Waits until the check has written both pid files.
fn wait_for_pids(repo: &Repo) -> Vec<i32> {
    let until = Instant::now() + Duration::from_secs(20);
    while !(repo.join("grouped.pid").exists() && repo.join("escaped.pid").exists()) {
        assert!(Instant::now() < until, "the check never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    read_pids(repo, &["grouped.pid", "escaped.pid"])
}

#[test]
fn descendants_that_leave_the_group_are_ended_with_the_check() {
    let repo = escaping_repo(false, "");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    let pids = read_pids(&repo, &["grouped.pid", "escaped.pid"]);
    let left = wait_gone(&pids, Duration::from_millis(500));
    kill_all(&left);
    assert!(left.is_empty(), "left running after the check: {left:?}");
}

#[test]
fn a_timeout_ends_the_whole_tree_within_a_second_of_it() {
    let repo = Repo::initialised();
    repo.write(
        "specs/slow.md",
        "# Slow\n\n## Success Criteria\n\n- [ ] slow\n  [verify](tests/slow.sh#test_slow \"timeout=2s\")\n",
    );
    // A grandchild that ignores TERM and leaves the group, holding the output pipe open.
    write_exec(
        &repo,
        "tests/slow.sh",
        "#!/bin/bash\ntest_slow() {\n  setsid bash -c 'trap \"\" TERM; echo $$ > stubborn.pid; sleep 300' &\n  sleep 300\n}\n\"$@\"\n",
    );
    let start = Instant::now();
    let r = run(&repo, &["status", "--verify", "--json"]);
    let took = start.elapsed();
    r.expect_code(3);
    assert_eq!(outcome(&r.json(), "slow"), "ERROR");
    let pids = read_pids(&repo, &["stubborn.pid"]);
    let left = wait_gone(&pids, Duration::from_millis(200));
    kill_all(&left);
    assert!(left.is_empty(), "left running after the timeout: {left:?}");
    assert!(
        took < Duration::from_secs(3),
        "took {took:?} for a 2 s timeout"
    );
}

/// Starts `vermas args` in `repo`, waits for the check's pids, sends `signal`, and returns
/// how vermas ended plus the pids still alive a second later.
fn interrupt(repo: &Repo, args: &[&str], signal: i32) -> (std::process::ExitStatus, Vec<i32>) {
    let mut child = command(repo, args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vermas");
    let pids = wait_for_pids(repo);
    // SAFETY: kill only sends a signal to the child we started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let status = child.wait().expect("wait vermas");
    let left = wait_gone(&pids, Duration::from_secs(1));
    kill_all(&left);
    (status, left)
}

const SIGINT: i32 = libc::SIGINT;
const SIGTERM: i32 = libc::SIGTERM;

#[test]
fn ctrl_c_during_status_verify_ends_every_check_before_vermas_exits() {
    for signal in [SIGINT, SIGTERM] {
        let repo = escaping_repo(true, "");
        let (status, left) = interrupt(&repo, &["status", "--verify"], signal);
        assert!(left.is_empty(), "signal {signal}: left running: {left:?}");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(signal),
            "vermas ends by the same signal"
        );
    }
}

#[test]
fn sigterm_during_a_gate_command_ends_its_processes() {
    let repo = Repo::initialised();
    let id = repo.create("Gated work", &[]);
    let script =
        "sleep 300 & echo $! > grouped.pid; setsid sleep 300 & echo $! > escaped.pid; wait";
    let (status, left) = interrupt(&repo, &["gate", "green", &id, "--cmd", script], SIGTERM);
    assert!(left.is_empty(), "left running: {left:?}");
    assert!(!status.success());
    // Nothing was recorded for the interrupted gate.
    let log = repo.git(&["log", "--format=%s"]);
    assert!(!log.contains("gate"), "{log}");
}

#[test]
fn one_guard_runs_a_threads_checks_in_turn_and_leaves_with_vermas() {
    let repo = Repo::initialised();
    let mut spec = String::from("# Guard\n\n## Success Criteria\n\n");
    for i in 0..3 {
        spec.push_str(&format!(
            "- [ ] step {i}\n  [verify](tests/g.sh#test_g{i})\n"
        ));
    }
    repo.write("specs/guard.md", &spec);
    // Each check notes the process that runs it, and the first leaves a stray that left
    // its group: it must be gone before the second check starts.
    repo.write(
        "tests/g.sh",
        "test_g0() { echo $PPID > guard0.pid; setsid sleep 300 & echo $! > stray.pid; }\n\
         test_g1() { echo $PPID > guard1.pid; if kill -0 \"$(cat stray.pid)\" 2>/dev/null; then echo stray alive; return 1; fi; }\n\
         test_g2() { echo $PPID > guard2.pid; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--jobs", "1"]);
    r.expect_code(0);
    let guards = read_pids(&repo, &["guard0.pid", "guard1.pid", "guard2.pid"]);
    assert!(
        guards.iter().all(|g| *g == guards[0]),
        "one process ran every check of the thread: {guards:?}"
    );
    let left = wait_gone(&guards[..1], Duration::from_secs(2));
    kill_all(&left);
    assert!(left.is_empty(), "the guard outlived vermas: {left:?}");
}
