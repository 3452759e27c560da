//! Approval freezes the check code, not only the criteria's words.

use super::*;

#[test]
fn a_branch_that_weakens_its_check_is_refused_before_anything_runs() {
    let m = Mk::new();
    let branch = format!("polecat/{}", m.work);
    m.branch(&branch, &[("tests/check.sh", "fizz() { true; }\n")]);
    m.run(&["refinery", "submit", &branch, "--bead", &m.work])
        .expect_code(0);
    let r = m.run(&["refinery", "run"]);
    r.expect_code(1);
    assert!(
        r.stdout.contains(&format!(
            "changes check files a person approved (tests/check.sh, frozen by {})",
            m.spec
        )),
        "{}",
        r.all()
    );
    assert!(!r.stdout.contains("MERGED ("), "{}", r.all());
    assert_eq!(
        m.repo.git(&["show", "main:tests/check.sh"]),
        CHECK,
        "nothing landed"
    );
    assert!(!m.labels(&m.work).contains("verified"));
    assert_ne!(m.status(&m.work), "closed");
}

#[test]
fn inspecting_a_commit_whose_check_changed_is_an_error_until_a_person_approves_it() {
    let m = Mk::new();
    let stamp = m.repo.read(&format!(".beads/issues/{}.md", m.spec));
    let blob = m.repo.git(&["rev-parse", "HEAD:tests/check.sh"]);
    assert!(
        stamp.contains(&format!("files: {{tests/check.sh: \"{}\"}}", blob.trim())),
        "the stamp holds the check's blob: {stamp}"
    );
    // The worker weakens the check on its own branch and inspects there.
    m.repo.git(&["switch", "-q", "-c", "polecat/x"]);
    m.repo.write("tests/check.sh", "fizz() { true; }\n");
    commit_all(&m.repo, "pass");
    let r = m.run(&["inspect", "run", &m.work]);
    r.expect_code(3);
    assert!(r.stdout.contains("tests/check.sh changed"), "{}", r.all());
    assert!(
        r.stdout
            .contains(&format!("vermas inspect approve {}", m.spec)),
        "{}",
        r.all()
    );
    assert!(!m.labels(&m.work).contains("verified"));
    let shown = m.run(&["inspect", "show", &m.work]);
    assert!(
        shown
            .stdout
            .contains("frozen tests/check.sh: CHANGED since approval"),
        "{}",
        shown.all()
    );
    let j = m.repo.json(&["inspect", "show", &m.work]);
    assert_eq!(j["frozen"][0]["holds"], false, "{j}");

    // A person changes the check on purpose, on main, and approves it again.
    m.repo.git(&["switch", "-q", "main"]);
    m.repo.write(
        "tests/check.sh",
        "fizz() { [ \"$(./fizz.sh 15)\" = FizzBuzz ] && [ \"$(./fizz.sh 3)\" = 3 ]; }\n",
    );
    commit_all(&m.repo, "a stronger check");
    assert!(
        m.run(&["inspect", "show", &m.work])
            .stdout
            .contains("CHANGED since approval")
    );
    m.repo.ok(&["inspect", "approve", &m.spec]);
    let r = m.run(&["inspect", "run", &m.work]);
    r.expect_code(1);
    assert!(r.stdout.contains("[FAIL] ac-1"), "{}", r.all());
    write_exec(&m.repo, "fizz.sh", FIXED);
    commit_all(&m.repo, "fix");
    m.run(&["inspect", "run", &m.work]).expect_code(0);
    assert!(m.labels(&m.work).contains("verified"));
}

#[test]
fn a_check_file_is_approved_only_once_it_is_written_and_committed() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Dates parse"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    repo.write("tests/dates.sh", "test_iso() { true; }\n");
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "ISO dates",
        "--verify",
        "tests/dates.sh#test_iso",
    ]);
    let err = repo.fails(&["inspect", "approve", &spec], 2);
    assert!(
        err.contains("the check file tests/dates.sh is not committed"),
        "{err}"
    );
    commit_all(&repo, "the check");
    repo.write("tests/dates.sh", "test_iso() { false; }\n");
    let err = repo.fails(&["inspect", "approve", &spec], 2);
    assert!(err.contains("has uncommitted changes"), "{err}");
    std::fs::remove_file(repo.join("tests/dates.sh")).expect("rm");
    let err = repo.fails(&["inspect", "approve", &spec], 2);
    assert!(err.contains("does not exist"), "{err}");
    assert!(err.contains("write the check first"), "{err}");
    repo.git(&["checkout", "--", "tests/dates.sh"]);
    repo.ok(&["inspect", "approve", &spec]);
}

#[test]
fn a_cmd_criterion_freezes_what_the_approver_names_and_never_the_work() {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    write_exec(&repo, "fizz.sh", FIXED);
    write_exec(
        &repo,
        "tests/helpers.sh",
        "#!/bin/sh\n[ \"$(./fizz.sh 15)\" = FizzBuzz ]\n",
    );
    commit_all(&repo, "work and helper");
    let work = repo.ok(&["q", "Fizz"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "15 is FizzBuzz",
        "--cmd",
        "./tests/helpers.sh",
    ]);
    repo.ok(&["inspect", "approve", &spec, "--freeze", "tests/helpers.sh"]);
    let j = repo.json(&["inspect", "show", &work]);
    let frozen: Vec<&str> = j["frozen"]
        .as_array()
        .expect("frozen")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(
        frozen,
        ["tests/helpers.sh"],
        "the work is never frozen: {j}"
    );
}
