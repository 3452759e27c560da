//! Calling an LLM command: the prompt on stdin, the reply on stdout, through the check
//! runner (process group, timeout), with replies kept in `.beads/.cache/<kind>/` keyed by
//! a hash of the command, the prompt and a salt, so an unchanged question costs nothing
//! the second time. Used by judge checks and by the Inspector's roles.

use crate::check::process::{self, Job};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most bytes of a reply that are read; a longer reply is an error, never cut and read.
pub const REPLY_CAP: usize = 1 << 20;

/// One LLM command and how to call it.
#[derive(Debug, Clone)]
pub struct Llm {
    /// The command (prompt on stdin, reply on stdout), run with `sh -c`.
    pub command: String,
    /// Longest one call may take.
    pub timeout: Duration,
    /// `.beads/.cache`, where replies are kept (`None`: no caching).
    pub cache_dir: Option<PathBuf>,
    /// Use cached replies.
    pub use_cache: bool,
}

impl Llm {
    /// A reply to `prompt` that `accept` takes, from the cache (folder `kind`) when the
    /// same command, prompt and `salt` were answered before, else from the command. Only
    /// accepted replies are kept.
    pub fn ask<T>(
        &self,
        root: &Path,
        kind: &str,
        salt: &str,
        prompt: &str,
        accept: impl Fn(&str) -> Result<T, String>,
    ) -> Result<(String, T), String> {
        let key = format!("{}\0{salt}\0{prompt}", self.command);
        let id = prompt_hash(&key)?;
        let cached = self
            .cache_dir
            .as_ref()
            .map(|d| (d, d.join(kind).join(format!("{id}.txt"))));
        if self.use_cache
            && let Some((_, file)) = &cached
            && let Ok(reply) = std::fs::read_to_string(file)
            && let Ok(v) = accept(&reply)
        {
            return Ok((reply, v));
        }
        let reply = self.call(root, prompt)?;
        let v = accept(&reply)?;
        if let Some((dir, file)) = &cached {
            // Best effort: a reply not cached is asked for again next time.
            let _ = crate::store::write_atomic(dir, file, reply.as_bytes());
        }
        Ok((reply, v))
    }

    /// Runs the command in `root` with the prompt on stdin and returns its output.
    pub fn call(&self, root: &Path, prompt: &str) -> Result<String, String> {
        let how = "set llm.command in .beads/vermas.yaml to a command that reads a prompt on stdin and prints the reply (`vermas config set llm.command CMD`; see the README's LLM section)";
        if self.command.trim().is_empty() {
            return Err(format!("no LLM is configured: {how}"));
        }
        let job = Job::shell(self.command.clone(), root, self.timeout, REPLY_CAP)
            .with_stdin(prompt.as_bytes());
        let done = process::run(&job);
        if let Some(e) = done.spawn_error {
            return Err(format!("{e}; {how}"));
        }
        if done.timed_out {
            return Err(format!(
                "the LLM command `{}` timed out after {:.0}s",
                self.command,
                self.timeout.as_secs_f64()
            ));
        }
        let text = done.text();
        match done.exit_code {
            // A cut reply is never read: its real ending (the verdict) may be what was cut.
            Some(0) if done.truncated() => Err(format!(
                "the reply of `{}` is longer than {REPLY_CAP} bytes ({} bytes): a cut reply is \
                 never read",
                self.command, done.output_total
            )),
            Some(0) => Ok(text),
            Some(127) => Err(format!(
                "the LLM command `{}` was not found; {how}",
                self.command
            )),
            Some(code) => Err(format!(
                "the LLM command `{}` failed (exit {code}): {}",
                self.command,
                super::verdict::tail(&text, 300)
            )),
            None => Err(format!(
                "the LLM command `{}` was killed by a signal",
                self.command
            )),
        }
    }
}

/// The hex hash that names a cached reply (and is recorded as the prompt's hash).
pub fn prompt_hash(text: &str) -> Result<String, String> {
    Ok(crate::hash::blob(text))
}
