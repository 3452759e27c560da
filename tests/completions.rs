//! Dynamic completion as a shell drives it (`COMPLETE=bash vermas -- WORDS...`): bead ids,
//! statuses, types, spec names and formula names come from the repository; the watch's
//! internal flags are never offered; `completions bash` prints the registration.

mod common;
mod live_support;

use common::*;
use live_support::*;

/// What vermas offers for the last of `words` (the command line as typed), one per line.
fn offered(repo: &Repo, words: &[&str]) -> Vec<String> {
    // The shell's index of the word being completed, counting `vermas` as word 0.
    let index = words.len().to_string();
    let mut args = vec!["--", "vermas"];
    args.extend_from_slice(words);
    let out = command(repo, &args)
        .env("COMPLETE", "bash")
        .env("_CLAP_IFS", "\n")
        .env("_CLAP_COMPLETE_INDEX", index)
        .output()
        .expect("vermas");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn ids_statuses_types_specs_and_formulas_are_completed() {
    let repo = Repo::initialised();
    let id = repo.create("Complete me", &[]);
    repo.write(
        "specs/login/flow.md",
        "# Flow\n\n## Success Criteria\n\n- [ ] works\n",
    );
    assert_eq!(offered(&repo, &["show", "vm-"]), vec![id.as_str()]);
    assert_eq!(offered(&repo, &["close", &id[..4]]), vec![id.as_str()]);
    assert_eq!(offered(&repo, &["list", "--status", "in"]), ["in_progress"]);
    assert_eq!(offered(&repo, &["list", "-t", "fe"]), ["feature"]);
    assert_eq!(offered(&repo, &["status", "--spec", "log"]), ["login/flow"]);
    assert_eq!(offered(&repo, &["spec", "show", "l"]), ["login/flow"]);
    assert!(offered(&repo, &["mol", "cook", "mol-"]).contains(&"mol-inspect".to_string()));
}

#[test]
fn internal_flags_are_never_offered() {
    let repo = Repo::initialised();
    let all = offered(&repo, &["status", "--"]);
    assert!(all.contains(&"--verify".to_string()), "{all:?}");
    assert!(
        !all.iter().any(|f| f == "--feed" || f == "--owner"),
        "{all:?}"
    );
    assert!(offered(&repo, &["status", "--f"]).is_empty());
    assert!(offered(&repo, &["status", "--o"]).is_empty());
}

#[test]
fn completions_bash_prints_the_registration() {
    let repo = Repo::initialised();
    let out = repo.ok(&["completions", "bash"]);
    assert!(out.contains("COMPLETE=\"bash\""), "{out}");
    assert!(out.contains("_clap_complete_vermas"), "{out}");
}
