//! The evidence: the record, the note, one commit per run, `--json`, concurrent and unreadable records.

use super::*;

#[test]
fn every_attempt_is_evidence_in_one_commit_with_a_note() {
    let (repo, id) = setup();
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "fizzbuzz 15 prints FizzBuzz", verify_command: "printf -- '--- FAIL: TestFizz (0.00s)\\nFAIL\\n'; exit 1"}"#,
            r#"{id: ac-2, description: "fizz 3 prints Fizz", verify_command: "echo Fizz"}"#,
        ],
    );
    // The user's own staged and unstaged work is none of the gate's business.
    repo.write("mine-staged.txt", "staged\n");
    repo.git(&["add", "mine-staged.txt"]);
    repo.write("mine-unstaged.txt", "unstaged\n");

    let runs: [(&str, &str, &str, u64); 5] = [
        ("red", "1", "accept", 1),
        ("red", "1", "accept", 2),
        ("green", "1", "reject_failure", 1),
        ("red", "2", "reject_vanity", 1),
        ("green", "2", "accept", 1),
    ];
    for (n, (phase, ac, class, attempt)) in runs.iter().enumerate() {
        let before = repo.commit_count();
        let g = expect(&repo, &[phase, &id, "--ac", ac], class);
        assert_eq!(g.json["attempt"], *attempt, "{phase} ac-{ac}");
        assert_eq!(
            repo.commit_count(),
            before + 1,
            "exactly one commit per gate"
        );
        assert_eq!(
            repo.head_files(),
            vec![
                format!(".beads/issues/{id}.md"),
                format!(".beads/results/{id}.yaml"),
            ],
            "the commit holds the evidence and the bead, nothing else"
        );
        let subject = repo.git(&["log", "-1", "--format=%s"]);
        assert!(
            subject.starts_with(&format!("vermas gate {phase}: {id}")),
            "{subject}"
        );
        assert_eq!(repo.status(".beads"), "");

        let record = record(&repo, &id);
        assert_eq!(record["key"], id.as_str());
        let checks = record["checks"].as_array().expect("checks");
        assert_eq!(checks.len(), n + 1, "checks: grows by one per gate run");
        let c = &checks[n];
        assert_eq!(c["criterion"], format!("ac-{ac}"));
        assert!(
            c["kind"].as_str().is_some_and(|k| k.contains(phase)),
            "the phase is recorded: {c}"
        );
        assert_eq!(c["classification"], *class);
        assert_eq!(c["attempt"], *attempt);
        assert_eq!(c["command"], g.json["command"]);
        assert_eq!(c["exit_code"], g.json["exit_code"]);
        assert_eq!(c["snippet"], g.json["snippet"]);
        assert_eq!(c["duration_ms"], g.json["duration_ms"]);
        assert!(
            ["at", "timestamp", "started_at"]
                .iter()
                .any(|k| c[k].as_str().is_some_and(|t| t.ends_with('Z'))),
            "each attempt's evidence carries its own timestamp: {c}"
        );

        let notes = notes(&repo, &id);
        assert_eq!(notes.len(), n + 1, "one note per gate run");
        assert!(
            notes[n].starts_with(&format!("Gate {phase} ac-{ac}: {class} (")),
            "note: {}",
            notes[n]
        );
    }
    assert_eq!(
        record(&repo, &id)["verdict"],
        "PASS",
        "the latest run decides"
    );
    let first = &checks(&repo, &id)[0];
    assert_eq!(first["exit_code"], 1);
    assert!(
        first["snippet"]
            .as_str()
            .is_some_and(|s| s.starts_with("--- FAIL: TestFizz"))
    );

    // The user's files are where they were.
    let staged = repo.git(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged.trim(), "mine-staged.txt");
    assert!(repo.status("mine-unstaged.txt").starts_with("??"));
    finish(&repo);
}

#[test]
fn json_is_one_versioned_object_with_the_evidence() {
    let (repo, id) = setup();
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[r#"{id: ac-1, description: "fizz", verify_command: "echo fine"}"#],
    );
    let g = expect(&repo, &["refactor", &id, "--ac", "1"], "accept");
    let o = g.json.as_object().expect("an object");
    assert_eq!(o["schema_version"], 1);
    assert_eq!(o["phase"], "refactor");
    assert_eq!(o["bead"], id.as_str());
    assert_eq!(o["criterion"], "ac-1");
    assert_eq!(o["command"], "echo fine");
    assert_eq!(o["exit_code"], 0);
    assert_eq!(o["classification"], "accept");
    assert_eq!(o["snippet"], "fine\n");
    assert!(o["duration_ms"].is_u64());
    assert!(o["at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(o["attempt"], 1);
    // Errors are JSON on stderr, never half an object on stdout.
    let out = repo.run(&["gate", "purple", &id, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let err: Value = serde_json::from_str(&stderr(&out)).expect("stderr JSON");
    assert!(err.is_object());
    finish(&repo);
}

#[test]
fn gating_the_test_spec_itself_and_by_id_prefix() {
    let (repo, id) = setup();
    let prefix = &id[..id.len() - 1];
    let g = expect(
        &repo,
        &["green", prefix, "--cmd", "echo {mission_id}"],
        "accept",
    );
    assert_eq!(g.json["bead"], id.as_str());
    assert_eq!(g.json["snippet"], format!("{id}\n"));
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[r#"{id: ac-1, description: "fizz", verify_command: "echo {mission_id}"}"#],
    );
    let g = expect(&repo, &["green", &spec, "--ac", "1"], "accept");
    assert_eq!(g.json["criterion"], "ac-1");
    assert_eq!(g.json["bead"], spec.as_str());
    finish(&repo);
}

#[test]
fn concurrent_gates_on_one_bead_both_append() {
    let (repo, id) = setup();
    std::thread::scope(|s| {
        let runs: Vec<_> = ["one", "two"]
            .into_iter()
            .map(|tag| {
                let (repo, id) = (&repo, &id);
                s.spawn(move || {
                    let cmd = format!("sleep 0.2; echo {tag}");
                    repo.run(&["gate", "implement", id, "--cmd", &cmd])
                })
            })
            .collect();
        for r in runs {
            let out = r.join().expect("thread");
            assert!(out.status.success(), "{}", stderr(&out));
        }
    });
    let c = checks(&repo, &id);
    assert_eq!(c.len(), 2, "neither attempt is lost");
    let mut attempts: Vec<u64> = c.iter().filter_map(|c| c["attempt"].as_u64()).collect();
    attempts.sort();
    assert_eq!(attempts, vec![1, 2]);
    assert_eq!(notes(&repo, &id).len(), 2);
    finish(&repo);
}

#[test]
fn an_unreadable_record_is_never_overwritten() {
    let (repo, id) = setup();
    let path = format!(".beads/results/{id}.yaml");
    repo.write(&path, "key: [unclosed\nchecks: {{{\n");
    repo.git(&["add", &path]);
    repo.git(&["commit", "-q", "-m", "broken record by hand"]);
    let before = repo.commit_count();
    let out = repo.run(&["gate", "implement", &id, "--cmd", "true"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(repo.read(&path), "key: [unclosed\nchecks: {{{\n");
    assert_eq!(repo.commit_count(), before);
    finish(&repo);
}
