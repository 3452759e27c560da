//! Every change vermas makes under `.beads/` is one commit made by vermas itself, touching
//! only the paths it wrote, leaving the user's other work alone, and refusing to commit in
//! the middle of a merge or rebase. Checked with real git in real temporary repositories.

use crate::common::{Repo, stderr, stdout};
use std::collections::BTreeSet;
use std::process::Output;

const ACTOR: &str = "alice";

/// Runs git without asserting success (for merges and rebases that stop on a conflict).
fn git_raw(repo: &Repo, args: &[&str]) -> Output {
    std::process::Command::new("git")
        .current_dir(repo.path())
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env("GIT_EDITOR", "true")
        .output()
        .expect("run git")
}

/// Runs vermas as `alice`, asserts success, returns stdout.
fn ok_as(repo: &Repo, args: &[&str]) -> String {
    let mut all = vec!["--actor", ACTOR];
    all.extend_from_slice(args);
    repo.ok(&all)
}

/// The commit HEAD points to.
fn head(repo: &Repo) -> String {
    repo.git(&["rev-parse", "HEAD"]).trim().to_string()
}

/// Relative path of a bead file.
fn bead_path(id: &str) -> String {
    format!(".beads/issues/{id}.md")
}

/// The file names under `.beads/issues`.
fn issue_files(repo: &Repo) -> BTreeSet<String> {
    std::fs::read_dir(repo.join(".beads/issues"))
        .expect("read issues")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// Ids listed by `vermas list --all --limit 0 --json`, asserting it succeeds and warns about nothing.
fn listed_ids(repo: &Repo) -> BTreeSet<String> {
    repo.listed()
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

/// Asserts HEAD is exactly one new commit recording `path` with `subject` and the trailers,
/// that `.beads` is clean, fsck passes and the reflogs of HEAD and `main` name it.
fn assert_one_commit(repo: &Repo, before: usize, subject: &str, id: Option<&str>, path: &str) {
    assert_eq!(
        repo.commit_count(),
        before + 1,
        "expected exactly one new commit for `{subject}`"
    );
    assert_eq!(repo.git(&["log", "-1", "--format=%s"]).trim_end(), subject);
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        body.starts_with(&format!("{subject}\n\n")),
        "subject, blank line, then trailers: {body:?}"
    );
    assert!(
        body.contains(&format!("\nVermas-Actor: {ACTOR}\n")),
        "no actor trailer: {body:?}"
    );
    let mut expected_trailers = format!("Vermas-Actor: {ACTOR}\n");
    if let Some(id) = id {
        assert!(
            body.contains(&format!("\nVermas-Id: {id}\n")),
            "no id trailer: {body:?}"
        );
        expected_trailers.push_str(&format!("Vermas-Id: {id}\n"));
    }
    // git's own trailer parser must see exactly these trailers.
    let trailers = repo.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    assert_eq!(trailers.trim_end(), expected_trailers.trim_end());
    let names = repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        names.trim(),
        path,
        "the commit holds only the changed record"
    );
    let stat = repo.git(&["show", "--stat", "--format=", "HEAD"]);
    assert!(
        stat.contains(path) && stat.contains(" 1 file changed"),
        "{stat}"
    );
    assert_eq!(repo.status(".beads"), "", "`.beads` left dirty");
    repo.assert_fsck();
    let reflog = repo.git(&["reflog", "-1"]);
    assert!(reflog.contains(subject), "HEAD reflog: {reflog}");
    let branch_reflog = repo.git(&["reflog", "show", "-1", "main"]);
    assert!(
        branch_reflog.contains(subject),
        "main reflog: {branch_reflog}"
    );
}

#[test]
fn each_mutating_command_makes_one_commit_with_subject_and_trailers() {
    let repo = Repo::initialised();

    let n = repo.commit_count();
    let created = repo.json(&["--actor", ACTOR, "create", "First bead"]);
    let id = created["id"].as_str().expect("id").to_string();
    let path = bead_path(&id);
    assert_one_commit(
        &repo,
        n,
        &format!("vermas create: {id} First bead"),
        Some(&id),
        &path,
    );

    let n = repo.commit_count();
    let other = ok_as(&repo, &["q", "Other bead"]).trim().to_string();
    assert_one_commit(
        &repo,
        n,
        &format!("vermas create: {other} Other bead"),
        Some(&other),
        &bead_path(&other),
    );

    let steps: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["update", &id, "--priority", "1"],
            "update",
            "First bead",
        ),
        (
            vec!["update", &id, "--title", "Renamed bead"],
            "update",
            "Renamed bead",
        ),
        (
            vec!["update", &id, "--notes", "a note"],
            "update",
            "Renamed bead",
        ),
        (vec!["close", &id, "-r", "done"], "close", "Renamed bead"),
        (vec!["reopen", &id], "reopen", "Renamed bead"),
        (
            vec!["label", "add", &id, "area:git"],
            "label add",
            "Renamed bead",
        ),
        (vec!["dep", "add", &id, &other], "dep add", "Renamed bead"),
        (
            vec!["clarify", &id, "Which branch?"],
            "clarify",
            "Renamed bead",
        ),
        (vec!["answer", &id, "main"], "answer", "Renamed bead"),
    ];
    for (args, verb, title) in steps {
        let n = repo.commit_count();
        ok_as(&repo, &args);
        assert_one_commit(
            &repo,
            n,
            &format!("vermas {verb}: {id} {title}"),
            Some(&id),
            &path,
        );
    }

    // The record in HEAD is the record on disk.
    assert_eq!(
        repo.git(&["show", &format!("HEAD:{path}")]),
        repo.read(&path)
    );

    // `config set` has no record id: subject names the setting, the actor trailer is there.
    let n = repo.commit_count();
    ok_as(&repo, &["config", "set", "verify.jobs", "3"]);
    assert_eq!(repo.commit_count(), n + 1, "config set: one commit");
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(
        subject.starts_with("vermas config") && subject.contains("verify.jobs"),
        "config subject: {subject}"
    );
    let trailers = repo.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    assert!(
        trailers.contains(&format!("Vermas-Actor: {ACTOR}")),
        "{trailers}"
    );
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
            .trim(),
        ".beads/vermas.yaml"
    );
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();
    assert!(repo.git(&["reflog", "-1"]).contains(subject.trim()));
    assert!(
        repo.git(&["reflog", "show", "-1", "main"])
            .contains(subject.trim())
    );
}

/// What a user sees of their own work: status outside `.beads`, staged and unstaged diffs.
fn user_view(repo: &Repo) -> (String, String, String) {
    let status: String = repo
        .git(&["status", "--porcelain"])
        .lines()
        .filter(|l| !l[3..].starts_with(".beads/"))
        .map(|l| format!("{l}\n"))
        .collect();
    (status, repo.git(&["diff", "--cached"]), repo.git(&["diff"]))
}

#[test]
fn users_staged_unstaged_and_untracked_work_is_untouched() {
    let repo = Repo::initialised();
    repo.write("a.txt", "a1\n");
    repo.write("b.txt", "b1\n");
    repo.write("c.txt", "c1\n");
    repo.git(&["add", "a.txt", "b.txt", "c.txt"]);
    repo.git(&["commit", "-q", "-m", "user base"]);
    let existing = repo.create("Existing", &[]);

    repo.write("new.txt", "brand new\n");
    repo.git(&["add", "new.txt"]); // staged new file
    repo.write("a.txt", "a2 staged\n");
    repo.git(&["add", "a.txt"]); // staged modification
    repo.write("b.txt", "b2 unstaged\n"); // unstaged modification
    repo.write("c.txt", "c2 staged\n");
    repo.git(&["add", "c.txt"]);
    repo.write("c.txt", "c3 unstaged on top\n"); // staged and then changed again
    repo.write("scratch.txt", "untracked\n"); // untracked

    let before = user_view(&repo);
    assert_eq!(
        before.0, "M  a.txt\n M b.txt\nMM c.txt\nA  new.txt\n?? scratch.txt\n",
        "precondition"
    );

    let n = repo.commit_count();
    let id = repo.create("Made amid user work", &[]);
    assert_eq!(repo.commit_count(), n + 1);
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
            .trim(),
        bead_path(&id)
    );
    assert_eq!(user_view(&repo), before, "create disturbed the user's work");

    for args in [
        vec!["update", existing.as_str(), "--notes", "amid user work"],
        vec!["close", existing.as_str()],
        vec!["label", "add", id.as_str(), "x"],
    ] {
        let n = repo.commit_count();
        repo.ok(&args);
        assert_eq!(repo.commit_count(), n + 1, "{args:?}");
        let names = repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"]);
        assert_eq!(names.lines().count(), 1, "{args:?}: {names}");
        assert!(names.starts_with(".beads/issues/"), "{args:?}: {names}");
        assert_eq!(
            user_view(&repo),
            before,
            "{args:?} disturbed the user's work"
        );
    }

    // None of the user's files is in any vermas commit, and their content is unchanged.
    let all_names = repo.git(&[
        "log",
        "--no-renames",
        "--format=",
        "--name-only",
        "--grep=^vermas ",
    ]);
    for f in ["a.txt", "b.txt", "c.txt", "new.txt", "scratch.txt"] {
        assert!(
            !all_names.lines().any(|l| l == f),
            "{f} was swept into a vermas commit"
        );
    }
    assert_eq!(repo.read("a.txt"), "a2 staged\n");
    assert_eq!(repo.read("b.txt"), "b2 unstaged\n");
    assert_eq!(repo.read("c.txt"), "c3 unstaged on top\n");
    assert_eq!(repo.read("new.txt"), "brand new\n");
    assert_eq!(repo.read("scratch.txt"), "untracked\n");
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();

    // The user's staged work then commits exactly as staged.
    repo.git(&["commit", "-q", "-m", "user work"]);
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"]),
        "a.txt\nc.txt\nnew.txt\n"
    );
    assert_eq!(repo.git(&["show", "HEAD:c.txt"]), "c2 staged\n");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        " M b.txt\n M c.txt\n?? scratch.txt\n"
    );
}

#[test]
fn a_users_staged_file_under_beads_is_not_swept_in() {
    let repo = Repo::initialised();
    repo.write(".beads/README.md", "my notes\n");
    repo.git(&["add", ".beads/README.md"]);
    let n = repo.commit_count();
    let id = repo.create("Beside a staged file", &[]);
    assert_eq!(repo.commit_count(), n + 1);
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
            .trim(),
        bead_path(&id)
    );
    assert_eq!(repo.status(".beads"), "A  .beads/README.md\n");
}

/// Does the index file carry a cache-tree (`TREE`) extension?
fn index_has_tree_cache(repo: &Repo) -> bool {
    let bytes = std::fs::read(repo.join(".git/index")).expect("read index");
    bytes.windows(4).any(|w| w == b"TREE")
}

/// vermas creates, then the user commits something else with plain git.
fn assert_plain_git_commit_keeps_beads(repo: &Repo) {
    let id = repo.create("Kept by git", &[]);
    let path = bead_path(&id);
    repo.write("other.txt", "changed by the user\n");
    repo.git(&["add", "other.txt"]);
    repo.git(&["commit", "-q", "-m", "x"]);
    let tree = repo.git(&["ls-tree", "-r", "HEAD", "--name-only"]);
    assert!(
        tree.lines().any(|l| l == path),
        "the user's commit dropped {path}:\n{tree}"
    );
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"]),
        "other.txt\n",
        "the user's commit should hold only their file"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // Now the cache-tree covers .beads/issues; vermas changes the record, git commits again.
    repo.ok(&["update", &id, "--title", "Changed by vermas"]);
    repo.write("other.txt", "changed again\n");
    repo.git(&["add", "other.txt"]);
    repo.git(&["commit", "-q", "-m", "y"]);
    let in_head = repo.git(&["show", &format!("HEAD:{path}")]);
    assert!(
        in_head.contains("title: Changed by vermas"),
        "the user's commit reverted vermas's update:\n{in_head}"
    );
    assert_eq!(in_head, repo.read(&path));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn plain_git_commit_after_vermas_keeps_the_bead() {
    // No git commit before vermas's: the index is the one vermas wrote.
    let repo = Repo::initialised();
    repo.write("other.txt", "1\n");
    assert_plain_git_commit_keeps_beads(&repo);
}

#[test]
fn plain_git_commit_after_vermas_keeps_the_bead_with_a_tree_cache() {
    let repo = Repo::initialised();
    repo.write("other.txt", "1\n");
    repo.git(&["add", "other.txt"]);
    repo.git(&["commit", "-q", "-m", "user commit first"]);
    repo.git(&["status"]);
    assert!(
        index_has_tree_cache(&repo),
        "precondition: git wrote a cache-tree"
    );
    assert_plain_git_commit_keeps_beads(&repo);
}

#[test]
fn repository_without_commits_gets_a_root_commit_and_keeps_staged_files_staged() {
    let repo = Repo::new();
    repo.write("staged.txt", "staged before any commit\n");
    repo.git(&["add", "staged.txt"]);

    ok_as(&repo, &["init", "--prefix", "vm"]);
    assert_eq!(repo.commit_count(), 1);
    let parents = repo.git(&["rev-list", "--parents", "-n", "1", "HEAD"]);
    assert_eq!(
        parents.split_whitespace().count(),
        1,
        "init makes a root commit"
    );
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("vermas init"), "{subject}");
    assert!(
        repo.git(&["reflog", "show", "-1", "main"])
            .contains("vermas init")
    );
    let init_files = repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"]);
    assert!(init_files.contains(".beads/vermas.yaml"), "{init_files}");
    assert!(!init_files.contains("staged.txt"), "{init_files}");

    let id = ok_as(&repo, &["q", "Second commit", "--no-spec"])
        .trim()
        .to_string();
    assert_eq!(repo.commit_count(), 2);
    let parents = repo.git(&["rev-list", "--parents", "-n", "1", "HEAD"]);
    assert_eq!(parents.split_whitespace().count(), 2);
    assert_eq!(
        repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
            .trim(),
        bead_path(&id)
    );

    assert_eq!(repo.git(&["status", "--porcelain"]), "A  staged.txt\n");
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]),
        "staged.txt\n"
    );
    let every_file = repo.git(&["log", "--no-renames", "--format=", "--name-only"]);
    assert!(!every_file.contains("staged.txt"), "{every_file}");
    repo.assert_fsck();
}

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

/// A bead as vermas writes it, for simulating an interrupted change.
fn hand_bead(id: &str, title: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: {title}\nstatus: open\npriority: 2\nissue_type: task\nlabels: []\n\
         assignee: null\ncreated_at: 2026-01-01T00:00:00Z\ncreated_by: alice\n\
         updated_at: 2026-01-01T00:00:00Z\nclosed_at: null\nclose_reason: null\nparent: null\n\
         spec: null\ndependencies: []\nnotes: []\n---\n"
    )
}

#[test]
fn an_interrupted_change_is_committed_by_the_next_one() {
    let repo = Repo::initialised();
    let gone = repo.create("Removed mid-change", &[]);
    // A change that wrote a record and removed another, then died before committing.
    repo.write(&bead_path("vm-zzzz"), &hand_bead("vm-zzzz", "Interrupted"));
    std::fs::remove_file(repo.join(&bead_path(&gone))).expect("rm");
    repo.write(
        ".beads/.cache/pending",
        &format!("issues/vm-zzzz.md\nissues/{gone}.md\n"),
    );
    assert!(
        listed_ids(&repo).contains("vm-zzzz"),
        "precondition: parses"
    );

    let n = repo.commit_count();
    let id = repo.create("Other", &[]);
    assert_eq!(repo.commit_count(), n + 1, "one commit for the change");
    let names: BTreeSet<String> = repo
        .git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
        .lines()
        .map(str::to_string)
        .collect();
    let expected: BTreeSet<String> = [bead_path(&id), bead_path("vm-zzzz"), bead_path(&gone)]
        .into_iter()
        .collect();
    assert_eq!(names, expected);
    let tree = repo.git(&["ls-tree", "-r", "HEAD", "--name-only"]);
    assert!(tree.lines().any(|l| l == bead_path("vm-zzzz")));
    assert!(!tree.lines().any(|l| l == bead_path(&gone)));
    assert!(
        !repo.join(".beads/.cache/pending").exists(),
        "the journal is cleared"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn the_lock_and_caches_are_never_committed() {
    let repo = Repo::initialised();
    let id = repo.create("Something", &[]);
    repo.ok(&["update", &id, "--notes", "more"]);
    let tree = repo.git(&["ls-tree", "-r", "HEAD", "--name-only"]);
    for l in tree.lines() {
        assert!(
            !l.starts_with(".beads/.cache/") && l != ".beads/.lock",
            "{l} is committed"
        );
    }
    assert!(
        repo.join(".beads/.lock").exists(),
        "the write lock file exists"
    );
    let status = repo.git(&["status", "--porcelain", "--ignored", ".beads"]);
    assert!(
        status.lines().all(|l| l.starts_with("!! ")),
        "only ignored files may be left: {status}"
    );
}

#[test]
fn in_a_linked_worktree_it_commits_on_that_worktrees_branch() {
    let repo = Repo::initialised();
    repo.create("On main", &[]);
    let main_head = head(&repo);
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
    let out = repo
        .cmd_in(&wt, &["q", "In worktree"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(wt.join(bead_path(&id)).is_file());
    assert_eq!(head(&repo), main_head, "main must not move");
    let feature_subject = repo.git(&["log", "-1", "--format=%s", "feature"]);
    assert_eq!(
        feature_subject.trim(),
        format!("vermas create: {id} In worktree")
    );
    assert!(
        repo.git(&["reflog", "show", "-1", "feature"])
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

/// Runs vermas with `envs` set and `EMAIL` (a git identity fallback) removed.
fn run_with(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut c = repo.cmd(args);
    c.env_remove("EMAIL");
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("run vermas")
}

/// Asserts `args` exit 2 with nothing committed or written, and returns stderr.
fn refused_before_writing(repo: &Repo, args: &[&str]) -> String {
    let head_before = head(repo);
    let files = issue_files(repo);
    let out = run_with(repo, args, &[]);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert_eq!(head(repo), head_before, "{args:?} committed");
    assert_eq!(issue_files(repo), files, "{args:?} wrote a bead");
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "{args:?} wrote");
    assert!(!repo.join(".beads/.cache/pending").exists());
    stderr(&out)
}

#[test]
fn without_a_git_identity_nothing_is_committed_or_written() {
    let repo = Repo::initialised();
    let id = repo.create("exists", &[]);
    repo.git(&["config", "--unset", "user.name"]);
    repo.git(&["config", "--unset", "user.email"]);
    for args in [
        &["q", "no identity"][..],
        &["close", &id],
        &["config", "set", "judge.samples", "3"],
        &["mail", "send", "mayor/", "-s", "hi", "-m", "x"],
    ] {
        let err = refused_before_writing(&repo, args);
        assert!(
            err.contains("identity unknown")
                && err.contains("git config --global user.name")
                && err.contains("git config --global user.email")
                && err.contains("git.author"),
            "{args:?}: {err}"
        );
    }
    assert!(
        !repo
            .git(&["log", "--format=%ae"])
            .contains("vermas@localhost"),
        "no made-up identity"
    );
    // git's environment variables are an identity, as for git itself.
    let out = run_with(
        &repo,
        &["q", "from the environment"],
        &[
            ("GIT_AUTHOR_NAME", "Env Author"),
            ("GIT_AUTHOR_EMAIL", "env@example.com"),
            ("GIT_COMMITTER_NAME", "Env Committer"),
            ("GIT_COMMITTER_EMAIL", "envc@example.com"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>"])
            .trim(),
        "Env Author <env@example.com>|Env Committer <envc@example.com>"
    );
    // git.author can be set without an identity, and then signs every commit.
    let out = run_with(
        &repo,
        &["config", "set", "git.author", "Bot <bot@example.com>"],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run_with(&repo, &["q", "by the bot"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.git(&["log", "-2", "--format=%an <%ae>|%cn <%ce>"]),
        "Bot <bot@example.com>|Bot <bot@example.com>\n".repeat(2)
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn init_without_a_git_identity_creates_nothing() {
    let repo = Repo::new();
    repo.git(&["config", "--unset", "user.name"]);
    let out = run_with(&repo, &["init", "--prefix", "vm"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("git config --global user.name"));
    assert!(!repo.join(".beads").exists(), ".beads was created");
    assert!(git_raw(&repo, &["rev-parse", "HEAD"]).status.code() != Some(0));
}

/// A throwaway ssh key pair in its own folder: (folder, private key path).
fn ssh_key() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = dir.path().join("id_ed25519");
    let out = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "vermas-test", "-f"])
        .arg(&key)
        .output()
        .expect("ssh-keygen is needed for this test");
    assert!(out.status.success(), "{}", stderr(&out));
    (dir, key)
}

#[test]
fn with_commit_gpgsign_and_an_ssh_key_every_commit_is_signed() {
    let repo = Repo::initialised();
    let (dir, key) = ssh_key();
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("public key");
    let allowed = dir.path().join("allowed_signers");
    std::fs::write(&allowed, format!("test@example.com {public}")).expect("write");
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingkey", key.to_str().expect("utf-8")]);
    repo.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        allowed.to_str().expect("utf-8"),
    ]);
    repo.git(&["config", "commit.gpgsign", "true"]);
    let before = repo.commit_count();
    let id = repo.create("Signed", &[]);
    repo.ok(&["close", &id, "-r", "signed too"]);
    repo.ok(&["config", "set", "judge.samples", "3"]);
    assert_eq!(repo.commit_count(), before + 3);
    for rev in ["HEAD", "HEAD~1", "HEAD~2"] {
        let out = git_raw(&repo, &["verify-commit", rev]);
        assert!(
            out.status.success(),
            "{rev} does not verify: {}",
            stderr(&out)
        );
    }
    assert_eq!(repo.git(&["log", "-3", "--format=%G?"]), "G\nG\nG\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

/// Ends the gpg agent a test started for its own GNUPGHOME.
struct GpgHome(tempfile::TempDir);

impl Drop for GpgHome {
    fn drop(&mut self) {
        let _ = std::process::Command::new("gpgconf")
            .args(["--kill", "gpg-agent"])
            .env("GNUPGHOME", self.0.path())
            .output();
    }
}

#[test]
fn with_commit_gpgsign_and_openpgp_every_commit_is_signed_by_gpg() {
    let repo = Repo::initialised();
    let home = GpgHome(tempfile::tempdir().expect("tempdir"));
    let gnupg = home.0.path().to_str().expect("utf-8").to_string();
    let out = std::process::Command::new("gpg")
        .args(["--batch", "--passphrase", "", "--quick-gen-key"])
        .args(["Test User <test@example.com>", "ed25519", "sign", "never"])
        .env("GNUPGHOME", &gnupg)
        .output()
        .expect("gpg is needed for this test");
    assert!(out.status.success(), "{}", stderr(&out));
    repo.git(&["config", "commit.gpgsign", "true"]);
    // No user.signingkey: the key is chosen by the committer's identity, as git does.
    let out = repo
        .cmd(&["q", "Signed by gpg"])
        .env("GNUPGHOME", &gnupg)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let verify = std::process::Command::new("git")
        .current_dir(repo.path())
        .args(["verify-commit", "HEAD"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env("GNUPGHOME", &gnupg)
        .output()
        .expect("git verify-commit");
    assert!(verify.status.success(), "{}", stderr(&verify));
    assert!(
        stderr(&verify).contains("Good signature"),
        "{}",
        stderr(&verify)
    );
    repo.assert_fsck();
}

#[test]
fn signing_that_cannot_be_done_is_refused_and_nothing_is_committed_unsigned() {
    let repo = Repo::initialised();
    let id = repo.create("exists", &[]);
    repo.git(&["config", "commit.gpgsign", "true"]);
    repo.git(&["config", "gpg.format", "ssh"]);
    // No key at all, or a key file that is not there: refused before anything is written.
    let err = refused_before_writing(&repo, &["q", "unsigned"]);
    assert!(err.contains("user.signingkey"), "{err}");
    assert!(err.contains("git config commit.gpgsign false"), "{err}");
    assert!(err.contains("commit: false"), "{err}");
    repo.git(&["config", "user.signingkey", "/nonexistent/key"]);
    let err = refused_before_writing(&repo, &["close", &id]);
    assert!(err.contains("/nonexistent/key"), "{err}");
    // A signing program that is not found.
    repo.git(&["config", "gpg.format", "openpgp"]);
    repo.git(&["config", "gpg.program", "vermas-no-such-gpg"]);
    let err = refused_before_writing(&repo, &["label", "add", &id, "x"]);
    assert!(err.contains("vermas-no-such-gpg"), "{err}");
    // A key that fails when used: the commit is not made, signed or not.
    let (_dir, key) = ssh_key();
    std::fs::write(&key, "not a key\n").expect("spoil key");
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingkey", key.to_str().expect("utf-8")]);
    let before = head(&repo);
    let out = run_with(&repo, &["q", "bad key"], &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("did not sign"), "{}", stderr(&out));
    assert_eq!(head(&repo), before, "an unsigned commit was made");
    // Turning signing off for the repository lets the change through.
    repo.git(&["config", "commit.gpgsign", "false"]);
    repo.ok(&["close", &id]);
    assert_eq!(
        repo.git(&["log", "--format=%G?"]).trim().lines().next(),
        Some("N")
    );
}
