//! Reports of a failing check: the human report says what it left out and where the rest
//! is, TAP carries the output in the failure's YAML block (as bats does), and JUnit names
//! the spec as the class (the line goes in its own attribute) so history survives edits.

use crate::common::*;
use crate::specs::support::*;

/// A spec whose one check prints 30 numbered lines and fails.
fn failing_repo() -> Repo {
    let repo = Repo::initialised();
    repo.write(
        "specs/r.md",
        "# R\n\n## Success Criteria\n\n- [ ] counts\n  [verify](tests/r.sh#test_count)\n",
    );
    write_exec(
        &repo,
        "tests/r.sh",
        "#!/bin/bash\ntest_count() { for i in $(seq 1 30); do echo \"line $i\"; done; return 1; }\n\"$@\"\n",
    );
    repo
}

#[test]
fn the_human_report_says_how_many_lines_it_left_out() {
    let repo = failing_repo();
    let r = run(&repo, &["status", "--verify"]);
    r.expect_code(1);
    assert!(r.stdout.contains("| line 30"), "{}", r.stdout);
    assert!(!r.stdout.contains("| line 18\n"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("(18 lines left out; the whole output is in `--json`"),
        "{}",
        r.stdout
    );
}

#[test]
fn tap_puts_the_output_in_the_yaml_block() {
    let repo = failing_repo();
    let r = run(&repo, &["status", "--verify", "--tap"]);
    r.expect_code(1);
    let expected = "not ok 1 - specs/r.md:5 counts\n  ---\n  outcome: FAIL\n  message: \"exit 1\"\n  output: |\n    line 1\n";
    assert!(r.stdout.contains(expected), "{}", r.stdout);
    assert!(r.stdout.contains("    line 30\n  ...\n"), "{}", r.stdout);
}

#[test]
fn junit_names_the_spec_as_class_and_keeps_file_and_line_apart() {
    let repo = failing_repo();
    let r = run(&repo, &["status", "--verify", "--junit", "r.xml"]);
    r.expect_code(1);
    let xml = repo.read("r.xml");
    assert!(
        xml.contains("classname=\"specs/r.md\" file=\"specs/r.md\" line=\"5\" time=\""),
        "{xml}"
    );
    assert!(!xml.contains("time=\"-"), "{xml}");
    // The human report is printed as well.
    assert!(r.stdout.contains("[FAIL] counts"), "{}", r.stdout);
}
