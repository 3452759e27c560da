//! Designer and Strategist end to end: `design`, `strategize` and `plan` on real
//! repositories with the scripted role stand-in (fixtures/llm-roles), their approval loops
//! driven through a real pseudo-terminal (y, n, e with a real editor script, r with
//! feedback that reaches the model's prompt), `--yes`, no terminal, model output that never
//! parses, and a plan stopped after its design and resumed.

use crate::common::pty::Terminal;
use crate::common::*;
use std::path::{Path, PathBuf};

/// The scripted role-aware LLM stand-in.
fn roles_llm() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/llm-roles")
}

/// A repository whose LLM is the stand-in (no test spec made with each new bead).
fn repo() -> Repo {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.git(&["commit", "-qam", "the stand-in LLM"]);
    repo
}

/// Runs vermas with extra environment variables, asserting exit `code`; returns
/// (stdout, stderr).
fn run_env(repo: &Repo, args: &[&str], env: &[(&str, &str)], code: i32) -> (String, String) {
    let mut c = repo.cmd(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run vermas");
    assert_eq!(
        out.status.code(),
        Some(code),
        "vermas {args:?}\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    (stdout(&out), stderr(&out))
}

/// Bead files under `.beads/issues`, sorted.
fn bead_files(repo: &Repo) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo.join(".beads/issues"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Every vermas-written path that is not committed (`git status --porcelain`, all files).
fn uncommitted(repo: &Repo) -> String {
    repo.git(&["status", "--porcelain", "--untracked-files=all"])
}

/// The roles the stand-in answered, in order, from its FAKE_LOG.
fn asked(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// The prompts the stand-in received, from its FAKE_PROMPT_LOG.
fn prompts(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .split("\n=== END\n")
        .filter(|p| !p.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The one work bead (not a test spec) of the repository, as `show --json` has it.
fn the_work(repo: &Repo) -> serde_json::Value {
    let work: Vec<serde_json::Value> = repo
        .listed()
        .into_iter()
        .filter(|b| b["issue_type"] != "test-spec")
        .collect();
    assert_eq!(work.len(), 1, "{work:?}");
    work[0].clone()
}

/// `vermas ARGS` in `repo` on a new pseudo-terminal, with `env` added.
fn terminal(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Terminal {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("vermas"));
    cmd.current_dir(repo.path()).args(args);
    for var in LEAKY_ENV.iter().chain(&["VISUAL", "EDITOR"]) {
        cmd.env_remove(var);
    }
    cmd.env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    Terminal::spawn(cmd)
}

/// An executable editor script `name` in the repository's .git folder (not a work-tree file).
fn editor(repo: &Repo, name: &str, body: &str) -> String {
    let path = repo.join(&format!(".git/{name}"));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write editor");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.display().to_string()
}

const QUESTION: &str = "Approve? [y]es / [n]o / [e]dit / [r]etry with feedback: ";

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

    // A second spec round (reopened) numbers on and shows the existing criteria.
    repo.ok(&["reopen", &spec]);
    let v = repo.json(&["strategize", &spec, "--yes"]);
    assert_eq!(v["added"][0]["id"], "ac-3");
    assert_eq!(v["approved"], false);
}

#[test]
fn y_in_a_terminal_accepts_and_n_declines_with_nothing_written() {
    let repo = repo();
    let before = repo.commit_count();
    let mut t = terminal(&repo, &["design", "fizzbuzz"], &[]);
    let shown = t.expect(QUESTION);
    assert!(
        shown.contains("Proposed requirements:\n\n# Designed: fizzbuzz\n\n## Functional\n"),
        "{shown}"
    );
    t.send("n");
    let (code, all) = t.finish();
    assert_eq!(code, 1, "{all}");
    assert!(
        all.contains("The requirements were declined: nothing was written."),
        "{all}"
    );
    assert_eq!(repo.commit_count(), before);
    assert!(bead_files(&repo).is_empty());

    let mut t = terminal(&repo, &["design", "fizzbuzz"], &[]);
    t.expect(QUESTION);
    t.send("maybe");
    t.expect("Answer y, n, e or r.");
    t.expect(QUESTION);
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    assert!(all.contains("Created vm-"), "{all}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(the_work(&repo)["title"], "Designed: fizzbuzz");
}

#[test]
fn e_opens_the_editor_and_a_bad_edit_is_shown_then_fixed() {
    let repo = repo();
    let count = repo.join(".git/edits");
    // First edit: an unknown section (refused, with its line). Second: a valid text.
    let ed = editor(
        &repo,
        "edit.sh",
        &format!(
            "n=$(cat '{c}' 2>/dev/null || echo 0); echo $((n + 1)) > '{c}'\n\
             if [ \"$n\" = 0 ]; then grep -q '^## Functional' \"$1\" || exit 3; printf '# T\\n\\n## Wishes\\n- a pony\\n' > \"$1\"; exit 0; fi\n\
             grep -q Wishes \"$1\" && printf '# Fixed title\\n\\n## Functional\\n- Also handles zero\\n' > \"$1\"",
            c = count.display()
        ),
    );
    let mut t = terminal(&repo, &["design", "fizzbuzz"], &[("EDITOR", &ed)]);
    t.expect(QUESTION);
    t.send("e");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("requirements:3:1"), "{shown}");
    assert!(shown.contains("unknown section 'Wishes'"), "{shown}");
    assert!(shown.contains("The edit was not used"), "{shown}");
    t.send("e");
    let shown = t.expect(QUESTION);
    assert!(
        shown.contains(
            "Proposed requirements:\n\n# Fixed title\n\n## Functional\n- Also handles zero"
        ),
        "{shown}"
    );
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    assert_eq!(repo.read(".git/edits").trim(), "2");
    let work = the_work(&repo);
    assert_eq!(work["title"], "Fixed title");
    let id = work["id"].as_str().expect("id");
    let text = repo.read(&format!(".beads/issues/{id}.md"));
    assert!(
        text.ends_with("---\n## Functional\n- Also handles zero\n"),
        "{text}"
    );
}

#[test]
fn r_sends_the_feedback_to_the_model_with_the_previous_proposal() {
    let repo = repo();
    let plog = repo.join(".git/prompts.log");
    let mut t = terminal(
        &repo,
        &["design", "fizzbuzz"],
        &[("FAKE_PROMPT_LOG", plog.to_str().expect("path"))],
    );
    t.expect(QUESTION);
    t.send("r");
    t.expect("Feedback: ");
    t.send("cover zero too");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("- Feedback: cover zero too"), "{shown}");
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    let p = prompts(&plog);
    assert_eq!(p.len(), 2);
    assert!(!p[0].contains("FEEDBACK FROM A PERSON"), "{}", p[0]);
    assert!(
        p[1].contains("PREVIOUS PROPOSAL\n# Designed: fizzbuzz\n"),
        "{}",
        p[1]
    );
    assert!(
        p[1].contains("FEEDBACK FROM A PERSON\ncover zero too\n"),
        "{}",
        p[1]
    );
    let id = the_work(&repo)["id"].as_str().expect("id").to_string();
    assert!(
        repo.read(&format!(".beads/issues/{id}.md"))
            .contains("- Feedback: cover zero too\n")
    );
}

#[test]
fn strategize_in_a_terminal_edits_the_criteria_as_yaml() {
    let repo = repo();
    let id = repo.create("Work", &[]);
    let ed = editor(
        &repo,
        "edit.sh",
        "sed -i 's/It runs/It really runs/' \"$1\"",
    );
    let mut t = terminal(&repo, &["strategize", &id], &[("EDITOR", &ed)]);
    let shown = t.expect(QUESTION);
    assert!(
        shown.contains("Proposed criteria:\n\n- id: ac-1\n  description: The workspace exists\n  verify_command: test -d .beads\n"),
        "{shown}"
    );
    t.send("e");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("description: It really runs"), "{shown}");
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    let shown = repo.json(&["inspect", "show", &id]);
    assert_eq!(
        shown["spec"]["criteria"][1]["description"],
        "It really runs"
    );
    assert_eq!(shown["spec"]["approved"], false);
}

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

#[test]
fn llm_retries_is_a_config_key_with_a_default_of_two() {
    let repo = repo();
    assert_eq!(repo.json(&["config", "get", "llm.retries"])["value"], 2);
    repo.ok(&["config", "set", "llm.retries", "5"]);
    assert!(repo.read(".beads/vermas.yaml").contains("  retries: 5\n"));
    repo.fails(&["config", "set", "llm.retries", "-1"], 2);
}
