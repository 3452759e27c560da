//! Verdicts that cannot be gamed: the pre-push gate verifies what is pushed (not the work
//! tree), criteria headings spelled a little differently still count and stray links are
//! warned about, checks hidden in comments or code never run, percent-escaped link paths
//! are found, `--junit DIR` is refused before anything runs, and two runs of one molecule
//! never run a step twice. Real repositories, the real binary, real `git push`.

use crate::common::*;
use crate::inspect::lifecycle_support::*;
use crate::lsp::client::{Client, file_uri};
use std::process::{Command, Stdio};

/// The temporary worktrees git knows of besides the checkout itself.
fn extra_worktrees(s: &Setup) -> Vec<String> {
    s.repo
        .git(&["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn a_fix_only_in_the_work_tree_does_not_let_a_failing_commit_through() {
    let s = Setup::new();
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    // Fixed on disk, never committed: what is pushed still fails.
    s.check("tests/alpha.sh", "alpha", 0);
    s.repo.ok(&["hooks", "install"]);
    let out = s.push();
    s.assert_refused(&out, None);
    assert!(stdout(&out).contains("[FAIL] alpha works"), "{}", all(&out));
    assert!(stderr(&out).contains("temporary worktree"), "{}", all(&out));
    assert_eq!(s.runs("alpha"), 1);
    // The work tree is left as it was, and the temporary worktree is gone.
    assert_eq!(
        s.repo.git(&["status", "--porcelain"]),
        " M tests/alpha.sh\n"
    );
    assert_eq!(extra_worktrees(&s), Vec::<String>::new());

    // Committed, the fix goes through, checked in place.
    s.commit("fix alpha");
    let out = s.push();
    s.assert_accepted(&out);
    assert!(
        !stderr(&out).contains("temporary worktree"),
        "{}",
        all(&out)
    );
}

#[test]
fn an_untracked_file_the_commit_lacks_does_not_make_it_pass() {
    let s = Setup::new();
    // The check passes only with a helper that was never committed.
    s.repo.write(
        "tests/alpha.sh",
        &format!(
            "test_alpha() {{\n  echo ran >> '{}'\n  test -f tests/helper.txt\n}}\n",
            s.mark("alpha").display()
        ),
    );
    s.commit("alpha needs its helper");
    s.repo.write("tests/helper.txt", "here, untracked\n");
    s.repo.ok(&["hooks", "install"]);
    let out = s.push();
    s.assert_refused(&out, None);
    assert!(stdout(&out).contains("[FAIL] alpha works"), "{}", all(&out));
}

#[test]
fn pushing_a_failing_branch_from_a_passing_checkout_is_refused() {
    let s = Setup::new();
    s.repo.git(&["checkout", "-q", "-b", "failing"]);
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha on a branch");
    s.repo.git(&["checkout", "-q", "main"]);
    s.repo.ok(&["hooks", "install"]);

    let out = s.push_env(s.repo.path(), &["origin", "failing"], &[]);
    assert!(!out.status.success(), "{}", all(&out));
    assert_eq!(s.remote_ref("refs/heads/failing"), None);
    assert!(stdout(&out).contains("[FAIL] alpha works"), "{}", all(&out));

    // Both at once: the passing main does not carry the failing branch.
    let out = s.push_env(s.repo.path(), &["origin", "main", "failing"], &[]);
    assert!(!out.status.success(), "{}", all(&out));
    assert_eq!(s.remote_ref("refs/heads/failing"), None);

    // main alone passes; deleting a remote ref verifies nothing.
    s.assert_accepted(&s.push());
    let pushed = s.push_env(s.repo.path(), &["--no-verify", "origin", "failing"], &[]);
    assert!(pushed.status.success(), "{}", all(&pushed));
    let runs = s.runs("alpha");
    let out = s.push_env(s.repo.path(), &["origin", ":failing"], &[]);
    assert!(out.status.success(), "{}", all(&out));
    assert_eq!(s.remote_ref("refs/heads/failing"), None);
    assert_eq!(s.runs("alpha"), runs, "a deletion ran checks");
    assert_eq!(extra_worktrees(&s), Vec::<String>::new());
}

/// A spec with one criterion under `heading` whose check fails.
fn failing_spec_under(repo: &Repo, heading: &str) {
    repo.write(
        "specs/bad.md",
        &format!("# Bad\n\n{heading}\n\n- [ ] holds [verify](../tests/t.sh#test_bad)\n"),
    );
}

/// A repository with a green spec and the checks both specs use.
fn two_specs() -> Repo {
    let repo = Repo::initialised();
    repo.write(
        "tests/t.sh",
        "test_good() {\n  true\n}\ntest_bad() {\n  return 1\n}\ntest_hidden() {\n  echo ran >> hidden.log\n}\n",
    );
    repo.write(
        "specs/good.md",
        "# Good\n\n## Success Criteria\n\n- [ ] fine [verify](../tests/t.sh#test_good)\n",
    );
    repo
}

#[test]
fn criteria_headings_spelled_a_little_differently_still_count() {
    let repo = two_specs();
    for heading in [
        "## Success Criteria:",
        "## Success Criteria (v2)",
        "## Success  Criteria",
        "## success criteria",
        "## Acceptance Criteria",
    ] {
        failing_spec_under(&repo, heading);
        let out = repo.run(&["status", "--verify"]);
        assert_eq!(out.status.code(), Some(1), "{heading}: {}", all(&out));
        assert!(
            stdout(&out).contains("[FAIL] holds"),
            "{heading}: {}",
            all(&out)
        );
        let checked = repo.ok(&["spec", "check"]);
        assert!(checked.contains("2 specs checked"), "{heading}: {checked}");
    }
}

#[test]
fn links_outside_every_criteria_section_are_warned_about_everywhere() {
    let repo = two_specs();
    failing_spec_under(&repo, "## Criteria");
    // `spec check`: a warning at the link, the file counted, no error.
    let out = repo.run(&["spec", "check"]);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    assert!(
        stdout(&out).contains("2 specs checked: 0 errors"),
        "{}",
        all(&out)
    );
    assert!(stderr(&out).contains("specs/bad.md:5"), "{}", all(&out));
    assert!(stderr(&out).contains("never runs"), "{}", all(&out));
    // `status` and `status --verify` say so too.
    for args in [&["status"][..], &["status", "--verify"]] {
        let out = repo.run(args);
        assert!(
            stderr(&out).contains("specs/bad.md:5"),
            "{args:?}: {}",
            all(&out)
        );
        assert!(
            stderr(&out).contains("never runs"),
            "{args:?}: {}",
            all(&out)
        );
    }
    // The LSP shows it as a warning on the link's line.
    let root = repo.path().canonicalize().unwrap();
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/bad.md"));
    let text = repo.read("specs/bad.md");
    let found: Vec<(u64, u64)> = c
        .open(&uri, &text)
        .iter()
        .filter(|d| d["code"] == "spec-check")
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["severity"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, [(4, 2)], "one warning on line 5");
}

#[test]
fn checks_in_html_comments_and_indented_code_never_run() {
    let repo = two_specs();
    repo.write(
        "specs/bad.md",
        "# Hidden\n\n## Success Criteria\n\n- [ ] shown [verify](../tests/t.sh#test_good)\n  <!-- [verify](../tests/t.sh#test_hidden) -->\n\n<!-- - [ ] x [verify](../tests/t.sh#test_hidden) -->\n\n<!--\n- [ ] y [verify](../tests/t.sh#test_hidden)\n-->\n\n    - [ ] z [verify](../tests/t.sh#test_hidden)\n\n- [ ] last\n\n      [verify](../tests/t.sh#test_hidden)\n",
    );
    let out = repo.run(&["status", "--verify"]);
    assert!(out.status.success(), "{}", all(&out));
    assert!(!repo.join("hidden.log").exists(), "a hidden check ran");
    let show = repo.json(&["spec", "show", "bad"]);
    let texts: Vec<&str> = show["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["shown", "last"], "{show}");
}

#[test]
fn a_percent_escaped_link_path_finds_the_file_github_opens() {
    let repo = Repo::initialised();
    repo.write(
        "tests/my tests.sh",
        "test_spaced() {\n  echo ran >> spaced.log\n}\n",
    );
    repo.write(
        "specs/s.md",
        "# S\n\n## Success Criteria\n\n- [ ] found [verify](../tests/my%20tests.sh#test_spaced)\n",
    );
    let checked = repo.ok(&["spec", "check"]);
    assert!(checked.contains("0 errors"), "{checked}");
    let out = repo.ok(&["status", "--verify"]);
    assert!(out.contains("[PASS] found"), "{out}");
    assert_eq!(repo.read("spaced.log"), "ran\n");

    // `spec check --fix` writes a bare path back escaped, so the link stays a link.
    repo.write(
        "specs/s.md",
        "# S\n\n## Success Criteria\n\n- [ ] found [verify](tests/my%20tests.sh#test_spaced)\n",
    );
    repo.ok(&["spec", "check", "--fix"]);
    assert!(
        repo.read("specs/s.md")
            .contains("[verify](../tests/my%20tests.sh#test_spaced)"),
        "{}",
        repo.read("specs/s.md")
    );
}

#[test]
fn junit_naming_a_folder_is_refused_before_any_check_runs() {
    let repo = two_specs();
    repo.write(
        "specs/good.md",
        "# Good\n\n## Success Criteria\n\n- [ ] ran [verify](../tests/t.sh#test_hidden)\n",
    );
    std::fs::create_dir_all(repo.join("reports")).unwrap();
    let err = repo.fails(&["status", "--verify", "--junit", "reports"], 2);
    assert!(err.contains("reports") && err.contains("folder"), "{err}");
    assert!(
        !repo.join("hidden.log").exists(),
        "checks ran before the refusal"
    );
}

/// `vermas mol run ID --handler HANDLER --jobs 1` started in `repo`, output piped.
fn mol_run(repo: &Repo, id: &str, handler: &str) -> std::process::Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vermas"));
    c.current_dir(repo.path())
        .args(["mol", "run", id, "--handler", handler, "--jobs", "1"])
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in LEAKY_ENV {
        c.env_remove(var);
    }
    c.spawn().expect("spawn vermas")
}

/// Three independent steps.
const TRIO: &str = "formula = \"trio\"\ndescription = \"Three steps\"\nversion = 1\n\n[[steps]]\nid = \"a\"\ntitle = \"A\"\n\n[[steps]]\nid = \"b\"\ntitle = \"B\"\n\n[[steps]]\nid = \"c\"\ntitle = \"C\"\n";

/// A repository with the trio formula committed and poured for a new bead; the molecule's id.
fn poured_trio() -> (Repo, String) {
    let repo = repo_with_formulas(&[("trio", TRIO)]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "formula"]);
    let bead = repo.create("Work", &[]);
    let mol = repo.json(&["mol", "pour", "trio", "--bead", &bead]);
    let id = mol["id"].as_str().unwrap().to_string();
    (repo, id)
}

#[test]
fn two_runs_of_one_molecule_run_each_step_once() {
    let (repo, id) = poured_trio();
    let log = repo.join("steps.log");
    let handler = format!(
        "cat >/dev/null; echo \"$VERMAS_STEP_ID\" >> '{}'; sleep 1; echo ok",
        log.display()
    );
    let runners: Vec<_> = (0..2).map(|_| mol_run(&repo, &id, &handler)).collect();
    // The run that finds the last step taken by the other ends without it (exit 1).
    let outputs: Vec<String> = runners
        .into_iter()
        .map(|r| all(&r.wait_with_output().expect("wait")))
        .collect();
    let mut lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        ["a", "b", "c"],
        "a step ran more than once: {outputs:?}"
    );
    let shown = repo.json(&["mol", "show", &id]);
    for s in shown["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "completed", "{shown}");
        assert_eq!(s["output"], "ok", "{shown}");
    }
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();
}

#[test]
fn a_step_taken_by_an_interrupted_run_is_given_back() {
    let (repo, id) = poured_trio();
    let started = repo.join("started");
    let handler = format!(
        "cat >/dev/null; echo \"$VERMAS_STEP_ID\" >> '{}'; sleep 30",
        started.display()
    );
    let child = mol_run(&repo, &id, &handler);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !started.exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(started.exists(), "the handler never started");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("wait");
    assert!(!out.status.success(), "{}", all(&out));
    // The step it had taken is pending again, committed; a new run does every step.
    let shown = repo.json(&["mol", "show", &id]);
    for s in shown["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "pending", "{shown}");
    }
    assert_eq!(repo.status(".beads"), "");
    let report = repo.json(&["mol", "run", &id, "--handler", "cat >/dev/null; echo ok"]);
    assert_eq!(report["complete"], true, "{report}");
}
