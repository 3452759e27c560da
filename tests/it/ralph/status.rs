//! `vermas ralph status`: ralph's state files, progress from vermas's beads and molecules,
//! and the current workflow's checks, on real temporary git repositories.

use crate::common::*;
use crate::ralph::support::*;

// ---- ralph status ----

/// A vermas workspace with ralph's state naming `notify` as the current workflow, whose
/// molecule is an epic with three tasks: one closed, one awaiting an answer.
fn status_repo() -> (Repo, String, Vec<String>) {
    let repo = ralph_repo();
    repo.ok(&["init", "--prefix", "wx"]);
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    let epic = repo.create("Notifications", &["-t", "epic"]);
    let tasks: Vec<String> = ["Send it", "Retry it", "Ship it"]
        .iter()
        .map(|t| repo.create(t, &["--parent", &epic]))
        .collect();
    repo.ok(&["close", &tasks[0]]);
    repo.ok(&["clarify", &tasks[1], "GitHub Actions or Buildkite?"]);
    repo.write(".wrapix/ralph/state/current", "notify\n");
    repo.write(
        ".wrapix/ralph/state/notify.json",
        &format!(
            "{{\"label\":\"notify\",\"spec_path\":\"specs/notify.md\",\"molecule\":\"{epic}\"}}"
        ),
    );
    (repo, epic, tasks)
}

#[test]
fn status_shows_the_current_workflows_progress_and_waiting_beads() {
    let (repo, epic, tasks) = status_repo();
    let head = repo.git(&["rev-parse", "HEAD"]);
    let out = exits(&ralph(&repo, &["status"]), 0);
    let expected_start = format!(
        "Ralph Status: notify
===============================
Molecule: {epic}
Spec: specs/notify.md

Progress:
  [###-------] 33% (1/3)

Current Position:
  [done] {}  Send it
  [pending] {}  Retry it
",
        tasks[0], tasks[1]
    );
    assert!(out.starts_with(&expected_start), "{out}");
    assert!(
        out.contains(&format!("  [ready] {}  Ship it\n", tasks[2])),
        "{out}"
    );
    assert!(out.contains("Awaiting Input (1):\n"), "{out}");
    assert!(
        out.contains(&format!("  [awaiting] {:<14} Retry it\n", tasks[1])),
        "{out}"
    );
    assert!(
        out.contains("               \"GitHub Actions or Buildkite?\" ("),
        "{out}"
    );
    assert!(
        !repo.join("ran.marker").exists(),
        "plain status ran a check"
    );
    // Reading wrote and committed nothing.
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn status_verify_runs_the_current_spec_only() {
    let (repo, epic, _) = status_repo();
    let out = exits(&ralph(&repo, &["status", "--verify"]), 1);
    let report = format!("\n\nRalph Verify: notify ({epic})\n");
    assert!(out.contains(&report), "{out}");
    assert!(!out.contains("Ralph Verify: login"), "{out}");
    assert!(
        out.ends_with("\n\n1 passed, 1 failed, 4 skipped\n"),
        "{out}"
    );
    assert!(
        out.contains("  [SKIP] Clear visibility into current state (judge only)\n"),
        "{out}"
    );
    assert!(repo.join("ran.marker").exists());
    // --spec names another workflow.
    let out = exits(&ralph(&repo, &["status", "--verify", "-s", "login"]), 0);
    assert!(out.starts_with("Ralph Status: login\n"), "{out}");
    assert!(out.contains("\nRalph Verify: login\n"), "{out}");
    assert!(out.ends_with("\n1 passed, 0 failed, 0 skipped\n"), "{out}");
}

#[test]
fn status_without_a_current_workflow_verifies_every_spec() {
    let repo = ralph_repo();
    // No ralph state and no .beads: the repository's view says what would give it beads.
    let plain = "Ralph Status: this repository\n===============================\n\
                 Label: (not set): no ralph workflow here, showing every bead\n\n\
                 Progress:\n  (no .beads here: run `vermas init` to keep records of the work)\n";
    let out = exits(&ralph(&repo, &["status"]), 0);
    assert_eq!(out, plain);
    let out = exits(&ralph(&repo, &["status", "--verify"]), 1);
    // `ralph status` shows every criterion, as the live-spec document prints them.
    let status_all = VERIFY_ALL
        .replace(
            "  [SKIP] Works on both Linux and macOS (no annotation)\n",
            "  [SKIP] Clear visibility into current state (judge only)\n  [SKIP] Works on both Linux and macOS (no check defined)\n",
        )
        .replace("3 skipped (2 specs)", "4 skipped (2 specs)");
    assert_eq!(out, format!("{plain}\n{status_all}"));
    std::fs::create_dir_all(repo.join(".wrapix/ralph/state")).expect("mkdir");
    let out = exits(&ralph(&repo, &["status"]), 0);
    assert_eq!(
        out,
        plain.replace("no ralph workflow here", "ralph has no current workflow")
    );
}

#[test]
fn status_reads_the_older_current_json_and_hidden_specs() {
    let repo = ralph_repo();
    repo.write(
        ".wrapix/ralph/state/current.json",
        "{\"label\":\"secret\",\"hidden\":true,\"molecule\":\"wx-s1\"}",
    );
    repo.write(
        ".wrapix/ralph/state/secret.md",
        "# Secret\n\n## Success Criteria\n\n- [ ] Hidden works\n  [verify](tests/login.sh#test_login)\n",
    );
    let out = exits(&ralph(&repo, &["status", "--verify"]), 0);
    assert!(
        out.starts_with("Ralph Status: secret\n===============================\nMolecule: wx-s1\nSpec: .wrapix/ralph/state/secret.md (hidden)\n"),
        "{out}"
    );
    assert!(
        out.ends_with("Ralph Verify: secret (wx-s1)\n============================\n  [PASS] Hidden works\n         tests/login.sh::test_login (exit 0)\n\n1 passed, 0 failed, 0 skipped\n"),
        "{out}"
    );
}

#[test]
fn status_of_a_workflow_whose_spec_is_missing_is_refused() {
    let repo = ralph_repo();
    repo.write(".wrapix/ralph/state/current", "gone\n");
    let out = exits(&ralph(&repo, &["status"]), 0);
    assert!(out.starts_with("Ralph Status: gone\n"), "{out}");
    let out = ralph(&repo, &["status", "--verify"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("specs/gone.md does not exist"),
        "{}",
        stderr(&out)
    );
    assert!(!repo.join("ran.marker").exists());
}

#[test]
fn status_counts_labelled_beads_without_a_molecule() {
    let repo = ralph_repo();
    repo.ok(&["init", "--prefix", "wx"]);
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    let a = repo.create("One", &["-l", "spec-login"]);
    repo.create("Two", &["-l", "spec-login"]);
    repo.create("Elsewhere", &[]);
    repo.ok(&["close", &a]);
    repo.write(".wrapix/ralph/state/current", "login\n");
    let out = exits(&ralph(&repo, &["status"]), 0);
    assert!(
        out.starts_with(
            "Ralph Status: login
===============================
Molecule: (not set)
Spec: specs/login.md

Beads Progress (spec-login):
  (No molecule set - using label-based counting)

  Open:        1
  In Progress: 0
  Closed:      1
  Ready:       1
  Total:       2
  Progress:    50% complete
"
        ),
        "{out}"
    );
    assert!(!out.contains("Elsewhere"), "{out}");
}

/// A three-step formula: `draft` first, then `review` and `ship`.
const TRIO: &str = "formula = 'trio'\nversion = 1\n\n[[steps]]\nid = 'draft'\ntitle = 'Draft it'\n\n[[steps]]\nid = 'review'\ntitle = 'Review it'\nneeds = ['draft']\n\n[[steps]]\nid = 'ship'\ntitle = 'Ship it'\nneeds = ['review']\n";

#[test]
fn status_follows_a_vermas_molecules_steps() {
    let repo = ralph_repo();
    repo.ok(&["init", "--prefix", "wx"]);
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    repo.write(".beads/formulas/trio.formula.toml", TRIO);
    let work = repo.create("Notifications", &[]);
    let asked = repo.create("Which provider", &["--parent", &work]);
    repo.ok(&["clarify", &asked, "Which push provider?"]);
    let mol = repo.json(&["mol", "pour", "trio", "--bead", &work]);
    let id = mol["id"].as_str().expect("mol id").to_string();
    repo.ok(&["mol", "done", &id, "draft"]);
    repo.write(".wrapix/ralph/state/current", "notify\n");
    repo.write(
        ".wrapix/ralph/state/notify.json",
        &format!("{{\"label\":\"notify\",\"molecule\":\"{id}\"}}"),
    );
    let out = exits(&ralph(&repo, &["status"]), 0);
    assert_eq!(
        out,
        format!(
            "Ralph Status: notify
===============================
Molecule: {id}
Spec: specs/notify.md

Progress:
  [###-------] 33% (1/3)

Current Position:
  [done] draft  Draft it
  [ready] review  Review it
  [pending] ship  Ship it

Awaiting Input (1):
  [awaiting] {asked:<14} Which provider
               \"Which push provider?\" (0s ago)
"
        )
        .replace("(0s ago)", &out_age(&out))
    );
    // A prefix of the molecule's id is not the molecule: ralph names it in full.
    let short = &id[..id.len() - 1];
    repo.write(
        ".wrapix/ralph/state/notify.json",
        &format!("{{\"label\":\"notify\",\"molecule\":\"{short}\"}}"),
    );
    let out = exits(&ralph(&repo, &["status"]), 0);
    assert!(
        out.contains("Beads Progress (spec-notify):\n  (molecule not found in .beads - using label-based counting)\n"),
        "{out}"
    );
}

/// The age the output shows for the one awaiting bead (it depends on the clock).
fn out_age(out: &str) -> String {
    let start = out.rfind('(').expect("an age");
    out[start..].trim_end().to_string()
}

/// The live-spec document's own example: three criteria, one per kind of link.
const DOCUMENT_SPEC: &str = "# Notifications

## Success Criteria

- [ ] Notification appears within 2s
  [verify](tests/notify-test.sh::test_notification_timing)
- [ ] Clear visibility into current state
  [judge](tests/judges/notify.sh::test_clear_visibility)
- [ ] Works on both Linux and macOS
";

#[test]
fn status_judge_prints_verify_only_criteria_as_the_document_shows() {
    let repo = Repo::new();
    repo.write("specs/notifications.md", DOCUMENT_SPEC);
    repo.write(
        "tests/notify-test.sh",
        "test_notification_timing() { touch ran.marker; }\n",
    );
    repo.write(
        "tests/judges/notify.sh",
        "test_clear_visibility() {\n  judge_files specs/notifications.md\n  judge_criterion \"The spec names its criteria\"\n}\n",
    );
    repo.write(".wrapix/ralph/state/current", "notifications\n");
    repo.write(
        ".wrapix/ralph/state/notifications.json",
        "{\"label\":\"notifications\",\"spec_path\":\"specs/notifications.md\",\"molecule\":\"wx-q6x\"}",
    );
    let dir = claude_dir();
    let env = [("PATH", path_with(dir.path()))];
    let out = exits(&ralph_env(&repo, &["status", "--judge"], &env), 0);
    let report = out
        .split("\n\n")
        .skip_while(|p| !p.starts_with("Ralph Judge"))
        .collect::<Vec<_>>()
        .join("\n\n");
    assert_eq!(
        report,
        "Ralph Judge: notifications (wx-q6x)
===================================
  [SKIP] Notification appears within 2s (verify only)
  [PASS] Clear visibility into current state
         \"The fake judge read the files and found the criterion met.\"
  [SKIP] Works on both Linux and macOS (no check defined)

1 passed, 0 failed, 2 skipped
"
    );
    assert!(
        !repo.join("ran.marker").exists(),
        "--judge ran a verify check"
    );

    // `ralph spec --judge` keeps ralph's own listing: verify-only criteria left out.
    let out = exits(&ralph_env(&repo, &["spec", "--judge"], &env), 0);
    assert!(!out.contains("verify only"), "{out}");
    assert!(out.contains("(no annotation)"), "{out}");
}
