//! While checks run, a terminal shows which are running and for how long; `mol run` shows
//! each step as it starts. A terminal is given by `script` (util-linux), as a person has.

use crate::common::*;
use crate::specs::support::*;
use std::process::Command;

/// Runs `vermas ARGS` in `repo` under a pseudo-terminal; returns everything it wrote.
fn on_a_terminal(repo: &Repo, args: &str) -> String {
    let line = format!("{} {args}", vermas_bin().display());
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(repo.path())
        .env("NO_COLOR", "1")
        .env("HOME", repo.path())
        .output()
        .expect("script (util-linux) runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_progress_line_names_running_checks_and_their_time() {
    let repo = Repo::initialised();
    repo.write(
        "specs/slow.md",
        "# Slow\n\n## Success Criteria\n\n- [ ] slow\n  [verify](tests/slow.sh#test_slow)\n- [ ] quick\n  [verify](tests/slow.sh#test_quick)\n",
    );
    write_exec(
        &repo,
        "tests/slow.sh",
        "#!/bin/bash\ntest_slow() { sleep 1; }\ntest_quick() { :; }\n\"$@\"\n",
    );
    let out = on_a_terminal(&repo, "status --verify -j 2");
    assert!(
        out.contains("/2 checks done] running: tests/slow.sh#test_slow 0."),
        "{out}"
    );
    assert!(out.contains("2 passed, 0 failed, 0 skipped"), "{out}");
    // Piped, the report carries no progress line.
    let r = run(&repo, &["status", "--verify"]);
    assert!(!r.stdout.contains("running:") && !r.stderr.contains("running:"));
}

#[test]
fn mol_run_shows_each_step_as_it_starts() {
    let repo = Repo::initialised();
    repo.write(
        ".beads/formulas/two.formula.toml",
        "formula = 'two'\n[[steps]]\nid = 'first'\n[[steps]]\nid = 'second'\nneeds = ['first']\n",
    );
    let bead = repo.create("Work", &[]);
    let mol = repo.json(&["mol", "pour", "two", "--bead", &bead]);
    let id = mol["id"].as_str().expect("molecule id").to_string();
    let out = repo.ok(&["mol", "run", &id, "--handler", "sleep 0.3; echo ok"]);
    let start = out.find("[start] first").expect(&out);
    let done = out.find("[done] first").expect(&out);
    let second = out.find("[start] second").expect(&out);
    assert!(start < done && done < second, "{out}");
}
