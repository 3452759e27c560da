//! Names a newcomer cannot mix up: `--help` grouped by job, the renamed commands (`inspect
//! loop`, `git-hooks`, `inspect verdicts`, `refinery queue`) with their old spellings still
//! understood, and near misses answered with the right command.

use crate::common::*;

#[test]
fn help_is_grouped_by_job_and_subcommands_carry_no_version_flag() {
    let repo = Repo::new();
    let help = repo.ok(&["--help"]);
    for heading in [
        "Track work (beads):",
        "Live specs and checks:",
        "Inspector: test specs, verdicts, merges:",
        "Agents and sessions:",
        "Many agents, many machines:",
        "Interop: bd, ralph, editors:",
        "Setup:",
    ] {
        assert!(help.contains(heading), "{heading}: {help}");
    }
    let status = repo.ok(&["status", "--help"]);
    assert!(!status.contains("--version"), "{status}");
    let (verify, actor) = (
        status.find("--verify").unwrap(),
        status.find("--actor").unwrap(),
    );
    assert!(verify < actor, "the command's own flags first: {status}");
}

#[test]
fn renamed_commands_answer_to_their_old_spelling_too() {
    let repo = Repo::initialised();
    for (new, old) in [
        (
            vec!["inspect", "loop", "--once"],
            vec!["inspector", "run", "--once"],
        ),
        (vec!["inspect", "verdicts"], vec!["inspect", "status"]),
        (vec!["git-hooks", "list"], vec!["hooks", "list"]),
    ] {
        let a = repo.ok(&new);
        let b = repo.ok(&old);
        assert_eq!(a, b, "{new:?} and {old:?}");
    }
    repo.git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    assert_eq!(
        repo.ok(&["refinery", "queue"]),
        repo.ok(&["refinery", "status"])
    );
}

#[test]
fn near_misses_name_the_right_command() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.ok(&["q", "Fizz"]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    let err = repo.fails(&["spec", "show", &spec], 2);
    assert!(err.contains("is a test spec, not a live spec"), "{err}");
    assert!(
        err.contains(&format!("vermas inspect show {spec}")),
        "{err}"
    );
    let err = repo.fails(&["spec", "show", &work], 2);
    assert!(err.contains(&format!("vermas show {work}")), "{err}");
    let err = repo.fails(&["inspector", "pending"], 2);
    assert!(err.contains("`vermas inspect pending`"), "{err}");
}
