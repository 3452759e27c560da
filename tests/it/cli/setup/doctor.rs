//! `doctor` and `completions`.

use super::*;

#[test]
fn completions_bash_prints_a_script_for_vermas() {
    let repo = Repo::new();
    let script = repo.ok(&["completions", "bash"]);
    assert!(
        script.contains("_vermas"),
        "{}",
        &script[..script.len().min(500)]
    );
    assert!(
        script.contains("complete "),
        "bash script should register with `complete`"
    );
    // Dynamic: the script asks vermas itself for the candidates as you type.
    assert!(script.contains("COMPLETE=\"bash\""), "{script}");
    repo.fails(&["completions", "tcsh"], 2);
}

#[test]
fn doctor_on_healthy_repo_exits_zero() {
    let repo = Repo::initialised();
    // An LLM command that exists (the default `claude` may not be installed).
    repo.ok(&["config", "set", "llm.command", "cat"]);
    let a = repo.create("one", &[]);
    repo.create("two", &["--deps", &a]);
    let out = repo.ok(&["doctor"]);
    assert!(!out.contains("error"), "{out}");
    assert!(out.contains("2 beads"), "{out}");
    let v = repo.json(&["doctor"]);
    let checks = v.as_array().expect("doctor --json is a list");
    assert!(!checks.is_empty());
    for c in checks {
        assert_eq!(c["level"], "ok", "{c}");
    }
}

#[test]
fn doctor_reports_unreadable_bead() {
    let repo = Repo::initialised();
    repo.create("fine", &[]);
    repo.write(
        ".beads/issues/vm-bad1.md",
        "---\nid: vm-bad1\ntitle: x\nstatus: [\n---\n",
    );
    let out = repo.run(&["doctor"]);
    assert_ne!(
        out.status.code(),
        Some(0),
        "doctor must fail on a broken bead"
    );
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("vm-bad1.md"), "{all}");
}

#[test]
fn doctor_reports_missing_llm_commands_and_spec_paths() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "llm.command", "cat"]);
    repo.write("specs/there.md", "# There\n");
    let good = repo.create("linked", &["--spec", "specs/there.md"]);
    let bad = repo.create("dangling", &["--spec", "specs/gone.md"]);
    // Hand-written commands that do not exist.
    let config = repo.read(".beads/vermas.yaml").replace(
        "  roles: {}\n",
        "  roles:\n    critic: vermas-no-such-critic --x\n",
    );
    repo.write(".beads/vermas.yaml", &config);
    repo.write_llm_command("/nonexistent/llm -p");
    // Committed, so the hand edit is not itself a finding here.
    repo.git(&["commit", "-qam", "hand-edited config"]);
    let out = repo.run(&["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("llm.command: not a runnable command") && text.contains("/nonexistent/llm"),
        "{text}"
    );
    assert!(
        text.contains("llm.roles.critic: not a runnable command")
            && text.contains("vermas-no-such-critic"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{bad} links spec specs/gone.md, which does not exist"
        )),
        "{text}"
    );
    assert!(!text.contains(&good), "{text}");
    let v = repo.json(&["doctor"]);
    let warnings: Vec<&str> = v
        .as_array()
        .expect("list")
        .iter()
        .filter(|f| f["level"] == "warning")
        .map(|f| f["message"].as_str().expect("message"))
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
}

#[test]
fn doctor_says_where_the_prefix_comes_from_without_one_in_the_config() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "llm.command", "cat"]);
    repo.create("one", &[]);
    let config = repo
        .read(".beads/vermas.yaml")
        .replace("\nprefix: vm\n", "\n");
    repo.write(".beads/vermas.yaml", &config);
    let text = repo.ok(&["doctor"]);
    assert!(text.contains("sets no prefix: new ids take 'vm'"), "{text}");
}
