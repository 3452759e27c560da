//! `plan` stopped after its design or its criteria, and resumed.

use super::*;

#[test]
fn a_plan_stopped_after_its_design_resumes_at_strategize() {
    let repo = repo();
    let log = repo.join(".git/asks.log");
    let logs = log.to_str().expect("path");
    let before = repo.commit_count();
    let (_, err) = run_env(
        &repo,
        &["plan", "fizzbuzz for 1 to n", "--yes"],
        &[("FAKE_FAIL_ROLE", "strategist"), ("FAKE_LOG", logs)],
        1,
    );
    assert!(err.contains("the strategist model is unavailable"), "{err}");
    assert!(err.contains("vermas plan --resume mol-"), "{err}");
    assert_eq!(asked(&log), ["designer", "strategist"]);
    // The design and the created work are recorded, one commit each.
    assert_eq!(repo.commit_count(), before + 2);
    assert_eq!(uncommitted(&repo), "");
    let subjects = repo.git(&["log", "-2", "--format=%s"]);
    assert!(subjects.contains("vermas plan: mol-"), "{subjects}");
    let list = repo.json(&["plan", "--list"]);
    assert_eq!(list.as_array().expect("list").len(), 1);
    assert_eq!(list[0]["next"], "strategize");
    assert_eq!(list[0]["request"], "fizzbuzz for 1 to n");
    let mol = list[0]["molecule"].as_str().expect("mol").to_string();
    let work = the_work(&repo);
    assert_eq!(list[0]["bead"], work["id"]);

    // The same request again: the designer is not asked again, nothing is created twice.
    std::fs::remove_file(&log).expect("rm log");
    let (out, err) = run_env(
        &repo,
        &["plan", "fizzbuzz for 1 to n", "--yes", "--approve"],
        &[("FAKE_LOG", logs)],
        0,
    );
    assert!(
        err.contains(&format!("Resuming plan {mol} at its strategize step")),
        "{err}"
    );
    assert!(out.contains(&format!("Plan {mol} complete")), "{out}");
    assert_eq!(asked(&log), ["strategist"]);
    assert_eq!(the_work(&repo)["id"], work["id"]);
    assert_eq!(repo.commit_count(), before + 3);
    let shown = repo.json(&["mol", "show", &mol]);
    let statuses: Vec<&str> = shown["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(statuses, ["completed"; 3], "{shown}");
    let id = work["id"].as_str().expect("id");
    assert_eq!(
        repo.json(&["inspect", "show", id])["spec"]["approved"],
        true
    );
    assert_eq!(repo.json(&["plan", "--list"]), serde_json::json!([]));
    // A complete plan is not resumed.
    let err = repo.fails(&["plan", "--resume", &mol, "--yes"], 2);
    assert!(err.contains("is complete"), "{err}");
}

#[test]
fn plan_resume_by_molecule_after_criteria_were_declined_in_a_terminal() {
    let repo = repo();
    let before = repo.commit_count();
    let mut t = terminal(&repo, &["plan", "a calculator"], &[]);
    let shown = t.expect(QUESTION);
    assert!(shown.contains("Proposed requirements:"), "{shown}");
    t.send("y");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("Proposed criteria:"), "{shown}");
    t.send("n");
    let (code, all) = t.finish();
    assert_eq!(code, 1, "{all}");
    assert!(all.contains("Resume: vermas plan --resume mol-"), "{all}");
    assert_eq!(repo.commit_count(), before + 2);
    let mol = repo.json(&["plan", "--list"])[0]["molecule"]
        .as_str()
        .expect("mol")
        .to_string();
    // --resume with another request is refused; with the molecule alone it finishes.
    let err = repo.fails(&["plan", "something else", "--resume", &mol, "--yes"], 2);
    assert!(err.contains("plans another request"), "{err}");
    let v = repo.json(&["plan", "--resume", &mol, "--yes"]);
    assert_eq!(v["molecule"], mol.as_str());
    assert_eq!(v["resumed"], true);
    assert_eq!(v["strategy"]["added"][0]["id"], "ac-1");
    assert_eq!(repo.commit_count(), before + 3);
    assert_eq!(uncommitted(&repo), "");
}
