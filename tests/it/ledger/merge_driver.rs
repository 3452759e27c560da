//! Records merge by meaning: `vermas init` registers `vermas merge-file` as git's merge
//! driver, so a plain `git pull` of a bead both clones changed merges without a conflict.

use crate::common::{Repo, git_at, git_ok, stderr, stdout};
use std::path::Path;

/// Real git in `dir` (vermas first on PATH, so git can run the driver), whatever the exit.
fn git_raw(repo: &Repo, dir: &Path, args: &[&str]) -> std::process::Output {
    git_at(repo.path(), dir, args, true)
}

/// Real git in `dir`, asserting success; returns stdout.
fn git_in(repo: &Repo, dir: &Path, args: &[&str]) -> String {
    git_ok(repo.path(), dir, args, true)
}

/// vermas in `dir`, asserting success; returns stdout.
fn ok_in(repo: &Repo, dir: &Path, args: &[&str]) -> String {
    let out = repo.cmd_in(dir, args).output().expect("run vermas");
    assert!(
        out.status.success(),
        "vermas {args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// Every file under `dir/.beads` holding a conflict marker.
fn markers(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.join(".beads")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read_to_string(&p)
                .is_ok_and(|t| t.contains("<<<<<<<") || t.contains(">>>>>>>"))
            {
                found.push(p.display().to_string());
            }
        }
    }
    found
}

#[test]
fn two_clones_changing_one_bead_merge_by_meaning_on_git_pull() {
    // A: the first clone, with the bead; both clones share one bare remote.
    let a = Repo::initialised();
    let holder = tempfile::tempdir().expect("tempdir");
    let remote = holder.path().join("remote.git");
    git_in(
        &a,
        holder.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let x = a.create("Shared work", &[]);
    a.git(&["remote", "add", "origin", &remote.to_string_lossy()]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    let b = holder.path().join("b");
    git_in(
        &a,
        holder.path(),
        &["clone", "-q", &remote.to_string_lossy(), "b"],
    );
    for (k, v) in [
        ("user.name", "B User"),
        ("user.email", "b@example.com"),
        ("commit.gpgsign", "false"),
        ("pull.rebase", "false"),
    ] {
        git_in(&a, &b, &["config", k, v]);
    }

    // B's first vermas command, a read, registers the driver in B's git config.
    assert!(
        !git_raw(&a, &b, &["config", "merge.vermas.driver"])
            .status
            .success()
    );
    ok_in(&a, &b, &["list"]);
    let driver = git_in(&a, &b, &["config", "merge.vermas.driver"]);
    assert_eq!(driver.trim(), "vermas merge-file %O %A %B %P");
    // B changes X: a note and its status.
    ok_in(&a, &b, &["update", &x, "--notes", "from b"]);
    ok_in(&a, &b, &["update", &x, "-s", "in_progress"]);
    // A changes X too: a note and a label; A pushes.
    a.ok(&["update", &x, "--notes", "from a"]);
    a.ok(&["label", "add", &x, "from-a"]);
    a.git(&["push", "-q", "origin", "main"]);

    // B pulls: no conflict, everything from both sides, no marker anywhere.
    let pulled = git_raw(&a, &b, &["pull", "-q", "--no-edit", "origin", "main"]);
    assert!(
        pulled.status.success(),
        "git pull conflicted:\n{}{}",
        stdout(&pulled),
        stderr(&pulled)
    );
    assert_eq!(markers(&b), Vec::<String>::new());
    assert_eq!(git_in(&a, &b, &["status", "--porcelain"]), "");
    let shown: serde_json::Value =
        serde_json::from_str(&ok_in(&a, &b, &["show", &x, "--json"])).expect("json");
    let shown = if shown.is_array() {
        shown[0].clone()
    } else {
        shown
    };
    let text = shown.to_string();
    assert!(text.contains("from a") && text.contains("from b"), "{text}");
    assert!(
        shown["labels"]
            .as_array()
            .is_some_and(|l| l.iter().any(|v| v == "from-a")),
        "{text}"
    );
    assert_eq!(shown["status"], "in_progress", "{text}");
    // Every command still reads X.
    for args in [
        vec!["list", "--all"],
        vec!["search", "Shared"],
        vec!["doctor"],
    ] {
        let out = ok_in(&a, &b, &args);
        assert!(out.contains(&x) || args[0] == "doctor", "{args:?}: {out}");
    }
    let log = git_in(&a, &b, &["log", "-1", "--format=%P"]);
    assert_eq!(log.split_whitespace().count(), 2, "a merge commit");
    git_in(&a, &b, &["fsck", "--strict", "--no-progress"]);
}

#[test]
fn merge_file_refuses_what_it_cannot_read_and_doctor_reports_a_missing_driver() {
    let repo = Repo::initialised();
    assert!(repo.ok(&["doctor"]).contains("records merge by meaning"));
    let attrs = repo.read(".beads/.gitattributes");
    assert!(attrs.contains("issues/*.md merge=vermas"), "{attrs}");
    // git applies the attribute to record files.
    let check = repo.git(&["check-attr", "merge", "--", ".beads/issues/vm-1.md"]);
    assert!(check.contains("merge: vermas"), "{check}");

    let x = repo.create("Readable", &[]);
    let good = repo.read(&format!(".beads/issues/{x}.md"));
    repo.write("base.md", &good);
    repo.write("ours.md", "<<<<<<< HEAD\nnot a bead\n");
    repo.write("theirs.md", &good.replace("Readable", "Renamed"));
    let path = format!(".beads/issues/{x}.md");
    let err = repo.fails(&["merge-file", "base.md", "ours.md", "theirs.md", &path], 2);
    assert!(err.contains("cannot merge"), "{err}");
    assert_eq!(repo.read("ours.md"), "<<<<<<< HEAD\nnot a bead\n");

    repo.git(&["config", "--unset", "merge.vermas.driver"]);
    let doctor = repo.ok(&["doctor"]);
    assert!(
        doctor.contains("merge driver `vermas` is not registered"),
        "{doctor}"
    );
}
