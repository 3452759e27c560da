//! Shared helpers for the integration tests: real temporary git repositories, the real
//! `vermas` binary, and real `git` to check what it did.
#![allow(dead_code)]

pub mod pty;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;
use tempfile::TempDir;

/// Variables that would leak the caller's git or vermas setup into a test run.
pub const LEAKY_ENV: &[&str] = &[
    "BEADS_DIR",
    "VERMAS_ACTOR",
    "VERMAS_NOW",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "TMUX",
    "TMUX_PANE",
];

/// The scripted stand-in for an LLM command (`fixtures/llm`): reads the prompt on stdin and
/// answers as a model CLI would.
pub fn fake_llm() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/llm")
}

/// The role-aware stand-in (`fixtures/llm-roles`): answers as the Inspector's roles would.
pub fn roles_llm() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/llm-roles")
}

/// A temporary git repository with a fixed identity and no global config influence.
pub struct Repo {
    /// Keeps the folder alive.
    pub dir: TempDir,
}

impl Repo {
    /// `git init` in a fresh temporary folder (no commits yet).
    pub fn new() -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("vermas-test")
            .tempdir()
            .expect("tempdir");
        let repo = Repo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// `git init` plus `vermas init --prefix vm`.
    pub fn initialised() -> Repo {
        let repo = Repo::initialised_with_test_specs();
        // Most tests are about beads alone: no test spec with each new task. The setting
        // goes into vermas's own init commit, so commit counts stay as vermas makes them.
        let path = ".beads/vermas.yaml";
        let text = repo.read(path);
        assert!(text.contains("auto_create: true"), "{text}");
        repo.write(
            path,
            &text.replace("auto_create: true", "auto_create: false"),
        );
        repo.git(&["commit", "-q", "--amend", "--no-edit", "-a"]);
        repo
    }

    /// `git init` plus `vermas init --prefix vm`, with the default of a test spec created
    /// with each new task, feature and bug.
    pub fn initialised_with_test_specs() -> Repo {
        let repo = Repo::new();
        repo.ok(&["init", "--prefix", "vm"]);
        repo
    }

    /// The repository root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the repository.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// A `vermas` command run in the repository root with a clean environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_in(self.path(), args)
    }

    /// A `vermas` command run in `dir`.
    pub fn cmd_in(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("vermas").expect("vermas binary");
        c.current_dir(dir).args(args);
        for var in LEAKY_ENV {
            c.env_remove(var);
        }
        c.env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path());
        c
    }

    /// Runs vermas and returns its output, whatever the exit code.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run vermas")
    }

    /// Runs vermas, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "vermas {args:?} failed ({:?}):\nstdout: {}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs vermas, asserts it failed with `code`, returns stderr.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "vermas {args:?}: expected exit {code}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    /// Runs vermas with `--json` appended, asserts success, parses stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        let text = self.ok(&all);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    /// Creates a bead with `vermas q` and returns its id.
    pub fn create(&self, title: &str, extra: &[&str]) -> String {
        let mut args = vec!["q", title];
        args.extend_from_slice(extra);
        self.ok(&args).trim().to_string()
    }

    /// Every bead (`list --all -n 0 --json`), asserting the command succeeds and warns about
    /// nothing (every file on disk parses).
    pub fn listed(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["list", "--all", "--limit", "0", "--json"]);
        assert!(
            out.status.success(),
            "list failed: {}\n{}",
            stdout(&out),
            stderr(&out)
        );
        assert_eq!(
            stderr(&out),
            "",
            "list warned about a record that does not parse"
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("list JSON");
        v.as_array().expect("list is an array").clone()
    }

    /// Runs real git in the repository, asserts success, returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .current_dir(self.path())
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Number of commits on HEAD.
    pub fn commit_count(&self) -> usize {
        self.git(&["rev-list", "--count", "HEAD"])
            .trim()
            .parse()
            .expect("count")
    }

    /// The paths the HEAD commit changed, sorted.
    pub fn head_files(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .git(&["show", "--name-only", "--format=", "HEAD"])
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        files.sort();
        files
    }

    /// The paths the HEAD commit changed with git's status letter (`A .beads/x.md`), sorted.
    pub fn head_changes(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .git(&["show", "--name-status", "--no-renames", "--format=", "HEAD"])
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        files.sort();
        files
    }

    /// Makes the LLM command the stand-in `program` (`config set llm.command`).
    pub fn use_llm(&self, program: &Path) {
        self.ok(&[
            "config",
            "set",
            "llm.command",
            &format!("'{}'", program.display()),
        ]);
    }

    /// Writes work bead `vm-fizz` and its test spec `vm-spec-fizz` (approved, that is
    /// closed with the approval stamp docs/FORMATS.md defines, when `approved`) with `criteria` as `(id, shell command)` pairs.
    pub fn write_fizz(&self, criteria: &[(&str, &str)], approved: bool) {
        self.write(
            ".beads/issues/vm-fizz.md",
            "---\nid: vm-fizz\ntitle: Implement FizzBuzz\nstatus: in_progress\npriority: 2\nissue_type: task\n---\nPrint 1 to n with Fizz, Buzz and FizzBuzz.\n",
        );
        let mut spec = format!(
            "---\nid: vm-spec-fizz\ntitle: 'Test spec: Implement FizzBuzz'\nstatus: {}\npriority: 2\nissue_type: test-spec\nparent: vm-fizz\nacceptance_criteria:\n",
            if approved { "closed" } else { "open" }
        );
        let mut frozen = Vec::new();
        for (id, cmd) in criteria {
            frozen.push((
                id.to_string(),
                format!("{id} holds"),
                "verify_command",
                cmd.to_string(),
            ));
            let cmd = serde_json::to_string(cmd).expect("quote");
            spec.push_str(&format!(
                "  - {{id: {id}, description: \"{id} holds\", verify_command: {cmd}}}\n"
            ));
        }
        if approved {
            spec.push_str(&approval_stamp(&frozen));
        }
        spec.push_str("---\n");
        self.write(".beads/issues/vm-spec-fizz.md", &spec);
    }

    /// Work titled `title` made by `q` (its test spec made with it), given one criterion
    /// `description` checked by `check` (`["--cmd", "..."]`, `["--verify", "f#fn"]`) and
    /// approved through the CLI; returns the work's and the spec's ids.
    pub fn approved_work(
        &self,
        title: &str,
        description: &str,
        check: [&str; 2],
    ) -> (String, String) {
        let work = self.ok(&["q", title]).trim().to_string();
        let spec = work.replacen("vm-", "vm-spec-", 1);
        self.ok(&[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            description,
            check[0],
            check[1],
        ]);
        self.ok(&["inspect", "approve", &spec]);
        (work, spec)
    }

    /// `git status --porcelain` of a path.
    pub fn status(&self, path: &str) -> String {
        self.git(&["status", "--porcelain", "--", path])
    }

    /// Asserts `git fsck --strict` is clean.
    pub fn assert_fsck(&self) {
        self.git(&["fsck", "--strict", "--no-progress"]);
    }

    /// Writes a file (creating folders).
    pub fn write(&self, rel: &str, content: &str) {
        let p = self.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }

    /// Reads a file.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.join(rel)).expect("read")
    }

    /// Sets `llm.command` by editing `.beads/vermas.yaml` by hand: `config set` refuses a
    /// command whose program is not found, which tests of a missing LLM need.
    pub fn write_llm_command(&self, command: &str) {
        let path = ".beads/vermas.yaml";
        let text = self.read(path);
        let quoted = serde_json::to_string(command).expect("quote");
        let mut found = false;
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                if l.starts_with("  command: ") {
                    found = true;
                    format!("  command: {quoted}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        assert!(found, "no llm command line in {path}:\n{text}");
        self.write(path, &(lines.join("\n") + "\n"));
    }
}

/// `git init` + `vermas init` with formula files `(name, toml)` under `.beads/formulas/`.
pub fn repo_with_formulas(files: &[(&str, &str)]) -> Repo {
    let repo = Repo::initialised();
    for (name, text) in files {
        repo.write(&format!(".beads/formulas/{name}.formula.toml"), text);
    }
    repo
}

/// Runs `vermas mol cook ARGS`, asserts exit 2, returns stderr.
pub fn cook_fails(repo: &Repo, args: &[&str]) -> String {
    let mut all = vec!["mol", "cook"];
    all.extend_from_slice(args);
    repo.fails(&all, 2)
}

/// Stdout of an output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr of an output as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `approved:` line of a test spec approving `criteria`, each `(id, description, check
/// key, check)`: the hash docs/FORMATS.md defines, as `vermas inspect approve` writes it.
pub fn approval_stamp(criteria: &[(String, String, &str, String)]) -> String {
    let mut text = String::new();
    for (id, description, key, check) in criteria {
        text.push_str(&format!("{id}\n{description}\n{key}={check}\n\n"));
    }
    format!(
        "approved: {{criteria: {}, commit: null, by: tester, at: 2026-11-01T00:00:00Z}}\n",
        blob_hash(&text)
    )
}

/// git's blob hash of `text` (`git hash-object --stdin`): the hash of approved criteria.
pub fn blob_hash(text: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("git")
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git hash-object");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("git hash-object");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Runs real git in `dir` with `home` as HOME and no system config, GIT_DIR and friends
/// removed, and `vermas_on_path` putting the vermas binary's folder first on PATH (so git
/// can run the merge driver); the output, whatever the exit code.
pub fn git_at(home: &Path, dir: &Path, args: &[&str], vermas_on_path: bool) -> Output {
    let mut cmd = std::process::Command::new("git");
    if vermas_on_path {
        let bin = assert_cmd::cargo::cargo_bin("vermas");
        let path = format!(
            "{}:{}",
            bin.parent().expect("bin dir").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path);
    }
    cmd.current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("run git")
}

/// [`git_at`], asserting success; its stdout.
pub fn git_ok(home: &Path, dir: &Path, args: &[&str], vermas_on_path: bool) -> String {
    let out = git_at(home, dir, args, vermas_on_path);
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}{}",
        dir.display(),
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// The ids a line-per-record cache file of `repo` holds (the first tab-separated field of
/// each line after its `header` line, which must be the first), sorted.
pub fn cache_ids(repo: &Repo, path: &str, header: &str) -> Vec<String> {
    let text = repo.read(path);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "{text}");
    let mut ids: Vec<String> = lines
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect();
    ids.sort();
    ids
}
