//! What to run ([`Job`]) and how a run ended ([`Finished`]).

use std::path::PathBuf;
use std::time::Duration;

/// The variable every job vermas runs finds vermas's own path in.
pub const SELF_VAR: &str = "VERMAS_BIN";

/// What to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub dir: PathBuf,
    /// Bytes for stdin; `None` closes it.
    pub stdin: Option<Vec<u8>>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Longest it may run.
    pub timeout: Duration,
    /// Bytes of output kept.
    pub output_cap: usize,
}

impl Job {
    /// Runs `program` with `args` in `dir`, stdin closed, no extra environment, killed
    /// with its whole process group after `timeout`, keeping `output_cap` bytes of output.
    pub fn new(
        program: impl Into<String>,
        args: Vec<String>,
        dir: impl Into<PathBuf>,
        timeout: Duration,
        output_cap: usize,
    ) -> Job {
        Job {
            program: program.into(),
            args,
            dir: dir.into(),
            stdin: None,
            env: Vec::new(),
            timeout,
            output_cap,
        }
    }

    /// Runs the shell command `command` (`sh -c`), as [`Job::new`] does a program.
    pub fn shell(
        command: impl Into<String>,
        dir: impl Into<PathBuf>,
        timeout: Duration,
        output_cap: usize,
    ) -> Job {
        Job::new(
            "sh",
            vec!["-c".into(), command.into()],
            dir,
            timeout,
            output_cap,
        )
    }

    /// The same job with `bytes` on its stdin.
    pub fn with_stdin(mut self, bytes: impl Into<Vec<u8>>) -> Job {
        self.stdin = Some(bytes.into());
        self
    }

    /// The same job with one more environment variable.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Job {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub struct Finished {
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// Signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Killed at the deadline.
    pub timed_out: bool,
    /// It could not be started: why.
    pub spawn_error: Option<String>,
    /// Stdout and stderr, interleaved as written: all of it when it fits the cap, else its
    /// first and last bytes (half the cap each) around a line saying how much was left out.
    pub output: Vec<u8>,
    /// Bytes it wrote in all.
    pub output_total: u64,
    /// Bytes of output left out in the middle.
    pub dropped: u64,
    /// Wall time.
    pub duration: Duration,
}

impl Finished {
    /// True when output was left out to keep within the cap.
    pub fn truncated(&self) -> bool {
        self.dropped > 0
    }

    /// The kept output as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }
}
