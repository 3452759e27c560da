//! vermas beside bd in one `.beads/`: a real temporary git repository holding bd's real
//! file set (its `config.yaml`, `metadata.json`, `issues.jsonl`, `beads.db`, `.gitignore`,
//! runtime files), the real `vermas` binary, checked with real git and by comparing bytes.
//! Also the move of an older vermas's `config.yaml` to `vermas.yaml`, and the commands
//! spelled as bd spells them (`label list`, `label remove`, `dep remove`, `list -p/--title`,
//! `ready -a/-l/-u`, `search`, `stats`, `delete`, `comments`).

use crate::common::*;

/// bd's `config.yaml`: its template with a few settings made.
const BD_CONFIG: &str = "# Beads Configuration File\n\
# This file configures default behavior for all bd commands in this repository\n\
\n\
# Issue prefix for this repository (used by bd init)\n\
issue-prefix: wx\n\
\n\
# Use no-db mode: load from JSONL, no SQLite, write back after each command\n\
no-db: false\n\
\n\
# no-daemon: false\n\
json: false\n\
\n\
# Git branch for beads commits (bd sync will commit to this)\n\
sync-branch: beads-sync\n";

/// bd's `.gitignore` in `.beads/`.
const BD_GITIGNORE: &str = "# SQLite databases\n*.db\n*.db?*\n*.db-journal\n*.db-wal\n*.db-shm\n\n\
# Daemon runtime files\ndaemon.lock\ndaemon.log\ndaemon.pid\nbd.sock\n\n\
# Keep JSONL exports and config (source of truth for git)\n!issues.jsonl\n!metadata.json\n!config.json\n";

/// bd's `metadata.json`.
const BD_METADATA: &str = "{\"database\":\"beads.db\",\"jsonl_export\":\"issues.jsonl\"}\n";

/// Two issues as `bd export` writes them, one line each.
const BD_ISSUES: &str = concat!(
    r#"{"id":"wx-a1b2","title":"Set up CI","description":"GitHub Actions","status":"open","priority":1,"issue_type":"task","created_at":"2025-10-14T10:00:00.123456-07:00","updated_at":"2025-10-14T10:00:00.123456-07:00","labels":["ci"]}"#,
    "\n",
    r#"{"id":"wx-c3d4","title":"Ship it","status":"open","priority":2,"issue_type":"feature","created_at":"2025-10-14T11:00:00Z","updated_at":"2025-10-14T11:00:00Z","dependencies":[{"issue_id":"wx-c3d4","depends_on_id":"wx-a1b2","type":"blocks","created_at":"2025-10-14T11:00:00Z","created_by":"alice"}]}"#,
    "\n"
);

/// bd's files under `.beads/`, with their content.
const BD_FILES: &[(&str, &str)] = &[
    ("config.yaml", BD_CONFIG),
    ("metadata.json", BD_METADATA),
    ("issues.jsonl", BD_ISSUES),
    ("deletions.jsonl", ""),
    ("interactions.jsonl", ""),
    ("beads.db", ""),
    ("beads.db-wal", ""),
    ("daemon.log", "2025-10-14 daemon started\n"),
    (".gitignore", BD_GITIGNORE),
];

/// A git repository where bd has been at work: its files under `.beads/`, committed as
/// bd commits them (the database and runtime files ignored), and a file of the user's.
fn bd_repo() -> Repo {
    let repo = Repo::new();
    for (name, text) in BD_FILES {
        repo.write(&format!(".beads/{name}"), text);
    }
    repo.write("README.md", "my project\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "bd init"]);
    repo
}

/// [`bd_repo`] with `vermas init` done and no test spec made with each task.
fn bd_initialised() -> Repo {
    let repo = bd_repo();
    repo.ok(&["init"]);
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    repo
}

/// The bytes of every bd file, by name.
fn bd_bytes(repo: &Repo) -> Vec<(String, Vec<u8>)> {
    BD_FILES
        .iter()
        .map(|(name, _)| {
            let path = repo.join(&format!(".beads/{name}"));
            (name.to_string(), std::fs::read(path).expect("bd file"))
        })
        .collect()
}

/// Asserts bd's files are byte for byte as bd wrote them (`.gitignore` may have vermas's
/// block after bd's own lines, when `with_block`).
fn assert_bd_files_kept(repo: &Repo, with_block: bool) {
    for (name, text) in BD_FILES {
        let now = repo.read(&format!(".beads/{name}"));
        if *name == ".gitignore" && with_block {
            assert!(now.starts_with(text), "bd's lines changed:\n{now}");
            assert!(now[text.len()..].starts_with("# >>> vermas\n"), "{now}");
            assert!(now.ends_with("# <<< vermas\n"), "{now}");
        } else {
            assert_eq!(&now, text, "{name} changed");
        }
    }
}

#[test]
fn before_init_every_reading_command_works_beside_bds_files() {
    let repo = bd_repo();
    let before = bd_bytes(&repo);
    for args in [
        &["spec", "list"][..],
        &["list"],
        &["ready"],
        &["status"],
        &["stats"],
        &["label", "list"],
    ] {
        let out = repo.run(args);
        assert!(
            out.status.success(),
            "{args:?} failed beside bd's files:\n{}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("issue-prefix"), "{}", stderr(&out));
    }
    assert_eq!(bd_bytes(&repo), before);
    assert_eq!(repo.commit_count(), 1, "reading commands commit nothing");
    assert_eq!(
        repo.git(&["status", "--porcelain", "--untracked-files=all"]),
        "",
        "reading commands leave nothing behind"
    );
}

#[test]
fn init_keeps_bds_files_byte_identical_takes_its_prefix_and_adds_a_marked_block() {
    let repo = bd_repo();
    let before = bd_bytes(&repo);
    let out = repo.ok(&["init"]);
    assert!(out.contains("(prefix wx)"), "{out}");
    assert_eq!(repo.ok(&["config", "get", "prefix"]).trim(), "wx");
    assert!(repo.read(".beads/vermas.yaml").contains("\nprefix: wx\n"));

    // bd's files: byte for byte, .gitignore only grown by vermas's block after bd's lines.
    for (name, bytes) in &before {
        let now = std::fs::read(repo.join(&format!(".beads/{name}"))).expect("read");
        if name == ".gitignore" {
            assert!(now.starts_with(bytes), "bd's .gitignore lines changed");
        } else {
            assert_eq!(&now, bytes, "{name} changed");
        }
    }
    assert_bd_files_kept(&repo, true);
    let attrs = repo.read(".beads/.gitattributes");
    assert_eq!(
        attrs,
        "# >>> vermas\n# git and vermas must hash the same bytes: no line-ending or filter conversion.\n* -text -filter\n# Records merge by meaning: `vermas merge-file`, git's merge driver `vermas`.\nissues/*.md merge=vermas\nmail/**/*.md merge=vermas\nmols/*.yaml merge=vermas\nresults/*.yaml merge=vermas\nmq/*.yaml merge=vermas\n# <<< vermas\n"
    );

    // One commit of exactly vermas's files; the work tree is clean.
    assert_eq!(repo.commit_count(), 2);
    assert_eq!(
        repo.head_changes(),
        [
            "A .beads/.gitattributes",
            "A .beads/vermas.yaml",
            "M .beads/.gitignore"
        ]
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // Both tools' ignores hold, as real git reads them.
    let ignored = repo.git(&[
        "check-ignore",
        ".beads/beads.db",
        ".beads/daemon.log",
        ".beads/.cache/index",
        ".beads/wisps/mols/w.yaml",
    ]);
    assert_eq!(ignored.lines().count(), 4, "{ignored}");

    // A second init changes nothing.
    let head = repo.git(&["rev-parse", "HEAD"]);
    let out = repo.ok(&["init"]);
    assert!(out.contains("already set up"), "{out}");
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_bd_files_kept(&repo, true);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn init_with_prefix_beside_bd_uses_it_and_leaves_bds_prefix_alone() {
    let repo = bd_repo();
    repo.ok(&["init", "--prefix", "vm"]);
    assert_eq!(repo.ok(&["config", "get", "prefix"]).trim(), "vm");
    assert_bd_files_kept(&repo, true);
}

#[test]
fn commands_work_beside_bd_and_never_touch_its_files() {
    let repo = bd_initialised();
    let id = repo.create("Fix the login page", &[]);
    assert!(id.starts_with("wx-"), "{id}");
    let listed = repo.ok(&["list"]);
    assert!(listed.contains(&id), "{listed}");
    repo.ok(&["spec", "list"]);
    let status = repo.ok(&["status"]);
    assert!(status.contains("open"), "{status}");

    // config set rewrites and commits vermas.yaml alone.
    repo.ok(&["config", "set", "verify.timeout", "30s"]);
    assert_eq!(repo.head_changes(), ["M .beads/vermas.yaml"]);
    assert!(repo.read(".beads/vermas.yaml").contains("timeout: 30s"));

    // bd at work: its export and settings change, its runtime files grow. doctor passes,
    // names none of them, and doctor --fix commits none of them.
    repo.write(
        ".beads/issues.jsonl",
        &format!("{BD_ISSUES}{{\"id\":\"wx-e5f6\"}}\n"),
    );
    repo.write(
        ".beads/config.yaml",
        &format!("{BD_CONFIG}no-daemon: true\n"),
    );
    repo.write(".beads/daemon.log", "more\n");
    repo.write(".beads/beads.db-shm", "");
    let out = repo.run(&["doctor"]);
    let doctor = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{doctor}\n{}", stderr(&out));
    for name in ["issues.jsonl", "config.yaml", "daemon.log", "beads.db"] {
        assert!(
            !doctor.contains(name),
            "doctor names bd's {name}:\n{doctor}"
        );
    }
    let commits = repo.commit_count();
    repo.ok(&["doctor", "--fix"]);
    assert_eq!(
        repo.commit_count(),
        commits,
        "doctor --fix committed bd's files"
    );
    let porcelain = repo.git(&["status", "--porcelain"]);
    assert_eq!(
        porcelain, " M .beads/config.yaml\n M .beads/issues.jsonl\n",
        "bd's changes stay bd's to commit"
    );
}

#[test]
fn bd_files_vermas_cannot_read_never_break_it() {
    let repo = bd_initialised();
    repo.write(".beads/config.yaml", ": : [ not yaml\n\t");
    repo.write(".beads/metadata.json", "{ not json");
    repo.write(".beads/issues.jsonl", "garbage\n\u{0}\n");
    std::fs::write(repo.join(".beads/beads.db"), [0u8, 159, 146, 150]).expect("write");
    let outside = tempfile::NamedTempFile::new().expect("tmp");
    std::fs::write(outside.path(), "issue-prefix: secret\n").expect("write");
    std::fs::remove_file(repo.join(".beads/deletions.jsonl")).expect("rm");
    std::os::unix::fs::symlink(outside.path(), repo.join(".beads/deletions.jsonl"))
        .expect("symlink");
    let id = repo.create("still works", &[]);
    assert!(id.starts_with("wx-"), "{id}");
    for args in [&["list"][..], &["status"], &["spec", "list"], &["stats"]] {
        repo.ok(args);
    }
    assert_eq!(repo.run(&["doctor"]).status.code(), Some(0));
}

#[test]
fn the_prefix_comes_from_bd_when_vermas_yaml_sets_none() {
    // vermas.yaml without a prefix: bd's issue-prefix comes before the default.
    let repo = bd_initialised();
    let text = repo.read(".beads/vermas.yaml").replace("prefix: wx\n", "");
    repo.write(".beads/vermas.yaml", &text);
    repo.git(&["commit", "-q", "-am", "no prefix"]);
    let doctor = repo.ok(&["doctor"]);
    assert!(
        doctor.contains("new ids take 'wx', bd's issue-prefix"),
        "{doctor}"
    );
    let id = repo.create("takes bd's prefix", &[]);
    assert!(id.starts_with("wx-"), "{id}");

    // bd's template config (every setting commented out) names none: its JSONL export's
    // ids tell it.
    let repo = bd_repo();
    repo.write(
        ".beads/config.yaml",
        "# Beads Configuration File\n# issue-prefix: \"\"\n# no-db: false\n",
    );
    repo.write(
        ".beads/issues.jsonl",
        "{\"id\":\"ab-x1y2\",\"title\":\"t\",\"status\":\"open\"}\n",
    );
    repo.git(&["commit", "-q", "-am", "bd template"]);
    let out = repo.ok(&["init"]);
    assert!(out.contains("(prefix ab)"), "{out}");
    assert_eq!(
        repo.read(".beads/config.yaml"),
        "# Beads Configuration File\n# issue-prefix: \"\"\n# no-db: false\n",
        "bd's template is never taken for vermas's settings"
    );
}

/// A repository as an older vermas left it: its settings in `.beads/config.yaml`, with
/// a setting changed by hand, committed.
fn old_vermas_repo() -> Repo {
    let repo = Repo::initialised();
    let mut text = repo.read(".beads/vermas.yaml");
    text = text.replace("  samples: 1\n", "  samples: 3\n");
    text.push_str("# my own note\n");
    repo.git(&["rm", "-q", ".beads/vermas.yaml"]);
    repo.write(".beads/config.yaml", &text);
    repo.git(&["add", ".beads/config.yaml"]);
    repo.git(&["commit", "-q", "-m", "as an older vermas left it"]);
    repo
}

#[test]
fn an_older_vermas_config_yaml_moves_to_vermas_yaml_once_in_one_commit() {
    let repo = old_vermas_repo();
    let old = repo.read(".beads/config.yaml");
    let commits = repo.commit_count();

    let out = repo.run(&["list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "one line says so: {err}");
    assert!(
        err.contains(".beads/config.yaml") && err.contains(".beads/vermas.yaml"),
        "{err}"
    );
    assert_eq!(repo.commit_count(), commits + 1);
    assert_eq!(
        repo.head_changes(),
        ["A .beads/vermas.yaml", "D .beads/config.yaml"]
    );
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("vermas config: "), "{subject}");
    assert_eq!(
        repo.read(".beads/vermas.yaml"),
        old,
        "the same settings, as written"
    );
    assert!(!repo.join(".beads/config.yaml").exists());
    assert_eq!(repo.ok(&["config", "get", "judge.samples"]).trim(), "3");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // The second run does nothing.
    let out = repo.run(&["list"]);
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
    assert_eq!(repo.commit_count(), commits + 1);
}

#[test]
fn init_moves_an_older_vermas_config_too_and_adds_nothing_else() {
    let repo = old_vermas_repo();
    let commits = repo.commit_count();
    let out = repo.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("vermas.yaml"), "{}", stderr(&out));
    // The older vermas's .gitignore and .gitattributes hold every line already.
    assert_eq!(repo.commit_count(), commits + 1);
    assert!(stdout(&out).contains("already set up"), "{}", stdout(&out));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn an_older_vermas_config_yaml_that_is_broken_is_reported_not_moved() {
    let repo = old_vermas_repo();
    let text = repo
        .read(".beads/config.yaml")
        .replace("samples: 3", "samples: 0");
    repo.write(".beads/config.yaml", &text);
    let err = repo.fails(&["list"], 2);
    assert!(err.contains(".beads/config.yaml:"), "{err}");
    assert!(err.contains("judge.samples"), "{err}");
    assert!(!repo.join(".beads/vermas.yaml").exists());
}

#[test]
fn a_bd_config_yaml_is_never_moved_or_read_as_settings() {
    let repo = bd_repo();
    // vermas keys mixed with bd's keys: bd's file.
    repo.write(".beads/config.yaml", "prefix: zz\nissue-prefix: wx\n");
    repo.git(&["commit", "-q", "-am", "bd settings"]);
    let out = repo.run(&["list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert!(!repo.join(".beads/vermas.yaml").exists());
    assert_eq!(repo.commit_count(), 2);
    repo.ok(&["init"]);
    assert_eq!(repo.ok(&["config", "get", "prefix"]).trim(), "wx");
    assert_eq!(
        repo.read(".beads/config.yaml"),
        "prefix: zz\nissue-prefix: wx\n"
    );
}
