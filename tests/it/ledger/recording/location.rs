//! Where vermas records: subfolders, `BEADS_DIR`, `git.commit: false`, outside git, worktrees, detached heads.

use super::*;

#[test]
fn commands_from_a_subfolder_find_beads_upward() {
    let repo = Repo::initialised();
    let deep = repo.join("src/deep/er");
    std::fs::create_dir_all(&deep).expect("mkdir");

    let n = repo.commit_count();
    let out = repo
        .cmd_in(&deep, &["q", "From below"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(repo.join(&bead_path(&id)).is_file());
    assert!(!deep.join(".beads").exists());
    assert_eq!(repo.commit_count(), n + 1);
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
            .trim(),
        bead_path(&id)
    );

    let out = repo
        .cmd_in(&deep, &["update", &id, "--notes", "still below"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.commit_count(), n + 2);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn beads_dir_env_works_from_an_unrelated_folder() {
    let repo = Repo::initialised();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let beads = repo.join(".beads");

    let n = repo.commit_count();
    let out = repo
        .cmd_in(elsewhere.path(), &["q", "Via env"])
        .env("BEADS_DIR", &beads)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(repo.join(&bead_path(&id)).is_file());
    assert!(!elsewhere.path().join(".beads").exists());
    assert_eq!(repo.commit_count(), n + 1);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        format!("vermas create: {id} Via env")
    );
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
            .trim(),
        bead_path(&id)
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    let out = repo
        .cmd_in(elsewhere.path(), &["show", &id, "--json"])
        .env("BEADS_DIR", &beads)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v[0]["title"], "Via env");
    repo.assert_fsck();
}

#[test]
fn git_commit_false_writes_without_committing() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "git.commit", "false"]);
    let n = repo.commit_count();
    let head_before = head(&repo);
    let out = repo.run(&["q", "Not recorded"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(repo.join(&bead_path(&id)).is_file());
    assert_eq!(repo.commit_count(), n);
    assert_eq!(head(&repo), head_before);
    assert!(
        stderr(&out).contains("commit"),
        "say that nothing was committed: {}",
        stderr(&out)
    );
    assert_eq!(
        repo.status(&bead_path(&id)),
        format!("?? {}\n", bead_path(&id))
    );
    assert!(listed_ids(&repo).contains(&id));
}

#[test]
fn outside_a_git_repository_it_works_and_says_it_is_not_recording() {
    let dir = tempfile::Builder::new()
        .prefix("vermas-nogit")
        .tempdir()
        .expect("tempdir");
    let ceiling = dir.path().parent().expect("parent").to_path_buf();
    let repo = Repo { dir };
    let run = |args: &[&str]| {
        repo.cmd(args)
            .env("GIT_CEILING_DIRECTORIES", &ceiling)
            .output()
            .expect("run")
    };
    let out = run(&["init", "--prefix", "vm"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["q", "Outside git"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(
        stderr(&out).contains("not being recorded"),
        "stderr: {}",
        stderr(&out)
    );
    assert!(repo.join(&bead_path(&id)).is_file());
    assert!(
        !repo.join(".git").exists(),
        "vermas must not create a repository"
    );
    let out = run(&["update", &id, "--notes", "still fine"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("not being recorded"));
    let out = run(&["show", &id, "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v[0]["notes"][0]["text"], "still fine");
}

#[test]
fn in_a_linked_worktree_it_commits_on_the_main_worktrees_branch() {
    let repo = Repo::initialised();
    repo.create("On main", &[]);
    let wt_dir = tempfile::tempdir().expect("tempdir");
    let wt = wt_dir.path().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature",
        wt.to_str().expect("utf-8 path"),
    ]);
    let feature_head = repo.git(&["rev-parse", "feature"]);
    let out = repo
        .cmd_in(&wt, &["q", "In worktree"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    // One ledger: the main worktree's, committed on main; the work branch is untouched.
    assert!(repo.join(&bead_path(&id)).is_file());
    assert!(!wt.join(bead_path(&id)).exists());
    assert_eq!(repo.git(&["rev-parse", "feature"]), feature_head);
    let main_subject = repo.git(&["log", "-1", "--format=%s", "main"]);
    assert_eq!(
        main_subject.trim(),
        format!("vermas create: {id} In worktree")
    );
    assert!(
        repo.git(&["reflog", "show", "-1", "main"])
            .contains("In worktree")
    );
    let status = std::process::Command::new("git")
        .current_dir(&wt)
        .args(["status", "--porcelain"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .output()
        .expect("git status");
    assert!(status.status.success());
    assert_eq!(stdout(&status), "", "the worktree's index is up to date");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn on_a_detached_head_it_commits_on_head() {
    let repo = Repo::initialised();
    repo.create("On main", &[]);
    let main_head = head(&repo);
    repo.git(&["checkout", "-q", "--detach"]);
    let n = repo.commit_count();
    let id = repo.create("Detached", &[]);
    assert_eq!(repo.commit_count(), n + 1);
    assert_eq!(
        repo.git(&["rev-parse", "main"]).trim(),
        main_head,
        "main must not move"
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD~1"]).trim(),
        main_head,
        "the commit sits on the detached HEAD"
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        format!("vermas create: {id} Detached")
    );
    assert!(repo.git(&["reflog", "-1"]).contains("Detached"));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn a_commit_on_a_detached_head_warns_once_per_command() {
    let repo = Repo::initialised();
    let id = repo.create("On main", &[]);
    let warning = "HEAD is detached";
    // On a branch: no warning.
    let out = repo.run(&["update", &id, "-p", "1"]);
    assert!(out.status.success());
    assert!(!stderr(&out).contains(warning), "{}", stderr(&out));
    repo.git(&["checkout", "-q", "--detach"]);
    let out = repo.run(&["q", "Detached"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    assert!(
        err.contains("no branch") && err.contains("git switch -c"),
        "{err}"
    );
    assert!(
        stdout(&out).trim().starts_with("vm-"),
        "stdout stays the id"
    );
    // Several commits in one command (one per step): still one warning.
    let mol = repo.json(&["mol", "pour", "mol-polecat-work", "--bead", &id]);
    let mol_id = mol["id"].as_str().expect("mol id").to_string();
    let before = repo.commit_count();
    let out = repo.run(&["mol", "run", &mol_id, "--handler", "echo ok"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(repo.commit_count() >= before + 2, "one commit per step");
    assert_eq!(stderr(&out).matches(warning).count(), 1, "{}", stderr(&out));
    // A command that commits nothing does not warn.
    let out = repo.run(&["update", &id, "-p", "1"]);
    assert!(!stderr(&out).contains(warning), "{}", stderr(&out));
    let out = repo.run(&["show", &id]);
    assert!(!stderr(&out).contains(warning));
    // With --json the warning is one JSON line.
    let out = repo.run(&["q", "json", "--json"]);
    let line = stderr(&out);
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("JSON warning");
    assert_eq!(v["code"], "detached_head");
}
