//! Which work gets a test spec with it, `--no-spec`, `auto_create: false`, and the audit-plan hooks.

use super::*;

#[test]
fn no_spec_and_epics_skip_the_test_spec_and_create_spec_adds_one_once() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Tiny", "--no-spec"]).trim().to_string();
    assert!(ready(&repo).contains(&work));
    assert_eq!(
        repo.json(&["inspect", "pending"]).as_array().map(Vec::len),
        Some(0)
    );
    // An epic never gets one.
    repo.ok(&["q", "Big theme", "-t", "epic"]);
    assert_eq!(
        repo.json(&["inspect", "pending"]).as_array().map(Vec::len),
        Some(0)
    );
    // create-spec makes one for existing work, once.
    repo.ok(&["inspect", "create-spec", &work]);
    assert_eq!(
        repo.json(&["inspect", "pending"]).as_array().map(Vec::len),
        Some(1)
    );
    let err = repo.fails(&["inspect", "create-spec", &work], 2);
    assert!(err.contains("already has test spec"), "{err}");
}

#[test]
fn audit_plan_hooks_run_around_test_spec_creation_and_a_pre_hook_stops_it() {
    let repo = Repo::initialised_with_test_specs();
    let log = repo.join("plan.log");
    let record = format!(
        "#!/bin/sh\n{{ printf '%s ' \"$VERMAS_HOOK\"; cat; echo; }} >> '{}'\n",
        log.display()
    );
    write_exec(&repo, ".beads/hooks/PreAuditPlan", &record);
    write_exec(&repo, ".beads/hooks/PostAuditPlan", &record);
    let work = repo.ok(&["q", "Planned"]).trim().to_string();
    let text = std::fs::read_to_string(&log).expect("hooks ran");
    assert!(text.starts_with("PreAuditPlan {"), "{text}");
    assert!(
        text.contains(&format!("PostAuditPlan {{\"bead_id\":\"{work}\"")),
        "{text}"
    );
    write_exec(
        &repo,
        ".beads/hooks/PreAuditPlan",
        "#!/bin/sh\necho 'planning is closed' >&2\nexit 1\n",
    );
    let before = repo.commit_count();
    let err = repo.fails(&["q", "Refused"], 2);
    assert!(err.contains("planning is closed"), "{err}");
    assert_eq!(repo.commit_count(), before, "nothing was created");
}

#[test]
fn tasks_features_and_bugs_get_a_test_spec_in_their_one_commit_and_nothing_else_does() {
    let repo = Repo::initialised_with_test_specs();
    for kind in ["task", "feature", "bug"] {
        let before = repo.commit_count();
        let created = repo.json(&["create", &format!("A {kind}"), "-t", kind]);
        let work = created["id"].as_str().expect("id").to_string();
        assert_eq!(repo.commit_count(), before + 1, "{kind}: one commit");
        let spec_id = work.replacen("vm-", "vm-spec-", 1);
        let spec = bead(&repo, &spec_id);
        assert_eq!(spec["issue_type"], "test-spec", "{spec:#}");
        assert_eq!(spec["parent"], work.as_str(), "{spec:#}");
        assert_eq!(spec["status"], "open", "{spec:#}");
        let deps = bead(&repo, &work)["dependencies"].to_string();
        assert!(
            deps.contains(&spec_id) && deps.contains("blocks"),
            "{kind}: {deps}"
        );
        let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
        assert!(
            files.contains(&format!(".beads/issues/{spec_id}.md")),
            "{files}"
        );
        assert!(files.contains(".beads/mail/inspector/"), "{files}");
        assert!(
            mail_subjects(&repo, "inspector/").contains(&format!("NEW SPEC NEEDED: A {kind}")),
            "{kind}"
        );
    }
    assert_eq!(pending(&repo).len(), 3);
    for kind in ["epic", "chore", "message", "test-spec"] {
        let before = repo.commit_count();
        repo.ok(&["q", &format!("A {kind}"), "-t", kind]);
        assert_eq!(repo.commit_count(), before + 1);
        let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
        assert_eq!(
            files.trim().lines().count(),
            1,
            "{kind}: only its file: {files}"
        );
    }
    // The hand-made test spec is pending too; no other spec appeared.
    assert_eq!(pending(&repo).len(), 4);
    let err = repo.fails(&["inspect", "create-spec", &pending(&repo)[3]], 2);
    assert!(err.contains("is itself a test spec"), "{err}");
}

#[test]
fn auto_create_false_and_no_spec_create_the_work_alone() {
    let repo = Repo::initialised_with_test_specs();
    let before = repo.commit_count();
    let work = repo.create("Tiny", &["--no-spec"]);
    assert_eq!(repo.commit_count(), before + 1);
    assert!(ready(&repo).contains(&work), "no spec: ready at once");
    assert!(mail_subjects(&repo, "inspector/").is_empty());
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    let plain = repo.create("Plain task", &[]);
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.trim(), format!(".beads/issues/{plain}.md"), "{files}");
    assert!(ready(&repo).contains(&plain));
    assert!(pending(&repo).is_empty());
    // Sling of work with no test spec names the command that creates one.
    let err = repo.fails(&["sling", &plain, "polecat"], 2);
    assert!(
        err.contains("has no test spec")
            && err.contains(&format!("vermas inspect create-spec {plain}")),
        "{err}"
    );
    let before = repo.commit_count();
    let created = repo.json(&["inspect", "create-spec", &plain]);
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(created["work"], plain.as_str());
    assert!(!ready(&repo).contains(&plain), "now it waits for its spec");
}
