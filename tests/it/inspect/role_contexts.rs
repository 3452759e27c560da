//! Role contexts (`init --roles`) on real repositories: eight files in one commit, edits
//! kept unless `--force`, the judge working from its file, and every command a role file
//! names existing in the real binary.

use crate::common::*;
use crate::refinery::support::*;

#[test]
fn init_roles_writes_eight_files_in_one_commit_and_keeps_edits() {
    let repo = Repo::initialised();
    let before = repo.commit_count();
    let out = repo.ok(&["init", "--roles"]);
    let roles = [
        "mayor",
        "inspector",
        "auditor",
        "advocate",
        "critic",
        "judge",
        "designer",
        "strategist",
    ];
    for role in roles {
        let path = format!(".beads/roles/{role}.md");
        assert!(out.contains(&format!("wrote {path}")), "{out}");
        let text = repo.read(&path);
        for heading in [
            "## What you do",
            "## Your commands",
            "## When you are unsure",
        ] {
            assert!(text.contains(heading), "{role}: {text}");
        }
    }
    assert_eq!(repo.commit_count(), before + 1, "one commit");
    let files = repo.git(&["show", "--name-only", "--format=%s", "HEAD"]);
    assert!(files.starts_with("vermas init: "), "{files}");
    assert_eq!(
        files
            .lines()
            .filter(|l| l.starts_with(".beads/roles/"))
            .count(),
        8,
        "{files}"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // A person's edit survives a second run; --force writes the built-in text back.
    repo.write(".beads/roles/judge.md", "# Judge\nOur own words.\n");
    repo.git(&["commit", "-q", "-am", "our judge"]);
    let again = repo.ok(&["init", "--roles"]);
    assert!(again.contains("kept .beads/roles/judge.md"), "{again}");
    assert_eq!(
        repo.read(".beads/roles/judge.md"),
        "# Judge\nOur own words.\n"
    );
    let count = repo.commit_count();
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.ok(&["init", "--roles", "--force"]);
    assert_eq!(repo.commit_count(), count + 1);
    assert!(repo.read(".beads/roles/judge.md").contains("\"verdict\""));
    let files = repo.git(&["show", "--name-only", "--format=%s", "HEAD"]);
    assert_eq!(
        files
            .lines()
            .filter(|l| l.starts_with(".beads/roles/"))
            .collect::<Vec<_>>(),
        [".beads/roles/judge.md"],
        "only the changed file"
    );
}

#[test]
fn the_judge_works_from_its_role_file() {
    let f = fixture(&[("ac-1", "true")], &[]);
    let repo = &f.repo;
    repo.ok(&["init", "--roles"]);
    let prompts = repo.join("prompts.log");
    let env = prompts.display().to_string();
    f.vermas(&["inspect", "run", "vm-fizz"], &[("FAKE_PROMPT_LOG", &env)])
        .expect_code(0);
    let log_text = std::fs::read_to_string(&prompts).expect("log");
    assert!(
        log_text.contains("ROLE: judge\n\n# Judge\n"),
        "the role file is the judge's context"
    );
}

#[test]
fn every_command_a_role_file_names_exists() {
    let repo = Repo::initialised();
    repo.ok(&["init", "--roles"]);
    let mut seen = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(repo.join(".beads/roles")).expect("roles") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("read");
        for code in text.split('`').skip(1).step_by(2) {
            let Some(rest) = code.strip_prefix("vermas ") else {
                continue;
            };
            let words: Vec<&str> = rest
                .split_whitespace()
                .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .take(2)
                .collect();
            seen.insert(words.join(" "));
        }
    }
    assert!(seen.len() > 15, "{seen:?}");
    for cmd in &seen {
        let mut args: Vec<&str> = cmd.split(' ').collect();
        args.push("--help");
        let out = repo.run(&args);
        assert!(
            out.status.success(),
            "`vermas {cmd}` named by a role file does not exist: {}",
            stderr(&out)
        );
    }
}
