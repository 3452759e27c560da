//! A verdict rests only on approved, committed, authenticated state: each way a hostile
//! worker (one that runs every vermas command, edits any file of its checkout, commits on
//! its branch and writes its own check scripts) could reach `verified` or a merge, tried
//! on a real repository with the real binary and the role stand-in (which answers PASS
//! with confidence 0.99 whatever it is shown: the deterministic checks must decide).

mod approvers;
mod branches;
mod caches;
mod frozen;
mod routing;
mod settings;
mod tools;
mod tricks;

use crate::common::*;
use crate::specs::support::*;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// `fizz.sh` with the bug: 15 prints `15`.
pub const BUGGY: &str = "#!/bin/sh\necho \"$1\"\n";
/// `fizz.sh` done right.
pub const FIXED: &str =
    "#!/bin/sh\nif [ $(($1 % 15)) -eq 0 ]; then echo FizzBuzz; else echo \"$1\"; fi\n";
/// The approved check.
pub const CHECK: &str = "fizz() { [ \"$(./fizz.sh 15)\" = FizzBuzz ]; }\n";

/// A repository on `main` with work made by `q`, its test spec given one criterion
/// `--verify tests/check.sh#fizz` and approved through the CLI, the buggy `fizz.sh`, and
/// the role stand-in as the LLM; with the temp folder its runs use.
pub struct Mk {
    /// The repository.
    pub repo: Repo,
    /// `TMPDIR` of every run (where temporary worktrees go).
    pub tmp: TempDir,
    /// The work's id.
    pub work: String,
    /// Its test spec's id.
    pub spec: String,
}

impl Mk {
    /// The set-up described on [`Mk`].
    pub fn new() -> Mk {
        Mk::with_check(CHECK)
    }

    /// The set-up described on [`Mk`], with `check` as `tests/check.sh`.
    pub fn with_check(check: &str) -> Mk {
        let repo = Repo::initialised_with_test_specs();
        repo.write_llm_command(&roles_llm().display().to_string());
        write_exec(&repo, "fizz.sh", BUGGY);
        repo.write("tests/check.sh", check);
        commit_all(&repo, "work and check");
        let (work, spec) = repo.approved_work(
            "Implement fizz",
            "fizz 15 is FizzBuzz",
            ["--verify", "tests/check.sh#fizz"],
        );
        Mk {
            repo,
            tmp: tempfile::Builder::new()
                .prefix("vermas-verdict-tmp")
                .tempdir()
                .expect("tempdir"),
            work,
            spec,
        }
    }

    /// Runs vermas in `dir` (default: the repository) with `env` added, the role
    /// stand-in answering PASS with confidence 0.99.
    pub fn run_in(&self, dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut all: Vec<(&str, String)> = vec![
            ("TMPDIR", self.tmp.path().display().to_string()),
            ("FAKE_CONFIDENCE", "0.99".into()),
        ];
        all.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
        vermas(
            &self.repo,
            args,
            Opts {
                env: all,
                dir: dir.map(Path::to_path_buf),
                ..Opts::default()
            },
        )
    }

    /// [`Mk::run_in`] the repository.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(None, args, &[])
    }

    /// Commits `files` on a new branch `name` from `main`, then checks `main` out again.
    pub fn branch(&self, name: &str, files: &[(&str, &str)]) {
        self.repo.git(&["switch", "-q", "-c", name, "main"]);
        for (path, text) in files {
            // An existing file keeps its mode (fizz.sh stays executable).
            self.repo.write(path, text);
        }
        commit_all(&self.repo, &format!("work on {name}"));
        self.repo.git(&["switch", "-q", "main"]);
    }

    /// The labels of bead `id`.
    pub fn labels(&self, id: &str) -> String {
        self.repo.json(&["show", id])[0]["labels"].to_string()
    }

    /// The status of bead `id`.
    pub fn status(&self, id: &str) -> String {
        self.repo.json(&["show", id])[0]["status"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// A linked worktree on a new branch `name` from `main`, in a folder of its own.
    pub fn worktree(&self, name: &str) -> (TempDir, PathBuf) {
        let holder = tempfile::tempdir().expect("tempdir");
        let dir = holder.path().join("wt");
        self.repo.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            name,
            &dir.display().to_string(),
            "main",
        ]);
        (holder, dir)
    }
}

/// Commits every change in the work tree.
pub fn commit_all(repo: &Repo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

/// An ssh signing identity: a key made by `ssh-keygen` and a home whose git config signs
/// every commit with it (`gpg.format ssh`, `commit.gpgsign`).
pub struct Signer {
    /// Holds the key and the home.
    pub dir: TempDir,
    /// The principal (email) it signs as.
    pub email: String,
}

impl Signer {
    /// A new key for `name <email>`, or `None` when `ssh-keygen` is missing.
    pub fn new(name: &str, email: &str) -> Option<Signer> {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = dir.path().join("key");
        let made = std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", email, "-f"])
            .arg(&key)
            .status()
            .ok()?;
        if !made.success() {
            return None;
        }
        std::fs::write(
            dir.path().join(".gitconfig"),
            format!(
                "[user]\n\tname = {name}\n\temail = {email}\n\tsigningkey = {}\n[gpg]\n\tformat = ssh\n[commit]\n\tgpgsign = true\n",
                key.display()
            ),
        )
        .expect("gitconfig");
        Some(Signer {
            dir,
            email: email.to_string(),
        })
    }

    /// The allowed-signers line naming this key.
    pub fn allowed(&self) -> String {
        let public = std::fs::read_to_string(self.dir.path().join("key.pub")).expect("pub");
        format!("{} {}", self.email, public.trim())
    }

    /// The HOME to run vermas (and git) as this signer.
    pub fn home(&self) -> String {
        self.dir.path().display().to_string()
    }
}

/// Removes the repository's own identity and signing settings, so each run signs (or
/// not) as the HOME it is given.
pub fn identity_from_home(repo: &Repo) {
    for key in ["user.name", "user.email", "commit.gpgsign"] {
        repo.git(&["config", "--unset", key]);
    }
}
