//! A batch that passes lands by one move of the target and is recorded in one commit; each
//! work's roles judge its own diff; a run killed while the batch lands is finished by the
//! next; a target that moves during the verification means building the batch again.

use super::*;
use crate::specs::support::{command, kill_all, write_exec};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn a_batch_that_passes_is_verified_once_and_lands_by_one_move() {
    let q = Queue::new(4, &[]);
    q.f.repo.ok(&["config", "set", "verify.jobs", "1"]);
    q.submit(1..=4);
    let old = q.f.tip("release");
    let ledger_before = q.f.tip("main");
    let prompts = q.f.tmp.path().join("prompts.log");
    let prompts_env = prompts.display().to_string();
    let r = q.run(&["--batch", "4"], &[("FAKE_PROMPT_LOG", &prompts_env)]);
    r.expect_code(0);

    // One verification, of the stack holding all four; the target moved once, to its top.
    let v = verifications(&r);
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0]["requests"].as_array().map(Vec::len), Some(4));
    assert_eq!(q.verified_commits(), 1);
    let top = q.f.tip("release");
    assert_eq!(v[0]["candidate"], top.as_str());
    assert_eq!(q.release_moves(), 1);
    // The stack: each branch merged onto the merge of the one before it, in queue order.
    let mut below = top.clone();
    for i in (1..=4).rev() {
        assert_eq!(q.f.tip(&format!("{below}^2")), q.f.tip(&format!("b{i}")));
        let req = q.request(i);
        assert_eq!(req["state"], "merged", "{req:#}");
        assert_eq!(req["merged_commit"], below.as_str());
        assert_eq!(req["candidate"], top.as_str());
        assert_eq!(req["target_tip"], old.as_str());
        assert_eq!(req["batch"]["commit"], below.as_str());
        assert_eq!(req["batch"]["requests"].as_array().map(Vec::len), Some(4));
        let base = q.f.tip(&format!("{below}^1"));
        assert_eq!(req["batch"]["base"], base.as_str());
        assert_eq!(q.f.bead(&q.works[i - 1])["status"], "closed");
        below = base;
    }
    assert_eq!(below, old);
    let mail = q.mail();
    for i in 1..=4 {
        assert!(mail.contains(&format!("MERGED: work {i}")), "{mail:?}");
    }
    // Two ledger commits: the batch marked verifying, then every request recorded.
    let commits =
        q.f.repo
            .git(&["rev-list", &format!("{ledger_before}..main")]);
    assert_eq!(commits.lines().count(), 2, "{commits}");
    let recorded = q.f.repo.git(&["show", "--name-only", "--format=", "main"]);
    assert_eq!(
        recorded
            .lines()
            .filter(|l| l.starts_with(".beads/mq/"))
            .count(),
        4,
        "{recorded}"
    );
    let status = q.f.repo.ok(&["refinery", "status"]);
    assert!(
        status.contains(&format!("[batch {}: 2 of 4]", &top[..12])),
        "{status}"
    );

    // Each work's auditor read its own diff: its file, none of the others'.
    let log = std::fs::read_to_string(&prompts).expect("prompts");
    let audits: Vec<&str> = log
        .split("=== END\n")
        .filter(|p| p.contains("ROLE: auditor"))
        .collect();
    assert_eq!(audits.len(), 4);
    for (i, work) in q.works.iter().enumerate() {
        let prompt = audits
            .iter()
            .find(|p| p.contains(&format!("WORK {work}\n")))
            .unwrap_or_else(|| panic!("no audit of {work}"));
        let diff = &prompt[prompt.find("\nDIFF (").expect("a diff")..];
        for j in 1..=4 {
            let named = diff.contains(&format!("w{j}.txt"));
            assert_eq!(named, j == i + 1, "the diff of work {}: {diff}", i + 1);
        }
    }
    q.f.assert_no_worktree_left();
    q.f.repo.assert_fsck();
}

#[test]
fn a_run_killed_while_a_batch_lands_is_finished_by_the_next() {
    let q = Queue::new(3, &[]);
    q.submit(1..=3);
    let old = q.f.tip("release");
    // Once git has moved `release`, the hook pauses there: the window between moving the
    // target and recording the batch, where the run is killed.
    let paused = q.f.repo.join(".git/paused");
    let hook = format!(
        "#!/bin/sh\nif [ \"$1\" = committed ] && grep -q ' refs/heads/release$'; then echo $$ > '{}'; sleep 60; fi\nexit 0\n",
        paused.display()
    );
    write_exec(&q.f.repo, ".git/hooks/reference-transaction", &hook);
    let mut child = command(&q.f.repo, &["refinery", "run", "--batch", "3"])
        .env("TMPDIR", q.f.tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vermas");
    let until = Instant::now() + Duration::from_secs(120);
    while !paused.exists() {
        assert!(Instant::now() < until, "the landing never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let _ = child.wait();
    let hook_pid: i32 = std::fs::read_to_string(&paused)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    kill_all(&[hook_pid]);
    std::fs::remove_file(q.f.repo.join(".git/hooks/reference-transaction")).expect("rm hook");
    let landed = q.f.tip("release");
    assert_ne!(landed, old, "the target moved before the kill");
    for i in 1..=3 {
        assert_eq!(q.request(i)["state"], "merging");
        assert_eq!(q.request(i)["candidate"], landed.as_str());
    }

    let r = q.run(&[], &[]);
    r.expect_code(0);
    assert_eq!(q.f.tip("release"), landed, "landed once, not again");
    assert_eq!(q.release_moves(), 1);
    let mail = q.mail();
    for i in 1..=3 {
        let req = q.request(i);
        assert_eq!(req["state"], "merged", "{req:#}");
        assert_eq!(req["candidate"], landed.as_str());
        let work = q.f.bead(&q.works[i - 1]);
        assert_eq!(work["status"], "closed", "{work:#}");
        assert!(work["labels"].to_string().contains("verified"), "{work:#}");
        assert!(mail.contains(&format!("MERGED: work {i}")), "{mail:?}");
    }
    assert!(
        !mail.iter().any(|s| s.starts_with("NOT MERGED")),
        "{mail:?}"
    );
    q.f.assert_no_worktree_left();
    q.f.repo.assert_fsck();
}

/// A check for work 1 that moves `release` (a commit adding `moved.txt`) the first time it
/// runs.
const MOVER: &str = r#"#!/bin/sh
common=$(git rev-parse --path-format=absolute --git-common-dir)
if [ ! -e "$common/moved" ]; then
    touch "$common/moved"
    blob=$(echo moved | git hash-object -w --stdin)
    tree=$( (git ls-tree release; printf '100644 blob %s\tmoved.txt\n' "$blob") | git mktree)
    commit=$(git commit-tree "$tree" -p release -m "someone else's change")
    git update-ref refs/heads/release "$commit"
fi
"#;

#[test]
fn a_target_that_moves_during_a_batch_rebuilds_the_batch_on_the_new_tip() {
    let q = Queue::with(
        2,
        &[],
        &[("tests/mover.sh", MOVER)],
        &[(1, ["--cmd", "./tests/mover.sh"])],
    );
    q.submit(1..=2);
    let r = q.run(&["--batch", "2"], &[]);
    r.expect_code(0);
    assert_eq!(verifications(&r).len(), 2, "built again on the new tip");
    assert_eq!(q.verified_commits(), 2);
    let moved = q.f.tip("release~2");
    assert_eq!(
        q.f.repo.git(&["log", "-1", "--format=%s", &moved]).trim(),
        "someone else's change"
    );
    for i in 1..=2 {
        let req = q.request(i);
        assert_eq!(req["state"], "merged", "{req:#}");
        assert_eq!(req["attempts"], 2);
        assert_eq!(req["target_tip"], moved.as_str());
    }
    q.f.assert_no_worktree_left();
}
