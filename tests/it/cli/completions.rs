//! Dynamic completion as a shell drives it (`COMPLETE=bash vermas -- WORDS...`): bead ids,
//! statuses, types, spec names and formula names come from the repository; the watch's
//! internal flags are never offered (nor shown in `--help`); `completions SHELL` prints the
//! registration a real bash sources and completes with.

use crate::common::*;
use crate::specs::support::*;

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

/// A repository with one bead (its id returned) and the spec `login/flow`.
fn repo_with_bead_and_spec() -> (Repo, String) {
    let repo = Repo::initialised();
    let id = repo.create("Complete me", &[]);
    repo.write(
        "specs/login/flow.md",
        "# Flow\n\n## Success Criteria\n\n- [ ] works\n",
    );
    (repo, id)
}

#[test]
fn bead_ids_are_completed_wherever_a_bead_is_named() {
    let (repo, id) = repo_with_bead_and_spec();
    let other = repo.create("Another", &[]);
    let both = {
        let mut v = vec![id.clone(), other.clone()];
        v.sort();
        v
    };
    assert_eq!(offered(&repo, &["show", "vm-"]), both);
    assert_eq!(offered(&repo, &["close", &id[..5]]), vec![id.clone()]);
    assert_eq!(
        offered(&repo, &["update", &id, &other[..5]]),
        vec![other.clone()]
    );
    assert_eq!(
        offered(&repo, &["dep", "add", &id, &other[..5]]),
        vec![other.clone()]
    );
    assert_eq!(
        offered(&repo, &["create", "x", "--parent", &id[..5]]),
        vec![id.clone()]
    );
    assert_eq!(
        offered(&repo, &["mol", "pour", "f", "--bead", &id[..5]]),
        vec![id.clone()]
    );
    assert_eq!(
        offered(&repo, &["inspect", "show", &id[..5]]),
        vec![id.clone()]
    );
    // Nothing matches: nothing offered (and no error).
    assert!(offered(&repo, &["show", "zz-"]).is_empty());
}

#[test]
fn statuses_and_types_are_completed() {
    let repo = Repo::initialised();
    let statuses = offered(&repo, &["list", "--status", ""]);
    for s in ["open", "closed", "in_progress", "blocked"] {
        assert!(statuses.contains(&s.to_string()), "{statuses:?}");
    }
    assert_eq!(offered(&repo, &["list", "--status", "in"]), ["in_progress"]);
    assert_eq!(offered(&repo, &["update", "vm-x", "-s", "cl"]), ["closed"]);
    assert_eq!(offered(&repo, &["list", "-s", "o"]), ["open"]);
    assert_eq!(
        offered(&repo, &["list", "--status=cl"]),
        ["--status=closed"]
    );
    assert_eq!(offered(&repo, &["list", "-t", "fe"]), ["feature"]);
    assert_eq!(offered(&repo, &["create", "x", "--type", "b"]), ["bug"]);
    assert_eq!(offered(&repo, &["ready", "-t", "te"]), ["test-spec"]);
    assert_eq!(
        offered(&repo, &["dep", "add", "a", "b", "-t", "p"]),
        ["parent-child"]
    );
    assert_eq!(offered(&repo, &["gate", "re"]), ["red", "refactor"]);
    assert_eq!(
        offered(&repo, &["mail", "send", "mayor/", "-t", "esc"]),
        ["escalation"]
    );
    assert_eq!(
        offered(&repo, &["mail", "send", "mayor/", "-p", "u"]),
        ["urgent"]
    );
}

#[test]
fn spec_and_formula_names_are_completed() {
    let (repo, _) = repo_with_bead_and_spec();
    repo.write(
        ".beads/formulas/mine.formula.toml",
        "formula = \"mine\"\n\n[[steps]]\nid = \"only\"\ntitle = \"Only\"\n",
    );
    assert_eq!(offered(&repo, &["status", "--spec", "log"]), ["login/flow"]);
    assert_eq!(offered(&repo, &["spec", "show", "l"]), ["login/flow"]);
    assert_eq!(
        offered(&repo, &["create", "x", "--spec", "l"]),
        ["login/flow"]
    );
    let cook = offered(&repo, &["mol", "cook", ""]);
    assert!(cook.contains(&"mol-inspect".to_string()), "{cook:?}");
    assert!(cook.contains(&"mine".to_string()), "{cook:?}");
    assert_eq!(offered(&repo, &["mol", "cook", "mi"]), ["mine"]);
    assert_eq!(offered(&repo, &["mol", "wisp", "mi"]), ["mine"]);
    assert_eq!(offered(&repo, &["formula", "show", "mi"]), ["mine"]);
}

#[test]
fn completion_outside_a_repository_offers_no_ids_and_does_not_fail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(vermas_bin())
        .current_dir(dir.path())
        .args(["--", "vermas", "show", ""])
        .env("COMPLETE", "bash")
        .env("_CLAP_IFS", "\n")
        .env("_CLAP_COMPLETE_INDEX", "2")
        .output()
        .expect("vermas");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("vm-"), "{}", stdout(&out));
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
    // Even when no visible flag, or only a visible one, matches what is typed.
    assert_eq!(offered(&repo, &["status", "--f"]), ["--format"]);
    assert!(offered(&repo, &["status", "--o"]).is_empty());
    assert!(offered(&repo, &["status", "--fe"]).is_empty());
}

#[test]
fn internal_flags_are_hidden_in_help() {
    let repo = Repo::initialised();
    let help = repo.ok(&["status", "--help"]);
    assert!(help.contains("--verify"), "{help}");
    assert!(
        !help.contains("--feed") && !help.contains("--owner"),
        "{help}"
    );
    assert!(!help.contains("Internal"), "{help}");
}

#[test]
fn completions_bash_prints_the_registration() {
    let repo = Repo::initialised();
    let out = repo.ok(&["completions", "bash"]);
    assert!(out.contains("COMPLETE=\"bash\""), "{out}");
    assert!(out.contains("_clap_complete_vermas"), "{out}");
    assert!(out.contains("complete -o nospace"), "{out}");
    let zsh = repo.ok(&["completions", "zsh"]);
    assert!(zsh.contains("#compdef vermas"), "{zsh}");
    let fish = repo.ok(&["completions", "fish"]);
    assert!(fish.contains("COMPLETE=fish vermas"), "{fish}");
}

#[test]
fn an_unknown_shell_is_refused() {
    let repo = Repo::initialised();
    let err = repo.fails(&["completions", "tcsh"], 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
    assert!(err.contains("bash"), "{err}");
}

/// Runs `script` in a real bash with vermas on PATH, in `repo`.
fn bash(repo: &Repo, script: &str) -> std::process::Output {
    let bin_dir = vermas_bin().parent().expect("bin dir").to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .current_dir(repo.path())
        .env("PATH", path)
        .env("HOME", repo.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("bash")
}

#[test]
fn a_real_bash_completes_with_the_printed_script() {
    let (repo, id) = repo_with_bead_and_spec();
    // What bash does on TAB after `vermas show vm-`: sets COMP_WORDS/COMP_CWORD and calls
    // the registered function with the command, the word and the previous word.
    let out = bash(
        &repo,
        "set -e\n\
         eval \"$(vermas completions bash)\"\n\
         complete -p vermas\n\
         COMP_WORDS=(vermas show vm-); COMP_CWORD=2; COMP_TYPE=9\n\
         _clap_complete_vermas vermas vm- show\n\
         printf 'reply:%s\\n' \"${COMPREPLY[@]}\"\n\
         COMP_WORDS=(vermas list --status cl); COMP_CWORD=3\n\
         _clap_complete_vermas vermas cl --status\n\
         printf 'reply:%s\\n' \"${COMPREPLY[@]}\"\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("-F _clap_complete_vermas vermas"), "{text}");
    let replies: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("reply:"))
        .collect();
    assert_eq!(replies, [id.as_str(), "closed"], "{text}");
}

#[test]
fn completions_piped_into_head_exits_zero() {
    let repo = Repo::initialised();
    for shell in ["bash", "zsh", "fish"] {
        let out = bash(
            &repo,
            &format!("set -o pipefail; vermas completions {shell} | head -2"),
        );
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let lines = stdout(&out).lines().count();
        assert!((1..=2).contains(&lines), "{}", stdout(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}
