//! `spec list`, `spec show` and `spec check` (with `--fix`), with and without beads.

use super::*;

/// Front matter, multi-line and multi-annotation items, options, `[x]`/`[X]`, items
/// outside the section.
const SHAPE: &str = "---
bead: vm-abcd
title: Front Title
---
# Heading Title

## Success Criteria

- [ ] First [verify](tests/a.sh#test_a \"timeout=30s\") trailing words
- [x] Second checked
  [verify](tests/a.sh#test_b)
  [judge](tests/judges/j.sh#test_j)
- [X] Third capital [verify:lint](tests/a.sh#test_c)
- plain bullet, not a criterion

## Later

- [ ] not a criterion [verify](tests/a.sh#test_a)
";

#[test]
fn spec_list_json_has_the_documented_shape() {
    let repo = Repo::initialised();
    repo.write("specs/shape.md", SHAPE);
    repo.write(
        "specs/another.md",
        "# Another One\n\n## Success Criteria\n\n- [ ] Lonely\n",
    );
    let j = repo.json(&["spec", "list"]);
    let specs = j.as_array().expect("an array");
    assert_eq!(specs.len(), 2);
    assert_eq!(specs[0]["path"], "specs/another.md");
    assert_eq!(specs[0]["title"], "Another One");
    assert!(specs[0]["bead"].is_null());
    let s = &specs[1];
    assert_eq!(s["path"], "specs/shape.md");
    assert_eq!(s["title"], "Front Title");
    assert_eq!(s["bead"], "vm-abcd");
    let c = s["criteria"].as_array().expect("criteria");
    assert_eq!(c.len(), 3, "{s:#}");
    assert_eq!(c[0]["text"], "First trailing words");
    assert_eq!(c[0]["checked"], false);
    assert_eq!(c[0]["line"], 9);
    let a = &c[0]["annotations"][0];
    assert_eq!(a["kind"], "verify");
    assert_eq!(a["file"], "tests/a.sh");
    assert_eq!(a["function"], "test_a");
    assert_eq!(a["line"], 9);
    assert_eq!(a["options"]["timeout"], "30s");
    assert_eq!(c[1]["text"], "Second checked");
    assert_eq!(c[1]["checked"], true);
    assert_eq!(c[1]["line"], 10);
    let anns = c[1]["annotations"].as_array().expect("annotations");
    assert_eq!(anns.len(), 2);
    assert_eq!(anns[0]["line"], 11);
    assert_eq!(anns[1]["kind"], "judge");
    assert_eq!(anns[1]["file"], "tests/judges/j.sh");
    assert_eq!(anns[1]["function"], "test_j");
    assert_eq!(anns[1]["line"], 12);
    assert!(anns[1]["options"].as_object().is_some_and(|o| o.is_empty()));
    assert_eq!(c[2]["text"], "Third capital");
    assert_eq!(c[2]["checked"], true);
    assert_eq!(c[2]["annotations"][0]["kind"], "verify:lint");
    for k in ["path", "title", "bead", "criteria"] {
        assert!(s.get(k).is_some(), "{k}");
    }

    let human = repo.ok(&["spec", "list"]);
    assert!(
        human.contains("specs/shape.md") && human.contains("Front Title"),
        "{human}"
    );
    assert!(human.contains("specs/another.md"), "{human}");
}

#[test]
fn spec_commands_work_without_beads() {
    let repo = Repo::new();
    repo.write("specs/shape.md", SHAPE);
    repo.write(
        "tests/a.sh",
        "test_a() { :; }\ntest_b() { :; }\ntest_c() { :; }\n",
    );
    repo.write(
        "tests/judges/j.sh",
        "test_j() { judge_files tests/a.sh; judge_criterion \"X\"; }\n",
    );
    let j = repo.json(&["spec", "list"]);
    assert_eq!(j[0]["path"], "specs/shape.md");
    assert_eq!(j[0]["criteria"].as_array().map(Vec::len), Some(3));
    repo.ok(&["spec", "list"]);
    let show = repo.ok(&["spec", "show", "shape"]);
    assert!(show.contains("specs/shape.md:9"), "{show}");
    run(&repo, &["spec", "check"]).expect_code(0);
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(0);
    assert!(
        r.stdout.contains("  [PASS] First trailing words"),
        "{}",
        r.stdout
    );
    // From a subfolder, the repository's specs are found.
    let r = vermas(
        &repo,
        &["spec", "list", "--json"],
        Opts {
            dir: Some(repo.join("tests")),
            ..Opts::default()
        },
    );
    r.expect_code(0);
    assert_eq!(r.json()[0]["path"], "specs/shape.md");
    assert!(
        !repo.join(".beads").exists(),
        "reading specs must not create .beads"
    );
}

#[test]
fn spec_show_lists_criteria_and_annotations_with_locations() {
    let repo = notifications_repo();
    let out = repo.ok(&["spec", "show", "notifications"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].contains("Notifications") && lines[0].contains("vm-k3f9"),
        "{out}"
    );
    assert!(out.contains("Notification appears within 2s"), "{out}");
    assert!(out.contains("specs/notifications.md:10"), "{out}");
    assert!(
        out.lines().any(|l| l.contains("verify")
            && l.contains("tests/notify-test.sh#test_notification_timing")
            && l.contains("specs/notifications.md:11")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.contains("judge")
            && l.contains("tests/judges/notify.sh#test_clear_visibility")
            && l.contains("specs/notifications.md:13")),
        "{out}"
    );
    assert!(out.contains("specs/notifications.md:14"), "{out}");
    let j = repo.json(&["spec", "show", "notifications"]);
    assert_eq!(j["schema_version"], 1);
    assert_eq!(j["criteria"].as_array().map(Vec::len), Some(3));
    let r = run(&repo, &["spec", "show", "nope"]);
    r.expect_code(2);
    assert!(r.stderr.contains("nope"), "{}", r.stderr);
}

#[test]
fn spec_check_reports_missing_functions_and_files_at_their_links() {
    let repo = Repo::initialised();
    repo.write(
        "specs/x.md",
        "# X\n\n## Success Criteria\n\n- [ ] Present [verify](../tests/a.sh#test_present)\n- [ ] Missing function\n  [verify](../tests/a.sh#test_missing)\n- [ ] Missing file [verify](../tests/nope.sh#test_x)\n",
    );
    repo.write(
        "tests/a.sh",
        "helper() { :; }\ntest_present() { helper; }\nfunction test_unused {\n  :\n}\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    let all = r.all();
    assert!(
        all.contains("specs/x.md:7:3"),
        "missing function at its link:\n{all}"
    );
    assert!(all.contains("test_missing"), "{all}");
    assert!(
        all.contains("specs/x.md:8:20"),
        "missing file at its link:\n{all}"
    );
    assert!(all.contains("tests/nope.sh"), "{all}");
    assert!(
        all.contains("test_unused") && all.contains("not referenced"),
        "unreferenced test_* function warned:\n{all}"
    );
    assert!(
        !all.contains("helper is not"),
        "only test_* functions: {all}"
    );

    let r = run(&repo, &["spec", "check", "--json"]);
    r.expect_code(1);
    let f = r.json();
    let f = f.as_array().expect("findings");
    let find = |needle: &str| {
        f.iter()
            .find(|x| x["message"].as_str().is_some_and(|m| m.contains(needle)))
            .unwrap_or_else(|| panic!("{needle}: {f:#?}"))
            .clone()
    };
    let m = find("test_missing");
    assert_eq!(m["level"], "error");
    assert_eq!(
        (m["file"].as_str(), m["line"].as_u64(), m["column"].as_u64()),
        (Some("specs/x.md"), Some(7), Some(3))
    );
    let u = find("test_unused");
    assert_eq!(u["level"], "warning");
    assert_eq!(u["file"], "tests/a.sh");
    assert_eq!(u["line"], 3);

    // Fixed: only the warning is left, and that exits 0.
    repo.write(
        "specs/x.md",
        "# X\n\n## Success Criteria\n\n- [ ] Present [verify](../tests/a.sh#test_present)\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(r.all().contains("test_unused"));
}

#[test]
fn spec_check_fix_rewrites_legacy_links_and_prints_a_diff() {
    let repo = Repo::initialised();
    let before = "# Legacy\n\n## Success Criteria\n\n- [ ] Old one [verify](tests/a.sh::test_a)\n- [ ] New one [verify](tests/a.sh#test_b)\n- [ ] Pytest id [verify](tests/t.py::TestX::test_y)\n\nProse mentioning tests/a.sh::test_a stays.\n";
    repo.write("specs/legacy.md", before);
    repo.write("tests/a.sh", "test_a() { :; }\ntest_b() { :; }\n");
    repo.write(
        "tests/t.py",
        "class TestX:\n    def test_y(self):\n        pass\n",
    );
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    let all = r.all();
    assert!(
        all.contains("specs/legacy.md:5:15"),
        "legacy warning at its link:\n{all}"
    );
    assert!(all.contains("specs/legacy.md:7:17"), "{all}");
    assert!(all.contains("::"), "{all}");

    // The fix writes `#`, and a path from the spec's folder (GitHub reads it from there).
    let r = run(&repo, &["spec", "check", "--fix"]);
    r.expect_code(0);
    assert!(
        r.stdout
            .contains("-- [ ] Old one [verify](tests/a.sh::test_a)"),
        "diff shows the old line:\n{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("+- [ ] Old one [verify](../tests/a.sh#test_a)"),
        "diff shows the new line:\n{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("+- [ ] Pytest id [verify](../tests/t.py#TestX::test_y)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("specs/legacy.md"), "{}", r.stdout);
    let after = before
        .replace("(tests/a.sh::test_a)", "(../tests/a.sh#test_a)")
        .replace("(tests/a.sh#test_b)", "(../tests/a.sh#test_b)")
        .replace(
            "(tests/t.py::TestX::test_y)",
            "(../tests/t.py#TestX::test_y)",
        );
    assert_eq!(
        repo.read("specs/legacy.md"),
        after,
        "only the links changed"
    );

    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(
        !r.all().contains("legacy"),
        "no legacy warning after --fix:\n{}",
        r.all()
    );
    let r = run(&repo, &["spec", "check", "--fix"]);
    r.expect_code(0);
    assert!(
        !r.stdout.contains("+- [ ]"),
        "nothing left to fix: {}",
        r.stdout
    );
    assert_eq!(repo.read("specs/legacy.md"), after);
    let r = run(&repo, &["status", "--verify", "--spec", "legacy"]);
    assert!(r.stdout.contains("  [PASS] Old one"), "{}", r.stdout);
}
