//! `vermas sync`: clones of one bare remote share the ledger through git alone (fetch,
//! merge with the record-aware driver, push, retry while others push), and a merge git
//! cannot make cleanly is refused with nothing changed.

use crate::common::{Repo, git_ok, stderr, stdout};
use std::path::{Path, PathBuf};

/// Real git in `dir`, asserting success; returns stdout (vermas deliberately not on PATH:
/// sync must put it there itself).
pub(crate) fn git(home: &Path, dir: &Path, args: &[&str]) -> String {
    git_ok(home, dir, args, false)
}

/// vermas in `dir`, asserting success; returns stdout.
pub(crate) fn ok_in(repo: &Repo, dir: &Path, args: &[&str]) -> String {
    let out = repo.cmd_in(dir, args).output().expect("run vermas");
    assert!(
        out.status.success(),
        "vermas {args:?} in {}: {}{}",
        dir.display(),
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// A (the first clone, holding the beads `titles` made before cloning) pushed to a bare
/// remote, and `clones` more clones of it; returns A, the folder holding the others, their
/// paths (A's first) and the beads' ids.
pub(crate) fn clones(
    titles: &[&str],
    clones: usize,
) -> (Repo, tempfile::TempDir, Vec<PathBuf>, Vec<String>) {
    let a = Repo::initialised();
    let ids = titles.iter().map(|t| a.create(t, &[])).collect();
    a.write("README.md", "# project\nline two\n");
    a.git(&["add", "README.md"]);
    a.git(&["commit", "-q", "-m", "readme"]);
    let holder = tempfile::tempdir().expect("tempdir");
    let remote = holder.path().join("remote.git");
    git(
        a.path(),
        holder.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    a.git(&["remote", "add", "origin", &remote.to_string_lossy()]);
    a.git(&["push", "-q", "-u", "origin", "main"]);
    let mut dirs = vec![a.path().to_path_buf()];
    for n in 0..clones {
        let name = format!("c{n}");
        git(
            a.path(),
            holder.path(),
            &["clone", "-q", &remote.to_string_lossy(), &name],
        );
        let dir = holder.path().join(&name);
        for (k, v) in [
            ("user.name", name.as_str()),
            ("user.email", "c@example.com"),
            ("commit.gpgsign", "false"),
        ] {
            git(a.path(), &dir, &["config", k, v]);
        }
        dirs.push(dir);
    }
    (a, holder, dirs, ids)
}

/// `git ls-tree -r HEAD .beads` in `dir`.
pub(crate) fn beads_tree(a: &Repo, dir: &Path) -> String {
    git(a.path(), dir, &["ls-tree", "-r", "HEAD", ".beads"])
}

/// Every file under `dir` (outside `.git`) holding a conflict marker.
pub(crate) fn markers(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
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

/// How many times `text` occurs in the bead files of `dir`.
pub(crate) fn occurrences(dir: &Path, text: &str) -> usize {
    std::fs::read_dir(dir.join(".beads/issues"))
        .expect("issues")
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .map(|t| t.matches(text).count())
        .sum()
}

#[test]
fn two_clones_sync_to_the_same_ledger_with_every_note_once() {
    let (a, _holder, dirs, ids) = clones(&["Shared", "Other"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    let (shared, other) = (&ids[0], &ids[1]);
    // A: a new bead with a note, and a note on the shared one.
    let y = ok_in(&a, da, &["q", "New in A"]).trim().to_string();
    ok_in(&a, da, &["update", &y, "--notes", "note-a-on-y"]);
    ok_in(&a, da, &["update", shared, "--notes", "note-a-on-shared"]);
    // B: a note on another bead, and the shared one updated.
    ok_in(&a, db, &["update", other, "--notes", "note-b-on-other"]);
    ok_in(&a, db, &["update", shared, "-s", "in_progress"]);
    ok_in(&a, db, &["update", shared, "--notes", "note-b-on-shared"]);

    let first = ok_in(&a, da, &["sync"]);
    assert_eq!(
        first.trim(),
        "Synced with origin/main: pulled 0 records, pushed 3 commits"
    );
    let second = ok_in(&a, db, &["sync"]);
    assert!(
        second.starts_with("Synced with origin/main: pulled 2 records, pushed 4 commits"),
        "{second}"
    );
    let third: serde_json::Value =
        serde_json::from_str(&ok_in(&a, da, &["sync", "--json"])).expect("json");
    assert_eq!(third["schema_version"], 1, "{third}");
    assert_eq!(third["remote"], "origin", "{third}");
    assert_eq!(third["branch"], "main", "{third}");
    assert_eq!(third["pulled"], 2, "{third}");
    assert_eq!(third["pushed"], 0, "{third}");
    assert_eq!(third["tries"], 1, "{third}");

    assert_eq!(beads_tree(&a, da), beads_tree(&a, db));
    for dir in [da, db] {
        for note in [
            "note-a-on-y",
            "note-a-on-shared",
            "note-b-on-other",
            "note-b-on-shared",
        ] {
            assert_eq!(occurrences(dir, note), 1, "{note} in {}", dir.display());
        }
        assert_eq!(markers(dir), Vec::<String>::new());
        assert_eq!(git(a.path(), dir, &["status", "--porcelain"]), "");
        git(a.path(), dir, &["fsck", "--strict", "--no-progress"]);
        assert_eq!(
            git(a.path(), dir, &["rev-parse", "HEAD"]),
            git(a.path(), dir, &["rev-parse", "origin/main"])
        );
    }
    let shown = ok_in(&a, da, &["show", shared, "--json"]);
    assert!(shown.contains("in_progress"), "{shown}");
}

#[test]
fn three_clones_syncing_at_once_lose_no_note() {
    let (a, _holder, dirs, ids) = clones(&["Shared"], 2);
    let shared = ids[0].clone();
    const ROUNDS: usize = 10;
    std::thread::scope(|s| {
        for (c, dir) in dirs.iter().enumerate() {
            let (a, shared) = (&a, &shared);
            s.spawn(move || {
                for r in 0..ROUNDS {
                    let note = format!("note-c{c}-r{r}-end");
                    ok_in(a, dir, &["update", shared, "--notes", &note]);
                    ok_in(a, dir, &["sync"]);
                }
            });
        }
    });
    for dir in &dirs {
        ok_in(&a, dir, &["sync"]);
    }
    let tree = beads_tree(&a, &dirs[0]);
    for dir in &dirs {
        assert_eq!(beads_tree(&a, dir), tree, "{}", dir.display());
        for c in 0..dirs.len() {
            for r in 0..ROUNDS {
                let note = format!("note-c{c}-r{r}-end");
                assert_eq!(occurrences(dir, &note), 1, "{note} in {}", dir.display());
            }
        }
        assert_eq!(markers(dir), Vec::<String>::new());
        assert_eq!(git(a.path(), dir, &["status", "--porcelain"]), "");
        git(a.path(), dir, &["fsck", "--strict", "--no-progress"]);
    }
}

#[test]
fn a_conflict_outside_the_ledger_is_refused_with_nothing_changed() {
    let (a, _holder, dirs, ids) = clones(&["Shared"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    a.write("README.md", "# project\nline two from A\n");
    git(a.path(), da, &["commit", "-q", "-am", "A's readme"]);
    ok_in(&a, da, &["sync"]);
    std::fs::write(db.join("README.md"), "# project\nline two from B\n").expect("write");
    git(a.path(), db, &["commit", "-q", "-am", "B's readme"]);
    ok_in(&a, db, &["update", &ids[0], "--notes", "b's note"]);
    std::fs::write(db.join("scratch.txt"), "local work\n").expect("write");
    let head = git(a.path(), db, &["rev-parse", "HEAD"]);
    let status = git(a.path(), db, &["status", "--porcelain"]);
    let readme = std::fs::read_to_string(db.join("README.md")).expect("read");

    let out = a.cmd_in(db, &["sync"]).output().expect("run vermas");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(err.contains("README.md"), "{err}");
    assert!(err.contains("git merge origin/main"), "{err}");
    assert!(err.contains("vermas sync"), "{err}");
    assert_eq!(git(a.path(), db, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(a.path(), db, &["status", "--porcelain"]), status);
    assert_eq!(
        std::fs::read_to_string(db.join("README.md")).expect("read"),
        readme
    );
    assert!(!db.join(".git/MERGE_HEAD").exists());
    git(a.path(), db, &["fsck", "--strict", "--no-progress"]);
}

#[test]
fn nothing_to_do_and_no_remote() {
    let (a, _holder, dirs, _ids) = clones(&["Shared"], 1);
    let out = ok_in(&a, &dirs[1], &["sync"]);
    assert_eq!(
        out.trim(),
        "Synced with origin/main: pulled 0 records, pushed 0 commits"
    );
    let log = git(a.path(), &dirs[1], &["log", "--oneline"]);
    assert_eq!(git(a.path(), &dirs[1], &["status", "--porcelain"]), "");

    let lonely = Repo::initialised();
    let err = lonely.fails(&["sync"], 2);
    assert!(err.contains("git remote add origin"), "{err}");
    assert!(err.contains("--set-upstream"), "{err}");
    assert_eq!(git(a.path(), &dirs[1], &["log", "--oneline"]), log);
}

#[test]
fn four_clones_making_fifty_mixed_edits_each_at_once_end_equal_with_nothing_lost() {
    let (a, _holder, dirs, ids) = clones(&["Shared one", "Shared two"], 3);
    const ROUNDS: usize = 50;
    std::thread::scope(|s| {
        for (c, dir) in dirs.iter().enumerate() {
            let (a, ids) = (&a, &ids);
            s.spawn(move || {
                for r in 0..ROUNDS {
                    let bead = &ids[r % 2];
                    let tag = format!("c{c}-r{r}");
                    let args: Vec<String> = match (c + r) % 6 {
                        0 => vec![
                            "update".into(),
                            bead.clone(),
                            "--notes".into(),
                            format!("note-{tag}-end"),
                        ],
                        1 => vec![
                            "label".into(),
                            "add".into(),
                            bead.clone(),
                            format!("l-{tag}"),
                        ],
                        2 => {
                            let status = if r % 4 < 2 { "in_progress" } else { "open" };
                            vec!["update".into(), bead.clone(), "-s".into(), status.into()]
                        }
                        3 => vec!["create".into(), format!("made-{tag}-end")],
                        4 => vec![
                            "update".into(),
                            bead.clone(),
                            "-d".into(),
                            format!("body {tag}"),
                        ],
                        _ => vec![
                            "mail".into(),
                            "send".into(),
                            "mayor/".into(),
                            "-s".into(),
                            format!("mail-{tag}-end"),
                            "-m".into(),
                            "x".into(),
                            "--from".into(),
                            format!("c{c}/"),
                        ],
                    };
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    ok_in(a, dir, &args);
                    // Four clones pushing without pause can keep one losing the race past
                    // sync's bounded tries: it then says so and changes nothing, and the
                    // next round's sync catches up. Any other failure is a failure.
                    let out = a.cmd_in(dir, &["sync"]).output().expect("run vermas");
                    assert!(
                        out.status.success() || stderr(&out).contains("kept moving"),
                        "sync in {}: {}",
                        dir.display(),
                        stderr(&out)
                    );
                }
            });
        }
    });
    for dir in &dirs {
        ok_in(&a, dir, &["sync"]);
    }
    for dir in &dirs {
        ok_in(&a, dir, &["sync"]);
    }
    let tree = beads_tree(&a, &dirs[0]);
    for dir in &dirs {
        assert_eq!(beads_tree(&a, dir), tree, "{}", dir.display());
        assert_eq!(markers(dir), Vec::<String>::new(), "{}", dir.display());
        assert_eq!(git(a.path(), dir, &["status", "--porcelain"]), "");
        git(a.path(), dir, &["fsck", "--strict", "--no-progress"]);
    }
    // Every note, label, bead and message written anywhere is there, each note once.
    let everything = git(
        a.path(),
        &dirs[0],
        &[
            "grep", "-h", "-e", "-end", "-e", "l-c", "HEAD", "--", ".beads",
        ],
    );
    for c in 0..dirs.len() {
        for r in 0..ROUNDS {
            let tag = format!("c{c}-r{r}");
            match (c + r) % 6 {
                0 => assert_eq!(
                    occurrences(&dirs[0], &format!("note-{tag}-end")),
                    1,
                    "{tag}"
                ),
                1 => assert!(everything.contains(&format!("l-{tag}")), "label {tag}"),
                3 => assert!(
                    everything.contains(&format!("made-{tag}-end")),
                    "bead {tag}"
                ),
                5 => assert!(
                    everything.contains(&format!("mail-{tag}-end")),
                    "mail {tag}"
                ),
                _ => {}
            }
        }
    }
}
