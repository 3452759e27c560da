//! The merge rules `vermas sync` and the merge driver share beyond a record changed on both
//! sides: a delete (or a squash) wins over a change on the other side, ids are names (git
//! pairing a deleted record with a new one changes nothing), a landing a kill left is
//! finished by the next write (which then commits only its own record), and what sync
//! says on a branch with no upstream and in `--json` errors.

use crate::common::{Repo, stderr, stdout};
use crate::ledger::sync::{clones, git, ok_in};
use std::path::Path;

/// `git log -p` of `path` in `dir`.
fn history(a: &Repo, dir: &Path, path: &str) -> String {
    git(a.path(), dir, &["log", "-p", "--", path])
}

#[test]
fn a_delete_wins_over_a_change_on_the_other_side_and_sync_names_it() {
    let (a, _holder, dirs, ids) = clones(&["Doomed", "Other"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    let doomed = &ids[0];
    let path = format!(".beads/issues/{doomed}.md");
    ok_in(&a, da, &["delete", doomed, "--force"]);
    // A new bead on the deleting side: git would pair it with the deleted one.
    let new = ok_in(&a, da, &["q", "Doomed too"]).trim().to_string();
    ok_in(&a, da, &["sync"]);
    ok_in(&a, db, &["comments", "add", doomed, "b-note-on-doomed"]);
    ok_in(&a, db, &["update", &ids[1], "--notes", "b-note-on-other"]);

    let out = ok_in(&a, db, &["sync"]);
    assert!(out.contains(&format!("Kept deleted: {path}")), "{out}");
    assert!(!db.join(&path).exists());
    assert!(db.join(format!(".beads/issues/{new}.md")).exists());
    assert!(
        std::fs::read_to_string(db.join(format!(".beads/issues/{}.md", ids[1])))
            .unwrap()
            .contains("b-note-on-other")
    );
    // The change is not lost: the output names the commit holding it.
    let show = out
        .split("`git show ")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .expect("a git show command");
    assert!(git(a.path(), db, &["show", show]).contains("b-note-on-doomed"));
    assert!(history(&a, db, &path).contains("delete"));
    let message = git(a.path(), db, &["log", "-1", "--format=%B"]);
    assert!(
        message.contains(&format!("Kept deleted: {path}")),
        "{message}"
    );
    // Every later sync works, on both sides, and both end equal.
    ok_in(&a, db, &["sync"]);
    ok_in(&a, da, &["sync"]);
    assert!(!da.join(&path).exists());
    assert_eq!(
        git(a.path(), da, &["rev-parse", "HEAD^{tree}"]),
        git(a.path(), db, &["rev-parse", "HEAD^{tree}"])
    );
    for dir in [da, db] {
        assert_eq!(git(a.path(), dir, &["status", "--porcelain"]), "");
    }
}

#[test]
fn a_squash_wins_over_a_step_done_on_the_other_side() {
    let (a, _holder, dirs, ids) = clones(&["Anchor"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    let mut formula =
        String::from("formula = \"flat\"\ndescription = \"Two steps\"\nversion = 1\n");
    for i in 1..=2 {
        formula.push_str(&format!(
            "\n[[steps]]\nid = \"s{i}\"\ntitle = \"Step {i}\"\ndescription = \"Do {i}.\"\n"
        ));
    }
    std::fs::create_dir_all(da.join(".beads/formulas")).unwrap();
    std::fs::write(da.join(".beads/formulas/flat.formula.toml"), formula).unwrap();
    git(a.path(), da, &["add", "-A"]);
    git(a.path(), da, &["commit", "-q", "-m", "formula"]);
    let poured: serde_json::Value = serde_json::from_str(&ok_in(
        &a,
        da,
        &["mol", "pour", "flat", "--bead", &ids[0], "--json"],
    ))
    .unwrap();
    let mol = poured["id"].as_str().expect("id").to_string();
    ok_in(&a, da, &["sync"]);
    ok_in(&a, db, &["sync"]);

    ok_in(&a, da, &["mol", "squash", &mol]);
    ok_in(&a, da, &["sync"]);
    ok_in(&a, db, &["mol", "done", &mol, "s1"]);
    let out = ok_in(&a, db, &["sync"]);
    let path = format!(".beads/mols/{mol}.yaml");
    assert!(out.contains(&format!("Kept deleted: {path}")), "{out}");
    assert!(!db.join(&path).exists());
    assert!(db.join(format!(".beads/mols/archive/{mol}.yaml")).exists());
    ok_in(&a, db, &["sync"]);
    assert_eq!(git(a.path(), db, &["status", "--porcelain"]), "");
}

#[test]
fn git_pairing_a_deleted_bead_with_a_new_one_in_a_plain_pull_keeps_both_ids_apart() {
    let (a, _holder, dirs, _ids) = clones(&[], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    let long =
        "The same long description, line after line, so git sees two files alike.\n".repeat(20);
    let x = ok_in(&a, da, &["q", "Twin", "-d", &long])
        .trim()
        .to_string();
    ok_in(&a, da, &["sync"]);
    ok_in(&a, db, &["sync"]);
    ok_in(&a, da, &["delete", &x, "--force"]);
    let y = ok_in(&a, da, &["q", "Twin", "-d", &long])
        .trim()
        .to_string();
    ok_in(&a, da, &["sync"]);
    ok_in(&a, db, &["update", &x, "--notes", "b's note"]);
    // A plain pull, with vermas on git's PATH for the driver: git pairs x with y as a
    // rename, and the driver keeps the file its name names.
    let out = crate::common::git_at(
        a.path(),
        db,
        &["pull", "-q", "--no-rebase", "--no-edit"],
        true,
    );
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let y_text = std::fs::read_to_string(db.join(format!(".beads/issues/{y}.md"))).unwrap();
    assert!(y_text.contains(&format!("id: {y}")), "{y_text}");
    assert!(!y_text.contains("b's note"), "{y_text}");
    assert!(!db.join(format!(".beads/issues/{x}.md")).exists());
}

#[test]
fn a_landing_a_kill_left_is_finished_by_the_next_write() {
    let (a, _holder, dirs, ids) = clones(&["Shared"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    ok_in(&a, da, &["update", &ids[0], "--notes", "from-a-end"]);
    let made = ok_in(&a, da, &["q", "Made in A"]).trim().to_string();
    ok_in(&a, da, &["sync"]);
    ok_in(&a, db, &["q", "Made in B"]);
    git(a.path(), db, &["fetch", "-q"]);
    // What a sync killed right after moving the branch leaves: the intent, the branch at
    // the merge, the files and index still at the old commit.
    let old = git(a.path(), db, &["rev-parse", "HEAD"]).trim().to_string();
    let tree = git(
        a.path(),
        db,
        &["merge-tree", "--write-tree", "HEAD", "origin/main"],
    );
    let tree = tree.lines().next().unwrap().to_string();
    let new = git(
        a.path(),
        db,
        &[
            "commit-tree",
            &tree,
            "-p",
            &old,
            "-p",
            "origin/main",
            "-m",
            "merge",
        ],
    )
    .trim()
    .to_string();
    std::fs::write(db.join(".beads/.cache/landing"), format!("{old} {new}\n")).unwrap();
    git(a.path(), db, &["update-ref", "refs/heads/main", &new, &old]);
    assert_ne!(git(a.path(), db, &["status", "--porcelain"]), "");

    ok_in(&a, db, &["update", &ids[0], "--notes", "probe-end"]);
    let files = git(a.path(), db, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.trim(), format!(".beads/issues/{}.md", ids[0]));
    assert_eq!(git(a.path(), db, &["status", "--porcelain"]), "");
    assert!(db.join(format!(".beads/issues/{made}.md")).exists());
    assert!(!db.join(".beads/.cache/landing").exists());
    let text = std::fs::read_to_string(db.join(format!(".beads/issues/{}.md", ids[0]))).unwrap();
    assert!(
        text.contains("from-a-end") && text.contains("probe-end"),
        "{text}"
    );
    ok_in(&a, db, &["sync"]);
}

#[test]
fn sync_says_it_created_the_remote_branch_and_names_the_upstream_it_chose() {
    let (a, _holder, dirs, _ids) = clones(&["Shared"], 1);
    let db = &dirs[1];
    git(a.path(), db, &["switch", "-q", "-c", "topic"]);
    ok_in(&a, db, &["q", "On topic"]);
    let out = ok_in(&a, db, &["sync"]);
    assert!(
        out.starts_with("Synced with origin/topic: pulled 0 records, pushed "),
        "{out}"
    );
    assert!(out.contains("Created the branch origin/topic"), "{out}");
    assert!(
        out.contains("'topic' has no upstream: synced with origin/topic"),
        "{out}"
    );
    let again: serde_json::Value =
        serde_json::from_str(&ok_in(&a, db, &["sync", "--json"])).unwrap();
    assert_eq!(again["created"], false, "{again}");
    assert_eq!(again["upstream_chosen"], true, "{again}");
    assert_eq!(again["remote_branch"], "topic", "{again}");
}

#[test]
fn json_errors_from_sync_carry_the_help() {
    let lonely = Repo::initialised();
    let out = lonely.run(&["sync", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err: serde_json::Value = serde_json::from_str(stderr(&out).trim()).expect("json");
    assert!(
        err["help"]
            .as_str()
            .unwrap_or("")
            .contains("git remote add origin"),
        "{err}"
    );
    assert!(
        err["error"].as_str().unwrap_or("").contains("no remote"),
        "{err}"
    );
}

#[test]
fn a_tracking_ref_another_git_holds_locked_is_waited_for_not_failed() {
    let (a, _holder, dirs, _ids) = clones(&["Shared"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    ok_in(&a, da, &["q", "New in A"]);
    ok_in(&a, da, &["sync"]);
    // B's tracking ref locked, as the `git fetch` of a sync killed a moment ago leaves it
    // while it finishes; the lock goes away after a while.
    let lock = db.join(".git/refs/remotes/origin/main.lock");
    std::fs::write(&lock, "").expect("lock");
    let mut cmd = a.cmd_in(db, &["sync"]);
    let sync = std::thread::spawn(move || cmd.output().expect("run vermas"));
    std::thread::sleep(std::time::Duration::from_millis(800));
    std::fs::remove_file(&lock).expect("unlock");
    let out = sync.join().expect("sync thread");
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("pulled 1 record"), "{}", stdout(&out));
}
