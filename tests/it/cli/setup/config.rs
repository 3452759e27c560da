//! `config get/set/unset` and hand-written config: keys, timeouts, skip codes, LLM roles and commands.

use super::*;

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
    assert_eq!(repo.head_files(), [".beads/vermas.yaml"]);
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
    assert_eq!(repo.head_files(), [".beads/vermas.yaml"]);
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
    // Programs on PATH and existing files (relative to the repository) are fine.
    for (key, value) in [
        ("llm.command", "cat"),
        ("llm.command", "FOO=1 sh -c 'cat'"),
        ("llm.roles.critic", "./bin/ask-llm --fast"),
    ] {
        repo.ok(&["config", "set", key, value]);
        assert_eq!(repo.ok(&["config", "get", key]), format!("{value}\n"));
    }
}
