//! After a vermas killed mid-commit: any next command (reads included) removes the git
//! lock files the crash note proves were the dead process's own, and never one that a
//! live process holds or that a live vermas is still using.

use crate::common::*;
use std::os::unix::fs::MetadataExt;
use std::process::{Command, Stdio};

/// A pid that no process has now (a child that has exited and been reaped).
fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().expect("spawn true");
    let pid = c.id();
    c.wait().expect("wait");
    pid
}

/// Leaves `.git/index.lock` and a crash note naming `pid` as its owner.
fn leave_lock(repo: &Repo, pid: u32) -> std::path::PathBuf {
    let lock = repo.join(".git/index.lock");
    std::fs::write(&lock, b"").expect("lock");
    let ino = std::fs::metadata(&lock).expect("stat").ino();
    std::fs::create_dir_all(repo.join(".beads/.cache")).expect("cache");
    std::fs::write(
        repo.join(".beads/.cache/commit-in-progress"),
        format!("pid {pid}\nindex {}\ncommitting\n{ino}\n", lock.display()),
    )
    .expect("note");
    lock
}

#[test]
fn a_read_command_removes_the_lock_a_killed_vermas_left() {
    let repo = Repo::initialised();
    repo.create("Before the crash", &[]);
    let lock = leave_lock(&repo, dead_pid());
    repo.ok(&["list"]);
    assert!(!lock.exists(), "the dead process's index.lock is gone");
    // The user's own git works again.
    repo.write("notes.txt", "x\n");
    repo.git(&["add", "notes.txt"]);
    repo.git(&["commit", "-q", "-m", "mine"]);
}

#[test]
fn a_lock_a_live_process_holds_open_is_never_removed() {
    let repo = Repo::initialised();
    let lock = leave_lock(&repo, dead_pid());
    // A live process holding the lock open, as a running git command does.
    let mut holder = Command::new("bash")
        .args(["-c", "exec 3<\"$1\"; sleep 30", "holder"])
        .arg(&lock)
        .stdin(Stdio::null())
        .spawn()
        .expect("holder");
    std::thread::sleep(std::time::Duration::from_millis(300));
    repo.ok(&["list"]);
    let kept = lock.exists();
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(kept, "a lock held open by a live process must stay");
}

#[test]
fn a_lock_whose_writer_still_runs_is_left_alone() {
    let repo = Repo::initialised();
    let mut alive = Command::new("sleep").arg("30").spawn().expect("sleep");
    let lock = leave_lock(&repo, alive.id());
    repo.ok(&["list"]);
    let kept = lock.exists();
    let _ = alive.kill();
    let _ = alive.wait();
    assert!(kept, "the note's writer is alive: nothing is touched");
}

#[test]
fn a_change_whose_commit_fails_is_rolled_back_so_a_retry_makes_no_duplicate() {
    let repo = Repo::initialised();
    repo.create("First", &[]);
    let before = repo.commit_count();
    // A foreign lock on the branch: git itself would refuse to commit now.
    let lock = repo.join(".git/refs/heads/main.lock");
    std::fs::write(&lock, b"").expect("foreign lock");
    let out = repo.run(&["create", "Second"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    std::fs::remove_file(&lock).expect("unlock");
    // Nothing of the failed change is left to be committed by the next command.
    let titles: Vec<String> = repo
        .listed()
        .iter()
        .filter_map(|b| b["title"].as_str().map(str::to_string))
        .collect();
    assert_eq!(titles, ["First"], "the failed create left no bead");
    repo.create("Second", &[]);
    let titles: Vec<String> = repo
        .listed()
        .iter()
        .filter_map(|b| b["title"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        titles.iter().filter(|t| *t == "Second").count(),
        1,
        "{titles:?}"
    );
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn doctor_names_left_locks_and_unrecorded_records_and_fix_commits_them() {
    let repo = Repo::initialised();
    repo.create("Recorded", &[]);
    // A record whose journal line was lost: on disk, not in HEAD.
    repo.write(
        ".beads/issues/vm-lost.md",
        "---\nid: vm-lost\ntitle: Lost\nstatus: open\nissue_type: task\n---\n",
    );
    // A lock no process holds (no crash note: only doctor can tell about it).
    let lock = repo.join(".git/index.lock");
    std::fs::write(&lock, b"").expect("lock");
    let out = repo.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("index.lock is left over"), "{text}");
    assert!(
        text.contains(".beads/issues/vm-lost.md is not in HEAD"),
        "{text}"
    );
    std::fs::remove_file(&lock).expect("unlock");

    let before = repo.commit_count();
    let out = repo.run(&["doctor", "--fix"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(repo.commit_count(), before + 1);
    let files = repo.git(&["show", "--name-only", "--format=%s", "HEAD"]);
    assert_eq!(
        files.trim(),
        "vermas doctor: commit 1 unrecorded file\n\n.beads/issues/vm-lost.md"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}
