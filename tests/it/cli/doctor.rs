//! `vermas doctor` after a crash: git lock files left in the git folder (errors, exit 1,
//! never removed by doctor) and record files under `.beads/` that are not in HEAD
//! (warnings), which `doctor --fix` commits, exactly those, in one commit.

use crate::common::*;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A record written by hand, as if its change's journal line was lost.
const LOST: &str = "---\nid: vm-lost\ntitle: Lost\nstatus: open\nissue_type: task\n---\n";

/// The lines of `doctor`'s human output that mention `needle`.
fn lines_with(text: &str, needle: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains(needle))
        .map(str::to_string)
        .collect()
}

/// Paths of the files the HEAD commit touched, and its full message.
fn head_commit(repo: &Repo) -> (Vec<String>, String) {
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    let message = repo.git(&["log", "-1", "--format=%B"]);
    (
        files
            .lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
        message,
    )
}

#[test]
fn a_record_whose_commit_was_lost_is_named_and_fix_commits_it() {
    let repo = Repo::initialised();
    repo.create("Recorded", &[]);
    repo.write(".beads/issues/vm-lost.md", LOST);
    // `list` shows it although git has never seen it.
    assert!(repo.listed().iter().any(|b| b["id"] == "vm-lost"));

    let out = repo.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "a warning only: {text}");
    let found = lines_with(&text, "vm-lost.md");
    assert_eq!(found.len(), 1, "{text}");
    assert!(
        found[0].starts_with("warning .beads/issues/vm-lost.md is not in HEAD (git status ??)"),
        "{text}"
    );
    assert!(
        found[0].contains("`vermas doctor --fix` commits it as it is"),
        "{text}"
    );
    let v = repo.json(&["doctor"]);
    let finding = v
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["message"].as_str().unwrap_or("").contains("vm-lost.md"))
        .expect("a finding for the lost record");
    assert_eq!(finding["level"], "warning");

    let before = repo.commit_count();
    let out = repo.run(&["doctor", "--fix"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("committed .beads/issues/vm-lost.md ("),
        "{}",
        stderr(&out)
    );
    assert!(lines_with(&stdout(&out), "vm-lost").is_empty());
    assert_eq!(repo.commit_count(), before + 1);
    let (files, message) = head_commit(&repo);
    assert_eq!(files, [".beads/issues/vm-lost.md"]);
    assert_eq!(
        message,
        "vermas doctor: commit 1 unrecorded file\n\nVermas-Actor: Test User\n\n"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert_eq!(repo.git(&["show", "HEAD:.beads/issues/vm-lost.md"]), LOST);

    let text = repo.ok(&["doctor"]);
    assert!(lines_with(&text, "HEAD").is_empty(), "{text}");
    // Nothing left: a second --fix makes no commit.
    let out = repo.run(&["doctor", "--fix"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("nothing unrecorded to commit"));
    assert_eq!(repo.commit_count(), before + 1);
    repo.assert_fsck();
}

#[test]
fn a_users_own_edit_is_named_and_fix_commits_it_as_it_is() {
    let repo = Repo::initialised();
    let id = repo.create("Mine", &[]);
    let path = format!(".beads/issues/{id}.md");
    let edited = repo
        .read(&path)
        .replace("title: Mine", "title: Mine, edited by hand");
    repo.write(&path, &edited);

    let text = repo.ok(&["doctor"]);
    let found = lines_with(&text, &path);
    assert_eq!(found.len(), 1, "{text}");
    assert!(
        found[0].contains("differs from HEAD (git status M): an uncommitted edit, yours"),
        "{text}"
    );
    assert!(
        found[0].contains("`vermas doctor --fix` commits the edit as it is"),
        "{text}"
    );

    repo.ok(&["doctor", "--fix"]);
    let (files, message) = head_commit(&repo);
    assert_eq!(files, std::slice::from_ref(&path));
    assert!(message.starts_with("vermas doctor: commit 1 unrecorded file\n"));
    assert_eq!(repo.git(&["show", &format!("HEAD:{path}")]), edited);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn a_removal_left_uncommitted_is_named_and_fix_commits_it() {
    let repo = Repo::initialised();
    let id = repo.create("Gone", &[]);
    let path = format!(".beads/issues/{id}.md");
    std::fs::remove_file(repo.join(&path)).expect("remove");

    let text = repo.ok(&["doctor"]);
    let found = lines_with(&text, &path);
    assert_eq!(found.len(), 1, "{text}");
    assert!(
        found[0].contains("is deleted but still in HEAD (git status D)")
            && found[0].contains("commits the removal"),
        "{text}"
    );
    repo.ok(&["doctor", "--fix"]);
    let (files, _) = head_commit(&repo);
    assert_eq!(files, std::slice::from_ref(&path));
    assert_eq!(
        repo.git(&["ls-tree", "--name-only", "HEAD", "--", &path]),
        ""
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn fix_commits_only_the_records_and_leaves_every_other_change_alone() {
    let repo = Repo::initialised();
    repo.write(".beads/issues/vm-lost.md", LOST);
    repo.write(
        ".beads/mail/mayor/msg-lost.md",
        "---\nid: msg-lost\nfrom: T/\nto: mayor/\nsubject: Lost\n\
         created_at: 2026-01-01T00:00:00Z\n---\nlost mail\n",
    );
    repo.write(".beads/formulas/lost.formula.yaml", "formula: lost\n");
    // Not records: bd's files, a cache, wisps, a stray note, and the user's own work.
    for other in [
        ".beads/issues.jsonl",
        ".beads/beads.db",
        ".beads/metadata.json",
        ".beads/notes.txt",
        ".beads/.cache/scratch",
        ".beads/wisps/mols/w.yaml",
    ] {
        repo.write(other, "x\n");
    }
    repo.write("src.txt", "user work\n");
    repo.git(&["add", "src.txt"]);
    repo.write("draft.txt", "untracked user work\n");

    let text = repo.ok(&["doctor"]);
    let named = lines_with(&text, "HEAD");
    assert_eq!(named.len(), 3, "{text}");
    for other in [
        "issues.jsonl",
        "beads.db",
        "metadata.json",
        "notes.txt",
        ".cache",
        "wisps",
        "src.txt",
        "draft.txt",
    ] {
        assert!(lines_with(&text, other).is_empty(), "{other}: {text}");
    }

    let before = repo.commit_count();
    repo.ok(&["doctor", "--fix"]);
    assert_eq!(repo.commit_count(), before + 1);
    let (mut files, message) = head_commit(&repo);
    files.sort();
    assert_eq!(
        files,
        [
            ".beads/formulas/lost.formula.yaml",
            ".beads/issues/vm-lost.md",
            ".beads/mail/mayor/msg-lost.md",
        ]
    );
    assert!(message.starts_with("vermas doctor: commit 3 unrecorded files\n"));
    // The user's staged file is still staged, the rest still untracked.
    let status = repo.git(&["status", "--porcelain"]);
    assert!(status.contains("A  src.txt"), "{status}");
    assert!(status.contains("?? draft.txt"), "{status}");
    assert!(status.contains("?? .beads/notes.txt"), "{status}");
    assert!(!status.contains("issues/"), "{status}");
}

#[test]
fn with_git_commit_off_nothing_is_reported_or_committed() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "git.commit", "false"]);
    let before = repo.commit_count();
    repo.create("Not recorded", &[]);
    let text = repo.ok(&["doctor"]);
    assert!(
        text.contains("git.commit is false: changes are not recorded"),
        "{text}"
    );
    assert!(lines_with(&text, "HEAD").is_empty(), "{text}");
    let out = repo.run(&["doctor", "--fix"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("git.commit is false"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn each_left_git_lock_is_an_error_until_removed() {
    let repo = Repo::initialised();
    for lock in [
        ".git/index.lock",
        ".git/HEAD.lock",
        ".git/refs/heads/main.lock",
    ] {
        let path = repo.join(lock);
        std::fs::write(&path, b"").expect("lock");
        let out = repo.run(&["doctor"]);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{lock}: {text}");
        let found = lines_with(&text, lock);
        assert_eq!(found.len(), 1, "{lock}: {text}");
        assert!(
            found[0].starts_with("error ")
                && found[0].contains("is left over: no process holds it")
                && found[0].contains("if no git command is running, remove it"),
            "{text}"
        );
        // doctor reports; it never removes a lock it cannot prove its own.
        assert!(path.exists(), "{lock} removed by doctor");
        std::fs::remove_file(&path).expect("unlock");
        repo.ok(&["doctor"]);
    }
}

/// A process holding `.git/index.lock` open, as a running git command does.
fn hold_open(repo: &Repo) -> Child {
    Command::new("sh")
        .current_dir(repo.path())
        .args(["-c", "exec 3>>.git/index.lock; exec sleep 60"])
        .spawn()
        .expect("spawn holder")
}

#[test]
fn a_lock_a_running_process_holds_is_named_as_in_use() {
    let repo = Repo::initialised();
    let mut holder = hold_open(&repo);
    let deadline = Instant::now() + Duration::from_secs(10);
    let text = loop {
        let out = repo.run(&["doctor"]);
        let text = stdout(&out);
        if text.contains("held by a running process") || Instant::now() > deadline {
            assert_eq!(out.status.code(), Some(1), "{text}");
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    holder.kill().expect("kill holder");
    holder.wait().expect("reap holder");
    let found = lines_with(&text, ".git/index.lock");
    assert_eq!(found.len(), 1, "{text}");
    assert!(
        found[0].starts_with("error ") && found[0].contains("is held by a running process"),
        "{text}"
    );
    // Once its holder is gone, the same file is a leftover.
    let out = repo.run(&["doctor"]);
    assert!(
        stdout(&out).contains("index.lock is left over"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn fix_refuses_at_once_while_a_git_lock_is_present() {
    let repo = Repo::initialised();
    repo.write(".beads/issues/vm-lost.md", LOST);
    std::fs::write(repo.join(".git/index.lock"), b"").expect("lock");
    let before = repo.commit_count();
    let started = Instant::now();
    let err = repo.fails(&["doctor", "--fix"], 1);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "waited on the lock"
    );
    assert!(
        err.contains(".git/index.lock is present, so nothing can be committed"),
        "{err}"
    );
    assert_eq!(repo.commit_count(), before);
    assert!(repo.status(".beads/issues/vm-lost.md").starts_with("??"));
    std::fs::remove_file(repo.join(".git/index.lock")).expect("unlock");
    repo.ok(&["doctor", "--fix"]);
    assert_eq!(repo.commit_count(), before + 1);
}
