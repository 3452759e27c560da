//! One commit per change, its subject and trailers, the user's own work left alone, interrupted changes.

use super::*;

const ACTOR: &str = "alice";

/// Runs vermas as `alice`, asserts success, returns stdout.
fn ok_as(repo: &Repo, args: &[&str]) -> String {
    let mut all = vec!["--actor", ACTOR];
    all.extend_from_slice(args);
    repo.ok(&all)
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
fn an_index_whose_checksum_git_does_not_read_is_not_read_by_vermas_either() {
    let repo = Repo::initialised();
    let first = repo.create("before", &[]);
    // Flip a bit of the trailing checksum: git (since 2.13) does not verify it on a read.
    let index = repo.join(".git/index");
    let mut bytes = std::fs::read(&index).expect("index");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&index, &bytes).expect("write index");
    assert_eq!(
        repo.git(&["status", "--porcelain"]).trim(),
        "",
        "git reads it"
    );
    let second = repo.create("after", &[]);
    assert_eq!(
        repo.git(&["status", "--porcelain"]).trim(),
        "",
        "the index vermas wrote matches HEAD"
    );
    let tracked = repo.git(&["ls-files", ".beads/issues"]);
    for id in [&first, &second] {
        assert!(tracked.contains(&bead_path(id)), "{id} in {tracked}");
    }
    repo.git(&["fsck", "--no-progress"]);
}

#[test]
fn with_index_skip_hash_the_index_is_written_as_git_writes_it() {
    let repo = Repo::initialised();
    repo.git(&["config", "index.skipHash", "true"]);
    let id = repo.create("skips the hash", &[]);
    let bytes = std::fs::read(repo.join(".git/index")).expect("index");
    assert!(
        bytes[bytes.len() - 20..].iter().all(|b| *b == 0),
        "a null trailing checksum, as git writes with index.skipHash"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]).trim(), "");
    assert!(repo.git(&["ls-files"]).contains(&bead_path(&id)));
    repo.git(&["fsck", "--no-progress"]);
}
