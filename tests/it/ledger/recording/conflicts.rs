//! Refusing to commit in the middle of a merge or rebase or with a conflicted bead.

use super::*;

/// A refused change: non-zero exit, a message naming `what`, no commit, the index as it
/// was, and every record on disk still parses (the conflicted one excepted).
fn assert_refused(repo: &Repo, args: &[&str], what: &[&str], conflicted: Option<&str>) -> Output {
    let head_before = head(repo);
    let count_before = repo.commit_count();
    let index_before = repo.git(&["ls-files", "--stage"]);
    let files_before = issue_files(repo);
    let out = repo.run(args);
    let err = stderr(&out).to_lowercase();
    assert!(
        !out.status.success(),
        "vermas {args:?} should refuse:\nstdout: {}\nstderr: {err}",
        stdout(&out)
    );
    assert!(
        what.iter().any(|w| err.contains(w)),
        "vermas {args:?}: message should mention one of {what:?}: {err}"
    );
    assert_eq!(head(repo), head_before, "vermas {args:?} committed");
    assert_eq!(repo.commit_count(), count_before);
    assert_eq!(
        repo.git(&["ls-files", "--stage"]),
        index_before,
        "vermas {args:?} changed the index"
    );
    // Either nothing was written, or what was written is a whole, parseable record.
    let new_files: Vec<String> = issue_files(repo)
        .difference(&files_before)
        .cloned()
        .collect();
    assert!(new_files.len() <= 1, "{new_files:?}");
    let out_list = repo.run(&["list", "--all", "--limit", "0", "--json"]);
    assert!(out_list.status.success(), "{}", stderr(&out_list));
    let warnings = stderr(&out_list);
    for line in warnings.lines() {
        let c = conflicted.unwrap_or("<none>");
        assert!(
            line.contains(c),
            "a record other than the conflicted one does not parse: {line}"
        );
    }
    let listed: serde_json::Value = serde_json::from_slice(&out_list.stdout).expect("json");
    for f in &new_files {
        let id = f.trim_end_matches(".md");
        assert!(
            listed
                .as_array()
                .expect("array")
                .iter()
                .any(|b| b["id"] == id),
            "record {f} written by the refused command does not parse"
        );
    }
    out
}

/// Three commits diverging on `f.txt`: `main` and `side` both change it.
fn diverge(repo: &Repo) {
    repo.write("f.txt", "base\n");
    repo.git(&["add", "f.txt"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("f.txt", "side\n");
    repo.git(&["commit", "-q", "-am", "side"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("f.txt", "main\n");
    repo.git(&["commit", "-q", "-am", "main"]);
}

#[test]
fn refuses_during_a_merge_with_conflicts() {
    let repo = Repo::initialised();
    let id = repo.create("Before the merge", &[]);
    diverge(&repo);
    let merge = git_raw(&repo, &["merge", "side"]);
    assert!(!merge.status.success(), "precondition: merge conflicts");
    assert!(repo.join(".git/MERGE_HEAD").exists());

    assert_refused(&repo, &["create", "During merge"], &["merge"], None);
    assert_refused(
        &repo,
        &["update", &id, "--notes", "during merge"],
        &["merge"],
        None,
    );
    assert_eq!(
        repo.status("f.txt"),
        "UU f.txt\n",
        "the user's conflict is untouched"
    );

    // Once the merge is aborted, the next change records everything left behind.
    repo.git(&["merge", "--abort"]);
    repo.create("After the merge", &[]);
    assert_eq!(repo.status(".beads"), "");
    assert!(!repo.join(".beads/.cache/pending").exists());
    listed_ids(&repo);
    repo.assert_fsck();
}

#[test]
fn refuses_during_a_rebase_stopped_on_a_conflict() {
    let repo = Repo::initialised();
    let id = repo.create("Before the rebase", &[]);
    diverge(&repo);
    repo.git(&["checkout", "-q", "side"]);
    let rebase = git_raw(&repo, &["rebase", "main"]);
    assert!(!rebase.status.success(), "precondition: rebase stops");
    assert!(
        repo.join(".git/rebase-merge").exists() || repo.join(".git/rebase-apply").exists(),
        "precondition: a rebase is in progress"
    );

    assert_refused(&repo, &["create", "During rebase"], &["rebase"], None);
    assert_refused(
        &repo,
        &["close", &id, "-r", "during rebase"],
        &["rebase"],
        None,
    );

    repo.git(&["rebase", "--abort"]);
    assert_eq!(
        repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "side"
    );
    repo.create("After the rebase", &[]);
    assert_eq!(repo.status(".beads"), "");
    assert!(!repo.join(".beads/.cache/pending").exists());
    listed_ids(&repo);
    repo.assert_fsck();
}

#[test]
fn refuses_with_an_unresolved_conflict_in_a_bead_during_a_merge() {
    let repo = Repo::initialised();
    let id = repo.create("Shared", &[]);
    let path = bead_path(&id);
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.ok(&["update", &id, "--title", "Side title"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.ok(&["update", &id, "--title", "Main title"]);
    // Without vermas's merge driver (a clone where it is not registered yet), git's own
    // line merge leaves conflict markers in the bead.
    repo.git(&["config", "--remove-section", "merge.vermas"]);
    let merge = git_raw(&repo, &["merge", "side"]);
    assert!(!merge.status.success(), "precondition: merge conflicts");
    assert_eq!(repo.status(&path), format!("UU {path}\n"));
    let conflicted = repo.read(&path);
    assert!(conflicted.contains("<<<<<<<"));

    assert_refused(
        &repo,
        &["create", "Other"],
        &["merge", "conflict"],
        Some(&path),
    );
    assert_refused(
        &repo,
        &["update", &id, "--notes", "x"],
        &["merge", "conflict", "parse", "expected"],
        Some(&path),
    );
    assert_eq!(
        repo.read(&path),
        conflicted,
        "vermas rewrote a file with conflict markers"
    );

    // The user resolves and concludes the merge; the next change records any leftovers.
    repo.git(&["checkout", "--ours", "--", &path]);
    repo.git(&["add", &path]);
    repo.git(&["commit", "-q", "--no-edit"]);
    repo.create("After resolution", &[]);
    assert_eq!(repo.status(".beads"), "");
    assert!(!repo.join(".beads/.cache/pending").exists());
    listed_ids(&repo);
    repo.assert_fsck();
}

#[test]
fn refuses_with_an_unresolved_conflict_in_a_bead_outside_a_merge() {
    // `git stash pop` leaves conflict stages in the index with no merge in progress.
    let repo = Repo::initialised();
    let id = repo.create("Shared", &[]);
    let path = bead_path(&id);
    let text = repo
        .read(&path)
        .replace("title: Shared", "title: Hand edit");
    repo.write(&path, &text);
    repo.git(&["stash", "-q"]);
    repo.ok(&["update", &id, "--title", "Vermas title"]);
    let pop = git_raw(&repo, &["stash", "pop"]);
    assert!(!pop.status.success(), "precondition: stash pop conflicts");
    assert!(!repo.join(".git/MERGE_HEAD").exists());
    assert_eq!(repo.status(&path), format!("UU {path}\n"));

    let out = assert_refused(&repo, &["create", "Other"], &["conflict"], Some(&path));
    assert!(
        stderr(&out).contains(&path),
        "the message should name the conflicted file: {}",
        stderr(&out)
    );
}
