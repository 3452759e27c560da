//! Adding criteria (and refusing bad ones) and listing pending test specs.

use super::*;

#[test]
fn add_criteria_refuses_bad_input() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Thing"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    let before = repo.commit_count();
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--cmd",
            "if then fi (",
        ],
        2,
    );
    assert!(err.contains("does not parse as shell"), "{err}");
    let r = run(
        &repo,
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--cmd",
            "true",
            "--verify",
            "t.sh#f",
        ],
    );
    r.expect_code(2);
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--verify",
            "../../etc/passwd#f",
        ],
        2,
    );
    // A leading `/` is the repository root (as on GitHub); climbing out is what is refused.
    assert!(err.contains("leaves the repository"), "{err}");
    let r = run(&repo, &["inspect", "add-criteria", &spec, "-d", "x"]);
    r.expect_code(2);
    assert!(r.stderr.contains("--cmd"), "{}", r.stderr);
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "two\nlines",
            "--cmd",
            "true",
        ],
        2,
    );
    assert!(err.contains("one non-empty line"), "{err}");
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            &spec,
            "-d",
            "x",
            "--judge",
            "j.sh#",
        ],
        2,
    );
    assert!(err.contains("empty function name"), "{err}");
    let err = repo.fails(
        &[
            "inspect",
            "add-criteria",
            "vm-nope",
            "-d",
            "x",
            "--cmd",
            "true",
        ],
        2,
    );
    assert!(err.contains("vm-nope"), "{err}");
    assert_eq!(repo.commit_count(), before, "nothing recorded");
}

#[test]
fn pending_lists_open_test_specs_oldest_first_and_ready_shows_them_when_asked() {
    let repo = Repo::initialised_with_test_specs();
    let mut made = Vec::new();
    // Created out of time order: pending follows created_at, not creation order.
    for (title, at) in [
        ("Third", "3000000000"),
        ("First", "1000000000"),
        ("Second", "2000000000"),
    ] {
        let r = run_env(&repo, &["q", title], &[("VERMAS_NOW", at)]);
        r.expect_code(0);
        made.push(r.stdout.trim().replacen("vm-", "vm-spec-", 1));
    }
    assert_eq!(
        pending(&repo),
        [made[1].clone(), made[2].clone(), made[0].clone()]
    );
    let text = repo.ok(&["inspect", "pending"]);
    assert!(text.contains("0 criteria  Test spec: First"), "{text}");
    repo.ok(&[
        "inspect",
        "add-criteria",
        &made[2],
        "-d",
        "works",
        "--cmd",
        "true",
    ]);
    let text = repo.ok(&["inspect", "pending"]);
    assert!(text.contains("1 criterion  Test spec: Second"), "{text}");
    repo.ok(&["inspect", "approve", &made[2]]);
    assert_eq!(
        pending(&repo),
        [made[1].clone(), made[0].clone()],
        "approved specs leave"
    );
    let asked: Vec<String> = repo
        .json(&["ready", "-t", "test-spec"])
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|b| b["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked.contains(&made[0]) && asked.contains(&made[1]));
    assert!(ready(&repo).iter().all(|id| !id.contains("-spec-")));
    let err = repo.fails(&["ready", "-t", "nonsense"], 2);
    assert!(err.contains("nonsense"), "{err}");
}
