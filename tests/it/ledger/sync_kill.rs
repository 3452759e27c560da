//! `vermas sync` killed with SIGKILL at random points while it merges changes from both
//! sides: the next `sync` always succeeds, and every record written on either side is
//! there exactly once, with no half merge left in the work tree for a later write to
//! commit under its own name.

use crate::common::{Repo, stderr, stdout};
use crate::ledger::sync::{beads_tree, clones, git, markers, occurrences, ok_in};
use std::path::Path;
use std::time::{Duration, Instant};

/// How many kills the test makes.
const KILLS: usize = 30;

/// A small deterministic random sequence (xorshift), so a failing run can be replayed.
struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Changes on one side for round `round`: a note on the shared bead, a new bead, a
/// label; returns the texts that must arrive everywhere once.
fn change(repo: &Repo, dir: &Path, side: &str, round: usize, shared: &str) -> Vec<String> {
    let note = format!("note-{side}-{round}-end");
    ok_in(repo, dir, &["update", shared, "--notes", &note]);
    let title = format!("made-{side}-{round}-end");
    let id = ok_in(repo, dir, &["q", &title]).trim().to_string();
    ok_in(
        repo,
        dir,
        &["label", "add", &id, &format!("l-{side}-{round}")],
    );
    vec![note, title]
}

/// Starts `vermas sync` in `dir`, kills it with SIGKILL after `after`; true when it had
/// finished by then.
fn kill_sync(repo: &Repo, dir: &Path, after: Duration) -> bool {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vermas"));
    cmd.current_dir(dir).arg("sync");
    for var in crate::common::LEAKY_ENV {
        cmd.env_remove(var);
    }
    let mut child = cmd
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn vermas sync");
    let start = Instant::now();
    while start.elapsed() < after {
        if child.try_wait().expect("wait").is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let finished = child.try_wait().expect("wait").is_some();
    // SIGKILL, the vermas process alone (as `kill -9 PID` does): git commands it started
    // go on or die on their own.
    let _ = child.kill();
    let _ = child.wait();
    finished
}

#[test]
fn a_sync_killed_at_thirty_random_points_leaves_nothing_the_next_sync_cannot_finish() {
    let (a, _holder, dirs, ids) = clones(&["Shared"], 1);
    let (da, db) = (&dirs[0], &dirs[1]);
    let shared = &ids[0];
    let mut random = Random(0x2909_2029);
    // How long a sync that merges takes here: the kills fall anywhere in it.
    change(&a, da, "a", 0, shared);
    ok_in(&a, da, &["sync"]);
    change(&a, db, "b", 0, shared);
    let start = Instant::now();
    ok_in(&a, db, &["sync"]);
    let span = start.elapsed().as_millis() as u64 + 20;
    let mut expected: Vec<String> = Vec::new();
    let (mut finished, mut landing_left, mut moved_early) = (0, 0, 0);
    for round in 1..=KILLS {
        expected.extend(change(&a, da, "a", round, shared));
        ok_in(&a, da, &["sync"]);
        expected.extend(change(&a, db, "b", round, shared));
        let head = git(a.path(), db, &["rev-parse", "HEAD"]);
        // A third anywhere in the sync, the rest in its middle half, where it merges and
        // lands (between the fetch and the push).
        let after = Duration::from_millis(if round % 3 == 0 {
            random.below(span)
        } else {
            span / 4 + random.below(span / 2)
        });
        if kill_sync(&a, db, after) {
            finished += 1;
        }
        if db.join(".beads/.cache/landing").exists() {
            landing_left += 1;
        }
        if git(a.path(), db, &["rev-parse", "HEAD"]) != head {
            moved_early += 1;
        }
        // No half merge in the work tree: a write now commits only its own change.
        let probe = format!("probe-{round}-end");
        ok_in(&a, db, &["update", shared, "--notes", &probe]);
        let shown = git(a.path(), db, &["show", "--stat", "--format=%s", "HEAD"]);
        assert!(
            shown.lines().filter(|l| l.contains("|")).count() == 1,
            "round {round}: the write after the kill committed more than its bead:\n{shown}"
        );
        expected.push(probe);
        let out = a.cmd_in(db, &["sync"]).output().expect("run vermas");
        assert!(
            out.status.success(),
            "round {round} (killed after {after:?}): the next sync failed: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert_eq!(
            git(a.path(), db, &["status", "--porcelain"]),
            "",
            "round {round}"
        );
        assert!(!db.join(".beads/.cache/landing").exists(), "round {round}");
    }
    ok_in(&a, da, &["sync"]);
    assert_eq!(beads_tree(&a, da), beads_tree(&a, db));
    for dir in [da, db] {
        for text in &expected {
            let everywhere = git(
                a.path(),
                dir,
                &["grep", "-c", "-F", text, "HEAD", "--", ".beads"],
            );
            let count: usize = everywhere
                .lines()
                .filter_map(|l| l.rsplit(':').next()?.parse::<usize>().ok())
                .sum();
            assert_eq!(count, 1, "{text} in {}", dir.display());
        }
        assert_eq!(occurrences(dir, "note-a-1-end"), 1);
        assert_eq!(markers(dir), Vec::<String>::new());
        assert_eq!(git(a.path(), dir, &["status", "--porcelain"]), "");
        git(a.path(), dir, &["fsck", "--strict", "--no-progress"]);
    }
    eprintln!(
        "kill test: {KILLS} kills within {span} ms of a sync's start: {finished} after it had \
         finished, {moved_early} after the branch moved, {landing_left} with a landing left \
         to finish; every next sync succeeded, {} records each once on both clones",
        expected.len()
    );
}
