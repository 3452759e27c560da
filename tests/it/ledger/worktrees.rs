//! One ledger for every checkout: in a linked worktree vermas reads and writes the main
//! worktree's `.beads` (committed on the branch checked out there), so agents in several
//! worktrees see one state at once and their work branches carry no `.beads` changes.

use crate::common::{Repo, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;
use tempfile::TempDir;

/// Writers in the concurrency test (the main worktree and three linked ones).
const WORKERS: usize = 4;
/// Writes each of them makes (create, notes, mail, close in turn).
const WRITES: usize = 50;

/// Runs real git in `dir`, asserting success; returns stdout.
fn git_in(repo: &Repo, dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// vermas run in `dir`, asserting success; returns stdout.
fn ok_in(repo: &Repo, dir: &Path, args: &[&str]) -> String {
    let out = run_in(repo, dir, args);
    assert!(
        out.status.success(),
        "vermas {args:?} in {} failed:\n{}{}",
        dir.display(),
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// vermas run in `dir`, whatever its exit code.
fn run_in(repo: &Repo, dir: &Path, args: &[&str]) -> Output {
    repo.cmd_in(dir, args)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run vermas")
}

/// `n` linked worktrees of `repo` (branches `polecat/0`...) in a folder of their own.
fn linked(repo: &Repo, n: usize) -> (TempDir, Vec<PathBuf>) {
    let holder = tempfile::Builder::new()
        .prefix("vermas-wt")
        .tempdir()
        .expect("tempdir");
    let dirs = (0..n)
        .map(|i| {
            let dir = holder.path().join(format!("wt{i}"));
            git_in(
                repo,
                repo.path(),
                &[
                    "worktree",
                    "add",
                    "-q",
                    &dir.to_string_lossy(),
                    "-b",
                    &format!("polecat/{i}"),
                ],
            );
            dir
        })
        .collect();
    (holder, dirs)
}

/// The ids in `list --all --json` as the main worktree sees them.
fn ids(repo: &Repo) -> Vec<String> {
    repo.listed()
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn a_linked_worktree_writes_the_main_worktrees_ledger() {
    let repo = Repo::initialised();
    let (_holder, wts) = linked(&repo, 1);
    let wt = &wts[0];
    let main_before = repo.commit_count();
    let sent = ok_in(
        &repo,
        wt,
        &[
            "mail", "send", "mayor/", "-s", "DONE", "-m", "x", "--from", "polecat/",
        ],
    );
    assert!(sent.contains("Sent"), "{sent}");
    let id = ok_in(&repo, wt, &["q", "from the worktree"])
        .trim()
        .to_string();
    ok_in(&repo, wt, &["update", &id, "--claim"]);
    ok_in(&repo, wt, &["update", &id, "--notes", "half done"]);

    // The main worktree sees every change at once, each its own commit on main.
    let inbox = repo.ok(&["mail", "inbox", "mayor/"]);
    assert!(inbox.contains("DONE"), "{inbox}");
    let shown = repo.json(&["show", &id]);
    let shown = if shown.is_array() {
        shown[0].clone()
    } else {
        shown
    };
    assert_eq!(shown["status"], "in_progress", "{shown}");
    assert_eq!(repo.commit_count(), main_before + 4);
    assert_eq!(repo.status(".beads"), "", "main's .beads is committed");
    ok_in(&repo, wt, &["close", &id]);
    assert_eq!(repo.commit_count(), main_before + 5);

    // The work branch carries no ledger change and its checkout stays clean.
    let branch_log = git_in(&repo, wt, &["log", "--format=%s", "main..polecat/0"]);
    assert_eq!(branch_log, "", "no commit on the work branch");
    assert_eq!(git_in(&repo, wt, &["status", "--porcelain"]), "");
    assert!(!wt.join(format!(".beads/issues/{id}.md")).exists());

    // Both checkouts read the same ledger; status and doctor say whose it is.
    let status = ok_in(&repo, wt, &["status"]);
    let ledger = std::fs::canonicalize(repo.join(".beads")).expect("canonical");
    assert!(
        status.contains(&format!(
            "Ledger: {} (the main worktree's)",
            ledger.display()
        )),
        "{status}"
    );
    assert!(!repo.ok(&["status"]).contains("Ledger:"));
    let doctor = ok_in(&repo, wt, &["doctor"]);
    assert!(doctor.contains("(the main worktree's)"), "{doctor}");
    let listed_here = ok_in(&repo, wt, &["list", "--all"]);
    assert!(listed_here.contains(&id), "{listed_here}");
    repo.assert_fsck();

    // BEADS_DIR still names a ledger explicitly.
    let own = Repo::initialised();
    let out = repo
        .cmd_in(wt, &["q", "named"])
        .env("BEADS_DIR", own.join(".beads"))
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let named = stdout(&out).trim().to_string();
    assert!(own.join(&format!(".beads/issues/{named}.md")).exists());
    assert!(!repo.join(&format!(".beads/issues/{named}.md")).exists());
}

#[test]
fn a_bare_repository_with_linked_worktrees_only_is_refused_naming_beads_dir() {
    let repo = Repo::initialised();
    let holder = tempfile::tempdir().expect("tempdir");
    let bare = holder.path().join("bare.git");
    git_in(
        &repo,
        holder.path(),
        &[
            "clone",
            "-q",
            "--bare",
            &repo.path().to_string_lossy(),
            "bare.git",
        ],
    );
    let wt = holder.path().join("wt");
    git_in(
        &repo,
        &bare,
        &["worktree", "add", "-q", &wt.to_string_lossy(), "main"],
    );
    let out = run_in(&repo, &wt, &["q", "anything"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("no main worktree"), "{err}");
    assert!(err.contains("BEADS_DIR"), "{err}");
    assert_eq!(git_in(&repo, &wt, &["status", "--porcelain"]), "");
}

/// One worker's writes in `dir`: a bead created, noted, mailed about and closed, in turn.
fn worker(repo: &Repo, dir: &Path, w: usize) -> Vec<String> {
    let mut created = Vec::new();
    let mut current = String::new();
    for i in 0..WRITES {
        let tag = format!("w{w}-{i}");
        match i % 4 {
            0 => {
                current = ok_in(repo, dir, &["q", &tag]).trim().to_string();
                created.push(current.clone());
            }
            1 => {
                ok_in(repo, dir, &["update", &current, "--notes", &tag]);
            }
            2 => {
                ok_in(
                    repo,
                    dir,
                    &[
                        "mail", "send", "mayor/", "-s", &tag, "-m", "x", "--from", "polecat/",
                    ],
                );
            }
            _ => {
                ok_in(repo, dir, &["close", &current]);
            }
        }
    }
    created
}

#[test]
fn four_checkouts_writing_at_once_share_one_ledger() {
    let repo = Repo::initialised();
    let (_holder, wts) = linked(&repo, WORKERS - 1);
    let before = repo.commit_count();
    let mut dirs = vec![repo.path().to_path_buf()];
    dirs.extend(wts.iter().cloned());
    let created: Vec<Vec<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .iter()
            .enumerate()
            .map(|(w, dir)| {
                let repo = &repo;
                s.spawn(move || worker(repo, dir, w))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });

    // Every write is there, one commit each, and git is sound.
    assert_eq!(repo.commit_count(), before + WORKERS * WRITES);
    repo.assert_fsck();
    assert_eq!(repo.status(".beads"), "");
    let all = ids(&repo);
    let beads: Vec<serde_json::Value> = repo.listed();
    for id in created.iter().flatten() {
        assert!(all.contains(id), "{id} missing");
    }
    for w in 0..WORKERS {
        for i in (1..WRITES).step_by(4) {
            let tag = format!("w{w}-{i}");
            assert!(
                beads.iter().any(|b| b.to_string().contains(&tag)),
                "note {tag} missing"
            );
        }
    }
    let inbox = repo.ok(&["mail", "inbox", "mayor/", "--json"]);
    for w in 0..WORKERS {
        for i in (2..WRITES).step_by(4) {
            assert!(
                inbox.contains(&format!("\"w{w}-{i}\"")),
                "mail w{w}-{i} missing"
            );
        }
    }
    // Beads a worker left open are ready in the main worktree at once.
    let ready = repo.ok(&["ready"]);
    for id in created.iter().flatten() {
        let closed = beads
            .iter()
            .any(|b| b["id"] == id.as_str() && b["status"] == "closed");
        assert_eq!(ready.contains(id.as_str()), !closed, "{id}: {ready}");
    }
    // The work checkouts carry no ledger change.
    for wt in &wts {
        assert_eq!(git_in(&repo, wt, &["status", "--porcelain"]), "");
        assert_eq!(git_in(&repo, wt, &["log", "--format=%s", "main..HEAD"]), "");
    }
}
