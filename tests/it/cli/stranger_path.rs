//! The stranger's path: a newcomer's first commands explain themselves. The checks run the
//! vermas that verifies them (never one found on PATH), the README's set-up and completion
//! commands do what they say, `create`/`ready`/`status` name the test specs holding work
//! back, a rubric given as plain words or a target that is not there is refused when added,
//! a git name with a space still has a mailbox, `init` without a git identity suggests what
//! works, and messages say what is meant instead of leaking internals.

use crate::common::*;
use crate::specs::support::{run_env, vermas_bin, write_exec};
use std::path::{Path, PathBuf};

/// This crate's folder (the repository under test).
fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A folder holding a `vermas` stub that exits 1 (touching `ran` when it runs), to put
/// first on PATH: nothing may pick it up in place of the vermas under test.
fn stub_vermas(repo: &Repo) -> (PathBuf, PathBuf) {
    let ran = repo.join(".git/stub-ran");
    write_exec(
        repo,
        ".git/stub/vermas",
        &format!("#!/bin/sh\ntouch '{}'\nexit 1\n", ran.display()),
    );
    (repo.join(".git/stub"), ran)
}

/// PATH with `first` before the caller's.
fn path_with(first: &Path) -> String {
    format!(
        "{}:{}",
        first.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn checks_are_given_the_path_of_the_vermas_running_them() {
    let repo = Repo::initialised();
    let (stub, ran) = stub_vermas(&repo);
    repo.write(
        "tests/self.sh",
        "test_self() { printf '%s' \"$VERMAS_BIN\" > .git/seen; \"$VERMAS_BIN\" --version; }\n",
    );
    repo.write(
        "specs/self.md",
        "# Self\n\n## Success Criteria\n\n- [ ] runs itself\n  [verify](../tests/self.sh#test_self)\n",
    );
    let path = path_with(&stub);
    let r = run_env(
        &repo,
        &["status", "--verify"],
        &[("PATH", &path), ("VERMAS_BIN", "/nonexistent/vermas")],
    );
    r.expect_code(0);
    let seen = PathBuf::from(repo.read(".git/seen"));
    assert_eq!(
        seen.canonicalize().expect("the path names a file"),
        vermas_bin().canonicalize().expect("vermas"),
    );
    assert!(!ran.exists(), "the vermas on PATH ran");
}

#[test]
fn this_repositorys_own_checks_run_the_vermas_verifying_them() {
    let repo = Repo::initialised();
    for file in ["specs/beads.md", "tests/cli/lib.sh", "tests/cli/beads.sh"] {
        let text = std::fs::read_to_string(crate_dir().join(file)).expect("read");
        repo.write(file, &text);
    }
    let (stub, ran) = stub_vermas(&repo);
    let path = path_with(&stub);
    let r = run_env(
        &repo,
        &["status", "--verify", "--spec", "beads"],
        &[("PATH", &path)],
    );
    r.expect_code(0);
    let last = r.last_line();
    assert!(last.contains(" 0 failed"), "{}", r.stdout);
    assert!(!last.starts_with("0 passed"), "{}", r.stdout);
    assert!(!ran.exists(), "the vermas on PATH ran");
}

#[test]
fn the_repositorys_checks_never_fall_back_to_another_vermas() {
    let repo = Repo::new();
    let (stub, ran) = stub_vermas(&repo);
    let out = std::process::Command::new("bash")
        .current_dir(crate_dir())
        .args(["-c", "source tests/cli/lib.sh; fresh_repo"])
        .env_remove("VERMAS_BIN")
        .env("PATH", path_with(&stub))
        .env("TMPDIR", repo.path())
        .output()
        .expect("bash");
    assert!(!out.status.success());
    let said = stdout(&out);
    assert!(said.contains("VERMAS_BIN is not set"), "{said}");
    assert!(said.contains("cargo run -- status --verify"), "{said}");
    assert!(!ran.exists(), "the vermas on PATH ran");
}

/// The commands of the README's `## Build and test vermas` code block.
fn setup_block(readme: &str) -> Vec<String> {
    let at = readme
        .find("## Build and test vermas")
        .expect("a Build and test section");
    let block = readme[at..].split("```").nth(1).expect("a code block");
    block
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().strip_prefix("$ "))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_set_up_shows_the_build_and_ci_runs_its_tests() {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).expect("README");
    let lines = setup_block(&readme);
    let main_job = lines
        .iter()
        .find(|l| l.contains("status --verify"))
        .expect("the main job");
    assert!(main_job.starts_with("cargo run "), "{main_job}");
    // cargo's progress is what a newcomer sees during the first, long build.
    assert!(
        !main_job
            .split_whitespace()
            .any(|w| w == "-q" || w == "--quiet"),
        "{main_job}"
    );
    let ci = std::fs::read_to_string(crate_dir().join(".ci/run")).expect(".ci/run");
    let test = lines
        .iter()
        .find(|l| l.starts_with("cargo test"))
        .expect("the test command");
    assert!(
        ci.lines().any(|l| l.trim() == test),
        "{test} not in .ci/run"
    );
}

#[test]
fn no_python_bytecode_is_tracked() {
    let out = std::process::Command::new("git")
        .current_dir(crate_dir())
        .args(["ls-files", "--", ":(glob)**/__pycache__/**", "*.pyc"])
        .output()
        .expect("git");
    assert_eq!(stdout(&out), "", "tracked bytecode");
    let ignore = std::fs::read_to_string(crate_dir().join(".gitignore")).expect(".gitignore");
    assert!(
        ignore.lines().any(|l| l.trim() == "__pycache__/"),
        "{ignore}"
    );
}

#[test]
fn create_ready_and_status_name_the_test_specs_holding_work_back() {
    let repo = Repo::initialised_with_test_specs();
    // Nothing waits yet: the plain answer.
    assert_eq!(repo.ok(&["ready"]), "No ready work.\n");
    let out = repo.ok(&["create", "Implement FizzBuzz"]);
    let id = out
        .split_whitespace()
        .nth(1)
        .expect("an id")
        .trim_end_matches(':');
    let spec = id.replacen("vm-", "vm-spec-", 1);
    assert!(out.contains(&format!("test spec {spec}")), "{out}");
    assert!(out.contains("inspector/"), "{out}");
    assert!(out.contains("vermas inspect pending"), "{out}");
    let q = repo.json(&["q", "Pick a CI provider"]);
    let q_id = q["id"].as_str().expect("id");
    assert_eq!(q["test_spec"], q_id.replacen("vm-", "vm-spec-", 1));
    // q alone still prints only the id.
    let plain = repo.ok(&["q", "Third"]);
    assert_eq!(plain.lines().count(), 1, "{plain}");

    let ready = repo.ok(&["ready"]);
    assert!(
        ready.contains("3 beads wait for their test spec"),
        "{ready}"
    );
    assert!(ready.contains("vermas inspect pending"), "{ready}");
    assert_eq!(repo.json(&["ready"]), serde_json::json!([]));

    let status = repo.ok(&["status"]);
    assert!(status.contains("Test specs pending: 3"), "{status}");
    assert!(status.contains("Live specs: none"), "{status}");
    assert!(!status.lines().any(|l| l.starts_with("Specs")), "{status}");
    assert_eq!(repo.json(&["status"])["test_specs_pending"], 3);
}

#[test]
fn add_criteria_refuses_a_rubric_in_words_and_targets_that_are_not_there() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.create("Implement FizzBuzz", &[]);
    let spec = work.replacen("vm-", "vm-spec-", 1);
    let add = |target: &str, flag: &str| {
        repo.run(&["inspect", "add-criteria", &spec, "-d", "x", flag, target])
    };
    let before = repo.commit_count();
    let out = add("fizzbuzz.sh is short and clear", "--judge");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--judge FILE#FUNCTION"), "{err}");
    assert!(err.contains("--cmd"), "{err}");

    let err = stderr(&add("tests/judge.sh#test_clear", "--judge"));
    assert!(err.contains("tests/judge.sh does not exist"), "{err}");
    let err = stderr(&add("tests/fb.sh#test_fifteen", "--verify"));
    assert!(err.contains("tests/fb.sh does not exist"), "{err}");
    repo.write("tests/fb.sh", "test_three() { true; }\n");
    let out = add("tests/fb.sh#test_fifteen", "--verify");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("tests/fb.sh defines no function test_fifteen"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.commit_count(), before, "nothing refused was recorded");

    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "3",
        "--verify",
        "tests/fb.sh#test_three",
    ]);
    repo.write("tests/judge.sh", "test_clear() { judge_criterion x; }\n");
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "c",
        "--judge",
        "tests/judge.sh#test_clear",
    ]);
}

#[test]
fn a_git_name_with_a_space_has_a_mailbox_and_is_told_which() {
    let repo = Repo::initialised();
    repo.git(&["config", "user.name", "New Comer"]);
    let out = repo.run(&["mail", "inbox"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("new-comer/"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("using new-comer/"),
        "{}",
        stderr(&out)
    );
    let out = repo.run(&["mail", "send", "mayor/", "-s", "hello", "-m", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("'New Comer'"), "{}", stderr(&out));
    let mail = repo.json(&["mail", "inbox", "mayor/"]);
    assert!(mail.to_string().contains("new-comer/"), "{mail}");
    // Chosen explicitly: no note.
    let out = repo.run(&["mail", "inbox", "mayor/"]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn init_without_a_git_identity_suggests_what_works() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("project");
    std::fs::create_dir(&dir).expect("mkdir");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(&dir)
            .args(args)
            .env("HOME", home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git");
        assert!(ok.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    let init = || {
        let mut c = std::process::Command::new(vermas_bin());
        c.current_dir(&dir).args(["init", "--prefix", "vm"]);
        for var in LEAKY_ENV {
            c.env_remove(var);
        }
        c.env_remove("EMAIL")
            .env("HOME", home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .output()
            .expect("vermas")
    };
    let out = init();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("git config --global user.name"), "{err}");
    assert!(err.contains("without --global"), "{err}");
    assert!(!err.contains("vermas config set"), "{err}");
    assert!(!dir.join(".beads").exists());
    // What it suggests works (here for this repository only).
    git(&["config", "user.name", "Your Name"]);
    git(&["config", "user.email", "you@example.com"]);
    let out = init();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_strategist_reply_of_the_wrong_shape_says_what_is_expected() {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.git(&["commit", "-qam", "the stand-in LLM"]);
    let id = repo.create("Work", &[]);
    let r = run_env(
        &repo,
        &["strategize", &id, "--yes"],
        &[(
            "FAKE_REPLY_STRATEGIST",
            r#"["fizzbuzz.sh is short and clear"]"#,
        )],
    );
    r.expect_code(1);
    assert!(!r.stderr.contains("struct Draft"), "{}", r.stderr);
    assert!(r.stderr.contains("expected a criterion"), "{}", r.stderr);
    assert!(r.stderr.contains("\"description\""), "{}", r.stderr);
}

#[test]
fn the_auditors_finding_is_printed_once() {
    let repo = Repo::initialised_with_test_specs();
    repo.use_llm(&roles_llm());
    let work = repo.create("Implement FizzBuzz", &[]);
    let spec = work.replacen("vm-", "vm-spec-", 1);
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "it runs",
        "--cmd",
        "true",
    ]);
    repo.ok(&["inspect", "approve", &spec]);
    let out = repo.ok(&["inspect", "run", &work]);
    assert!(
        out.contains("auditor: ac-1 met (the evidence shows it)"),
        "{out}"
    );
    assert!(!out.contains("met: met"), "{out}");
    // inspect status names the bead `id`, as every listing does (`key` is kept).
    let status = repo.json(&["inspect", "status"]);
    assert_eq!(status[0]["id"], work.as_str());
    assert_eq!(status[0]["key"], work.as_str());
}

#[test]
fn an_empty_llm_command_is_refused() {
    let repo = Repo::initialised();
    let before = repo.commit_count();
    for key in ["llm.command", "llm.roles.judge"] {
        let err = repo.fails(&["config", "set", key, ""], 2);
        // miette wraps the help: compare with the line breaks as spaces.
        let err = err.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(err.contains("cannot be empty"), "{err}");
        assert!(err.contains(&format!("vermas config unset {key}")), "{err}");
    }
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn a_json_usage_error_keeps_the_similar_command_tip() {
    let repo = Repo::initialised();
    let err = repo.fails(&["lsit", "--json"], 2);
    let v: serde_json::Value = serde_json::from_str(err.trim()).expect("JSON error");
    assert_eq!(v["code"], "usage");
    assert!(v["help"].as_str().unwrap_or("").contains("'list'"), "{v}");
}

#[test]
fn the_guides_completion_example_completes() {
    let repo = Repo::initialised();
    let id = repo.create("Complete me", &[]);
    let guide = std::fs::read_to_string(crate_dir().join("docs/beads.md")).expect("guide");
    let example = guide
        .split('`')
        .find(|s| s.starts_with("COMPLETE=bash ") && s.contains("vermas show vm-"))
        .expect("docs/beads.md's completion example");
    let bin = vermas_bin();
    let dir = bin.parent().expect("bin folder");
    let out = std::process::Command::new("bash")
        .current_dir(repo.path())
        .args(["-c", example])
        .env("PATH", path_with(dir))
        .env("HOME", repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("bash");
    assert!(out.status.success(), "{example}: {}", stderr(&out));
    assert!(
        stdout(&out).lines().any(|l| l == id),
        "{example}: {}",
        stdout(&out)
    );
}
