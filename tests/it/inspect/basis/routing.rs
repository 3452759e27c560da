//! SKIP is not PASS; only the Inspector marks work verified or rejected; an inspection
//! judges a commit, never a dirty work tree.

use super::*;

#[test]
fn a_skipped_approved_criterion_needs_a_person_and_is_never_merged() {
    let m = Mk::with_check(
        "fizz() { [ -x ./fizz.sh ] || return 77; [ \"$(./fizz.sh 15)\" = FizzBuzz ]; }\n",
    );
    write_exec(&m.repo, "fizz.sh", FIXED);
    commit_all(&m.repo, "fixed");
    let branch = format!("polecat/{}", m.work);
    m.repo.git(&["switch", "-q", "-c", &branch]);
    m.repo.git(&["rm", "-q", "fizz.sh"]);
    commit_all(&m.repo, "drop fizz.sh");
    let r = m.run(&["inspect", "run", &m.work]);
    r.expect_code(4);
    assert!(r.stdout.contains("[SKIP] ac-1"), "{}", r.all());
    assert!(
        r.stdout.contains("nothing verified ac-1") && r.stdout.contains("question:"),
        "{}",
        r.all()
    );
    m.repo.git(&["switch", "-q", "main"]);
    m.run(&["refinery", "submit", &branch]).expect_code(0);
    let r = m.run(&["refinery", "run"]);
    assert!(!r.stdout.contains("MERGED ("), "{}", r.all());
    assert!(m.repo.join("fizz.sh").exists(), "nothing landed");
    assert!(!m.labels(&m.work).contains("verified"));
}

#[test]
fn only_an_inspection_sets_verified_or_rejected() {
    let m = Mk::new();
    for args in [
        vec!["label", "add", m.work.as_str(), "verified"],
        vec!["update", m.work.as_str(), "--add-label", "verified"],
        vec!["update", m.work.as_str(), "--status", "rejected"],
        vec!["q", "sneaky", "-l", "verified"],
    ] {
        let r = m.run(&args);
        r.expect_code(2);
        assert!(
            r.stderr.contains("only an inspection"),
            "{args:?}: {}",
            r.all()
        );
        assert!(
            r.stderr.contains("vermas inspect run"),
            "{args:?}: {}",
            r.all()
        );
    }
    assert!(!m.labels(&m.work).contains("verified"));
    // Closing work whose approved spec has not passed is a recorded bypass, or refused.
    let r = m.run(&["close", &m.work]);
    r.expect_code(2);
    assert!(
        r.stderr.contains("has not passed an inspection"),
        "{}",
        r.all()
    );
    assert!(r.stderr.contains("--force --reason"), "{}", r.all());
    let r = m.run(&["update", &m.work, "--status", "closed"]);
    r.expect_code(2);
    let r = m.run(&[
        "close",
        &m.work,
        "--force",
        "--reason",
        "the demo is tomorrow",
    ]);
    r.expect_code(0);
    assert!(
        r.stderr.contains("closed without a passing inspection"),
        "{}",
        r.all()
    );
    let shown = m.repo.json(&["show", &m.work]);
    assert!(
        shown[0]["labels"].to_string().contains("gate-bypassed"),
        "{shown}"
    );
    assert!(
        shown[0]["notes"]
            .to_string()
            .contains("GATE_BYPASS: closed without a passing inspection: the demo is tomorrow"),
        "{shown}"
    );
    assert!(
        !shown[0]["labels"].to_string().contains("verified"),
        "{shown}"
    );
}

#[test]
fn an_inspection_judges_the_commit_never_the_dirty_work_tree() {
    let m = Mk::new();
    // The commit prints 15; an uncommitted edit prints FizzBuzz.
    write_exec(&m.repo, "fizz.sh", FIXED);
    let r = m.run(&["inspect", "run", &m.work]);
    r.expect_code(1);
    assert!(r.stdout.contains("[FAIL] ac-1"), "{}", r.all());
    assert!(
        r.stderr
            .contains("the checkout has uncommitted changes (fizz.sh): judged HEAD"),
        "{}",
        r.all()
    );
    // The result names the commit judged and its tree.
    let result = m.repo.read(&format!(".beads/results/{}.yaml", m.work));
    let head = result
        .lines()
        .find_map(|l| l.strip_prefix("head: "))
        .expect("head recorded");
    let tree = m.repo.git(&["rev-parse", &format!("{head}^{{tree}}")]);
    assert!(
        result.contains(&format!("tree: {}", tree.trim())),
        "{result}"
    );
    assert_eq!(m.repo.git(&["show", &format!("{head}:fizz.sh")]), BUGGY);
    assert!(!m.labels(&m.work).contains("verified"));
    // A file hidden only by the checkout's own exclude list is uncommitted all the same.
    m.repo.git(&["checkout", "--", "fizz.sh"]);
    m.repo.write("helper.txt", "x\n");
    std::fs::write(m.repo.join(".git/info/exclude"), "helper.txt\n").expect("exclude");
    let r = m.run(&["inspect", "run", &m.work]);
    assert!(
        r.stderr.contains("uncommitted changes (helper.txt)"),
        "{}",
        r.all()
    );
}
