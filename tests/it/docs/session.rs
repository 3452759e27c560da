//! A reader's terminal for one document: a fresh home folder (which is also where the
//! commands start), git's identity set there, the vermas under test first on PATH, and each
//! command run by bash with the folder and exported variables the previous one left, its
//! stdout and stderr together as a terminal shows them.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How the home folder is shown in the documents.
pub const SHOWN_HOME: &str = "/home/ada";

/// The longest a documented command may take.
const TIMEOUT: Duration = Duration::from_secs(300);

/// One document's terminal.
pub struct Session {
    home: tempfile::TempDir,
    state: tempfile::TempDir,
    path: String,
}

impl Session {
    /// A fresh home folder with git's identity (`ada <ada@example.com>`, branch `main`).
    pub fn new() -> Session {
        let home = tempfile::Builder::new()
            .prefix("vermas-doc")
            .tempdir()
            .expect("tempdir");
        let state = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(home.path().join("tmp")).expect("tmp");
        std::fs::write(
            home.path().join(".gitconfig"),
            "[user]\n\tname = ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n\
             [advice]\n\tdetachedHead = false\n[commit]\n\tgpgsign = false\n",
        )
        .expect("gitconfig");
        std::fs::write(
            state.path().join("cwd"),
            home.path().as_os_str().as_encoded_bytes(),
        )
        .expect("cwd");
        std::fs::write(state.path().join("env"), "").expect("env");
        let bin = std::path::Path::new(env!("CARGO_BIN_EXE_vermas"));
        let path = format!(
            "{}:{}",
            bin.parent().expect("bin dir").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Session { home, state, path }
    }

    /// The folder commands run in now.
    pub fn cwd(&self) -> PathBuf {
        let cwd = std::fs::read_to_string(self.state.path().join("cwd")).expect("cwd");
        PathBuf::from(cwd.trim_end_matches('\n'))
    }

    /// Runs `text` with bash; its output (home shown as [`SHOWN_HOME`]) and exit code.
    pub fn run(&self, text: &str) -> (String, i32) {
        let state = self.state.path();
        std::fs::write(state.join("cmd"), text).expect("cmd");
        let out_path = state.join("out");
        let out = std::fs::File::create(&out_path).expect("out");
        let script = r#". "$1/env"
cd "$(cat "$1/cwd")" || exit 97
. "$1/cmd"
__rc=$?
pwd > "$1/cwd"
export -p > "$1/env"
exit $__rc"#;
        let mut child = Command::new("bash")
            .args(["-c", script, "doc-test"])
            .arg(state)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", self.home.path())
            .env("TMPDIR", self.home.path().join("tmp"))
            .env("TMUX_TMPDIR", self.home.path().join("tmp"))
            .env("USER", "ada")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("dup"))
            .stderr(out)
            .process_group(0)
            .spawn()
            .expect("run bash");
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if started.elapsed() > TIMEOUT {
                // SAFETY: kill(2) of the process group this test started.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                panic!("`{text}` ran over {TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut text_out = String::new();
        std::fs::File::open(&out_path)
            .and_then(|mut f| f.read_to_string(&mut text_out))
            .expect("read output");
        (self.shown(&text_out), status.code().unwrap_or(128))
    }

    /// Writes `content` to `rel` (from the current folder), its folders made.
    pub fn write(&self, rel: &str, content: &str) {
        let path = self.cwd().join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
    }

    /// `text` with the home folder's real path shown as the documents show it.
    fn shown(&self, text: &str) -> String {
        let real = self.home.path();
        let mut out = text.to_string();
        for form in [canonical(real), real.to_path_buf()] {
            out = out.replace(&*form.to_string_lossy(), SHOWN_HOME);
        }
        out
    }
}

/// `path` with its symlinks resolved (`/tmp` may be one).
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
