//! Gate runs refused before anything runs: unknown phases, bad `--ac`, judge criteria.

use super::*;

#[test]
fn an_unknown_phase_is_refused_naming_the_valid_ones() {
    let (repo, id) = setup();
    let err = refused(&repo, &["blue", &id, "--cmd", "touch ran-anyway"], &id);
    for phase in ["red", "green", "refactor", "implement"] {
        assert!(err.contains(phase), "names {phase}: {err}");
    }
    assert!(err.contains("blue"), "names what was given: {err}");
    assert!(!repo.join("ran-anyway").exists());
    finish(&repo);
}

#[test]
fn ac_out_of_range_or_without_a_test_spec_is_refused() {
    let (repo, id) = setup();
    let bare = repo.create("No test spec here", &[]);
    let err = refused(
        &repo,
        &["green", &bare, "--ac", "1", "--cmd", "touch ran-anyway"],
        &bare,
    );
    assert!(
        err.contains("test spec"),
        "says there is no test spec: {err}"
    );
    assert!(!repo.join("ran-anyway").exists());

    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "One", verify_command: "true"}"#,
            r#"{id: ac-2, description: "Two", verify_command: "true"}"#,
        ],
    );
    for n in ["3", "0", "99"] {
        let err = refused(&repo, &["green", &id, "--ac", n], &id);
        assert!(err.contains(n), "--ac {n}: names the number: {err}");
        if n != "0" {
            assert!(
                err.contains('2'),
                "--ac {n}: says how many there are: {err}"
            );
        }
    }
    let err = refused(&repo, &["green", &id, "--ac", "x"], &id);
    assert!(!err.is_empty());
    finish(&repo);
}

#[test]
fn a_judge_criterion_is_refused_and_nothing_is_recorded() {
    let (repo, id) = setup();
    repo.ok(&[
        "config",
        "set",
        "gates.green",
        "touch ran-anyway; echo from config",
    ]);
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "One", verify_command: "echo one"}"#,
            r#"{id: ac-2, description: "Two", verify_command: "echo two"}"#,
            r#"{id: ac-3, description: "Three", verify_command: "echo three"}"#,
            r#"{id: ac-4, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
        ],
    );
    // Earlier evidence exists and must stay as it is.
    expect(&repo, &["green", &id, "--ac", "1"], "accept");
    let record_path = format!(".beads/results/{id}.yaml");
    let record_before = repo.read(&record_path);
    let log_before = repo.git(&["log", "--format=%H %s"]);
    for args in [
        vec!["green", id.as_str(), "--ac", "4"],
        vec!["red", id.as_str(), "--ac", "4"],
        vec![
            "green",
            id.as_str(),
            "--ac",
            "4",
            "--cmd",
            "touch ran-anyway",
        ],
        vec!["green", spec.as_str(), "--ac", "4"],
    ] {
        let err = refused_keep(&repo, &args);
        assert!(err.contains("ac-4"), "{args:?}: names the criterion: {err}");
        assert!(err.contains("judge criterion"), "{args:?}: says why: {err}");
        assert!(
            err.contains("status --judge") && err.contains("not by gates"),
            "{args:?}: says what decides it: {err}"
        );
    }
    assert_eq!(
        repo.git(&["log", "--format=%H %s"]),
        log_before,
        "no commit"
    );
    assert_eq!(repo.read(&record_path), record_before, "no evidence added");
    assert!(!repo.join("ran-anyway").exists(), "no command ran");
    assert!(
        !checks(&repo, &id).iter().any(|c| c["criterion"] == "ac-4"),
        "no ac-4 evidence"
    );
    finish(&repo);
}
