//! Check targets: relative and legacy links, named verify kinds, invalid targets and link options, several annotations.

use super::*;

#[test]
fn relative_targets_resolve_against_the_spec_folder() {
    let repo = Repo::initialised();
    repo.write(
        "specs/sub/feature.md",
        "# Feature\n\n## Success Criteria\n\n- [ ] Next to the spec [verify](./helpers/check.sh#test_here)\n- [ ] One folder up [verify](../common/up.sh#test_up)\n- [ ] From the root [verify](tests/root.sh#test_root)\n",
    );
    repo.write(
        "specs/sub/helpers/check.sh",
        "test_here() { touch here-ran; }\n",
    );
    repo.write("specs/common/up.sh", "test_up() { touch up-ran; }\n");
    repo.write("tests/root.sh", "test_root() { touch root-ran; }\n");
    let list = repo.json(&["spec", "list"]);
    let anns = &list[0]["criteria"];
    assert_eq!(
        anns[0]["annotations"][0]["file"],
        "specs/sub/helpers/check.sh"
    );
    assert_eq!(anns[1]["annotations"][0]["file"], "specs/common/up.sh");
    assert_eq!(anns[2]["annotations"][0]["file"], "tests/root.sh");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert_eq!(
        r.last_line(),
        "3 passed, 0 failed, 0 skipped",
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("specs/sub/helpers/check.sh#test_here"));
    assert!(r.stdout.contains("specs/sub/feature.md:5"), "{}", r.stdout);
    for m in ["here-ran", "up-ran", "root-ran"] {
        assert!(repo.join(m).exists(), "{m}");
    }
    let show = repo.ok(&["spec", "show", "feature"]);
    assert!(
        show.contains("specs/sub/helpers/check.sh#test_here"),
        "{show}"
    );
    assert!(show.contains("specs/common/up.sh#test_up"), "{show}");
}

#[test]
fn legacy_double_colon_targets_still_run() {
    let repo = Repo::initialised();
    repo.write(
        "specs/legacy.md",
        "# Legacy\n\n## Success Criteria\n\n- [ ] Old style [verify](tests/legacy.sh::test_old)\n",
    );
    repo.write("tests/legacy.sh", "test_old() { touch legacy-ran; }\n");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert!(r.stdout.contains("  [PASS] Old style"), "{}", r.stdout);
    assert!(repo.join("legacy-ran").exists());
}

#[test]
fn named_verify_kinds_skip_without_a_runner_and_run_with_one() {
    let repo = Repo::initialised();
    repo.write(
        "specs/lint.md",
        "# Lint\n\n## Success Criteria\n\n- [ ] Lint is clean [verify:lint](tests/lint.sh#test_lint)\n- [ ] Plain check [verify](tests/plain.sh#test_plain)\n",
    );
    repo.write(
        "tests/lint.sh",
        "touch lint-ran\necho \"args: $*\" > lint-args.txt\n[ \"$1\" = test_lint ]\n",
    );
    repo.write("tests/plain.sh", "test_plain() { :; }\n");
    let list = repo.json(&["spec", "list"]);
    assert_eq!(
        list[0]["criteria"][0]["annotations"][0]["kind"],
        "verify:lint"
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    let j = r.json();
    assert_eq!(outcome(&j, "Lint is clean"), "SKIP", "{j:#}");
    assert!(
        reason(&j, "Lint is clean").contains("verify:lint"),
        "the reason names the kind: {j:#}"
    );
    assert_eq!(outcome(&j, "Plain check"), "PASS");
    assert!(!repo.join("lint-ran").exists(), "no runner: not run");

    repo.ok(&["config", "set", "verify.runners.verify:lint", "bash"]);
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(outcome(&r.json(), "Lint is clean"), "PASS", "{}", r.stdout);
    assert!(repo.join("lint-ran").exists());
    assert_eq!(repo.read("lint-args.txt"), "args: test_lint\n");
}

/// A folder beside the repository (same parent), to aim escaping targets at.
fn outside_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("vermas-outside")
        .tempdir()
        .expect("tempdir")
}

#[test]
fn invalid_targets_are_errors_and_never_run() {
    let repo = Repo::initialised();
    let outside = outside_dir();
    let out_name = outside
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    std::fs::write(
        outside.path().join("escape.sh"),
        format!(
            "#!/bin/sh\ntouch '{}/escaped-ran'\n",
            outside.path().display()
        ),
    )
    .expect("write");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            outside.path().join("escape.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .expect("chmod");
    }
    let abs = outside.path().join("escape.sh").display().to_string();
    let spec = format!(
        "# Bad\n\n## Success Criteria\n\n\
         - [ ] Missing file [verify](tests/nope.sh#test_x)\n\
         - [ ] Not runnable [verify](tests/x.rb#test_x)\n\
         - [ ] Dash function [verify](tests/evil.sh#-rf)\n\
         - [ ] Dash on executable [verify](tests/evil-exec#--help)\n\
         - [ ] Semicolon [verify](tests/evil.sh#test_ok;touch${{IFS}}pwned1)\n\
         - [ ] Substitution [verify](tests/evil.sh#$(touch${{IFS}}pwned2))\n\
         - [ ] Pipe [verify](tests/evil.sh#test_ok|touch${{IFS}}pwned3)\n\
         - [ ] And [verify](tests/evil-exec#test_ok&&touch${{IFS}}pwned4)\n\
         - [ ] Escapes [verify](../../{out_name}/escape.sh#test_x)\n\
         - [ ] Escapes via tests [verify](tests/../../{out_name}/escape.sh#test_x)\n\
         - [ ] Absolute [verify]({abs}#test_x)\n\
         - [ ] Fine [verify](tests/fine.sh#test_ok)\n"
    );
    repo.write("specs/bad.md", &spec);
    repo.write("tests/x.rb", "File.write('rb-ran', '')\n");
    repo.write(
        "tests/evil.sh",
        "touch evil-sourced\ntest_ok() { touch evil-called; }\n",
    );
    repo.write("tests/fine.sh", "test_ok() { touch fine-ran; }\n");
    write_exec(&repo, "tests/evil-exec", "#!/bin/sh\ntouch evil-exec-ran\n");

    let r = run(&repo, &["status", "--verify", "--spec", "bad", "--json"]);
    let j = r.json();
    r.expect_code(3);
    let texts = [
        "Missing file",
        "Not runnable",
        "Dash function",
        "Dash on executable",
        "Semicolon",
        "Substitution",
        "Pipe",
        "And",
        "Escapes",
        "Escapes via tests",
        "Absolute",
    ];
    for t in texts {
        assert_eq!(outcome(&j, t), "ERROR", "{t}: {j:#}");
        assert!(!reason(&j, t).is_empty(), "{t}: an ERROR has a reason");
    }
    assert!(reason(&j, "Missing file").contains("tests/nope.sh"));
    assert!(reason(&j, "Missing file").contains("does not exist"));
    let rb = reason(&j, "Not runnable");
    assert!(
        rb.contains("tests/x.rb") && (rb.contains("chmod +x") || rb.contains("verify.runners")),
        "says how to make it runnable: {rb}"
    );
    // Every refused target was refused before anything ran.
    for m in [
        "evil-sourced",
        "evil-called",
        "evil-exec-ran",
        "pwned1",
        "pwned2",
        "pwned3",
        "pwned4",
        "rb-ran",
    ] {
        assert!(!repo.join(m).exists(), "{m} exists: an invalid target ran");
    }
    assert!(
        !outside.path().join("escaped-ran").exists(),
        "a target outside the repository ran"
    );
    // Only the valid one ran.
    assert_eq!(outcome(&j, "Fine"), "PASS");
    assert!(repo.join("fine-ran").exists());

    // The human report lists each as ERROR; the count line has the errors.
    let r = run(&repo, &["status", "--verify", "--spec", "bad"]);
    r.expect_code(3);
    assert_eq!(
        r.stdout.matches("[ERROR]").count(),
        texts.len(),
        "{}",
        r.stdout
    );
    assert_eq!(r.last_line(), "1 passed, 0 failed, 0 skipped, 11 errors");
    for m in [
        "evil-sourced",
        "evil-exec-ran",
        "pwned1",
        "pwned2",
        "pwned3",
        "pwned4",
    ] {
        assert!(!repo.join(m).exists(), "{m}");
    }

    // spec check flags each with its place and exits 1.
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    let all = r.all();
    for (i, line) in spec.lines().enumerate() {
        // (spec check looks at files and functions; whether a file can be run is for
        // status to say.)
        if let Some(col) = line.find("[verify]")
            && !line.contains("Fine")
            && !line.contains("Not runnable")
        {
            let at = format!("specs/bad.md:{}:{}", i + 1, col + 1);
            assert!(all.contains(&at), "no finding at {at}:\n{all}");
        }
    }
}

#[test]
fn bad_link_options_are_errors_and_never_run() {
    let repo = Repo::initialised();
    repo.write(
        "specs/opt.md",
        "# Opt\n\n## Success Criteria\n\n- [ ] Bad duration [verify](tests/o.sh#test_o \"timeout=soon\")\n- [ ] Not key value [verify](tests/o.sh#test_o \"fast\")\n- [ ] Good [verify](tests/o.sh#test_good \"timeout=30s\")\n",
    );
    repo.write(
        "tests/o.sh",
        "test_o() { touch o-ran; }\ntest_good() { :; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "Bad duration"), "ERROR", "{j:#}");
    assert!(reason(&j, "Bad duration").contains("soon"), "{j:#}");
    assert_eq!(outcome(&j, "Not key value"), "ERROR", "{j:#}");
    assert_eq!(outcome(&j, "Good"), "PASS", "{j:#}");
    assert!(!repo.join("o-ran").exists());
}

#[test]
fn every_annotation_of_a_criterion_must_pass() {
    let repo = Repo::initialised();
    repo.write(
        "specs/multi.md",
        "# Multi\n\n## Success Criteria\n\n- [ ] Both pass [verify](tests/m.sh#test_a) [verify](tests/m.sh#test_b)\n- [ ] One fails\n  [verify](tests/m.sh#test_a)\n  [verify](tests/m.sh#test_fail)\n",
    );
    repo.write(
        "tests/m.sh",
        "test_a() { touch a-ran; }\ntest_b() { touch b-ran; }\ntest_fail() { touch fail-ran; return 1; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(1);
    let j = r.json();
    assert_eq!(outcome(&j, "Both pass"), "PASS");
    assert_eq!(outcome(&j, "One fails"), "FAIL");
    assert_eq!(
        criterion(&j, "One fails")["checks"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    for m in ["a-ran", "b-ran", "fail-ran"] {
        assert!(repo.join(m).exists(), "{m}");
    }
}
