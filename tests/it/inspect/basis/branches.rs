//! A branch is judged as the work it is: `sling` records the work's branch, and the
//! refinery judges a branch only as that work.

use super::*;

#[test]
fn a_branch_cannot_be_submitted_under_another_bead() {
    let m = Mk::new();
    // An easy bead beside the real one.
    let (easy, _) = m
        .repo
        .approved_work("Easy", "fizz.sh exists", ["--cmd", "test -f fizz.sh"]);
    let r = m.run(&["sling", &m.work, "polecat"]);
    r.expect_code(0);
    let branch = format!("polecat/{}", m.work);
    assert!(
        r.stdout.contains(&format!("on branch {branch}")),
        "{}",
        r.all()
    );
    assert_eq!(
        m.repo.json(&["show", &m.work])[0]["branch"],
        branch.as_str()
    );
    let mail = m.repo.json(&["mail", "inbox", "polecat/"]).to_string();
    assert!(mail.contains("WORK ASSIGNED"), "{mail}");
    m.branch(&branch, &[("notes.txt", "still prints 15\n")]);
    let r = m.run(&["refinery", "submit", &branch, "--bead", &easy]);
    r.expect_code(2);
    assert!(
        r.stderr.contains(&format!(
            "branch '{branch}' is the work of {} (sling recorded it)",
            m.work
        )),
        "{}",
        r.all()
    );
    // Submitted plainly, it is judged as its own work: FAIL, not merged.
    m.run(&["refinery", "submit", &branch]).expect_code(0);
    let r = m.run(&["refinery", "run"]);
    assert!(!r.stdout.contains("MERGED ("), "{}", r.all());
    // A bead with a branch of its own cannot take another.
    m.branch("side", &[("side.txt", "x\n")]);
    let r = m.run(&["refinery", "submit", "side", "--bead", &m.work]);
    r.expect_code(2);
    assert!(
        r.stderr
            .contains(&format!("{} is recorded with branch '{branch}'", m.work)),
        "{}",
        r.all()
    );
    // Another bead cannot be slung onto a branch that is already a work's.
    let r = m.run(&["sling", &easy, "polecat", "--branch", &branch]);
    assert_ne!(r.code, Some(0), "{}", r.all());
    assert!(r.stderr.contains("is the work of"), "{}", r.all());
}
