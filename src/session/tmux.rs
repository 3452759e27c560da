//! The `tmux` program: running one tmux command against the server the environment
//! names (`$TMUX` inside tmux, else `$TMUX_TMPDIR`'s default socket), with the errors a
//! user can act on (tmux missing, tmux refusing).

use std::process::{Command, Output, Stdio};
use vermas_core::error::{Error, Result};

/// What tmux answered to a command that may find no server or no target.
pub enum Answer {
    /// It worked: its stdout.
    Done(String),
    /// tmux said no (no server running, no such session, ...): its message.
    Refused(String),
}

/// Runs `tmux ARGS`; a failure is an error carrying tmux's message.
pub fn run(args: &[&str]) -> Result<String> {
    match ask(args)? {
        Answer::Done(out) => Ok(out),
        Answer::Refused(msg) => Err(Error::Invalid(format!(
            "tmux {} failed: {msg}",
            args.first().copied().unwrap_or("")
        ))),
    }
}

/// Runs `tmux ARGS` and returns what it answered; only a tmux that cannot be run is an
/// error.
pub fn ask(args: &[&str]) -> Result<Answer> {
    let out = output(Command::new("tmux").args(args).stdin(Stdio::null()))?;
    if out.status.success() {
        Ok(Answer::Done(
            String::from_utf8_lossy(&out.stdout).into_owned(),
        ))
    } else {
        Ok(Answer::Refused(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ))
    }
}

/// Runs `tmux ARGS` with this process's terminal (attaching), returning its exit code.
pub fn interactive(args: &[&str]) -> Result<i32> {
    let status = Command::new("tmux")
        .args(args)
        .status()
        .map_err(not_runnable)?;
    Ok(status.code().unwrap_or(1))
}

/// Checks that tmux can be run at all (before anything is started).
pub fn check_installed() -> Result<()> {
    output(Command::new("tmux").arg("-V").stdin(Stdio::null())).map(drop)
}

/// True when tmux's message means no server is running (so nothing of ours either).
pub fn no_server(message: &str) -> bool {
    message.contains("no server running")
        || message.contains("error connecting to")
        || message.contains("No such file or directory")
}

/// The output of a tmux command, or the error saying tmux cannot be run.
fn output(cmd: &mut Command) -> Result<Output> {
    cmd.output().map_err(not_runnable)
}

/// The error for a tmux that could not be started.
fn not_runnable(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        Error::invalid_with_help(
            "tmux is not installed (no `tmux` on PATH): the vermas session runs in tmux",
            "install tmux (e.g. `apt install tmux` or `brew install tmux`), then run it again",
        )
    } else {
        Error::Invalid(format!("cannot run tmux: {e}"))
    }
}
