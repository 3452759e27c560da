//! Only an approver approves, and a stamp cannot be forged: the stamp names its
//! committer; with approvers set, a stamp, a verdict setting or an answer counts only from
//! a commit an approver signed (real ssh keys, git's allowed-signers format).

use super::*;

/// A repository set up as in [`Mk`], whose approvers list names `mayor`, set and the spec
/// approved again in commits `mayor` signed; `None` when ssh-keygen is missing.
fn signed_mk(check: &str) -> Option<(Mk, Signer, Signer)> {
    let mayor = Signer::new("Mayor", "mayor@example.com")?;
    let worker = Signer::new("Polecat", "polecat@example.com")?;
    let m = Mk::with_check(check);
    identity_from_home(&m.repo);
    m.repo
        .write(".beads/allowed_signers", &format!("{}\n", mayor.allowed()));
    let as_mayor = [("HOME", mayor.home())];
    let env: Vec<(&str, &str)> = as_mayor.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let git = |args: &[&str]| {
        git_ok(mayor.dir.path(), m.repo.path(), args, false);
    };
    git(&["add", ".beads/allowed_signers"]);
    git(&["commit", "-q", "-m", "approvers"]);
    m.run_in(
        None,
        &["config", "set", "approvers", ".beads/allowed_signers"],
        &env,
    )
    .expect_code(0);
    m.run_in(None, &["inspect", "approve", &m.spec], &env)
        .expect_code(0);
    Some((m, mayor, worker))
}

#[test]
fn the_stamp_names_the_committer_not_a_free_text_actor() {
    let m = Mk::new();
    m.repo.ok(&["reopen", &m.spec]);
    m.repo
        .ok(&["inspect", "approve", &m.spec, "--actor", "Mayor"]);
    let text = m.repo.read(&format!(".beads/issues/{}.md", m.spec));
    assert!(
        text.contains("by: \"Test User <test@example.com>\""),
        "{text}"
    );
    assert!(!text.contains("by: Mayor"), "{text}");
}

#[test]
fn a_worker_cannot_turn_the_approved_spec_into_its_own() {
    let m = Mk::new();
    let (_holder, wt) = m.worktree(&format!("polecat/{}", m.work));
    let worker = |args: &[&str]| m.run_in(Some(&wt), args, &[]);
    // reopen clears the stamp: pending approval again.
    worker(&["reopen", &m.spec]).expect_code(0);
    let text = m.repo.read(&format!(".beads/issues/{}.md", m.spec));
    assert!(!text.contains("approved:"), "{text}");
    let pending = m.repo.json(&["inspect", "pending"]).to_string();
    assert!(pending.contains(&m.spec), "{pending}");
    // The spec keeps its type, and is never written over.
    let r = worker(&["update", &m.spec, "-t", "task"]);
    r.expect_code(2);
    assert!(
        r.stderr.contains("a test spec stays a test spec"),
        "{}",
        r.all()
    );
    let r = worker(&["update", &m.work, "-t", "test-spec"]);
    r.expect_code(2);
    let r = worker(&["inspect", "create-spec", &m.work]);
    assert_ne!(r.code, Some(0), "{}", r.all());
    let text = m.repo.read(&format!(".beads/issues/{}.md", m.spec));
    assert!(
        text.contains("tests/check.sh#fizz"),
        "not written over: {text}"
    );
}

#[test]
fn with_approvers_only_a_stamp_an_approver_signed_counts() {
    let Some((m, mayor, worker)) = signed_mk(CHECK) else {
        eprintln!("ssh-keygen is missing: approvers not checked");
        return;
    };
    let as_worker = [("HOME", worker.home())];
    let wenv: Vec<(&str, &str)> = as_worker.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Signed by the mayor: the inspection judges (and the check fails: 15 prints 15).
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    r.expect_code(1);
    assert!(
        r.stdout
            .contains("approval: approved by mayor@example.com in"),
        "{}",
        r.all()
    );
    // The worker (its own key, not an approver's) weakens and re-approves its spec.
    let (_holder, wt) = m.worktree("polecat/w");
    let worker_run = |args: &[&str]| m.run_in(Some(&wt), args, &wenv);
    worker_run(&["reopen", &m.spec]).expect_code(0);
    worker_run(&[
        "inspect",
        "add-criteria",
        &m.spec,
        "-d",
        "x",
        "--cmd",
        "true",
    ])
    .expect_code(0);
    worker_run(&["inspect", "approve", &m.spec, "--actor", "Mayor"]).expect_code(0);
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    r.expect_code(3);
    assert!(r.stdout.contains("is pending approval"), "{}", r.all());
    assert!(
        r.stdout
            .contains("signed by a key that is not an approver's"),
        "{}",
        r.all()
    );
    assert!(!m.labels(&m.work).contains("verified"));
    // A stamp recomputed by hand and committed unsigned counts for nothing either.
    let path = format!(".beads/issues/{}.md", m.spec);
    let text = m.repo.read(&path);
    m.repo.write(
        &path,
        &text.replace("tests/check.sh#fizz", "tests/check.sh#fizz "),
    );
    git_ok(
        worker.dir.path(),
        m.repo.path(),
        &["commit", "-q", "--no-gpg-sign", "-am", "x"],
        false,
    );
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    assert_ne!(r.code, Some(0), "{}", r.all());
    // The mayor approving in a signed commit is what makes it count.
    let as_mayor = [("HOME", mayor.home())];
    let menv: Vec<(&str, &str)> = as_mayor.iter().map(|(k, v)| (*k, v.as_str())).collect();
    git_ok(
        mayor.dir.path(),
        m.repo.path(),
        &["checkout", "-q", "--", "."],
        false,
    );
    m.run_in(None, &["inspect", "approve", &m.spec], &menv)
        .expect_code(0);
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    assert!(
        r.stdout.contains("approved by mayor@example.com"),
        "{}",
        r.all()
    );
}

#[test]
fn with_approvers_a_worker_cannot_change_the_settings_that_decide_verdicts() {
    // The approved check exits 2 when the work is wrong: a skip code would hide that.
    let Some((m, _mayor, worker)) =
        signed_mk("fizz() { [ \"$(./fizz.sh 15)\" = FizzBuzz ] || return 2; }\n")
    else {
        eprintln!("ssh-keygen is missing: approvers not checked");
        return;
    };
    let as_worker = [("HOME", worker.home())];
    let wenv: Vec<(&str, &str)> = as_worker.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (_holder, wt) = m.worktree("polecat/s");
    // From its worktree, the worker commits a skip code on the shared ledger.
    m.run_in(
        Some(&wt),
        &["config", "set", "verify.skip_codes", "[2,77,78]"],
        &wenv,
    )
    .expect_code(0);
    let log = m
        .repo
        .git(&["log", "-1", "--format=%s", "--", ".beads/vermas.yaml"]);
    assert!(log.contains("verify.skip_codes"), "committed: {log}");
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    assert!(
        r.stderr.contains("verify in .beads/vermas.yaml differ"),
        "a warning names the ignored change: {}",
        r.all()
    );
    assert!(!r.stdout.contains("[SKIP]"), "{}", r.all());
    assert!(!m.labels(&m.work).contains("verified"));
    // The same for the approvers list itself: the worker cannot name its own key.
    m.run_in(
        Some(&wt),
        &[
            "config",
            "set",
            "approvers",
            &format!("[\"{}\"]", worker.allowed()),
        ],
        &wenv,
    )
    .expect_code(0);
    let doctor = m.run_in(None, &["doctor"], &wenv);
    assert!(
        doctor
            .all()
            .contains("changed approvers in .beads/vermas.yaml"),
        "{}",
        doctor.all()
    );
    assert!(
        doctor.all().contains("mayor@example.com"),
        "{}",
        doctor.all()
    );
}

#[test]
fn without_approvers_the_reports_say_approvals_are_not_authenticated() {
    let m = Mk::new();
    for args in [
        vec!["doctor"],
        vec!["inspect", "show", m.work.as_str()],
        vec!["inspect", "run", m.work.as_str()],
    ] {
        let r = m.run(&args);
        assert!(
            r.all().contains("approvals are not authenticated")
                && r.all().contains("vermas config set approvers"),
            "{args:?}: {}",
            r.all()
        );
    }
    let result = m.repo.read(&format!(".beads/results/{}.yaml", m.work));
    assert!(result.contains("approval: "), "{result}");
}

#[test]
fn with_approvers_only_an_answer_an_approver_signed_counts() {
    let Some((m, mayor, worker)) = signed_mk(CHECK) else {
        eprintln!("ssh-keygen is missing: approvers not checked");
        return;
    };
    let with = |s: &Signer| vec![("HOME", s.home()), ("FAKE_NEEDS_ANSWER", "1".into())];
    let as_worker = with(&worker);
    let wenv: Vec<(&str, &str)> = as_worker.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let as_mayor = with(&mayor);
    let menv: Vec<(&str, &str)> = as_mayor.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // The work is right; the judge still asks a person.
    write_exec(&m.repo, "fizz.sh", FIXED);
    git_ok(
        mayor.dir.path(),
        m.repo.path(),
        &["commit", "-q", "-am", "fixed"],
        false,
    );
    m.run_in(None, &["inspect", "run", &m.work], &menv)
        .expect_code(4);
    // The worker answers its own question: unsigned by an approver, it is not an answer.
    m.run_in(None, &["answer", &m.work, "Yes, ship it."], &wenv)
        .expect_code(0);
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    r.expect_code(4);
    assert!(!m.labels(&m.work).contains("verified"), "{}", r.all());
    // The mayor's signed answer is one.
    m.run_in(None, &["clarify", &m.work, "Ship it?"], &menv)
        .expect_code(0);
    m.run_in(None, &["answer", &m.work, "Yes."], &menv)
        .expect_code(0);
    let r = m.run_in(None, &["inspect", "run", &m.work], &wenv);
    r.expect_code(0);
    assert!(m.labels(&m.work).contains("verified"), "{}", r.all());
}
