//! What people read: error headlines carry the message (not the code), warnings are drawn
//! as warnings, a huge line in a record does not crash the renderer, and no command
//! panics when its reader goes away.

use crate::common::*;
use std::io::Read;
use std::process::Stdio;

#[test]
fn an_error_headline_is_the_message_not_the_code() {
    let repo = Repo::initialised();
    let out = repo.run(&["show", "vm-nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or("");
    assert_eq!(first, "error: no bead matches 'vm-nope'", "{err}");
    assert!(!err.contains("vermas::"), "{err}");
}

#[test]
fn a_parse_error_past_column_65535_is_reported_without_a_panic() {
    let repo = Repo::initialised();
    let title = "a".repeat(70_000);
    repo.write(
        ".beads/issues/vm-big.md",
        &format!("---\nid: vm-big\ntitle: {title}: b\n---\n"),
    );
    for args in [&["show", "vm-big"][..], &["list"]] {
        let out = repo.run(args);
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains(".beads/issues/vm-big.md:3:"),
            "{args:?} names the place: {err}"
        );
        assert!(err.len() < 2_000, "{args:?}: the long line is not printed");
    }
}

#[test]
fn no_command_panics_on_a_closed_pipe() {
    let repo = Repo::initialised();
    for i in 0..30 {
        repo.create(&format!("Bead number {i}"), &[]);
    }
    for args in [
        &["completions", "bash"][..],
        &["list", "-n", "0"],
        &["list", "-n", "0", "--json"],
        &["--help"],
    ] {
        let mut child = crate::specs::support::command(&repo, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Read one byte, then hang up, as `| head -c1` does.
        let mut stdout = child.stdout.take().expect("stdout");
        let mut one = [0u8; 1];
        let _ = stdout.read(&mut one);
        drop(stdout);
        let out = child.wait_with_output().expect("wait");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn counts_of_one_are_singular() {
    let repo = Repo::initialised();
    repo.write(
        "specs/one.md",
        "# One\n\n## Success Criteria\n\n- [ ] broken link\n  [verify](../tests/missing.sh#test_x)\n",
    );
    let out = repo.run(&["spec", "check"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("1 spec checked: 1 error, 0 warnings"),
        "{text}"
    );
    let out = repo.ok(&["doctor"]);
    assert!(out.contains("ok      0 beads readable"), "{out}");
    repo.create("Only one", &[]);
    let out = repo.ok(&["doctor"]);
    assert!(out.contains("ok      1 bead readable"), "{out}");
}

#[test]
fn a_count_of_one_step_or_criterion_is_singular() {
    let repo = repo_with_formulas(&[(
        "one",
        "formula = \"one\"\n\n[[steps]]\nid = \"only\"\ntitle = \"Only\"\n",
    )]);
    let out = repo.ok(&["mol", "wisp", "one"]);
    assert!(out.contains(": one (1 step), expires"), "{out}");
    let list = repo.ok(&["mol", "list"]);
    assert!(list.contains("  0/1 step  "), "{list}");

    // A task with its test spec, which gets exactly one criterion.
    let repo = Repo::initialised_with_test_specs();
    let work = repo.create("Work", &[]);
    repo.ok(&[
        "inspect",
        "add-criteria",
        &work,
        "-d",
        "it works",
        "--cmd",
        "true",
    ]);
    let err = repo.fails(&["gate", "green", &work, "--ac", "5"], 2);
    assert!(err.contains("has 1 acceptance criterion"), "{err}");
}
