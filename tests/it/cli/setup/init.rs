//! `init`: config, ignores and attributes in one commit, subfolders, outside git, and bead commands before it.

use super::*;

/// Top-level sections and leaf settings `init` must write out.
const SECTIONS: &[&str] = &[
    "git:", "verify:", "llm:", "judge:", "specs:", "gates:", "hooks:",
];

/// Whether real git sees a commit at HEAD.
fn has_head(repo: &Repo) -> bool {
    StdCommand::new("git")
        .current_dir(repo.path())
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git")
        .status
        .success()
}

/// A temporary folder that is not a git repository, wrapped so the helpers work.
fn plain_folder() -> Repo {
    let dir = tempfile::Builder::new()
        .prefix("vermas-plain")
        .tempdir()
        .expect("tempdir");
    Repo { dir }
}

#[test]
fn init_writes_commented_config_ignores_and_attributes_in_one_commit() {
    let repo = Repo::new();
    let out = repo.run(&["init", "--prefix", "vm"]);
    assert!(out.status.success(), "init failed: {}", stderr(&out));

    // vermas.yaml: every default written out, with comments.
    let cfg = repo.read(".beads/vermas.yaml");
    for line in [
        "prefix: vm",
        "  commit: true",
        "  author: null",
        "  jobs: null",
        "  timeout: 120s",
        "  output_cap: 1048576",
        "  skip_codes: [77, 78]",
        "  runners: {}",
        "  command: claude -p",
        "  timeout: 300s",
        "  roles: {}",
        "  max_file_bytes: 65536",
        "  samples: 1",
        "  dir: specs",
        "  red: null",
        "  green: null",
        "  refactor: null",
        "  implement: null",
        "    scope: changed",
    ] {
        assert!(
            cfg.lines().any(|l| l == line),
            "vermas.yaml lacks the default line {line:?}:\n{cfg}"
        );
    }
    for header in SECTIONS {
        let body = section(&cfg, header);
        assert!(
            body.iter().any(|l| l.trim_start().starts_with("# ")),
            "section {header} of vermas.yaml has no comment:\n{cfg}"
        );
    }
    assert!(
        cfg.lines().next().unwrap_or("").starts_with('#'),
        "vermas.yaml should open with an explanatory comment:\n{cfg}"
    );

    // .gitignore and .gitattributes, checked with real git.
    let ignore = repo.read(".beads/.gitignore");
    assert!(ignore.lines().any(|l| l == ".cache/"), "{ignore}");
    assert!(ignore.lines().any(|l| l == "wisps/"), "{ignore}");
    let ignored = repo.git(&[
        "check-ignore",
        ".beads/.cache/index",
        ".beads/wisps/w-1.yaml",
    ]);
    assert!(ignored.contains(".beads/.cache/index"), "{ignored}");
    assert!(ignored.contains(".beads/wisps/w-1.yaml"), "{ignored}");
    let attrs = repo.read(".beads/.gitattributes");
    assert!(attrs.lines().any(|l| l == "* -text -filter"), "{attrs}");
    let check = repo.git(&[
        "check-attr",
        "text",
        "filter",
        "--",
        ".beads/issues/vm-x.md",
    ]);
    assert!(check.contains("text: unset"), "{check}");
    assert!(check.contains("filter: unset"), "{check}");

    // Exactly one commit holding exactly those three files.
    assert_eq!(repo.commit_count(), 1);
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("vermas init: "), "subject: {subject}");
    assert_eq!(
        repo.head_files(),
        [
            ".beads/.gitattributes",
            ".beads/.gitignore",
            ".beads/vermas.yaml"
        ]
    );
    assert_eq!(repo.status(".beads"), "");
    assert_eq!(repo.status("."), "");
    repo.assert_fsck();
}

#[test]
fn init_twice_makes_no_new_commit_and_changes_nothing() {
    let repo = Repo::initialised();
    let before = repo.read(".beads/vermas.yaml");
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.ok(&["init", "--prefix", "vm"]);
    repo.ok(&["init"]);
    assert_eq!(repo.commit_count(), 1);
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.read(".beads/vermas.yaml"), before);
    assert_eq!(repo.status("."), "");
}

#[test]
fn init_in_repo_without_commits_makes_root_commit_on_current_branch() {
    let repo = Repo::new();
    assert!(!has_head(&repo), "fresh repository should have no commits");
    repo.ok(&["init", "--prefix", "vm"]);
    assert!(has_head(&repo));
    assert_eq!(
        repo.git(&["symbolic-ref", "--short", "HEAD"]).trim(),
        "main"
    );
    // A root commit: no parent line.
    let raw = repo.git(&["cat-file", "-p", "HEAD"]);
    assert!(!raw.contains("\nparent "), "{raw}");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>"]).trim(),
        "Test User <test@example.com>"
    );
    assert_eq!(repo.git(&["ls-files", ".beads"]).lines().count(), 3);
}

#[test]
fn init_from_subfolder_creates_beads_at_repository_root() {
    let repo = Repo::new();
    let sub = repo.join("a/b");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let out = repo
        .cmd_in(&sub, &["init", "--prefix", "vm"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(repo.join(".beads/vermas.yaml").is_file());
    assert!(
        !sub.join(".beads").exists(),
        "must not create .beads in the subfolder"
    );
    assert!(!repo.join("a/.beads").exists());
    assert_eq!(repo.commit_count(), 1);
    assert_eq!(
        repo.status("."),
        "",
        "an empty subfolder leaves nothing to commit"
    );

    // And bead commands from the subfolder find it.
    let id = repo
        .cmd_in(&sub, &["q", "from below"])
        .output()
        .expect("run");
    assert!(id.status.success(), "{}", stderr(&id));
    let id = stdout(&id).trim().to_string();
    assert!(repo.join(&format!(".beads/issues/{id}.md")).is_file());
    assert_eq!(repo.commit_count(), 2);
}

#[test]
fn init_outside_git_works_and_says_history_is_not_recorded() {
    let dir = plain_folder();
    assert!(!dir.join(".git").exists());
    let out = dir.run(&["init", "--prefix", "vm"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not inside a git repository") && err.contains("not being recorded"),
        "stderr should note that history is not recorded: {err}"
    );
    assert!(dir.join(".beads/vermas.yaml").is_file());
    assert!(dir.join(".beads/.gitignore").is_file());
    assert!(dir.join(".beads/.gitattributes").is_file());
    assert!(
        !dir.join(".git").exists(),
        "init must not create a git repository"
    );

    // Bead commands keep working there, with the same note.
    let out = dir.run(&["q", "plain bead"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let id = stdout(&out).trim().to_string();
    assert!(dir.join(&format!(".beads/issues/{id}.md")).is_file());
    assert!(
        stderr(&out).contains("not being recorded"),
        "{}",
        stderr(&out)
    );
    assert!(dir.ok(&["list"]).contains(&id));
}

#[test]
fn init_refuses_bad_prefix_with_exit_2() {
    let repo = Repo::new();
    let err = repo.fails(&["init", "--prefix", "Bad!"], 2);
    assert!(err.contains("Bad!"), "{err}");
    assert!(err.contains("prefix"), "{err}");
    assert!(!repo.join(".beads").exists(), "nothing may be written");
    assert!(!has_head(&repo), "nothing may be committed");
}

#[test]
fn bead_commands_without_beads_tell_user_to_run_init() {
    let repo = Repo::new();
    for args in [
        &["list"][..],
        &["ready"][..],
        &["show", "vm-abcd"][..],
        &["q", "title"][..],
        &["create", "title"][..],
        &["close", "vm-abcd"][..],
        &["config", "get", "prefix"][..],
    ] {
        let err = repo.fails(args, 2);
        assert!(
            err.contains("vermas init"),
            "{args:?}: stderr should say to run `vermas init`:\n{err}"
        );
    }
    assert!(!repo.join(".beads").exists());
    assert!(!has_head(&repo));
}
