//! The refinery's batches on real repositories and branches, with the role stand-in: several
//! requests verified together as one candidate (their merges stacked onto the target's tip),
//! landed by one move of the target, a bad one found by halving the batch, a conflict
//! inside a batch, a run killed while a batch lands, and every rule of a lone request
//! holding inside a batch.

mod halving;
mod landing;
mod rules;

use crate::refinery::support::{Fixture, fixture};
use crate::specs::support::Run;
use std::collections::BTreeSet;

/// The check every work's test spec runs: notes the commit it runs at in the git folder's
/// `verified` (one distinct commit per verification), then reads its own file.
fn check(i: usize) -> String {
    format!(
        "git rev-parse HEAD >> \"$(git rev-parse --path-format=absolute --git-common-dir)/verified\"; grep -qx ok w{i}.txt"
    )
}

/// A repository with `n` works (`work 1` to `work n`), each with a test spec approved
/// through the CLI whose one criterion is that `w<i>.txt` reads `ok`, slung on branch
/// `b<i>`; every branch, made from `release`, writes its `w<i>.txt`: `ok`, or `bad` for
/// the ones in `bad`. Nothing is submitted yet.
pub struct Queue {
    /// The repository and its temp folder.
    pub f: Fixture,
    /// The works' ids, `work 1` first.
    pub works: Vec<String>,
}

impl Queue {
    /// Makes the repository (see [`Queue`]).
    pub fn new(n: usize, bad: &[usize]) -> Queue {
        Queue::with(n, bad, &[], &[])
    }

    /// [`Queue::new`] with `scripts` (`(path, text)`) committed on both branches first, and
    /// `more` criteria (`(work number, check)`, the check as `add-criteria` takes it, e.g.
    /// `["--cmd", "true"]`) added to the works' test specs.
    pub fn with(
        n: usize,
        bad: &[usize],
        scripts: &[(&str, &str)],
        more: &[(usize, [&str; 2])],
    ) -> Queue {
        let f = fixture(&[("ac-1", "true")], scripts);
        let mut works = Vec::new();
        for i in 1..=n {
            let id = f.repo.create(&format!("work {i}"), &[]);
            f.repo.ok(&["inspect", "create-spec", &id]);
            let own = check(i);
            let criteria = std::iter::once(["--cmd", own.as_str()])
                .chain(more.iter().filter(|(w, _)| *w == i).map(|(_, c)| *c));
            for (k, [kind, check]) in criteria.enumerate() {
                let said = format!("w{i}.txt reads ok ({k})");
                f.repo
                    .ok(&["inspect", "add-criteria", &id, "-d", &said, kind, check]);
            }
            f.repo.ok(&["inspect", "approve", &id]);
            f.repo.ok(&[
                "sling",
                &id,
                &format!("agent{i}"),
                "--branch",
                &format!("b{i}"),
            ]);
            works.push(id);
        }
        for i in 1..=n {
            let text = if bad.contains(&i) { "bad\n" } else { "ok\n" };
            f.branch(
                &format!("b{i}"),
                "release",
                &[(format!("w{i}.txt").as_str(), text)],
            );
        }
        Queue { f, works }
    }

    /// Submits branches `b<i>` for each `i` of `which`, in that order, into `release`.
    pub fn submit(&self, which: impl IntoIterator<Item = usize>) {
        for i in which {
            self.f
                .repo
                .ok(&["refinery", "submit", &format!("b{i}"), "--into", "release"]);
        }
    }

    /// `refinery run ARGS --json` with the fixture's temp folder and `env`.
    pub fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut all = vec!["refinery", "run", "--json"];
        all.extend_from_slice(args);
        self.f.vermas(&all, env)
    }

    /// The request of branch `b<i>` (the latest one).
    pub fn request(&self, i: usize) -> serde_json::Value {
        let branch = format!("b{i}");
        self.f
            .queue()
            .into_iter()
            .rev()
            .find(|r| r["branch"] == branch.as_str())
            .unwrap_or_else(|| panic!("no request for {branch}"))
    }

    /// How many distinct commits the checks ran at: the verifications made.
    pub fn verified_commits(&self) -> usize {
        let path = self.f.repo.join(".git/verified");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.lines().collect::<BTreeSet<_>>().len()
    }

    /// The subjects of `mayor/`'s mail.
    pub fn mail(&self) -> Vec<String> {
        self.f.mayor_mail()
    }

    /// How often `release` moved (its reflog's entries since it was made).
    pub fn release_moves(&self) -> usize {
        self.f
            .repo
            .git(&["reflog", "show", "--format=%H", "release"])
            .lines()
            .count()
            - 1
    }
}

/// The verifications a run's JSON lists.
fn verifications(run: &Run) -> Vec<serde_json::Value> {
    run.json()["verifications"]
        .as_array()
        .expect("verifications")
        .clone()
}
