//! Calling an LLM command: the prompt on stdin, the reply on stdout, through the check
//! runner (process group, timeout), with replies kept in `.beads/.cache/<kind>/` keyed by
//! a hash of the command, the prompt and a salt, so an unchanged question costs nothing
//! the second time; each kept reply carries a MAC under the repository's cache key, so a
//! reply written by anyone but vermas is never taken. Used by judge checks and by the
//! Inspector's roles.

use crate::proc::{self, Job};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most bytes of a reply that are read; a longer reply is an error, never cut and read.
pub(crate) const REPLY_CAP: usize = 1 << 20;

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
    /// accepted replies are kept, each bound to this repository's cache key by a MAC: an
    /// entry without a valid one was not written by vermas and is ignored (the third value
    /// says so).
    pub fn ask<T>(
        &self,
        root: &Path,
        kind: &str,
        salt: &str,
        prompt: &str,
        accept: impl Fn(&str) -> Result<T, String>,
    ) -> Result<(String, T, Option<String>), String> {
        let key = format!("{}\0{salt}\0{prompt}", self.command);
        let id = prompt_hash(&key)?;
        let cached = self.cache_dir.as_ref().and_then(|d| {
            let mac_key = crate::git::GitRepo::open(d.parent().unwrap_or(d))?.cache_key()?;
            Some((d, d.join(kind).join(format!("{id}.txt")), mac_key))
        });
        let mut foreign = None;
        if self.use_cache
            && let Some((_, file, mac_key)) = &cached
            && let Ok(text) = std::fs::read_to_string(file)
        {
            match bound(mac_key, &id, &text) {
                Some(reply) => {
                    if let Ok(v) = accept(reply) {
                        return Ok((reply.to_string(), v, None));
                    }
                }
                None => {
                    foreign = Some(format!(
                        "the cached reply {} was not written by vermas (no valid MAC): \
                         ignored, and the LLM asked",
                        file.display()
                    ));
                }
            }
        }
        let reply = self.call(root, prompt)?;
        let v = accept(&reply)?;
        if let Some((dir, file, mac_key)) = &cached {
            let text = format!("{MAC_HEADER}{}\n{reply}", mac_of(mac_key, &id, &reply));
            // Best effort: a reply not cached is asked for again next time.
            let _ = crate::store::write_atomic(dir, file, text.as_bytes());
        }
        Ok((reply, v, foreign))
    }

    /// Runs the command in `root` with the prompt on stdin and returns its output.
    pub fn call(&self, root: &Path, prompt: &str) -> Result<String, String> {
        let how = "set llm.command in .beads/vermas.yaml to a command that reads a prompt on stdin and prints the reply (`vermas config set llm.command CMD`), or to `vermas stand-in` to try vermas without a model";
        if self.command.trim().is_empty() {
            return Err(format!("no LLM is configured: {how}"));
        }
        let job = Job::shell(self.command.clone(), root, self.timeout, REPLY_CAP)
            .with_stdin(prompt.as_bytes());
        let done = proc::run(&job);
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

/// The first line of a cached reply: its MAC.
const MAC_HEADER: &str = "vermas-mac ";

/// The MAC of the reply `reply` to the question `id` under `key`.
fn mac_of(key: &[u8], id: &str, reply: &str) -> String {
    crate::sys::hash::mac(key, format!("{id}\0{reply}").as_bytes())
}

/// The reply a cache file's `text` holds, when its MAC under `key` is valid.
fn bound<'t>(key: &[u8], id: &str, text: &'t str) -> Option<&'t str> {
    let (head, reply) = text.strip_prefix(MAC_HEADER)?.split_once('\n')?;
    (head == mac_of(key, id, reply)).then_some(reply)
}

/// The hex hash that names a cached reply (and is recorded as the prompt's hash).
pub(crate) fn prompt_hash(text: &str) -> Result<String, String> {
    Ok(crate::sys::hash::blob(text))
}
