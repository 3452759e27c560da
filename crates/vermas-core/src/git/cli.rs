//! The `git` program, for what the gix features vermas builds with do not cover: merge
//! bases with upstream refs, tree diffs, ref listings, `status` as git shows it, and the
//! temporary worktrees of the baseline check. Records are never written this way; they are
//! committed with gix.

use crate::error::Error;
use std::path::Path;
use std::process::{Command, Stdio};

/// Why a `git` command gave no answer: it could not start, or it exited non-zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitFailed {
    /// The subcommand and its arguments, as run.
    pub command: String,
    /// What git printed on stderr (or why it could not start), trimmed.
    pub message: String,
}

impl std::fmt::Display for GitFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GitFailed {}

impl From<GitFailed> for Error {
    fn from(e: GitFailed) -> Error {
        Error::git_with(format!("git {} failed: {}", e.command, e.message), e)
    }
}

/// A `git` command run in `dir`: stdin closed, no optional locks taken, paths printed
/// unquoted, replacement objects ignored, and the caller's `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` (set when
/// vermas runs inside a git hook) removed so that `dir` alone says which repository.
pub fn command(dir: &Path) -> Command {
    // Never a `git` from a PATH entry inside the repository (or `.`, or an empty one).
    let mut cmd = Command::new(crate::proc::safe_path::program("git", dir));
    cmd.current_dir(dir)
        .args(["--no-optional-locks", "-c", "core.quotepath=off"])
        .stdin(Stdio::null())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        // What is committed, never what a replace ref says instead (`git replace`).
        .env("GIT_NO_REPLACE_OBJECTS", "1");
    cmd
}

/// Runs `git ARGS` in `dir` and returns its stdout.
pub fn run(dir: &Path, args: &[&str]) -> Result<String, GitFailed> {
    stdout(command(dir).args(args), args)
}

/// Runs a prepared `git` command and returns its stdout; `args` name it in the failure.
pub fn stdout(cmd: &mut Command, args: &[&str]) -> Result<String, GitFailed> {
    let failed = |message: String| GitFailed {
        command: args.join(" "),
        message,
    };
    let out = cmd
        .output()
        .map_err(|e| failed(format!("cannot run git: {e}")))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(failed(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_and_failures_carry_what_git_said() {
        let dir = std::env::temp_dir().join(format!("vermas-git-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        run(&dir, &["init", "-q"]).unwrap();
        let top = run(&dir, &["rev-parse", "--show-toplevel"]).unwrap();
        assert!(
            top.trim()
                .ends_with(&format!("vermas-git-cli-{}", std::process::id()))
        );
        let err = run(&dir, &["rev-parse", "--verify", "no-such-ref"]).unwrap_err();
        assert_eq!(err.command, "rev-parse --verify no-such-ref");
        assert!(
            err.message.contains("no-such-ref") || err.message.contains("fatal"),
            "{err}"
        );
        let shown = Error::from(err).to_string();
        assert!(
            shown.starts_with("git: git rev-parse --verify no-such-ref failed:"),
            "{shown}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
