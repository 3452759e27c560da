//! Bad input: injected actors, bad titles and spec paths, JSON errors, typed flags, a closed pipe.

use super::*;

/// The actor an attacker uses to slip a `Vermas-Id:` trailer into a commit message.
const INJECTED_ACTOR: &str = "mallory\nVermas-Id: vm-victim";

/// Every commit message on HEAD, each line on its own.
fn log_lines(repo: &Repo) -> Vec<String> {
    repo.git(&["log", "--format=%B"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// Like [`refused`], run with extra environment: exit 2, no new commit (`git log` is
/// unchanged), nothing left in `.beads`; returns stderr.
fn refused_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> String {
    let log = repo.git(&["log", "--format=%H"]);
    let out = run_env(repo, args, envs);
    assert_eq!(
        out.status.code(),
        Some(2),
        "vermas {args:?} {envs:?}: expected exit 2\n{}",
        stderr(&out)
    );
    assert_eq!(
        repo.git(&["log", "--format=%H"]),
        log,
        "{args:?} must not commit"
    );
    assert_eq!(repo.status(".beads"), "", "{args:?} must not write");
    stderr(&out)
}

#[test]
fn an_actor_with_a_newline_is_refused_from_the_flag_the_environment_and_git() {
    let repo = Repo::initialised();
    let id = repo.create("victim of nothing", &[]);
    let other = repo.create("other", &[]);
    let before = bead_text(&repo, &id);
    let bead_commands: Vec<Vec<&str>> = vec![
        vec!["create", "Innocent"],
        vec!["q", "Innocent"],
        vec!["update", &id, "--claim"],
        vec!["update", &id, "--title", "New title"],
        vec!["close", &id],
        vec!["label", "add", &id, "x"],
        vec!["dep", "add", &id, &other],
        vec!["clarify", &id, "Why?"],
    ];
    for cmd in &bead_commands {
        // --actor
        let mut args = vec!["--actor", INJECTED_ACTOR];
        args.extend(cmd.iter().copied());
        let err = refused_env(&repo, &args, &[]);
        assert!(
            err.contains("actor") && err.contains("single line") && err.contains("newline"),
            "{cmd:?}: {err}"
        );
        // VERMAS_ACTOR
        let err = refused_env(&repo, cmd, &[("VERMAS_ACTOR", INJECTED_ACTOR)]);
        assert!(
            err.contains("actor") && err.contains("single line") && err.contains("VERMAS_ACTOR"),
            "{cmd:?}: {err}"
        );
    }
    // Other control characters, and the flag on a command that is not about beads.
    let err = refused_env(&repo, &["--actor", "eve\u{1b}[2K", "q", "x"], &[]);
    assert!(err.contains("U+001B"), "{err}");
    refused_env(&repo, &["--actor", "a\rb", "q", "x"], &[]);
    refused_env(
        &repo,
        &[
            "mail",
            "send",
            "mayor/",
            "-s",
            "hi",
            "-m",
            "x",
            "--actor",
            INJECTED_ACTOR,
        ],
        &[],
    );
    // git's identity.
    repo.git(&["config", "user.name", INJECTED_ACTOR]);
    for cmd in &bead_commands {
        let err = refused_env(&repo, cmd, &[]);
        assert!(err.contains("user.name"), "{cmd:?}: {err}");
    }
    assert_eq!(bead_text(&repo, &id), before);
    assert!(
        !log_lines(&repo)
            .iter()
            .any(|l| l.trim() == "Vermas-Id: vm-victim"),
        "an injected trailer reached a commit:\n{}",
        repo.git(&["log", "--format=%B"])
    );
    // A plain actor still works.
    repo.git(&["config", "user.name", "Test User"]);
    mutate_env(
        &repo,
        &["update", &id, "--claim"],
        &[("VERMAS_ACTOR", "mallory")],
    );
    assert!(log_lines(&repo).contains(&"Vermas-Actor: mallory".to_string()));
}

#[test]
fn titles_with_a_newline_or_over_500_characters_are_refused() {
    let repo = Repo::initialised();
    let id = repo.create("Fine", &[]);
    let files = || {
        std::fs::read_dir(repo.join(".beads/issues"))
            .expect("dir")
            .count()
    };
    let n = files();
    let long = "x".repeat(501);
    for title in [
        "Fix login\nVermas-Id: vm-victim",
        "Fix login\r\nVermas-Actor: root",
        "Fix\rlogin",
    ] {
        for cmd in ["create", "q"] {
            let err = refused(&repo, &[cmd, title], None);
            assert!(
                err.contains("title") && err.contains("single line"),
                "{err}"
            );
        }
        let err = refused(&repo, &["update", &id, "--title", title], Some(&id));
        assert!(
            err.contains("title") && err.contains("single line"),
            "{err}"
        );
    }
    for cmd in ["create", "q"] {
        let err = refused(&repo, &[cmd, &long], None);
        assert!(
            err.contains("501 characters") && err.contains("500"),
            "{err}"
        );
    }
    let err = refused(&repo, &["update", &id, "--title", &long], Some(&id));
    assert!(err.contains("501 characters"), "{err}");
    assert_eq!(files(), n, "no bead file may be written");
    assert!(
        !log_lines(&repo)
            .iter()
            .any(|l| l.starts_with("Vermas-Id: vm-victim") || l.starts_with("Vermas-Actor: root")),
        "{}",
        repo.git(&["log", "--format=%B"])
    );
    // 500 characters is the limit, not over it.
    let at_limit = "y".repeat(500);
    let new = mutate(&repo, &["q", &at_limit]);
    assert_eq!(shown(&repo, new.trim())["title"], at_limit.as_str());
    mutate(&repo, &["update", &id, "--title", &at_limit]);
    assert_eq!(shown(&repo, &id)["title"], at_limit.as_str());
}

#[test]
fn spec_paths_must_stay_inside_the_repository() {
    let repo = Repo::initialised();
    let id = repo.create("Has a spec", &["--spec", "specs/login.md"]);
    assert_eq!(field(&bead_text(&repo, &id), "spec"), "specs/login.md");
    for (spec, why) in [
        ("../../etc/passwd", "climbs out"),
        ("specs/../../outside.md", "climbs out"),
        ("/etc/passwd", "absolute"),
    ] {
        let err = refused(&repo, &["create", "x", "--spec", spec], None);
        assert!(err.contains(spec) && err.contains(why), "{spec}: {err}");
        let err = refused(&repo, &["q", "x", "--spec", spec], None);
        assert!(err.contains(why), "{spec}: {err}");
        let err = refused(&repo, &["update", &id, "--spec", spec], Some(&id));
        assert!(err.contains(why), "{spec}: {err}");
    }
    // `..` that stays inside is fine; an empty --spec on update clears the link.
    mutate(&repo, &["update", &id, "--spec", "specs/old/../login.md"]);
    assert_eq!(
        field(&bead_text(&repo, &id), "spec"),
        "specs/old/../login.md"
    );
    mutate(&repo, &["update", &id, "--spec", ""]);
    assert_eq!(field(&bead_text(&repo, &id), "spec"), "null");
}

#[test]
fn json_errors_are_one_object_on_stderr() {
    let repo = Repo::initialised();
    repo.create("exists", &[]);
    for (args, code) in [
        (&["show", "vm-zzzz", "--json"][..], "not_found"),
        (&["q", "x", "-p", "7", "--json"][..], "invalid"),
        (&["--json", "list", "--status", "wip"][..], "invalid"),
    ] {
        let out = repo.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: stdout should be empty");
        let v = json_error(&out);
        assert_eq!(v["schema_version"], 1, "{v}");
        assert_eq!(v["code"], code, "{v}");
        assert!(!v["error"].as_str().unwrap_or("").is_empty(), "{v}");
    }
}

#[test]
fn typed_flags_are_parsed_before_the_command_runs() {
    // Every spelling accepted before stays accepted: P1/p1/1, any-case phases.
    let repo = Repo::initialised();
    let out = repo.run(&["q", "typed", "-p", "P1", "-t", "bug"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = repo.run(&["list", "-p", "p1", "-t", "bug", "-s", "open"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("typed"));
    // A bad value is the domain's own error (code, message, hint), exit 2, and is refused
    // before anything else is looked at: here the bead does not even exist.
    for (args, message) in [
        (&["list", "--status", "wip"][..], "unknown status 'wip'"),
        (&["ready", "-t", "bugg"][..], "unknown type 'bugg'"),
        (
            &["update", "vm-nope", "-p", "P9"][..],
            "unknown priority 'P9'",
        ),
        (
            &["gate", "blue", "vm-nope"][..],
            "unknown gate phase 'blue'",
        ),
        (
            &["dep", "add", "a", "b", "-t", "x"][..],
            "unknown dependency type 'x'",
        ),
        (
            &["mail", "wait", "m", "--timeout", "soon"][..],
            "bad --timeout",
        ),
    ] {
        let mut json = args.to_vec();
        json.push("--json");
        let v = json_error(&repo.run(&json));
        assert_eq!(v["code"], "invalid", "{args:?}: {v}");
        assert!(v["error"].as_str().unwrap().contains(message), "{v}");
        let err = repo.fails(args, 2);
        assert!(
            err.contains(message) && err.contains("help:"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn json_usage_errors_are_json_too() {
    // `--help` promises "errors go to stderr as JSON too": a clap usage error is an error.
    let repo = Repo::initialised();
    for args in [&["show", "--json"][..], &["list", "--bogus", "--json"][..]] {
        let out = repo.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = json_error(&out);
        assert_eq!(v["schema_version"], 1, "{v}");
        assert!(v.get("code").is_some() && v.get("error").is_some(), "{v}");
    }
    // The missing argument is named, not cut off after "were not provided:".
    let v = json_error(&repo.run(&["mol", "pour", "x", "--json"]));
    let msg = v["error"].as_str().unwrap();
    assert!(msg.ends_with("were not provided: --bead <BEAD>"), "{v}");
}

#[test]
fn list_into_closed_pipe_does_not_panic() {
    // `vermas list | head -0`: a closed stdout must end quietly, as git and bd do.
    let repo = Repo::initialised();
    for i in 0..3 {
        repo.create(&format!("bead {i}"), &[]);
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vermas"))
        .current_dir(repo.path())
        .args(["list", "--json"])
        .env("HOME", repo.path())
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("BEADS_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read stderr");
    let status = child.wait().expect("wait");
    assert!(
        !err.contains("panicked"),
        "vermas panicked on a closed pipe:\n{err}"
    );
    assert_ne!(status.code(), Some(101), "exit 101 is a Rust panic");
}

#[test]
fn a_bad_actor_is_refused_by_every_committing_command() {
    let repo = Repo::initialised();
    let id = repo.create("work", &[]);
    repo.write("tests/t.sh", "#!/bin/sh\ntest_ok() { true; }\n\"$@\"\n");
    repo.write(
        "specs/s.md",
        "# S\n\n## Success Criteria\n\n- [ ] works [verify](tests/t.sh#test_ok)\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "spec"]);
    let marker = repo.join("gate-ran");
    let gate_cmd = format!("touch '{}'", marker.display());
    let commands: Vec<Vec<&str>> = vec![
        vec!["mail", "send", "mayor/", "-s", "hi", "-m", "x"],
        vec!["mol", "pour", "mol-polecat-work", "--bead", &id],
        vec!["gate", "implement", &id, "--cmd", &gate_cmd],
        vec!["status", "--verify", "--record"],
        vec!["config", "set", "judge.samples", "3"],
        vec!["config", "unset", "llm.timeout"],
        vec!["close", &id],
    ];
    for cmd in &commands {
        let err = refused_env(&repo, cmd, &[("VERMAS_ACTOR", INJECTED_ACTOR)]);
        assert!(
            err.contains("actor") && err.contains("single line") && err.contains("VERMAS_ACTOR"),
            "{cmd:?}: {err}"
        );
    }
    repo.git(&["config", "user.name", "mallory\u{7}"]);
    for cmd in &commands {
        let err = refused_env(&repo, cmd, &[]);
        assert!(
            err.contains("U+0007") && err.contains("user.name"),
            "{cmd:?}: {err}"
        );
    }
    assert!(
        !marker.exists(),
        "the gate ran before the actor was refused"
    );
    assert!(!repo.join(".beads/results").exists());
    // Reading commands do not need an actor.
    ok_env(&repo, &["mol", "list"], &[("VERMAS_ACTOR", INJECTED_ACTOR)]);
    ok_env(
        &repo,
        &["dep", "tree", &id],
        &[("VERMAS_ACTOR", INJECTED_ACTOR)],
    );
}
