//! Verdicts read their settings from the committed ledger only: an uncommitted change is a
//! warning, never a setting (for the Inspector, the refinery and `status --record`).

use super::*;

/// The approved check: exit 2 when 15 is not FizzBuzz (a skip code would hide that).
const EXITS_2: &str = "fizz() { [ \"$(./fizz.sh 15)\" = FizzBuzz ] || return 2; }\n";

/// `.beads/vermas.yaml` of `m` with `skip_codes` made `[2, 77, 78]`, not committed.
fn uncommitted_skip_code(m: &Mk) {
    let path = ".beads/vermas.yaml";
    let text = m.repo.read(path);
    assert!(text.contains("skip_codes: [77, 78]"), "{text}");
    m.repo.write(
        path,
        &text.replace("skip_codes: [77, 78]", "skip_codes: [2, 77, 78]"),
    );
}

#[test]
fn an_uncommitted_skip_code_is_a_warning_never_a_setting() {
    let m = Mk::with_check(EXITS_2);
    uncommitted_skip_code(&m);
    let r = m.run(&["inspect", "run", &m.work]);
    r.expect_code(1);
    assert!(r.stdout.contains("[FAIL] ac-1"), "{}", r.all());
    assert!(
        r.stderr
            .contains("verify in .beads/vermas.yaml differ from what is committed"),
        "{}",
        r.all()
    );
    assert!(!m.labels(&m.work).contains("verified"));
}

#[test]
fn status_record_and_the_refinery_read_the_committed_settings_too() {
    let m = Mk::with_check(EXITS_2);
    m.repo.write(
        "specs/fizz.md",
        "# Fizz\n\n## Success Criteria\n\n- [ ] 15 [verify](tests/check.sh#fizz)\n",
    );
    commit_all(&m.repo, "a live spec");
    uncommitted_skip_code(&m);
    // A plain run reads the files (nothing is recorded): the skip code applies there.
    let plain = m.run(&["status", "--verify", "--json"]);
    assert_eq!(outcome(&plain.json(), "15"), "SKIP", "{}", plain.all());
    // A recorded one is a verdict: the committed settings.
    let recorded = m.run(&["status", "--verify", "--record", "--json"]);
    assert_eq!(
        outcome(&recorded.json(), "15"),
        "FAIL",
        "{}",
        recorded.all()
    );
    assert!(
        recorded.stderr.contains("differ from what is committed"),
        "{}",
        recorded.all()
    );
    // The refinery, on a branch that changes nothing but a harmless file.
    let branch = format!("polecat/{}", m.work);
    m.branch(&branch, &[("notes.txt", "hi\n")]);
    uncommitted_skip_code(&m);
    m.run(&["refinery", "submit", &branch]).expect_code(0);
    let r = m.run(&["refinery", "run"]);
    r.expect_code(1);
    assert!(
        r.stdout.contains("REJECTED") || r.stdout.contains("NOT MERGED"),
        "{}",
        r.all()
    );
    assert!(!r.stdout.contains("MERGED ("), "{}", r.all());
}
