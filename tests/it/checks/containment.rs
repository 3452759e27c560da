//! A cloned repository cannot make vermas read, print or write files outside it: symlinks
//! in `.beads/`, `specs/`, rubric files and `judge_files` that lead outside are refused
//! (exit 2 for one record, skipped with a warning in listings, ERROR for checks), and
//! nothing behind them ever shows up. Real repositories, real symlinks, the real binary.

use crate::common::*;
use crate::specs::support::*;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// The string only the outside files hold.
const SECRET: &str = "CONTAINMENT-SECRET-7f3a";

/// A folder outside the repository.
fn outside() -> TempDir {
    tempfile::Builder::new()
        .prefix("vermas-outside")
        .tempdir()
        .expect("tempdir")
}

/// Writes `name` in the outside folder and returns its path.
fn outside_file(dir: &TempDir, name: &str, content: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, content).expect("write outside file");
    p
}

/// A file that would be a valid bead `id` if it were read, its title the secret.
fn bead_text(id: &str) -> String {
    format!("---\nid: {id}\ntitle: {SECRET} title\nstatus: open\n---\n{SECRET} body\n")
}

/// Creates the symlink `rel` in the repository pointing at `target`.
fn link(repo: &Repo, rel: &str, target: &Path) {
    let at = repo.join(rel);
    std::fs::create_dir_all(at.parent().expect("parent")).expect("mkdir");
    symlink(target, at).expect("symlink");
}

/// Asserts that neither stream of `out` holds the secret.
fn assert_no_secret(out: &std::process::Output, what: &str) {
    let all = format!("{}\n{}", stdout(out), stderr(out));
    assert!(
        !all.contains(SECRET),
        "{what} showed outside content:\n{all}"
    );
}

/// True when any blob of any commit holds `needle` (`git grep` over `git rev-list --all`).
fn committed_anywhere(repo: &Repo, needle: &str) -> bool {
    let revs: Vec<String> = repo
        .git(&["rev-list", "--all"])
        .lines()
        .map(str::to_string)
        .collect();
    let out = std::process::Command::new("git")
        .current_dir(repo.path())
        .args(["grep", "-F", needle])
        .args(&revs)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .output()
        .expect("git grep");
    match out.status.code() {
        Some(0) => true,
        Some(1) => false,
        other => panic!("git grep failed ({other:?}): {}", stderr(&out)),
    }
}

/// The refusal every message carries.
const REFUSED: &str = "is a symlink leading outside the repository";

#[test]
fn show_refuses_a_bead_symlinked_outside_and_prints_none_of_it() {
    let repo = Repo::initialised();
    let out = outside();
    // Plain text (the old diagnostic quoted its first lines) and a file that parses.
    let plain = outside_file(&out, "passwd", &format!("root:x:0:0:{SECRET}:/root\n"));
    let bead = outside_file(&out, "bead.md", &bead_text("vm-bead"));
    link(&repo, ".beads/issues/vm-link.md", &plain);
    link(&repo, ".beads/issues/vm-bead.md", &bead);
    for id in ["vm-link", "vm-bead"] {
        let o = repo.run(&["show", id]);
        assert_eq!(o.status.code(), Some(2), "show {id}: {}", stderr(&o));
        assert_no_secret(&o, "show");
        let err = stderr(&o);
        assert!(
            err.contains(&format!(".beads/issues/{id}.md {REFUSED}")),
            "{err}"
        );
        let o = repo.run(&["show", id, "--json"]);
        assert_eq!(o.status.code(), Some(2));
        assert_no_secret(&o, "show --json");
    }
}

#[test]
fn update_of_a_bead_symlinked_outside_commits_nothing() {
    let repo = Repo::initialised();
    let out = outside();
    let bead = outside_file(&out, "bead.md", &bead_text("vm-bead"));
    link(&repo, ".beads/issues/vm-bead.md", &bead);
    let before = repo.commit_count();
    for args in [
        &["update", "vm-bead", "-s", "closed"][..],
        &["close", "vm-bead"],
        &["label", "add", "vm-bead", "x"],
    ] {
        let o = repo.run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_no_secret(&o, "update");
        assert!(stderr(&o).contains(REFUSED), "{}", stderr(&o));
    }
    assert_eq!(repo.commit_count(), before, "no commit was made");
    assert!(
        !committed_anywhere(&repo, SECRET),
        "the secret was committed"
    );
    assert_eq!(
        std::fs::read_to_string(&bead).expect("read"),
        bead_text("vm-bead"),
        "the outside file is untouched"
    );
    // A later change commits only its own file, never the link's target.
    repo.create("Fine", &[]);
    assert!(!committed_anywhere(&repo, SECRET));
}

#[test]
fn list_and_ready_skip_a_symlinked_bead_with_a_warning() {
    let repo = Repo::initialised();
    let out = outside();
    let bead = outside_file(&out, "bead.md", &bead_text("vm-bead"));
    let id = repo.create("Inside bead", &[]);
    link(&repo, ".beads/issues/vm-bead.md", &bead);
    for args in [&["list"][..], &["list", "--json"], &["ready"], &["doctor"]] {
        let o = repo.run(args);
        let code = if args[0] == "doctor" { 1 } else { 0 };
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert_no_secret(&o, "list");
        if args[0] != "doctor" {
            assert!(stdout(&o).contains(&id), "{args:?}: {}", stdout(&o));
        }
        assert!(
            format!("{}{}", stdout(&o), stderr(&o))
                .contains(&format!(".beads/issues/vm-bead.md {REFUSED}")),
            "{args:?} warns: {}",
            stderr(&o)
        );
    }
    let o = repo.run(&["status"]);
    assert_no_secret(&o, "status");
    assert!(
        stdout(&o).contains("1 bead file cannot be read"),
        "{}",
        stdout(&o)
    );
    // The index cache never learns the outside content either.
    let o = repo.run(&["list", "--json"]);
    assert_no_secret(&o, "second list");
}

#[test]
fn a_symlink_staying_inside_the_repository_keeps_working() {
    let repo = Repo::initialised();
    repo.write(
        "docs/vm-in.md",
        "---\nid: vm-in\ntitle: Linked inside\nstatus: open\n---\n",
    );
    symlink("../../docs/vm-in.md", repo.join(".beads/issues/vm-in.md")).expect("symlink");
    assert!(repo.ok(&["show", "vm-in"]).contains("Linked inside"));
    assert!(repo.ok(&["list"]).contains("vm-in"));
}

#[test]
fn create_refuses_an_issues_folder_symlinked_outside() {
    let repo = Repo::initialised();
    let out = outside();
    std::fs::remove_dir_all(repo.join(".beads/issues")).expect("rm issues");
    link(&repo, ".beads/issues", out.path());
    let before = repo.commit_count();
    for args in [&["create", "Escapes"][..], &["q", "Escapes"], &["list"]] {
        let err = repo.fails(args, 2);
        assert!(err.contains(&format!(".beads/issues {REFUSED}")), "{err}");
    }
    let written: Vec<_> = std::fs::read_dir(out.path()).expect("ls").collect();
    assert!(written.is_empty(), "wrote outside: {written:?}");
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn a_beads_folder_symlinked_outside_is_refused() {
    let repo = Repo::initialised();
    let out = outside();
    std::fs::remove_dir_all(repo.join(".beads")).expect("rm .beads");
    link(&repo, ".beads", out.path());
    let err = repo.fails(&["create", "Escapes"], 2);
    assert!(err.contains(&format!(".beads {REFUSED}")), "{err}");
    assert_eq!(std::fs::read_dir(out.path()).expect("ls").count(), 0);
}

#[test]
fn hooks_roles_and_merge_queue_folders_symlinked_outside_are_refused() {
    // The Inspector runs `.beads/hooks` scripts and reads `.beads/roles` into prompts: a
    // clone must not point them at files elsewhere on the machine.
    for folder in ["hooks", "roles", "mq"] {
        let repo = Repo::initialised();
        let out = outside();
        outside_file(&out, "Stop", &format!("#!/bin/sh\necho {SECRET}\n"));
        let rel = format!(".beads/{folder}");
        if repo.join(&rel).exists() {
            std::fs::remove_dir_all(repo.join(&rel)).expect("rm");
        }
        link(&repo, &rel, out.path());
        let o = repo.run(&["list"]);
        assert_eq!(o.status.code(), Some(2), "{folder}: {}", stderr(&o));
        assert_no_secret(&o, folder);
        assert!(
            stderr(&o).contains(&format!("{rel} {REFUSED}")),
            "{folder}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_config_symlinked_outside_is_refused_unread() {
    let repo = Repo::initialised();
    let out = outside();
    let cfg = outside_file(&out, "vermas.yaml", &format!("prefix: {SECRET}\n"));
    std::fs::remove_file(repo.join(".beads/vermas.yaml")).expect("rm");
    link(&repo, ".beads/vermas.yaml", &cfg);
    let o = repo.run(&["config", "list"]);
    assert_eq!(o.status.code(), Some(2));
    assert_no_secret(&o, "config list");
    assert!(stderr(&o).contains(&format!(".beads/vermas.yaml {REFUSED}")));
}

#[test]
fn mail_and_molecules_symlinked_outside_are_refused() {
    let repo = Repo::initialised();
    let out = outside();
    let msg = outside_file(
        &out,
        "msg.md",
        &format!(
            "---\nid: msg-aaaa\nfrom: inspector/\nto: mayor/\nsubject: {SECRET}\n---\n{SECRET}\n"
        ),
    );
    link(&repo, ".beads/mail/mayor/msg-aaaa.md", &msg);
    let o = repo.run(&["mail", "read", "msg-aaaa"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_no_secret(&o, "mail read");
    let o = repo.run(&["mail", "inbox", "mayor/"]);
    assert_no_secret(&o, "mail inbox");
    assert!(stderr(&o).contains(REFUSED), "{}", stderr(&o));
    // A whole mailbox folder leading outside.
    link(&repo, ".beads/mail/inspector", out.path());
    let err = repo.fails(&["mail", "inbox", "inspector/"], 2);
    assert!(
        err.contains(&format!(".beads/mail/inspector {REFUSED}")),
        "{err}"
    );
    let err = repo.fails(
        &[
            "mail",
            "send",
            "inspector/",
            "-s",
            "hi",
            "-m",
            "x",
            "--from",
            "mayor/",
        ],
        2,
    );
    assert!(err.contains(REFUSED), "{err}");
    assert_eq!(std::fs::read_dir(out.path()).expect("ls").count(), 1);

    let mol = outside_file(
        &out,
        "mol.yaml",
        &format!("id: mol-aaaa\nformula: {SECRET}\n"),
    );
    link(&repo, ".beads/mols/mol-aaaa.yaml", &mol);
    let o = repo.run(&["mol", "show", "mol-aaaa"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_no_secret(&o, "mol show");
    assert!(stderr(&o).contains(REFUSED));
    assert!(!committed_anywhere(&repo, SECRET));
}

/// A spec file whose criterion text and title are the secret.
fn secret_spec() -> String {
    format!("# {SECRET}\n\n## Success Criteria\n\n- [ ] {SECRET} [verify](tests/ok.sh#test_ok)\n")
}

/// A repository with one good spec (`specs/ok.md`, passing) and `specs/evil.md` a symlink
/// to a spec outside.
fn repo_with_evil_spec(out: &TempDir) -> Repo {
    let repo = Repo::initialised();
    write_exec(&repo, "tests/ok.sh", "test_ok() { true; }\n\"$@\"\n");
    repo.write(
        "specs/ok.md",
        "# Ok\n\n## Success Criteria\n\n- [ ] Works [verify](tests/ok.sh#test_ok)\n",
    );
    let evil = outside_file(out, "evil.md", &secret_spec());
    link(&repo, "specs/evil.md", &evil);
    repo
}

#[test]
fn specs_symlinked_outside_are_refused_and_never_shown() {
    let out = outside();
    let repo = repo_with_evil_spec(&out);
    let o = repo.run(&["spec", "list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_no_secret(&o, "spec list");
    let line = stdout(&o)
        .lines()
        .find(|l| l.starts_with("specs/evil.md"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(line.contains("refused"), "{}", stdout(&o));
    assert!(stderr(&o).contains(&format!("specs/evil.md {REFUSED}")));
    let j = repo.json(&["spec", "list"]);
    let evil = j
        .as_array()
        .expect("array")
        .iter()
        .find(|s| s["path"] == "specs/evil.md")
        .expect("evil listed");
    assert!(evil["refused"].as_str().expect("refused").contains(REFUSED));
    assert_eq!(evil["criteria"].as_array().map(Vec::len), Some(0));

    let o = repo.run(&["status"]);
    assert_eq!(o.status.code(), Some(0));
    assert_no_secret(&o, "status");
    assert!(stderr(&o).contains(&format!("specs/evil.md {REFUSED}")));

    // Verifying reports it as an ERROR (exit 3) and still runs the good spec.
    let o = repo.run(&["status", "--verify"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert_no_secret(&o, "status --verify");
    assert!(
        stdout(&o).contains("[ERROR] specs/evil.md"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("[PASS] Works"), "{}", stdout(&o));

    for args in [
        &["spec", "check"][..],
        &["spec", "show", "evil"],
        &["spec", "check", "--fix"],
    ] {
        let o = repo.run(args);
        assert_no_secret(&o, "spec check/show");
    }
    assert_eq!(
        std::fs::read_to_string(out.path().join("evil.md")).expect("read"),
        secret_spec(),
        "--fix wrote nothing through the link"
    );
}

#[test]
fn a_specs_folder_symlinked_outside_is_refused() {
    let repo = Repo::initialised();
    let out = outside();
    outside_file(&out, "x.md", &secret_spec());
    link(&repo, "specs", out.path());
    for args in [&["spec", "list"][..], &["status"], &["status", "--verify"]] {
        let o = repo.run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_no_secret(&o, "specs folder");
        assert!(
            stderr(&o).contains(&format!("specs {REFUSED}")),
            "{}",
            stderr(&o)
        );
    }
}

/// A repository whose LLM is the stand-in (`fixtures/llm`).
fn judged_repo() -> Repo {
    let repo = Repo::initialised();
    repo.use_llm(&fake_llm());
    repo.write("src/ui.txt", "<BANNER> Welcome\n");
    repo
}

/// Runs `status --judge --json` with the stand-in answering PASS, logging its calls and
/// prompts in `scratch`.
fn judge(repo: &Repo, scratch: &TempDir) -> Run {
    let log = scratch.path().join("calls.log").display().to_string();
    let prompts = scratch.path().join("prompts").display().to_string();
    run_env(
        repo,
        &["status", "--judge", "--json"],
        &[
            ("FAKE_LLM_MODE", "pass"),
            ("FAKE_LLM_LOG", &log),
            ("FAKE_LLM_PROMPTS", &prompts),
        ],
    )
}

/// Every prompt the stand-in was sent, joined.
fn prompts(scratch: &TempDir) -> String {
    std::fs::read_dir(scratch.path().join("prompts"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).expect("prompt"))
        .collect()
}

#[test]
fn a_rubric_symlinked_outside_is_refused() {
    let scratch = outside();
    let out = outside();
    let repo = judged_repo();
    let rubric = outside_file(
        &out,
        "rubric.sh",
        &format!("test_banner() {{ judge_files src/ui.txt; judge_criterion \"{SECRET}\"; }}\n"),
    );
    link(&repo, "tests/judges/ui.sh", &rubric);
    repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] Banner [judge](tests/judges/ui.sh#test_banner)\n",
    );
    let r = judge(&repo, &scratch);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(outcome(&j, "Banner"), "ERROR", "{j:#}");
    let why = reason(&j, "Banner");
    assert!(
        why.contains(&format!("tests/judges/ui.sh {REFUSED}")),
        "{why}"
    );
    assert!(!r.all().contains(SECRET), "{}", r.all());
    assert_eq!(
        line_count(&scratch.path().join("calls.log")),
        0,
        "no LLM call"
    );
}

#[test]
fn judge_files_reaching_a_symlink_outside_are_refused() {
    let scratch = outside();
    let out = outside();
    let repo = judged_repo();
    let secret = outside_file(&out, "leak.txt", &format!("{SECRET}\n"));
    link(&repo, "src/leak.txt", &secret);
    repo.write(
        "tests/judges/ui.sh",
        "test_glob() { judge_files 'src/*.txt'; judge_criterion \"BANNER\"; }\n\
         test_named() { judge_files src/ui.txt src/leak.txt; judge_criterion \"BANNER\"; }\n",
    );
    repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] By glob [judge](tests/judges/ui.sh#test_glob)\n- [ ] By name [judge](tests/judges/ui.sh#test_named)\n",
    );
    let r = judge(&repo, &scratch);
    r.expect_code(3);
    let j = r.json();
    for c in ["By glob", "By name"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}: {j:#}");
        let why = reason(&j, c);
        assert!(
            why.contains(&format!("src/leak.txt {REFUSED}")),
            "{c}: {why}"
        );
    }
    assert!(!r.all().contains(SECRET), "{}", r.all());
    assert_eq!(
        line_count(&scratch.path().join("calls.log")),
        0,
        "no LLM call"
    );
    assert!(!prompts(&scratch).contains(SECRET));

    // A link staying inside is judged like the file it names.
    std::fs::remove_file(repo.join("src/leak.txt")).expect("rm");
    symlink("ui.txt", repo.join("src/leak.txt")).expect("symlink");
    let r = judge(&repo, &scratch);
    r.expect_code(0);
    assert!(
        prompts(&scratch).contains("=== src/leak.txt"),
        "{}",
        prompts(&scratch)
    );
}
