//! `design` and `strategize` with `--yes`: what they write, bad input, model output that never checks, retries.

use super::*;

#[test]
fn design_yes_creates_a_feature_with_the_requirements_in_one_commit() {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.git(&["commit", "-qam", "the stand-in LLM"]);
    let before = repo.commit_count();
    let (out, _) = run_env(&repo, &["design", "fizzbuzz for 1 to n", "--yes"], &[], 0);
    assert!(
        out.contains("## Functional\n- It does what was asked: fizzbuzz for 1 to n"),
        "{out}"
    );
    assert!(out.contains("Created vm-"), "{out}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(uncommitted(&repo), "");
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("vermas design: vm-"), "{subject}");
    assert!(
        subject.contains("Designed: fizzbuzz for 1 to n (+1 more)"),
        "{subject}"
    );

    let work = the_work(&repo);
    assert_eq!(work["issue_type"], "feature");
    assert_eq!(work["title"], "Designed: fizzbuzz for 1 to n");
    let id = work["id"].as_str().expect("id");
    let body = repo.read(&format!(".beads/issues/{id}.md"));
    assert!(
        body.ends_with(
            "---\n## Functional\n- It does what was asked: fizzbuzz for 1 to n\n\n## Non-functional\n- Answers within one second\n\n## Constraints\n- No network access\n\n## Examples\n- 3 → Fizz\n"
        ),
        "{body}"
    );
    // Its test spec was created with it, as `create` makes one.
    let shown = repo.json(&["inspect", "show", id]);
    assert_eq!(shown["spec"]["id"], format!("vm-spec-{}", &id[3..]));
}

#[test]
fn design_bead_replaces_the_description_of_existing_work_and_reports_json() {
    let repo = repo();
    let id = repo.create("Notifications", &["-t", "task", "-d", "make it ping"]);
    let before = repo.commit_count();
    let v = repo.json(&["design", "pings within 2s", "--bead", &id, "--yes"]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["created"], false);
    assert_eq!(v["requirements"]["constraints"][0], "No network access");
    assert!(v["requirements"].get("title").is_none(), "{v}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(uncommitted(&repo), "");
    let text = repo.read(&format!(".beads/issues/{id}.md"));
    assert!(text.contains("title: Notifications\n"), "{text}");
    assert!(!text.contains("make it ping"), "{text}");
    assert!(
        text.contains("- It does what was asked: pings within 2s\n"),
        "{text}"
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        format!("vermas design: {id} Notifications")
    );
    // The designer saw the work it was asked about.
    let log = repo.join(".git/prompts.log");
    run_env(
        &repo,
        &["design", "again", "--bead", &id, "--yes"],
        &[("FAKE_PROMPT_LOG", &log.display().to_string())],
        0,
    );
    let p = &prompts(&log)[0];
    assert!(p.starts_with("ROLE: designer\n"), "{p}");
    assert!(
        p.contains(&format!("WORK {id} (task): Notifications")),
        "{p}"
    );
}

#[test]
fn bad_input_is_refused_before_the_model_is_asked() {
    let repo = repo();
    let log = repo.join(".git/asks.log");
    let env = [("FAKE_LOG", log.to_str().expect("path"))];
    let before = repo.commit_count();
    // No terminal and no --yes: the question is an error that names --yes.
    for args in [vec!["design", "fizzbuzz"], vec!["plan", "fizzbuzz"]] {
        let (_, err) = run_env(&repo, &args, &env, 2);
        assert!(err.contains("stdin is not a terminal: pass --yes"), "{err}");
    }
    let id = repo.create("Work", &[]);
    let (_, err) = run_env(&repo, &["strategize", &id], &env, 2);
    assert!(err.contains("pass --yes"), "{err}");
    // An empty request, a bead that is not there, a test spec as design's target.
    let (_, err) = run_env(&repo, &["design", "  ", "--yes"], &env, 2);
    assert!(err.contains("the request is empty"), "{err}");
    let (_, err) = run_env(
        &repo,
        &["design", "x", "--bead", "vm-nope", "--yes"],
        &env,
        2,
    );
    assert!(err.contains("no bead matches 'vm-nope'"), "{err}");
    let (_, err) = run_env(&repo, &["strategize", "vm-nope", "--yes"], &env, 2);
    assert!(err.contains("no bead matches"), "{err}");
    repo.ok(&["inspect", "create-spec", &id]);
    let spec = format!("vm-spec-{}", &id[3..]);
    let (_, err) = run_env(&repo, &["design", "x", "--bead", &spec, "--yes"], &env, 2);
    assert!(err.contains("is a test-spec"), "{err}");
    // An approved spec takes no new criteria.
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "runs",
        "--cmd",
        "true",
    ]);
    repo.ok(&["inspect", "approve", &spec]);
    let (_, err) = run_env(&repo, &["strategize", &id, "--yes"], &env, 2);
    assert!(err.contains("is approved"), "{err}");
    assert!(asked(&log).is_empty(), "{:?}", asked(&log));
    // --resume of no molecule, or of one that is not a plan.
    let err = repo.fails(&["plan", "--resume", "mol-nope", "--yes"], 2);
    assert!(err.contains("no molecule matches 'mol-nope'"), "{err}");
    let poured = repo.json(&["mol", "pour", "mol-inspect", "--bead", &id]);
    let other = poured["id"].as_str().expect("mol id");
    let err = repo.fails(&["plan", "--resume", other, "--yes"], 2);
    assert!(
        err.contains("is a mol-inspect molecule, not a plan"),
        "{err}"
    );
    // Usage errors.
    repo.fails(&["plan"], 2);
    repo.fails(&["plan", "--list", "--yes"], 2);
    assert_eq!(repo.commit_count(), before + 5);
}

#[test]
fn garbage_from_the_designer_is_asked_again_with_the_error_then_refused_unwritten() {
    let repo = repo();
    let log = repo.join(".git/asks.log");
    let plog = repo.join(".git/prompts.log");
    let env = [
        ("FAKE_GARBAGE_ROLE", "designer"),
        ("FAKE_LOG", log.to_str().expect("path")),
        ("FAKE_PROMPT_LOG", plog.to_str().expect("path")),
    ];
    let before = (repo.commit_count(), bead_files(&repo));
    let (out, err) = run_env(&repo, &["design", "fizzbuzz", "--yes"], &env, 1);
    assert_eq!(out, "");
    assert!(
        err.contains(
            "the designer's reply could not be used (3 asks): the reply holds no JSON object"
        ),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    // The first ask and llm.retries (2) more, each quoting why the last one failed.
    assert_eq!(asked(&log), ["designer", "designer", "designer"]);
    let p = prompts(&plog);
    assert!(!p[0].contains("COULD NOT BE USED"), "{}", p[0]);
    for retry in &p[1..] {
        assert!(
            retry.contains("YOUR PREVIOUS REPLY COULD NOT BE USED: the reply holds no JSON object"),
            "{retry}"
        );
        assert!(
            retry.contains("It was: I would rather talk about the weather."),
            "{retry}"
        );
    }
    assert_eq!((repo.commit_count(), bead_files(&repo)), before);
    assert_eq!(uncommitted(&repo), "");

    // llm.retries 0: one ask only; --json gives the error as JSON with code llm.
    repo.ok(&["config", "set", "llm.retries", "0"]);
    std::fs::remove_file(&log).expect("rm log");
    let (_, err) = run_env(&repo, &["design", "fizzbuzz", "--yes", "--json"], &env, 1);
    let e: serde_json::Value = serde_json::from_str(err.trim()).expect("JSON error");
    assert_eq!(e["code"], "llm");
    assert_eq!(asked(&log), ["designer"]);

    // A reply that parses on the second ask is used.
    repo.ok(&["config", "set", "llm.retries", "2"]);
    std::fs::remove_file(&log).expect("rm log");
    run_env(
        &repo,
        &["design", "fizzbuzz", "--yes"],
        &[
            ("FAKE_GARBAGE_ONCE", "designer"),
            ("FAKE_LOG", log.to_str().expect("path")),
        ],
        0,
    );
    assert_eq!(asked(&log), ["designer", "designer"]);
}

#[test]
fn criteria_that_do_not_check_are_asked_again_then_refused_unwritten() {
    let repo = repo();
    let id = repo.create("Work", &[]);
    let log = repo.join(".git/asks.log");
    let plog = repo.join(".git/prompts.log");
    let before = (repo.commit_count(), bead_files(&repo));
    let (_, err) = run_env(
        &repo,
        &["strategize", &id, "--yes", "--approve"],
        &[
            (
                "FAKE_REPLY_STRATEGIST",
                r#"[{"id": "AC-1", "description": "it runs", "verify_command": "if then"}]"#,
            ),
            ("FAKE_LOG", log.to_str().expect("path")),
            ("FAKE_PROMPT_LOG", plog.to_str().expect("path")),
        ],
        1,
    );
    assert!(
        err.contains("the strategist's reply could not be used (3 asks): criterion 1"),
        "{err}"
    );
    assert!(err.contains("does not parse as shell"), "{err}");
    assert_eq!(asked(&log), ["strategist"; 3]);
    assert!(prompts(&plog)[2].contains("COULD NOT BE USED: criterion 1"));
    // No test spec was created, nothing committed.
    assert_eq!((repo.commit_count(), bead_files(&repo)), before);
    assert_eq!(uncommitted(&repo), "");
}

#[test]
fn strategize_yes_creates_the_spec_adds_criteria_and_approves_in_one_commit() {
    let repo = repo();
    let id = repo.create("Work", &["-d", "## Functional\n- it runs"]);
    let before = repo.commit_count();
    let plog = repo.join(".git/prompts.log");
    let (out, _) = run_env(
        &repo,
        &["strategize", &id, "--yes", "--approve"],
        &[("FAKE_PROMPT_LOG", plog.to_str().expect("path"))],
        0,
    );
    let spec = format!("vm-spec-{}", &id[3..]);
    assert!(
        out.contains(&format!("Created test spec {spec} for {id}")),
        "{out}"
    );
    assert!(
        out.contains(&format!("Added 2 criteria to {spec}: ac-1, ac-2")),
        "{out}"
    );
    assert!(out.contains(&format!("Approved {spec}")), "{out}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(uncommitted(&repo), "");
    let shown = repo.json(&["inspect", "show", &id]);
    assert_eq!(shown["spec"]["approved"], true);
    let c = &shown["spec"]["criteria"];
    assert_eq!(c[0]["id"], "ac-1");
    assert_eq!(c[0]["verify_command"], "test -d .beads");
    assert_eq!(c[1]["description"], "It runs");
    let mail = repo.json(&["mail", "inbox", "mayor/"]);
    assert!(mail.to_string().contains("SPEC APPROVED"), "{mail}");
    let p = &prompts(&plog)[0];
    assert!(p.starts_with("ROLE: strategist\n"), "{p}");
    assert!(
        p.contains(&format!("WORK {id} (task): Work\n## Functional\n- it runs")),
        "{p}"
    );
    // The work may be slung now.
    repo.ok(&["sling", &id, "polecat"]);

    // A second spec round (reopened) proposing the same criteria adds no copy of them.
    repo.ok(&["reopen", &spec]);
    let v = repo.json(&["strategize", &spec, "--yes"]);
    assert_eq!(v["added"].as_array().map(Vec::len), Some(0), "{v:#}");
    assert_eq!(v["approved"], false);
    let spec_now = repo.json(&["show", &spec])[0].clone();
    assert_eq!(
        spec_now["acceptance_criteria"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn llm_retries_is_a_config_key_with_a_default_of_two() {
    let repo = repo();
    assert_eq!(repo.json(&["config", "get", "llm.retries"])["value"], 2);
    repo.ok(&["config", "set", "llm.retries", "5"]);
    assert!(repo.read(".beads/vermas.yaml").contains("  retries: 5\n"));
    repo.fails(&["config", "set", "llm.retries", "-1"], 2);
}
