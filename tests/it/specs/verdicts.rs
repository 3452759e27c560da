//! Never green when nothing passed: checks whose function never ran, empty fragments,
//! targets that lead outside the repository, runners that ran no test, criteria with
//! several links, runs that verified nothing, and report flags without a run.

use crate::common::*;
use crate::specs::support::*;

/// A repository with one spec whose criteria are `(text, link)` pairs.
fn spec_repo(criteria: &[(&str, &str)]) -> Repo {
    let repo = Repo::initialised();
    let mut text = String::from("# Lies\n\n## Success Criteria\n\n");
    for (c, link) in criteria {
        text.push_str(&format!("- [ ] {c}\n"));
        for l in link.split(' ').filter(|l| !l.is_empty()) {
            text.push_str(&format!("  [verify]({l})\n"));
        }
    }
    repo.write("specs/lies.md", &text);
    repo
}

#[test]
fn a_function_the_run_never_entered_is_an_error_with_the_fix() {
    let repo = spec_repo(&[
        ("no dispatcher", "tests/t.sh#test_a"),
        ("sourced, exits at top level", "tests/x.sh#test_x"),
        ("dispatched", "tests/ok.sh#test_a"),
    ]);
    // Executable, defines test_a, but never reads its arguments: exit 0 without test_a.
    write_exec(
        &repo,
        "tests/t.sh",
        "#!/usr/bin/env bash\ntest_a() { echo a; }\n",
    );
    // Not executable: sourced by vermas; its top level ends in `exit 0` and lacks test_x.
    repo.write("tests/x.sh", "test_y() { :; }\nexit 0\n");
    write_exec(
        &repo,
        "tests/ok.sh",
        "#!/usr/bin/env bash\ntest_a() { echo a; }\n\"$@\"\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "no dispatcher"), "ERROR", "{j:#}");
    let why = reason(&j, "no dispatcher");
    assert!(why.contains("test_a never ran"), "{why}");
    assert!(why.contains("add \"$@\" at the end of tests/t.sh"), "{why}");
    assert_eq!(outcome(&j, "sourced, exits at top level"), "ERROR", "{j:#}");
    assert!(reason(&j, "sourced, exits at top level").contains("test_x never ran"));
    assert_eq!(outcome(&j, "dispatched"), "PASS", "{j:#}");

    // spec check reports the missing dispatcher and the missing function before any run.
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    assert!(
        r.all().contains("tests/t.sh never reads its arguments"),
        "{}",
        r.all()
    );
    assert!(r.all().contains("add \"$@\" at the end of tests/t.sh"));
    assert!(
        r.all()
            .contains("function test_x is not defined in tests/x.sh"),
        "{}",
        r.all()
    );
}

#[test]
fn a_file_only_link_must_run_something_and_an_empty_fragment_is_an_error() {
    let repo = spec_repo(&[
        ("only definitions", "tests/defs.sh"),
        ("empty fragment", "tests/ok.sh#"),
        ("straight-line test", "tests/flat.sh"),
    ]);
    write_exec(&repo, "tests/defs.sh", "#!/bin/bash\ntest_a() { :; }\n");
    write_exec(
        &repo,
        "tests/ok.sh",
        "#!/bin/bash\ntest_a() { :; }\n\"$@\"\n",
    );
    write_exec(&repo, "tests/flat.sh", "#!/bin/bash\n[ 1 -eq 1 ]\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "only definitions"), "ERROR", "{j:#}");
    assert!(reason(&j, "only definitions").contains("ran no command outside its function"));
    assert_eq!(outcome(&j, "empty fragment"), "ERROR", "{j:#}");
    assert!(reason(&j, "empty fragment").contains("empty function name"));
    assert_eq!(outcome(&j, "straight-line test"), "PASS", "{j:#}");
}

#[test]
fn targets_that_lead_outside_the_repository_are_refused() {
    let repo = spec_repo(&[
        ("linked to true", "tests/true.sh"),
        ("under a linked folder", "tests/usrbin/true"),
    ]);
    std::fs::create_dir_all(repo.join("tests")).expect("mkdir");
    std::os::unix::fs::symlink("/bin/true", repo.join("tests/true.sh")).expect("symlink");
    std::os::unix::fs::symlink("/usr/bin", repo.join("tests/usrbin")).expect("symlink");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    for c in ["linked to true", "under a linked folder"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}: {j:#}");
        assert!(reason(&j, c).contains("outside the repository"), "{j:#}");
    }
}

#[test]
fn a_cargo_run_that_executed_no_test_is_an_error() {
    let repo = spec_repo(&[("no such test", "tests/foo.rs#no_such_test")]);
    repo.write("tests/foo.rs", "#[test]\nfn real_test() {}\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "no such test"), "ERROR", "{j:#}");
    assert!(
        reason(&j, "no such test").contains("no_such_test is not defined in tests/foo.rs"),
        "{j:#}"
    );

    // Defined but never executed (ignored): cargo exits 0 having run no test by that name.
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"foo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    repo.write("src/lib.rs", "");
    repo.write(
        "tests/foo.rs",
        "#[test]\nfn real_test() {}\n#[test]\n#[ignore]\nfn ignored_test() {}\n",
    );
    repo.write(
        "specs/lies.md",
        "# Lies\n\n## Success Criteria\n\n- [ ] ignored\n  [verify](tests/foo.rs#ignored_test \"timeout=300s\")\n- [ ] real\n  [verify](tests/foo.rs#real_test \"timeout=300s\")\n",
    );
    let target = repo.join("target").display().to_string();
    let r = run_env(
        &repo,
        &["status", "--verify", "--json", "-j", "1"],
        &[("CARGO_TARGET_DIR", &target)],
    );
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "ignored"), "ERROR", "{j:#}");
    assert!(
        reason(&j, "ignored").contains("no test named ignored_test ran"),
        "{j:#}"
    );
    assert_eq!(outcome(&j, "real"), "PASS", "{j:#}");
}

#[test]
fn a_criterion_passes_only_when_every_link_passed() {
    let repo = spec_repo(&[
        ("pass and fail", "tests/c.sh#test_pass tests/c.sh#test_fail"),
        (
            "pass and error",
            "tests/c.sh#test_pass tests/missing.sh#test_x",
        ),
        ("pass and skip", "tests/c.sh#test_pass tests/c.sh#test_skip"),
        (
            "pass and pass",
            "tests/c.sh#test_pass tests/c.sh#test_pass2",
        ),
    ]);
    write_exec(
        &repo,
        "tests/c.sh",
        "#!/bin/bash\ntest_pass() { :; }\ntest_pass2() { :; }\ntest_fail() { return 1; }\ntest_skip() { exit 77; }\n\"$@\"\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(1);
    let j = r.json();
    assert_eq!(outcome(&j, "pass and fail"), "FAIL", "{j:#}");
    assert_eq!(outcome(&j, "pass and error"), "ERROR", "{j:#}");
    assert_eq!(outcome(&j, "pass and skip"), "SKIP", "{j:#}");
    assert_eq!(outcome(&j, "pass and pass"), "PASS", "{j:#}");
}

#[test]
fn a_run_that_verified_nothing_exits_3_and_says_so() {
    // No specs at all.
    let repo = Repo::initialised();
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert!(r.stderr.contains("nothing was verified"), "{}", r.stderr);
    // Only unannotated and judge-only criteria.
    repo.write(
        "specs/p.md",
        "# P\n\n## Success Criteria\n\n- [ ] prose only\n- [ ] judged\n  [judge](tests/judges/p.sh#test_p)\n",
    );
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert!(r.stderr.contains("nothing was verified"), "{}", r.stderr);
    assert_eq!(r.last_line(), "0 passed, 0 failed, 2 skipped");
}

#[test]
fn report_flags_without_a_run_are_usage_errors() {
    let repo = Repo::initialised();
    for flags in [&["--record"][..], &["--tap"], &["--junit", "r.xml"]] {
        let mut args = vec!["status"];
        args.extend_from_slice(flags);
        let r = run(&repo, &args);
        r.expect_code(2);
        assert!(
            r.stderr.contains("go with --verify or --judge"),
            "{flags:?}: {}",
            r.stderr
        );
    }
    assert!(!repo.join("r.xml").exists());
}

#[test]
fn a_junit_path_in_a_missing_folder_is_refused_before_anything_runs() {
    let repo = spec_repo(&[("runs", "tests/ok.sh#test_a")]);
    write_exec(
        &repo,
        "tests/ok.sh",
        "#!/bin/bash\ntest_a() { touch ran; }\n\"$@\"\n",
    );
    let r = run(
        &repo,
        &["status", "--verify", "--junit", "/no/such/dir/r.xml"],
    );
    r.expect_code(2);
    assert!(r.stderr.contains("/no/such/dir"), "{}", r.stderr);
    assert!(!repo.join("ran").exists(), "no check may run");
}

#[test]
fn working_files_and_dot_files_under_specs_are_not_specs() {
    let repo = Repo::initialised();
    let spec = "# Real\n\n## Success Criteria\n\n- [ ] holds\n  [verify](tests/ok.sh#test_a)\n";
    repo.write("specs/login/spec.md", spec);
    for f in [
        "specs/login/tasks.md",
        "specs/login/requirements.md",
        "specs/login/design.md",
        "specs/login/research.md",
        "specs/login/.progress.md",
        "specs/README.md",
        "specs/.drafts/draft.md",
    ] {
        repo.write(f, spec);
    }
    write_exec(
        &repo,
        "tests/ok.sh",
        "#!/bin/bash\ntest_a() { :; }\n\"$@\"\n",
    );
    let list = repo.json(&["spec", "list"]);
    let paths: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    assert_eq!(paths, ["specs/login/spec.md"]);
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert_eq!(r.last_line(), "1 passed, 0 failed, 0 skipped");
}

#[test]
fn specs_are_named_by_their_path_and_recorded_apart() {
    let repo = Repo::initialised();
    let spec = |t: &str| {
        format!("# {t}\n\n## Success Criteria\n\n- [ ] holds\n  [verify](tests/ok.sh#test_{t})\n")
    };
    repo.write("specs/login/check.md", &spec("login"));
    repo.write("specs/billing/check.md", &spec("billing"));
    write_exec(
        &repo,
        "tests/ok.sh",
        "#!/bin/bash\ntest_login() { :; }\ntest_billing() { return 1; }\n\"$@\"\n",
    );
    let r = run(&repo, &["spec", "show", "login/check"]);
    r.expect_code(0);
    assert!(r.stdout.contains("specs/login/check.md"), "{}", r.stdout);
    // The bare file name is ambiguous: say so, never pick one.
    let r = run(&repo, &["spec", "show", "check"]);
    r.expect_code(2);
    assert!(
        r.stderr.contains("billing/check, login/check"),
        "{}",
        r.stderr
    );
    let r = run(&repo, &["status", "--verify", "--record"]);
    r.expect_code(1);
    let login = repo.read(".beads/results/spec-login/check.yaml");
    let billing = repo.read(".beads/results/spec-billing/check.yaml");
    assert!(login.contains("verdict: PASS"), "{login}");
    assert!(billing.contains("verdict: FAIL"), "{billing}");
    // A missing spec is not_found, like a missing bead.
    let r = run(&repo, &["spec", "show", "nope", "--json"]);
    r.expect_code(2);
    assert!(r.stderr.contains("\"code\":\"not_found\""), "{}", r.stderr);
}

#[test]
fn a_spec_that_is_not_utf8_is_its_own_error_and_the_rest_still_run() {
    let repo = spec_repo(&[("holds", "tests/ok.sh#test_a")]);
    write_exec(
        &repo,
        "tests/ok.sh",
        "#!/bin/bash\ntest_a() { :; }\n\"$@\"\n",
    );
    std::fs::write(
        repo.join("specs/broken.md"),
        b"# Broken\n\xff\xfe not text\n",
    )
    .expect("write");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "holds"), "PASS", "{j:#}");
    let text = j.to_string();
    assert!(text.contains("not UTF-8"), "{j:#}");
}
