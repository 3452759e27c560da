//! Helpers of the refinery tests: a repository with work `vm-fizz`, its approved test
//! spec and the role-aware LLM stand-in, branches made with real git, and vermas runs with
//! their own temp folder (where the refinery makes its worktrees).
#![allow(dead_code)]

use crate::common::{Repo, roles_llm};
use crate::specs::support::{Opts, Run, vermas, write_exec};
use tempfile::TempDir;

/// A repository for the refinery, with the temp folder its vermas runs use.
pub struct Fixture {
    /// The user's repository (checked out on `main`).
    pub repo: Repo,
    /// `TMPDIR` of every vermas run.
    pub tmp: TempDir,
}

/// A repository on `main` with work `vm-fizz`, its approved test spec of `criteria`
/// (`(id, shell command)`), `base.txt`, the scripts under `tests/` given as `(path,
/// text)`, and branch `release` at the same commit.
pub fn fixture(criteria: &[(&str, &str)], scripts: &[(&str, &str)]) -> Fixture {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.write_fizz(criteria, true);
    repo.write("base.txt", "base\n");
    for (path, text) in scripts {
        write_exec(&repo, path, text);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "work and spec"]);
    repo.git(&["branch", "release"]);
    Fixture {
        repo,
        tmp: tempfile::Builder::new()
            .prefix("vermas-refinery-tmp")
            .tempdir()
            .expect("tempdir"),
    }
}

impl Fixture {
    /// Runs vermas in the repository with `TMPDIR` set to the fixture's temp folder and
    /// `env` added.
    pub fn vermas(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut all: Vec<(&str, String)> = env.iter().map(|(k, v)| (*k, v.to_string())).collect();
        all.push(("TMPDIR", self.tmp.path().display().to_string()));
        vermas(
            &self.repo,
            args,
            Opts {
                env: all,
                ..Opts::default()
            },
        )
    }

    /// Commits `files` (`(path, text)`) on a new branch `name` made from `from`, then
    /// checks `main` out again; returns the branch's tip.
    pub fn branch(&self, name: &str, from: &str, files: &[(&str, &str)]) -> String {
        self.repo.git(&["switch", "-q", "-c", name, from]);
        self.commit_files(files, &format!("work on {name}"));
        self.repo.git(&["switch", "-q", "main"]);
        self.tip(name)
    }

    /// Commits `files` on the existing branch `name`, then checks `main` out again.
    pub fn commit_on(&self, name: &str, files: &[(&str, &str)], message: &str) -> String {
        self.repo.git(&["switch", "-q", name]);
        self.commit_files(files, message);
        self.repo.git(&["switch", "-q", "main"]);
        self.tip(name)
    }

    /// Writes and commits `files` on the branch checked out.
    fn commit_files(&self, files: &[(&str, &str)], message: &str) {
        for (path, text) in files {
            self.repo.write(path, text);
            self.repo.git(&["add", "--", path]);
        }
        self.repo.git(&["commit", "-q", "-m", message]);
    }

    /// The commit `rev` names.
    pub fn tip(&self, rev: &str) -> String {
        self.repo.git(&["rev-parse", rev]).trim().to_string()
    }

    /// The merge requests (`refinery status --json`).
    pub fn queue(&self) -> Vec<serde_json::Value> {
        let v = self.repo.json(&["refinery", "status"]);
        v.as_array().expect("an array").clone()
    }

    /// The only merge request.
    pub fn request(&self) -> serde_json::Value {
        let q = self.queue();
        assert_eq!(q.len(), 1, "{q:#?}");
        q[0].clone()
    }

    /// The subjects of the messages in mailbox `mayor`.
    pub fn mayor_mail(&self) -> Vec<String> {
        let v = self.repo.json(&["mail", "inbox", "mayor/"]);
        v.as_array()
            .expect("array")
            .iter()
            .filter_map(|m| m["subject"].as_str().map(str::to_string))
            .collect()
    }

    /// The body of the message to `mayor/` whose subject is `subject`.
    pub fn mayor_body(&self, subject: &str) -> String {
        let v = self.repo.json(&["mail", "inbox", "mayor/"]);
        v.as_array()
            .expect("array")
            .iter()
            .find(|m| m["subject"] == subject)
            .and_then(|m| m["body"].as_str())
            .unwrap_or_else(|| panic!("no message {subject:?} in {v:#}"))
            .to_string()
    }

    /// The bead `id` as `show --json` gives it.
    pub fn bead(&self, id: &str) -> serde_json::Value {
        self.repo.json(&["show", id])[0].clone()
    }

    /// Asserts no refinery worktree is left: git lists only the user's checkout and the
    /// temp folder holds no `vermas-refinery-*` folder.
    pub fn assert_no_worktree_left(&self) {
        let list = self.repo.git(&["worktree", "list", "--porcelain"]);
        assert_eq!(
            list.lines().filter(|l| l.starts_with("worktree ")).count(),
            1,
            "{list}"
        );
        let left: Vec<String> = std::fs::read_dir(self.tmp.path())
            .expect("tmp")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("vermas-refinery"))
            .collect();
        assert!(left.is_empty(), "left in the temp folder: {left:?}");
    }
}
