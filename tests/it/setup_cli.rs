//! Setup commands end to end: `init`, `config get/set`, `completions`, `doctor`, and what
//! every bead command says when there is no `.beads` yet. Each test runs the real binary in
//! a real temporary git repository (or, for the outside-git case, a plain folder) and
//! checks the result with real git and by reading the files.

use crate::common::*;

use std::process::Command as StdCommand;

/// Top-level sections and leaf settings `init` must write out.
const SECTIONS: &[&str] = &[
    "git:", "verify:", "llm:", "judge:", "specs:", "gates:", "hooks:",
];

/// Whether real git sees a commit at HEAD.
fn has_head(repo: &Repo) -> bool {
    StdCommand::new("git")
        .current_dir(repo.path())
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git")
        .status
        .success()
}

/// Files changed by the HEAD commit, sorted.
fn head_files(repo: &Repo) -> Vec<String> {
    let mut files: Vec<String> = repo
        .git(&["show", "--name-only", "--format=", "HEAD"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    files.sort();
    files
}

/// The lines of `text` belonging to top-level section `header` (e.g. `git:`), header excluded.
fn section<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| *l != header);
    assert!(lines.next().is_some(), "section {header} missing:\n{text}");
    lines
        .take_while(|l| l.is_empty() || l.starts_with(' ') || l.starts_with('#'))
        .collect()
}

/// A temporary folder that is not a git repository, wrapped so the helpers work.
fn plain_folder() -> Repo {
    let dir = tempfile::Builder::new()
        .prefix("vermas-plain")
        .tempdir()
        .expect("tempdir");
    Repo { dir }
}

#[test]
fn init_writes_commented_config_ignores_and_attributes_in_one_commit() {
    let repo = Repo::new();
    let out = repo.run(&["init", "--prefix", "vm"]);
    assert!(out.status.success(), "init failed: {}", stderr(&out));

    // vermas.yaml: every default written out, with comments.
    let cfg = repo.read(".beads/vermas.yaml");
    for line in [
        "prefix: vm",
        "  commit: true",
        "  author: null",
        "  jobs: null",
        "  timeout: 120s",
        "  output_cap: 1048576",
        "  skip_codes: [77, 78]",
        "  runners: {}",
        "  command: claude -p",
        "  timeout: 300s",
        "  roles: {}",
        "  max_file_bytes: 65536",
        "  samples: 1",
        "  dir: specs",
        "  red: null",
        "  green: null",
        "  refactor: null",
        "  implement: null",
        "    scope: changed",
    ] {
        assert!(
            cfg.lines().any(|l| l == line),
            "vermas.yaml lacks the default line {line:?}:\n{cfg}"
        );
    }
    for header in SECTIONS {
        let body = section(&cfg, header);
        assert!(
            body.iter().any(|l| l.trim_start().starts_with("# ")),
            "section {header} of vermas.yaml has no comment:\n{cfg}"
        );
    }
    assert!(
        cfg.lines().next().unwrap_or("").starts_with('#'),
        "vermas.yaml should open with an explanatory comment:\n{cfg}"
    );

    // .gitignore and .gitattributes, checked with real git.
    let ignore = repo.read(".beads/.gitignore");
    assert!(ignore.lines().any(|l| l == ".cache/"), "{ignore}");
    assert!(ignore.lines().any(|l| l == "wisps/"), "{ignore}");
    let ignored = repo.git(&[
        "check-ignore",
        ".beads/.cache/index",
        ".beads/wisps/w-1.yaml",
    ]);
    assert!(ignored.contains(".beads/.cache/index"), "{ignored}");
    assert!(ignored.contains(".beads/wisps/w-1.yaml"), "{ignored}");
    let attrs = repo.read(".beads/.gitattributes");
    assert!(attrs.lines().any(|l| l == "* -text -filter"), "{attrs}");
    let check = repo.git(&[
        "check-attr",
        "text",
        "filter",
        "--",
        ".beads/issues/vm-x.md",
    ]);
    assert!(check.contains("text: unset"), "{check}");
    assert!(check.contains("filter: unset"), "{check}");

    // Exactly one commit holding exactly those three files.
    assert_eq!(repo.commit_count(), 1);
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("vermas init: "), "subject: {subject}");
    assert_eq!(
        head_files(&repo),
        [
            ".beads/.gitattributes",
            ".beads/.gitignore",
            ".beads/vermas.yaml"
        ]
    );
    assert_eq!(repo.status(".beads"), "");
    assert_eq!(repo.status("."), "");
    repo.assert_fsck();
}

#[test]
fn init_twice_makes_no_new_commit_and_changes_nothing() {
    let repo = Repo::initialised();
    let before = repo.read(".beads/vermas.yaml");
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.ok(&["init", "--prefix", "vm"]);
    repo.ok(&["init"]);
    assert_eq!(repo.commit_count(), 1);
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.read(".beads/vermas.yaml"), before);
    assert_eq!(repo.status("."), "");
}

#[test]
fn init_in_repo_without_commits_makes_root_commit_on_current_branch() {
    let repo = Repo::new();
    assert!(!has_head(&repo), "fresh repository should have no commits");
    repo.ok(&["init", "--prefix", "vm"]);
    assert!(has_head(&repo));
    assert_eq!(
        repo.git(&["symbolic-ref", "--short", "HEAD"]).trim(),
        "main"
    );
    // A root commit: no parent line.
    let raw = repo.git(&["cat-file", "-p", "HEAD"]);
    assert!(!raw.contains("\nparent "), "{raw}");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>"]).trim(),
        "Test User <test@example.com>"
    );
    assert_eq!(repo.git(&["ls-files", ".beads"]).lines().count(), 3);
}

#[test]
fn init_from_subfolder_creates_beads_at_repository_root() {
    let repo = Repo::new();
    let sub = repo.join("a/b");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let out = repo
        .cmd_in(&sub, &["init", "--prefix", "vm"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(repo.join(".beads/vermas.yaml").is_file());
    assert!(
        !sub.join(".beads").exists(),
        "must not create .beads in the subfolder"
    );
    assert!(!repo.join("a/.beads").exists());
    assert_eq!(repo.commit_count(), 1);
    assert_eq!(
        repo.status("."),
        "",
        "an empty subfolder leaves nothing to commit"
    );

    // And bead commands from the subfolder find it.
    let id = repo
        .cmd_in(&sub, &["q", "from below"])
        .output()
        .expect("run");
    assert!(id.status.success(), "{}", stderr(&id));
    let id = stdout(&id).trim().to_string();
    assert!(repo.join(&format!(".beads/issues/{id}.md")).is_file());
    assert_eq!(repo.commit_count(), 2);
}

#[test]
fn init_outside_git_works_and_says_history_is_not_recorded() {
    let dir = plain_folder();
    assert!(!dir.join(".git").exists());
    let out = dir.run(&["init", "--prefix", "vm"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not inside a git repository") && err.contains("not being recorded"),
        "stderr should note that history is not recorded: {err}"
    );
    assert!(dir.join(".beads/vermas.yaml").is_file());
    assert!(dir.join(".beads/.gitignore").is_file());
    assert!(dir.join(".beads/.gitattributes").is_file());
    assert!(
        !dir.join(".git").exists(),
        "init must not create a git repository"
    );

    // Bead commands keep working there, with the same note.
    let out = dir.run(&["q", "plain bead"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(dir.join(&format!(".beads/issues/{id}.md")).is_file());
    assert!(
        stderr(&out).contains("not being recorded"),
        "{}",
        stderr(&out)
    );
    assert!(dir.ok(&["list"]).contains(&id));
}

#[test]
fn init_refuses_bad_prefix_with_exit_2() {
    let repo = Repo::new();
    let err = repo.fails(&["init", "--prefix", "Bad!"], 2);
    assert!(err.contains("Bad!"), "{err}");
    assert!(err.contains("prefix"), "{err}");
    assert!(!repo.join(".beads").exists(), "nothing may be written");
    assert!(!has_head(&repo), "nothing may be committed");
}

#[test]
fn config_get_prefix() {
    let repo = Repo::initialised();
    assert_eq!(repo.ok(&["config", "get", "prefix"]), "vm\n");
    let v = repo.json(&["config", "get", "prefix"]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["value"], "vm");
    assert_eq!(repo.ok(&["config", "get", "verify.timeout"]).trim(), "120s");
    assert_eq!(repo.ok(&["config", "get", "git.commit"]).trim(), "true");
}

#[test]
fn timeouts_keep_their_spelling_and_a_bad_one_names_its_key() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "llm.timeout", "1.5m"]);
    assert_eq!(repo.ok(&["config", "get", "llm.timeout"]).trim(), "1.5m");
    assert_eq!(
        repo.json(&["config", "get", "llm.timeout"])["value"],
        "1.5m"
    );
    let cfg = repo.read(".beads/vermas.yaml");
    assert!(cfg.lines().any(|l| l == "  timeout: 1.5m"), "{cfg}");
    let err = repo.fails(&["config", "set", "gates.timeout", "soon"], 2);
    assert!(
        err.contains("gates.timeout: 'soon' is not a duration")
            && !err.contains("gates.timeout: gates"),
        "{err}"
    );
    // A hand-edited file: the error points at the key's line.
    let text = cfg.replace("  hook_timeout: 30s", "  hook_timeout: 400d");
    assert_ne!(text, cfg, "the default hook_timeout is rendered");
    std::fs::write(repo.join(".beads/vermas.yaml"), text).unwrap();
    let err = repo.fails(&["config", "get", "inspect.hook_timeout"], 2);
    assert!(
        err.contains("inspect.hook_timeout: duration 400d is too long (at most 365d)"),
        "{err}"
    );
}

#[test]
fn config_set_git_commit_false_commits_config_then_writes_without_committing() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "git.commit", "false"]);
    assert_eq!(repo.commit_count(), 2, "config set commits vermas.yaml");
    assert_eq!(head_files(&repo), [".beads/vermas.yaml"]);
    assert!(
        repo.git(&["log", "-1", "--format=%s"])
            .starts_with("vermas config: git.commit")
    );
    assert_eq!(repo.status(".beads"), "");
    let cfg = repo.read(".beads/vermas.yaml");
    assert!(cfg.lines().any(|l| l == "  commit: false"), "{cfg}");
    assert!(
        cfg.lines().any(|l| l.trim_start().starts_with("# ")),
        "comments must survive config set:\n{cfg}"
    );
    assert_eq!(repo.ok(&["config", "get", "git.commit"]).trim(), "false");

    let id = repo.create("uncommitted", &[]);
    assert_eq!(
        repo.commit_count(),
        2,
        "create must not commit with git.commit false"
    );
    assert!(repo.join(&format!(".beads/issues/{id}.md")).is_file());
    let st = repo.git(&["status", "--porcelain", "--untracked-files=all", ".beads"]);
    assert_eq!(st, format!("?? .beads/issues/{id}.md\n"));
    assert!(repo.status(".beads").starts_with("?? .beads/issues"));
}

#[test]
fn config_set_llm_role_then_get() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "llm.roles.judge", "cat -u"]);
    assert_eq!(repo.ok(&["config", "get", "llm.roles.judge"]), "cat -u\n");
    assert_eq!(repo.commit_count(), 2);
    assert_eq!(repo.status(".beads"), "");
    // Other settings untouched.
    assert_eq!(
        repo.ok(&["config", "get", "llm.command"]).trim(),
        "claude -p"
    );
    assert_eq!(repo.ok(&["config", "get", "prefix"]).trim(), "vm");
    repo.assert_fsck();
}

#[test]
fn config_set_unknown_key_is_refused() {
    let repo = Repo::initialised();
    let before = repo.read(".beads/vermas.yaml");
    let err = repo.fails(&["config", "set", "nope", "1"], 2);
    assert!(err.contains("nope"), "{err}");
    assert_eq!(repo.read(".beads/vermas.yaml"), before);
    assert_eq!(repo.commit_count(), 1);
    repo.fails(&["config", "get", "nope"], 2);
}

#[test]
fn hand_written_unknown_key_is_an_error_with_file_and_line() {
    let repo = Repo::initialised();
    let mut cfg = repo.read(".beads/vermas.yaml");
    if !cfg.ends_with('\n') {
        cfg.push('\n');
    }
    let line = cfg.lines().count() + 1;
    cfg.push_str("bogus: 1\n");
    repo.write(".beads/vermas.yaml", &cfg);

    for args in [&["list"][..], &["config", "get", "prefix"][..]] {
        let err = repo.fails(args, 2);
        assert!(err.contains("bogus"), "{args:?}: {err}");
        assert!(
            err.contains(&format!("vermas.yaml:{line}:1")),
            "{args:?}: stderr should point at vermas.yaml:{line}:1:\n{err}"
        );
    }

    let out = repo.run(&["list", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(stderr(&out).trim()).expect("JSON error");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["line"], line);
    assert!(
        v["file"].as_str().unwrap_or("").ends_with("vermas.yaml"),
        "{v}"
    );
    assert!(v["error"].as_str().unwrap_or("").contains("bogus"), "{v}");
}

#[test]
fn hand_written_unknown_nested_key_points_at_its_line() {
    let repo = Repo::initialised();
    repo.write(
        ".beads/vermas.yaml",
        "prefix: vm\ngit:\n  commit: true\n  bogus: 1\n",
    );
    let err = repo.fails(&["list"], 2);
    assert!(err.contains("bogus"), "{err}");
    assert!(err.contains("vermas.yaml:4:3"), "{err}");
}

#[test]
fn config_set_jobs_not_a_number_is_refused() {
    let repo = Repo::initialised();
    let before = repo.read(".beads/vermas.yaml");
    let err = repo.fails(&["config", "set", "verify.jobs", "notanumber"], 2);
    assert!(err.contains("verify.jobs"), "{err}");
    assert_eq!(repo.read(".beads/vermas.yaml"), before);
    assert_eq!(repo.commit_count(), 1);
    assert_eq!(repo.ok(&["config", "get", "verify.jobs"]).trim(), "null");
    // A number is accepted.
    repo.ok(&["config", "set", "verify.jobs", "3"]);
    assert_eq!(repo.ok(&["config", "get", "verify.jobs"]).trim(), "3");
    assert_eq!(repo.commit_count(), 2);
}

#[test]
fn completions_bash_prints_a_script_for_vermas() {
    let repo = Repo::new();
    let script = repo.ok(&["completions", "bash"]);
    assert!(
        script.contains("_vermas"),
        "{}",
        &script[..script.len().min(500)]
    );
    assert!(
        script.contains("complete "),
        "bash script should register with `complete`"
    );
    // Dynamic: the script asks vermas itself for the candidates as you type.
    assert!(script.contains("COMPLETE=\"bash\""), "{script}");
    repo.fails(&["completions", "tcsh"], 2);
}

#[test]
fn bead_commands_without_beads_tell_user_to_run_init() {
    let repo = Repo::new();
    for args in [
        &["list"][..],
        &["ready"][..],
        &["show", "vm-abcd"][..],
        &["q", "title"][..],
        &["create", "title"][..],
        &["close", "vm-abcd"][..],
        &["config", "get", "prefix"][..],
    ] {
        let err = repo.fails(args, 2);
        assert!(
            err.contains("vermas init"),
            "{args:?}: stderr should say to run `vermas init`:\n{err}"
        );
    }
    assert!(!repo.join(".beads").exists());
    assert!(!has_head(&repo));
}

#[test]
fn doctor_on_healthy_repo_exits_zero() {
    let repo = Repo::initialised();
    // An LLM command that exists (the default `claude` may not be installed).
    repo.ok(&["config", "set", "llm.command", "cat"]);
    let a = repo.create("one", &[]);
    repo.create("two", &["--deps", &a]);
    let out = repo.ok(&["doctor"]);
    assert!(!out.contains("error"), "{out}");
    assert!(out.contains("2 beads"), "{out}");
    let v = repo.json(&["doctor"]);
    let checks = v.as_array().expect("doctor --json is a list");
    assert!(!checks.is_empty());
    for c in checks {
        assert_eq!(c["level"], "ok", "{c}");
    }
}

#[test]
fn doctor_reports_unreadable_bead() {
    let repo = Repo::initialised();
    repo.create("fine", &[]);
    repo.write(
        ".beads/issues/vm-bad1.md",
        "---\nid: vm-bad1\ntitle: x\nstatus: [\n---\n",
    );
    let out = repo.run(&["doctor"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "doctor must fail on a broken bead"
    );
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("vm-bad1.md"), "{all}");
}

#[test]
fn hand_written_skip_codes_0_1_or_out_of_range_are_refused_with_file_line_and_column() {
    let repo = Repo::initialised();
    let rendered = repo.read(".beads/vermas.yaml");
    let line = rendered
        .lines()
        .position(|l| l == "  skip_codes: [77, 78]")
        .expect("skip_codes line")
        + 1;
    for (codes, word) in [("[0, 1]", "0"), ("[77, 1]", "1"), ("[77, 256]", "256")] {
        repo.write(
            ".beads/vermas.yaml",
            &rendered.replace("skip_codes: [77, 78]", &format!("skip_codes: {codes}")),
        );
        for args in [&["list"][..], &["status", "--verify"][..]] {
            let err = repo.fails(args, 2);
            assert!(
                err.contains("verify.skip_codes") && err.contains(&format!("hold {word}")),
                "{codes} {args:?}: {err}"
            );
            assert!(
                err.contains(&format!("vermas.yaml:{line}:15")),
                "{codes} {args:?}: should point at vermas.yaml:{line}:15:\n{err}"
            );
        }
    }
    // In range: accepted.
    repo.write(
        ".beads/vermas.yaml",
        &rendered.replace("skip_codes: [77, 78]", "skip_codes: [2, 255]"),
    );
    assert_eq!(
        repo.ok(&["config", "get", "verify.skip_codes"]).trim(),
        "[2,255]"
    );
}

#[test]
fn config_set_skip_codes_0_or_1_is_refused_and_nothing_changes() {
    let repo = Repo::initialised();
    let before = repo.read(".beads/vermas.yaml");
    for value in ["0,1", "[77, 1]", "77,0", "[300]", "[-1, 77]"] {
        let err = repo.fails(&["config", "set", "verify.skip_codes", value], 2);
        assert!(err.contains("verify.skip_codes"), "{value}: {err}");
        assert!(err.contains("2 to 255"), "{value}: {err}");
        assert_eq!(repo.read(".beads/vermas.yaml"), before, "{value}");
        assert_eq!(repo.commit_count(), 1, "{value}");
    }
    let err = repo.fails(&["config", "set", "verify.skip_codes", "0,1"], 2);
    assert!(err.contains("exit 0 means PASS"), "{err}");
    repo.ok(&["config", "set", "verify.skip_codes", "77,2"]);
    assert_eq!(
        repo.ok(&["config", "get", "verify.skip_codes"]).trim(),
        "[77,2]"
    );
    assert_eq!(repo.commit_count(), 2);
}

#[test]
fn config_unset_restores_the_default_or_removes_the_entry_and_commits() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "judge.samples", "3"]);
    repo.ok(&["config", "set", "llm.roles.critic", "cat"]);
    repo.ok(&["config", "set", "gates.green", "cargo test"]);
    let before = repo.commit_count();
    let out = repo.ok(&["config", "unset", "judge.samples"]);
    assert_eq!(out, "judge.samples = 1\n");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "vermas config: unset judge.samples"
    );
    assert_eq!(head_files(&repo), [".beads/vermas.yaml"]);
    assert_eq!(repo.status(".beads"), "");
    repo.ok(&["config", "unset", "llm.roles.critic"]);
    assert!(!repo.read(".beads/vermas.yaml").contains("    critic: cat"));
    repo.fails(&["config", "get", "llm.roles.critic"], 2);
    repo.ok(&["config", "unset", "gates.green"]);
    assert_eq!(repo.ok(&["config", "get", "gates.green"]).trim(), "null");
    assert_eq!(repo.commit_count(), before + 3);
    // Unsetting what is already at its default changes nothing.
    let out = repo.run(&["config", "unset", "judge.samples"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("nothing changed"), "{}", stderr(&out));
    assert_eq!(repo.commit_count(), before + 3);
    // Unknown keys, sections and the id prefix are refused.
    let config = repo.read(".beads/vermas.yaml");
    for (key, says) in [
        ("nope", "unknown config key"),
        ("judge.sample", "unknown config key"),
        ("llm.roles.poet", "unknown config key"),
        ("git", "section"),
        ("prefix", "cannot be unset"),
    ] {
        let err = repo.fails(&["config", "unset", key], 2);
        assert!(err.contains(says), "{key}: {err}");
    }
    assert_eq!(repo.read(".beads/vermas.yaml"), config);
    assert_eq!(repo.commit_count(), before + 3);
}

#[test]
fn llm_roles_are_only_the_known_ones_at_set_and_at_load() {
    let repo = Repo::initialised();
    for role in [
        "judge",
        "auditor",
        "advocate",
        "critic",
        "designer",
        "strategist",
    ] {
        repo.ok(&["config", "set", &format!("llm.roles.{role}"), "cat"]);
    }
    let config = repo.read(".beads/vermas.yaml");
    let before = repo.commit_count();
    let err = repo.fails(&["config", "set", "llm.roles.poet", "cat"], 2);
    assert!(err.contains("unknown LLM role 'poet'"), "{err}");
    assert!(err.contains("strategist"), "{err}");
    assert_eq!(repo.read(".beads/vermas.yaml"), config);
    assert_eq!(repo.commit_count(), before);
    // Hand-written: refused when loading, at the role's line.
    let edited = config.replace("    judge: cat\n", "    judge: cat\n    poet: cat\n");
    assert_ne!(edited, config);
    repo.write(".beads/vermas.yaml", &edited);
    let line = edited
        .lines()
        .position(|l| l == "    poet: cat")
        .expect("line")
        + 1;
    let err = repo.fails(&["list"], 2);
    assert!(err.contains("unknown LLM role 'poet'"), "{err}");
    assert!(err.contains(&format!("vermas.yaml:{line}")), "{err}");
}

#[test]
fn llm_commands_whose_program_is_not_found_are_refused_at_set() {
    let repo = Repo::initialised();
    repo.write("bin/ask-llm", "#!/bin/sh\necho PASS\n");
    let config = repo.read(".beads/vermas.yaml");
    for (key, value, program) in [
        ("llm.command", "vermas-no-such-llm -p", "vermas-no-such-llm"),
        (
            "llm.command",
            "MODEL=x 'vermas no such' -p",
            "vermas no such",
        ),
        ("llm.command", "/nonexistent/llm", "/nonexistent/llm"),
        ("llm.roles.judge", "./bin/missing --fast", "./bin/missing"),
    ] {
        let err = repo.fails(&["config", "set", key, value], 2);
        assert!(err.contains("not a runnable command"), "{value}: {err}");
        assert!(err.contains(&format!("'{program}'")), "{value}: {err}");
        assert_eq!(repo.read(".beads/vermas.yaml"), config, "{value}");
        assert_eq!(repo.commit_count(), 1, "{value}");
    }
    // Programs on PATH, existing files (relative to the repository) and "none" are fine.
    for (key, value) in [
        ("llm.command", "cat"),
        ("llm.command", "FOO=1 sh -c 'cat'"),
        ("llm.roles.critic", "./bin/ask-llm --fast"),
        ("llm.command", ""),
    ] {
        repo.ok(&["config", "set", key, value]);
        assert_eq!(repo.ok(&["config", "get", key]), format!("{value}\n"));
    }
}

#[test]
fn doctor_reports_missing_llm_commands_and_spec_paths() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "llm.command", "cat"]);
    repo.write("specs/there.md", "# There\n");
    let good = repo.create("linked", &["--spec", "specs/there.md"]);
    let bad = repo.create("dangling", &["--spec", "specs/gone.md"]);
    // Hand-written commands that do not exist.
    let config = repo.read(".beads/vermas.yaml").replace(
        "  roles: {}\n",
        "  roles:\n    critic: vermas-no-such-critic --x\n",
    );
    repo.write(".beads/vermas.yaml", &config);
    repo.write_llm_command("/nonexistent/llm -p");
    // Committed, so the hand edit is not itself a finding here.
    repo.git(&["commit", "-qam", "hand-edited config"]);
    let out = repo.run(&["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("llm.command: not a runnable command") && text.contains("/nonexistent/llm"),
        "{text}"
    );
    assert!(
        text.contains("llm.roles.critic: not a runnable command")
            && text.contains("vermas-no-such-critic"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{bad} links spec specs/gone.md, which does not exist"
        )),
        "{text}"
    );
    assert!(!text.contains(&good), "{text}");
    let v = repo.json(&["doctor"]);
    let warnings: Vec<&str> = v
        .as_array()
        .expect("list")
        .iter()
        .filter(|f| f["level"] == "warning")
        .map(|f| f["message"].as_str().expect("message"))
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
}

#[test]
fn doctor_says_where_the_prefix_comes_from_without_one_in_the_config() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "llm.command", "cat"]);
    repo.create("one", &[]);
    let config = repo
        .read(".beads/vermas.yaml")
        .replace("\nprefix: vm\n", "\n");
    repo.write(".beads/vermas.yaml", &config);
    let text = repo.ok(&["doctor"]);
    assert!(text.contains("sets no prefix: new ids take 'vm'"), "{text}");
}
