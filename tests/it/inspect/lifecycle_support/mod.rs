//! Helpers of the pre-push gate tests: a working repository with a real bare remote, check
//! scripts that leave markers when they run, and `git push` with the built `vermas` on PATH.
#![allow(dead_code)]

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

/// A working repository with vermas, a bare remote `origin`, and a folder for markers the
/// checks leave when they run.
pub struct Setup {
    /// The working repository.
    pub repo: Repo,
    /// The bare remote `origin`.
    pub remote: TempDir,
    /// Where checks leave their markers.
    pub marks: TempDir,
}

/// A fresh temporary folder.
pub fn tempdir(prefix: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("tempdir")
}

/// `git init --bare` in a new folder.
pub fn bare_remote() -> TempDir {
    let dir = tempdir("vermas-remote");
    git_in(dir.path(), &["init", "-q", "--bare", "-b", "main"]);
    dir
}

/// Runs git in `dir` with the test environment, asserting success; returns stdout.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = git_cmd(dir, args).output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} in {} failed:\n{}",
        dir.display(),
        stderr(&out)
    );
    stdout(&out)
}

/// A git command in `dir` with no outside configuration, the built `vermas` first on PATH.
pub fn git_cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir).args(args).stdin(Stdio::null());
    for var in LEAKY_ENV {
        c.env_remove(var);
    }
    c.env_remove("VERMAS_SKIP")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .env("PATH", path_with_vermas());
    c
}

/// PATH with the folder of the built binary in front.
pub fn path_with_vermas() -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_vermas"));
    let dir = bin.parent().expect("bin folder").display().to_string();
    format!("{dir}:{}", std::env::var("PATH").unwrap_or_default())
}

impl Setup {
    /// `vermas init`, one spec `alpha` whose check passes, `origin` added; nothing pushed,
    /// no hook installed yet.
    pub fn new() -> Setup {
        let repo = Repo::initialised();
        let remote = bare_remote();
        let marks = tempdir("vermas-marks");
        let s = Setup {
            repo,
            remote,
            marks,
        };
        s.spec("alpha", "tests/alpha.sh");
        s.check("tests/alpha.sh", "alpha", 0);
        s.commit("alpha spec");
        s.repo.git(&[
            "remote",
            "add",
            "origin",
            &s.remote.path().display().to_string(),
        ]);
        s
    }

    /// Writes `specs/<name>.md` with one criterion verified by `test_<name>` in `file`.
    pub fn spec(&self, name: &str, file: &str) {
        self.repo.write(
            &format!("specs/{name}.md"),
            &format!(
                "# {name}\n\n## Success Criteria\n\n- [ ] {name} works\n  [verify]({file}#test_{name})\n"
            ),
        );
    }

    /// Narrows spec `name` with `covers: [src/<name>/*]`: only that folder, the spec and its
    /// linked files then make the pre-push gate run it.
    pub fn narrow(&self, name: &str) {
        let path = format!("specs/{name}.md");
        let text = self.repo.read(&path);
        self.repo.write(
            &path,
            &format!("---\ncovers: [\"src/{name}/*\"]\n---\n{text}"),
        );
    }

    /// Writes a check script defining `test_<name>`: it leaves marker `<name>` and exits
    /// with `code`.
    pub fn check(&self, file: &str, name: &str, code: i32) {
        let mark = self.mark(name);
        self.repo.write(
            file,
            &format!(
                "test_{name}() {{\n  echo ran >> '{}'\n  return {code}\n}}\n",
                mark.display()
            ),
        );
    }

    /// Where marker `name` is written.
    pub fn mark(&self, name: &str) -> PathBuf {
        self.marks.path().join(name)
    }

    /// How often the check leaving marker `name` ran.
    pub fn runs(&self, name: &str) -> usize {
        std::fs::read_to_string(self.mark(name)).map_or(0, |s| s.lines().count())
    }

    /// Forgets every marker.
    pub fn clear_marks(&self) {
        for e in std::fs::read_dir(self.marks.path()).expect("marks") {
            std::fs::remove_file(e.expect("entry").path()).expect("rm mark");
        }
    }

    /// `git add -A && git commit`.
    pub fn commit(&self, message: &str) {
        self.repo.git(&["add", "-A"]);
        self.repo.git(&["commit", "-q", "-m", message]);
    }

    /// `git push ARGS` from the repository with `env`; the output, whatever the result.
    pub fn push_env(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut all = vec!["push"];
        all.extend_from_slice(args);
        let mut c = git_cmd(dir, &all);
        c.env("HOME", self.repo.path());
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("git push")
    }

    /// `git push origin main`.
    pub fn push(&self) -> Output {
        self.push_env(self.repo.path(), &["origin", "main"], &[])
    }

    /// The remote's value of `rf`, if it has one.
    pub fn remote_ref(&self, rf: &str) -> Option<String> {
        let out = git_cmd(self.remote.path(), &["rev-parse", "--verify", "-q", rf])
            .output()
            .expect("rev-parse");
        out.status
            .success()
            .then(|| stdout(&out).trim().to_string())
    }

    /// The local value of `rev`.
    pub fn local(&self, rev: &str) -> String {
        self.repo.git(&["rev-parse", rev]).trim().to_string()
    }

    /// Asserts the push was refused and the remote's `main` did not move to HEAD.
    pub fn assert_refused(&self, out: &Output, before: Option<&str>) {
        assert!(
            !out.status.success(),
            "push should be refused\nstdout: {}\nstderr: {}",
            stdout(out),
            stderr(out)
        );
        assert_eq!(self.remote_ref("refs/heads/main").as_deref(), before);
    }

    /// Asserts the push went through: the remote's `main` is HEAD.
    pub fn assert_accepted(&self, out: &Output) {
        assert!(
            out.status.success(),
            "push should be accepted\nstdout: {}\nstderr: {}",
            stdout(out),
            stderr(out)
        );
        assert_eq!(self.remote_ref("refs/heads/main"), Some(self.local("HEAD")));
    }

    /// The default hooks folder.
    pub fn hooks_dir(&self) -> PathBuf {
        self.repo.join(".git/hooks")
    }
}

/// Both streams of an output.
pub fn all(o: &Output) -> String {
    format!("{}\n{}", stdout(o), stderr(o))
}

/// A foreign hook: logs its arguments and stdin to `log`, then exits with the code in
/// `code_file` (0 when the file is missing).
pub fn foreign_hook(log: &Path, code_file: &Path) -> String {
    format!(
        "#!/bin/sh\n# another tool's hook\necho \"args: $*\" >> '{log}'\ncat >> '{log}'\nexit $(cat '{code}' 2>/dev/null || echo 0)\n",
        log = log.display(),
        code = code_file.display()
    )
}

/// Installs an executable file.
pub fn write_exec(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}
