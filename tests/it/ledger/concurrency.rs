//! Concurrent vermas processes serialise on `.beads/.lock`: no change is lost, every change
//! is its own commit, and a process killed at any moment leaves nothing broken behind.

use crate::common::{Repo, stderr, stdout};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

const PROCS: usize = 8;
const PER_PROC: usize = 25;

/// The beads on disk, asserting every file parses.
fn listed(repo: &Repo) -> Vec<serde_json::Value> {
    repo.listed()
}

/// Runs `args` in `PROCS` processes at once, each `PER_PROC` times in a row; `args` gets the
/// process and iteration numbers. Returns the outputs, all asserted successful.
fn run_parallel(repo: &Repo, args: impl Fn(usize, usize) -> Vec<String> + Sync) -> Vec<Output> {
    let args = &args;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..PROCS)
            .map(|p| {
                s.spawn(move || {
                    (0..PER_PROC)
                        .map(|i| {
                            let a = args(p, i);
                            let a: Vec<&str> = a.iter().map(String::as_str).collect();
                            let out = repo
                                .cmd(&a)
                                .timeout(Duration::from_secs(60))
                                .output()
                                .expect("run vermas");
                            assert!(
                                out.status.success(),
                                "vermas {a:?} failed ({:?}):\n{}",
                                out.status,
                                stderr(&out)
                            );
                            out
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker panicked"))
            .collect()
    })
}

/// Asserts the last `n` commits are vermas commits of one record each, with `subject` prefix.
fn assert_one_record_per_commit(repo: &Repo, n: usize, subject_prefix: &str) -> Vec<String> {
    let subjects = repo.git(&["log", &format!("-{n}"), "--format=%s"]);
    assert_eq!(subjects.lines().count(), n);
    for s in subjects.lines() {
        assert!(s.starts_with(subject_prefix), "unexpected commit: {s}");
    }
    // Each commit names its files after a marker line; every commit holds exactly one.
    let log = repo.git(&[
        "log",
        &format!("-{n}"),
        "--no-renames",
        "--format=@@%H",
        "--name-only",
    ]);
    let mut files = Vec::new();
    let mut current: Option<(String, usize)> = None;
    for line in log.lines().filter(|l| !l.is_empty()) {
        if let Some(h) = line.strip_prefix("@@") {
            if let Some((c, k)) = current.take() {
                assert_eq!(k, 1, "commit {c} holds {k} files");
            }
            current = Some((h.to_string(), 0));
        } else {
            current.as_mut().expect("a commit first").1 += 1;
            files.push(line.to_string());
        }
    }
    if let Some((c, k)) = current {
        assert_eq!(k, 1, "commit {c} holds {k} files");
    }
    assert_eq!(
        repo.git(&["rev-list", "--merges", "--count", "HEAD"])
            .trim(),
        "0",
        "history stays linear"
    );
    files
}

#[test]
fn parallel_creates_lose_nothing_and_commit_each_change() {
    let repo = Repo::initialised();
    let before = repo.commit_count();

    let outs = run_parallel(&repo, |p, i| vec!["q".into(), format!("bead {p}-{i}")]);
    let ids: BTreeSet<String> = outs.iter().map(|o| stdout(o).trim().to_string()).collect();
    assert_eq!(ids.len(), PROCS * PER_PROC, "every create got its own id");

    let files = std::fs::read_dir(repo.join(".beads/issues"))
        .expect("issues")
        .count();
    assert_eq!(files, PROCS * PER_PROC);
    assert_eq!(
        repo.commit_count(),
        before + PROCS * PER_PROC,
        "one commit per change"
    );
    let committed: BTreeSet<String> =
        assert_one_record_per_commit(&repo, PROCS * PER_PROC, "vermas create: ")
            .into_iter()
            .collect();
    let expected: BTreeSet<String> = ids
        .iter()
        .map(|id| format!(".beads/issues/{id}.md"))
        .collect();
    assert_eq!(
        committed, expected,
        "each commit holds a different new record"
    );

    let list = listed(&repo);
    assert_eq!(list.len(), PROCS * PER_PROC);
    let titles: BTreeSet<String> = list
        .iter()
        .map(|b| b["title"].as_str().expect("title").to_string())
        .collect();
    for p in 0..PROCS {
        for i in 0..PER_PROC {
            assert!(titles.contains(&format!("bead {p}-{i}")), "bead {p}-{i}");
        }
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert!(!repo.join(".git/index.lock").exists());
    repo.assert_fsck();
}

#[test]
fn parallel_updates_of_one_bead_keep_every_note() {
    let repo = Repo::initialised();
    let id = repo.create("Target", &[]);
    let before = repo.commit_count();

    run_parallel(&repo, |p, i| {
        vec![
            "update".into(),
            id.clone(),
            "--notes".into(),
            format!("n-{p}-{i}"),
        ]
    });

    let bead = repo.json(&["show", &id]);
    let notes: Vec<String> = bead[0]["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n["text"].as_str().expect("text").to_string())
        .collect();
    assert_eq!(notes.len(), PROCS * PER_PROC, "a note was lost");
    let distinct: BTreeSet<&String> = notes.iter().collect();
    assert_eq!(distinct.len(), PROCS * PER_PROC, "a note was duplicated");
    for p in 0..PROCS {
        for i in 0..PER_PROC {
            assert!(
                distinct.contains(&format!("n-{p}-{i}")),
                "note n-{p}-{i} lost"
            );
        }
    }
    // Each process's notes are in the order it made them.
    for p in 0..PROCS {
        let mine: Vec<&String> = notes
            .iter()
            .filter(|n| n.starts_with(&format!("n-{p}-")))
            .collect();
        let expected: Vec<String> = (0..PER_PROC).map(|i| format!("n-{p}-{i}")).collect();
        assert_eq!(
            mine.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            expected.iter().map(String::as_str).collect::<Vec<_>>()
        );
    }

    assert_eq!(repo.commit_count(), before + PROCS * PER_PROC);
    let files = assert_one_record_per_commit(
        &repo,
        PROCS * PER_PROC,
        &format!("vermas update: {id} Target"),
    );
    assert!(files.iter().all(|f| *f == format!(".beads/issues/{id}.md")));
    let path = format!(".beads/issues/{id}.md");
    assert_eq!(
        repo.git(&["show", &format!("HEAD:{path}")]),
        repo.read(&path)
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

/// A small deterministic pseudo-random sequence (xorshift), so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `vermas args` as a child process with the environment `Repo::cmd` uses.
fn spawn(repo: &Repo, args: &[&str]) -> Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_vermas"))
        .current_dir(repo.path())
        .args(args)
        .env_remove("BEADS_DIR")
        .env_remove("VERMAS_ACTOR")
        .env_remove("VERMAS_NOW")
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vermas")
}

/// Lock files git or gix left under `.git` (there is no live process to own them).
fn stale_git_locks(repo: &Repo) -> Vec<PathBuf> {
    walk(&repo.join(".git"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "lock"))
        .collect()
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn killed_writers_leave_nothing_broken() {
    const ITERATIONS: usize = 40;
    let seed = std::env::var("VERMAS_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("clock")
                .as_nanos() as u64
                | 1
        });
    let mut rng = Rng(seed);
    let repo = Repo::initialised();
    let target = repo.create("Crash target", &[]);
    let mut stale_index_locks = 0;
    let mut other_stale_locks: Vec<String> = Vec::new();
    let mut killed_before_exit = 0;

    for iter in 0..ITERATIONS {
        let ctx = format!("seed {seed}, iteration {iter}");
        let title = format!("crash {iter}");
        let note = format!("crash note {iter}");
        let args: Vec<&str> = if iter % 2 == 0 {
            vec!["q", &title]
        } else {
            vec!["update", &target, "--notes", &note]
        };
        let delay = Duration::from_millis(rng.next() % 31);
        let mut child = spawn(&repo, &args);
        std::thread::sleep(delay);
        if child.try_wait().expect("try_wait").is_none() {
            killed_before_exit += 1;
        }
        let _ = child.kill(); // SIGKILL
        child.wait().expect("wait");

        // Every record on disk parses, whatever moment the kill hit.
        listed(&repo);

        let index_lock = repo.join(".git/index.lock");
        let left_index_lock = index_lock.exists();
        // For the failure message only: what the killed process said about its lock.
        let lock_diag = if left_index_lock {
            use std::os::unix::fs::MetadataExt;
            format!(
                "index.lock inode {:?}, size {:?}; .beads/.cache/commit-in-progress: {:?}",
                std::fs::metadata(&index_lock).map(|m| m.ino()).ok(),
                std::fs::metadata(&index_lock).map(|m| m.len()).ok(),
                std::fs::read_to_string(repo.join(".beads/.cache/commit-in-progress")).ok()
            )
        } else {
            String::new()
        };
        if left_index_lock {
            stale_index_locks += 1;
        }
        let git_locks = stale_git_locks(&repo);
        for l in &git_locks {
            if *l != index_lock {
                other_stale_locks.push(format!("{} ({ctx})", l.display()));
            }
        }

        // The next change goes through promptly: `.beads/.lock` died with its holder, and an
        // `index.lock` a killed vermas left behind is vermas's to recover. It then commits
        // every leftover of the killed change.
        let started = Instant::now();
        let out = repo
            .cmd(&["q", &format!("after crash {iter}")])
            .timeout(Duration::from_secs(20))
            .output()
            .expect("run");
        let took = started.elapsed();
        assert!(
            out.status.success(),
            "{ctx}: the change after a kill failed ({:?}) after {took:?}; the kill left \
             .git/index.lock: {left_index_lock} {lock_diag}; git locks left: {git_locks:?}:\n{}",
            out.status,
            stderr(&out)
        );
        assert!(
            took < Duration::from_secs(5),
            "{ctx}: the change after a kill took {took:?} (index.lock left: {left_index_lock})"
        );
        assert_eq!(
            repo.status(".beads"),
            "",
            "{ctx}: leftovers of the killed change were not committed"
        );
        assert!(
            !repo.join(".beads/.cache/pending").exists(),
            "{ctx}: journal left behind"
        );
        assert!(
            !index_lock.exists(),
            "{ctx}: index.lock left by a clean run"
        );
        // Ref locks a kill left mid-update are recovered by that next change too.
        assert_eq!(
            stale_git_locks(&repo),
            Vec::<PathBuf>::new(),
            "{ctx}: git locks still there after the next change"
        );
        repo.assert_fsck();
    }

    eprintln!(
        "killed_writers_leave_nothing_broken: seed {seed}; {ITERATIONS} kills, \
         {killed_before_exit} before the process exited; stale .git/index.lock {stale_index_locks} \
         times; other stale git locks: {other_stale_locks:?}"
    );
    let titles: BTreeSet<String> = listed(&repo)
        .iter()
        .map(|b| b["title"].as_str().expect("title").to_string())
        .collect();
    assert!(titles.contains("Crash target"));
    for iter in 0..ITERATIONS {
        assert!(
            titles.contains(&format!("after crash {iter}")),
            "after crash {iter} is missing"
        );
    }
    // Notes that made it are whole and each appears once.
    let notes = repo.json(&["show", &target])[0]["notes"]
        .as_array()
        .expect("notes")
        .clone();
    let texts: BTreeSet<&str> = notes
        .iter()
        .map(|n| n["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts.len(), notes.len(), "a note was duplicated");
    assert!(
        texts.iter().all(|t| t.starts_with("crash note ")),
        "{texts:?}"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}
