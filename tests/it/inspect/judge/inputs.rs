//! What the judge is given: the prompt, rubrics, judged files and globs, bad targets, when judges run.

use super::*;

#[test]
fn the_prompt_holds_both_criteria_and_the_numbered_files() {
    let t = Judged::new();
    t.run(&["status", "--judge"], "pass").expect_code(0);
    let prompts = t.prompts();
    assert_eq!(prompts.len(), 1);
    let p = &prompts[0];
    assert!(p.contains("The banner is shown"), "spec criterion:\n{p}");
    assert!(
        p.contains("The page shows a BANNER"),
        "rubric criterion:\n{p}"
    );
    assert!(p.contains("src/ui.txt"), "{p}");
    // A line number, a separator, then the line.
    let numbered = |n: usize, text: &str| {
        p.lines().any(|l| {
            l.trim_start()
                .strip_prefix(&n.to_string())
                .is_some_and(|rest| rest.ends_with(text) && rest.len() > text.len())
        })
    };
    assert!(numbered(1, "line one"), "line numbers:\n{p}");
    assert!(numbered(2, "<BANNER> Welcome"), "line numbers:\n{p}");
    assert!(
        p.contains("PASS") && p.contains("FAIL"),
        "asks for a verdict:\n{p}"
    );
}

#[test]
fn the_verdict_depends_on_the_judged_file() {
    let t = Judged::new();
    let (r, o, _) = t.judge_json("keyword", &[]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    t.repo.write("src/ui.txt", "line one\nno welcome here\n");
    let (r, o, why) = t.judge_json("keyword", &[]);
    r.expect_code(1);
    assert_eq!(o, "FAIL");
    assert!(why.contains("BANNER"), "{why}");
    assert_eq!(t.calls(), 2, "a changed file is judged again");
    // Back as it was: the first reply is reused.
    t.repo.write("src/ui.txt", "line one\n<BANNER> Welcome\n");
    let (r, o, _) = t.judge_json("keyword", &[]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert_eq!(t.calls(), 2);
}

#[test]
fn a_rubric_with_a_syntax_error_is_an_error() {
    let t = Judged::new();
    t.repo.write(
        "tests/judges/ui.sh",
        "test_banner() {\n  judge_files src/ui.txt\n  if then fi\n  judge_criterion \"X\"\n}\n",
    );
    let r = t.run(&["status", "--judge"], "pass");
    r.expect_code(3);
    assert!(
        r.stdout.contains("  [ERROR] The banner is shown"),
        "{}",
        r.stdout
    );
    let (_, o, why) = t.judge_json("pass", &[]);
    assert_eq!(o, "ERROR");
    assert!(
        why.contains("tests/judges/ui.sh"),
        "names the rubric: {why}"
    );
    assert_eq!(t.calls(), 0, "no LLM call for a broken rubric");
}

#[test]
fn a_missing_rubric_function_or_file_is_an_error() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] No such function [judge](tests/judges/ui.sh#test_nope)\n- [ ] No function named [judge](tests/judges/ui.sh)\n- [ ] No such file [judge](tests/judges/gone.sh#test_banner)\n",
    );
    let r = t.run(&["status", "--judge", "--json"], "pass");
    r.expect_code(3);
    let j = r.json();
    for c in ["No such function", "No function named", "No such file"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}: {j:#}");
        assert!(!reason(&j, c).is_empty());
    }
    assert_eq!(t.calls(), 0);
}

#[test]
fn judge_files_outside_the_repository_are_refused() {
    let t = Judged::new();
    let outside = tempfile::Builder::new()
        .prefix("vermas-outside")
        .tempdir()
        .expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), "TOPSECRET\n").expect("write");
    let name = outside
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        t.repo.join("src/link.txt"),
    )
    .expect("symlink");
    let abs = outside.path().join("secret.txt").display().to_string();
    t.repo.write(
        "tests/judges/out.sh",
        &format!(
            "test_dotdot() {{ judge_files ../{name}/secret.txt; judge_criterion \"X\"; }}\n\
             test_abs() {{ judge_files '{abs}'; judge_criterion \"X\"; }}\n\
             test_link() {{ judge_files src/link.txt; judge_criterion \"X\"; }}\n\
             test_mixed() {{ judge_files src/ui.txt src/../../{name}/secret.txt; judge_criterion \"X\"; }}\n"
        ),
    );
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] Dot dot [judge](tests/judges/out.sh#test_dotdot)\n- [ ] Absolute [judge](tests/judges/out.sh#test_abs)\n- [ ] Symlink [judge](tests/judges/out.sh#test_link)\n- [ ] Mixed [judge](tests/judges/out.sh#test_mixed)\n",
    );
    let r = t.run(&["status", "--judge", "--json"], "pass");
    r.expect_code(3);
    let j = r.json();
    for c in ["Dot dot", "Absolute", "Symlink", "Mixed"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}: {j:#}");
        assert!(reason(&j, c).contains("outside"), "{c}: {}", reason(&j, c));
    }
    assert_eq!(t.calls(), 0, "nothing was sent to the LLM");
    assert!(t.prompts().iter().all(|p| !p.contains("TOPSECRET")));
}

#[test]
fn judge_files_globs_are_expanded() {
    let t = Judged::new();
    t.repo.write("src/a.txt", "alpha content\n");
    t.repo.write("src/b.txt", "beta content\n");
    t.repo.write("src/c.md", "gamma content\n");
    t.repo.write(
        "tests/judges/ui.sh",
        "test_banner() {\n  judge_files 'src/*.txt'\n  judge_criterion \"The page shows a BANNER\"\n}\n",
    );
    t.run(&["status", "--judge"], "pass").expect_code(0);
    let p = t.prompts().pop().expect("a prompt");
    for want in [
        "src/a.txt",
        "alpha content",
        "src/b.txt",
        "beta content",
        "src/ui.txt",
    ] {
        assert!(p.contains(want), "{want}:\n{p}");
    }
    assert!(!p.contains("gamma content"), "{p}");
}

#[test]
fn big_files_are_capped_and_the_cut_is_marked() {
    let t = Judged::new();
    t.repo.ok(&["config", "set", "judge.max_file_bytes", "100"]);
    let mut big = String::from("<BANNER> at the top\n");
    while big.len() < 2000 {
        big.push_str("filler filler filler filler\n");
    }
    big.push_str("TAILWORD at the end\n");
    t.repo.write("src/ui.txt", &big);
    t.run(&["status", "--judge"], "pass").expect_code(0);
    let p = t.prompts().pop().expect("a prompt");
    assert!(p.contains("<BANNER> at the top"), "{p}");
    assert!(!p.contains("TAILWORD"), "the file is cut at the cap:\n{p}");
    assert!(
        p.to_lowercase().contains("truncat"),
        "the cut is marked in the prompt:\n{p}"
    );
}

#[test]
fn invalid_judge_targets_are_errors_and_never_run() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] Substitution [judge](tests/judges/evil.sh#$(touch${IFS}pwned))\n- [ ] Dash [judge](tests/judges/evil.sh#-x)\n- [ ] Escapes [judge](../../evil.sh#test_x)\n",
    );
    t.repo.write(
        "tests/judges/evil.sh",
        "touch rubric-sourced\ntest_x() { touch rubric-called; judge_files src/ui.txt; judge_criterion \"X\"; }\n",
    );
    let r = t.run(&["status", "--judge", "--json"], "pass");
    r.expect_code(3);
    let j = r.json();
    for c in ["Substitution", "Dash", "Escapes"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}");
    }
    for m in ["pwned", "rubric-sourced", "rubric-called"] {
        assert!(!t.repo.join(m).exists(), "{m}");
    }
    assert_eq!(t.calls(), 0);
}

#[test]
fn verify_and_judge_run_only_when_asked() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] The banner is shown\n  [judge](tests/judges/ui.sh#test_banner)\n- [ ] The build works [verify](tests/build.sh#test_build)\n",
    );
    t.repo
        .write("tests/build.sh", "test_build() { touch build-ran; }\n");

    let r = t.run(&["status", "--judge"], "pass");
    r.expect_code(0);
    assert!(r.stdout.starts_with("Judge: ui\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("  [SKIP] The build works (verify only)"),
        "{}",
        r.stdout
    );
    assert!(!t.repo.join("build-ran").exists());
    assert_eq!(t.calls(), 1);

    let r = t.run(&["status", "--verify"], "pass");
    r.expect_code(0);
    assert!(
        r.stdout
            .contains("  [SKIP] The banner is shown (judge only)"),
        "{}",
        r.stdout
    );
    assert!(t.repo.join("build-ran").exists());
    assert_eq!(t.calls(), 1, "--verify asks no LLM");

    let before = t.repo.commit_count();
    let r = t.run(
        &["status", "--verify", "--judge", "--no-cache", "--record"],
        "pass",
    );
    r.expect_code(0);
    assert!(r.stdout.starts_with("Verify + Judge: ui\n"), "{}", r.stdout);
    assert_eq!(r.last_line(), "2 passed, 0 failed, 0 skipped");
    assert_eq!(t.calls(), 2);
    assert_eq!(t.repo.commit_count(), before + 1);
    let rec = t.repo.read(".beads/results/spec-ui.yaml");
    let rec: serde_json::Value = serde_saphyr::from_str(&rec).expect("yaml");
    assert_eq!(rec["verdict"], "PASS");
    let kinds: Vec<&str> = rec["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| c["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["judge", "verify"]);
}
