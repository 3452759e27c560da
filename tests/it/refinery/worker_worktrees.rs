//! Workers get their own worktrees: `sling --worktree` makes one on the work's branch and
//! records both on the bead; `refinery submit` with no arguments there submits it; merged
//! or rejected for good, the worktree goes (kept when dirty), and `doctor` lists those
//! left; the gate's `{project_root}` is the main worktree's; and the Inspector mails the
//! refinery "VERIFICATION COMPLETE".

use crate::common::*;
use crate::specs::support::*;
use std::path::{Path, PathBuf};

/// A repository on `main` with work whose approved spec checks `done.txt` holds `yes`, the
/// role stand-in as the LLM; the work's id.
fn repo_with_work() -> (Repo, String) {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "llm"]);
    let (work, _) =
        repo.approved_work("Write done.txt", "done", ["--cmd", "grep -qx yes done.txt"]);
    (repo, work)
}

/// Runs vermas in `dir` with the repository's clean environment (and its own temp folder).
fn in_dir(repo: &Repo, dir: &Path, args: &[&str]) -> Run {
    vermas(
        repo,
        args,
        Opts {
            dir: Some(dir.to_path_buf()),
            env: vec![("FAKE_CONFIDENCE", "0.95".into())],
            ..Opts::default()
        },
    )
}

/// Git in `dir`, asserting success.
fn git_in(repo: &Repo, dir: &Path, args: &[&str]) -> String {
    git_ok(repo.path(), dir, args, false)
}

/// Slings `work` to `polecat` with a worktree; the worktree's folder.
fn sling_with_worktree(repo: &Repo, work: &str) -> PathBuf {
    let r = run(repo, &["sling", work, "polecat", "--worktree"]);
    r.expect_code(0);
    let bead = repo.json(&["show", work])[0].clone();
    assert_eq!(bead["branch"], format!("polecat/{work}").as_str(), "{bead}");
    let dir = PathBuf::from(bead["worktree"].as_str().expect("worktree recorded"));
    assert!(
        r.stdout.contains(&format!("Worktree: {}", dir.display())),
        "{}",
        r.all()
    );
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(
        list.contains(&format!("worktree {}", dir.display())),
        "{list}"
    );
    assert!(
        list.contains(&format!("branch refs/heads/polecat/{work}")),
        "{list}"
    );
    let mail = repo.json(&["mail", "inbox", "polecat/"]).to_string();
    assert!(
        mail.contains(&format!("Worktree: {}", dir.display())),
        "{mail}"
    );
    dir
}

#[test]
fn a_worker_gets_a_worktree_submits_from_it_and_it_goes_once_merged() {
    let (repo, work) = repo_with_work();
    let dir = sling_with_worktree(&repo, &work);
    // Beside the repository, named for the agent and the work.
    let beside = repo.path().with_file_name(format!(
        "{}-worktrees",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    assert!(
        dir.starts_with(std::fs::canonicalize(&beside).unwrap_or(beside)),
        "{}",
        dir.display()
    );
    std::fs::write(dir.join("done.txt"), "yes\n").expect("work");
    git_in(&repo, &dir, &["add", "done.txt"]);
    git_in(&repo, &dir, &["commit", "-q", "-m", "done"]);
    let r = in_dir(&repo, &dir, &["refinery", "submit"]);
    r.expect_code(0);
    assert!(
        r.stdout
            .contains(&format!("polecat/{work} -> main (judged by {work})")),
        "{}",
        r.all()
    );
    let r = in_dir(&repo, repo.path(), &["refinery", "run"]);
    r.expect_code(0);
    assert!(r.stdout.contains("MERGED (PASS)"), "{}", r.all());
    assert!(!dir.exists(), "the worktree is removed once merged");
    assert!(
        !repo
            .git(&["worktree", "list"])
            .contains(&dir.display().to_string())
    );
    // The Inspector told the refinery.
    let told = repo.json(&["mail", "inbox", "vm/refinery"]);
    let text = told.to_string();
    assert!(
        text.contains("VERIFICATION COMPLETE: Write done.txt"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{work}: PASS (result .beads/results/{work}.yaml")),
        "{text}"
    );
}

#[test]
fn a_dirty_worktree_is_kept_and_doctor_lists_it_once_its_work_is_closed() {
    let (repo, work) = repo_with_work();
    repo.ok(&["config", "set", "sling.worktree", "true"]);
    let r = run(&repo, &["sling", &work, "polecat"]);
    r.expect_code(0);
    let dir = PathBuf::from(
        repo.json(&["show", &work])[0]["worktree"]
            .as_str()
            .expect("config sling.worktree makes one")
            .to_string(),
    );
    std::fs::write(dir.join("done.txt"), "yes\n").expect("work");
    git_in(&repo, &dir, &["add", "done.txt"]);
    git_in(&repo, &dir, &["commit", "-q", "-m", "done"]);
    std::fs::write(dir.join("scratch.txt"), "not committed\n").expect("scratch");
    in_dir(&repo, &dir, &["refinery", "submit"]).expect_code(0);
    let r = in_dir(&repo, repo.path(), &["refinery", "run"]);
    r.expect_code(0);
    assert!(
        r.all().contains(&format!(
            "kept the worktree {} of {work}: it has changes nobody committed",
            dir.display()
        )),
        "{}",
        r.all()
    );
    assert!(dir.exists());
    let d = run(&repo, &["doctor"]);
    assert!(
        d.all().contains(&format!(
            "the worker worktree {} is left although its work {work} is closed",
            dir.display()
        )),
        "{}",
        d.all()
    );
}

#[test]
fn submit_with_no_arguments_outside_a_workers_worktree_says_what_to_give() {
    let (repo, _) = repo_with_work();
    let r = run(&repo, &["refinery", "submit"]);
    r.expect_code(2);
    assert!(
        r.stderr.contains("no bead's work is on branch 'main'"),
        "{}",
        r.all()
    );
    assert!(r.stderr.contains("--bead ID"), "{}", r.all());
}

#[test]
fn the_gates_project_root_is_the_main_worktrees() {
    let (repo, work) = repo_with_work();
    let dir = sling_with_worktree(&repo, &work);
    let cmd = "printf '%s\\n' {project_root} {worktree_dir} > roots.txt";
    in_dir(&repo, &dir, &["gate", "implement", &work, "--cmd", cmd]).expect_code(0);
    let roots = std::fs::read_to_string(dir.join("roots.txt")).expect("roots");
    let main = std::fs::canonicalize(repo.path()).expect("canonical");
    let here = std::fs::canonicalize(&dir).expect("canonical");
    assert_eq!(roots, format!("{}\n{}\n", main.display(), here.display()));
}
