//! Reading specs: success criteria sections, code fences and code that is never an annotation.

use super::*;

#[test]
fn a_spec_without_success_criteria_runs_nothing_and_its_stray_link_is_warned_about() {
    let repo = Repo::initialised();
    repo.write(
        "specs/notes.md",
        "# Notes\n\nJust prose.\n\n- [ ] a task outside any criteria section [verify](tests/x.sh#test_x)\n",
    );
    repo.write("tests/x.sh", "touch x-ran\ntest_x() { touch x-ran; }\n");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert!(r.stderr.contains("nothing was verified"), "{}", r.stderr);
    // The link never runs, and never vanishes silently.
    assert!(r.stderr.contains("specs/notes.md:5:43"), "{}", r.stderr);
    assert!(r.stderr.contains("never runs"), "{}", r.stderr);
    assert!(!repo.join("x-ran").exists());
    // spec list shows it, with zero counts, as ralph does.
    let list = repo.json(&["spec", "list"]);
    assert_eq!(list[0]["path"], "specs/notes.md");
    assert_eq!(list[0]["criteria"].as_array().map(Vec::len), Some(0));
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(r.all().contains("0 errors, 1 warning"), "{}", r.all());
    run(&repo, &["status"]).expect_code(0);
}

#[test]
fn an_unclosed_code_fence_is_reported_with_its_line() {
    let repo = Repo::initialised();
    repo.write(
        "specs/fence.md",
        "# Fence\n\n## Success Criteria\n\n- [ ] Before the fence [verify](tests/f.sh#test_ok)\n\n```sh\necho never closed\n- [ ] Inside the fence [verify](tests/f.sh#test_marker)\n",
    );
    repo.write(
        "tests/f.sh",
        "test_ok() { :; }\ntest_marker() { touch fenced-ran; }\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    assert!(
        r.all().contains("specs/fence.md:7:"),
        "the finding points at the fence's line:\n{}",
        r.all()
    );
    assert!(r.all().to_lowercase().contains("fence"), "{}", r.all());

    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert!(r.stdout.contains("[ERROR]"), "{}", r.stdout);
    assert!(r.stdout.contains("specs/fence.md:7"), "{}", r.stdout);
    assert!(
        r.stdout.contains("  [PASS] Before the fence"),
        "{}",
        r.stdout
    );
    assert!(!repo.join("fenced-ran").exists());
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert!(j["counts"]["errors"].as_u64().unwrap_or(0) >= 1, "{j:#}");
}

#[test]
fn code_blocks_and_inline_code_are_never_annotations() {
    let repo = Repo::initialised();
    repo.write(
        "specs/code.md",
        "# Code\n\n## Success Criteria\n\n- [ ] Fenced example\n  ```\n  [verify](tests/evil.sh#test_x)\n  ```\n- [ ] Inline example `[verify](tests/evil.sh#test_x)`\n- [ ] Indented example\n\n      [verify](tests/evil.sh#test_x)\n",
    );
    repo.write(
        "tests/evil.sh",
        "touch evil-ran\ntest_x() { touch evil-ran; }\n",
    );
    let list = repo.json(&["spec", "list"]);
    let crit = list[0]["criteria"].as_array().expect("criteria");
    assert_eq!(crit.len(), 3, "{list:#}");
    for c in crit {
        assert_eq!(c["annotations"].as_array().map(Vec::len), Some(0), "{c:#}");
    }
    assert_eq!(crit[0]["text"], "Fenced example");
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(3);
    assert_eq!(
        r.last_line(),
        "0 passed, 0 failed, 3 skipped",
        "{}",
        r.stdout
    );
    assert!(!repo.join("evil-ran").exists());
}

#[test]
fn success_criteria_sections_end_at_the_next_heading_of_the_same_level() {
    let repo = Repo::initialised();
    repo.write(
        "specs/levels.md",
        "# Levels\n\n## Part one\n\n- [ ] before the section\n\n### Success criteria\n\n- [ ] In the section\n\n#### Details\n\n- [ ] Under a deeper heading\n\n### Other\n\n- [ ] after the section\n\n# Success Criteria\n\n- [ ] Top level section\n",
    );
    let j = repo.json(&["spec", "list"]);
    let texts: Vec<&str> = j[0]["criteria"]
        .as_array()
        .expect("criteria")
        .iter()
        .map(|c| c["text"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        texts,
        [
            "In the section",
            "Under a deeper heading",
            "Top level section"
        ]
    );
}
