//! Bead commands end to end: the real binary in real temporary git
//! repositories, checked with real git and by reading the bead files.

use crate::common::*;

use std::io::Read;
use std::process::{Output, Stdio};

/// Front matter keys of a bead file in the stable order vermas writes them.
const KEY_ORDER: &[&str] = &[
    "id",
    "title",
    "status",
    "priority",
    "issue_type",
    "labels",
    "assignee",
    "created_at",
    "created_by",
    "updated_at",
    "closed_at",
    "close_reason",
    "parent",
    "spec",
    "dependencies",
    "notes",
];

/// bd's JSON keys every single-bead object carries.
const JSON_KEYS: &[&str] = &[
    "id",
    "title",
    "status",
    "priority",
    "issue_type",
    "labels",
    "assignee",
    "created_at",
    "created_by",
    "updated_at",
    "closed_at",
    "close_reason",
    "dependencies",
    "description",
];

/// 1700000000 as RFC 3339 UTC.
const T0: &str = "2023-11-14T22:13:20Z";

// ---------------------------------------------------------------------------------------
// helpers

fn bead_path(id: &str) -> String {
    format!(".beads/issues/{id}.md")
}

fn bead_text(repo: &Repo, id: &str) -> String {
    repo.read(&bead_path(id))
}

/// Splits a bead file into (front matter, body).
fn split(text: &str) -> (String, String) {
    let rest = text
        .strip_prefix("---\n")
        .unwrap_or_else(|| panic!("no front matter:\n{text}"));
    let end = rest
        .find("\n---\n")
        .map(|i| (i, i + 5))
        .or_else(|| rest.strip_suffix("\n---").map(|r| (r.len(), rest.len())))
        .unwrap_or_else(|| panic!("front matter not closed:\n{text}"));
    (rest[..end.0].to_string(), rest[end.1..].to_string())
}

/// Top-level keys of a bead's front matter, in file order.
fn keys(text: &str) -> Vec<String> {
    let (fm, _) = split(text);
    fm.lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('-') && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_string()))
        .collect()
}

/// The text after `key:` on the key's own line.
fn field(text: &str, key: &str) -> String {
    let (fm, _) = split(text);
    let prefix = format!("{key}:");
    fm.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {key} in:\n{fm}"))
        .trim()
        .to_string()
}

fn run_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut c = repo.cmd(args);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("run vermas")
}

fn ok_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> String {
    let out = run_env(repo, args, envs);
    assert!(
        out.status.success(),
        "vermas {args:?} failed ({:?}):\n{}",
        out.status.code(),
        stderr(&out)
    );
    stdout(&out)
}

/// Runs a mutating command: it must succeed, add exactly one commit and leave `.beads`
/// clean in `git status`.
fn mutate_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> String {
    let before = repo.commit_count();
    let out = ok_env(repo, args, envs);
    assert_eq!(
        repo.commit_count(),
        before + 1,
        "vermas {args:?} should make exactly one commit"
    );
    assert_eq!(
        repo.status(".beads"),
        "",
        "vermas {args:?} left .beads dirty"
    );
    out
}

fn mutate(repo: &Repo, args: &[&str]) -> String {
    mutate_env(repo, args, &[])
}

/// A command that must fail with exit 2 and change nothing (no commit, same file).
fn refused(repo: &Repo, args: &[&str], id: Option<&str>) -> String {
    let before = repo.commit_count();
    let text = id.map(|i| bead_text(repo, i));
    let err = repo.fails(args, 2);
    assert_eq!(repo.commit_count(), before, "{args:?} must not commit");
    if let (Some(i), Some(t)) = (id, text) {
        assert_eq!(bead_text(repo, i), t, "{args:?} must not change {i}");
    }
    assert_eq!(repo.status(".beads"), "");
    err
}

/// A command that changes nothing: exit 0, "nothing changed" on stderr naming the bead,
/// nothing on stdout, no commit, the file as it was; returns stderr.
fn unchanged(repo: &Repo, args: &[&str], id: &str) -> String {
    let before = repo.commit_count();
    let text = bead_text(repo, id);
    let out = repo.run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("nothing changed") && err.contains(id),
        "{args:?}: {err}"
    );
    assert_eq!(stdout(&out), "", "{args:?}");
    assert_eq!(repo.commit_count(), before, "{args:?} must not commit");
    assert_eq!(bead_text(repo, id), text, "{args:?} must not change {id}");
    assert_eq!(repo.status(".beads"), "");
    err
}

/// Files changed by the HEAD commit, sorted.
fn head_files(repo: &Repo) -> Vec<String> {
    let mut v: Vec<String> = repo
        .git(&["show", "--name-only", "--format=", "HEAD"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected a JSON array: {v}"))
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

fn titles(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected a JSON array: {v}"))
        .iter()
        .map(|b| b["title"].as_str().expect("title").to_string())
        .collect()
}

fn is_short_id(id: &str) -> bool {
    id.len() == 7
        && id.starts_with("vm-")
        && id[3..]
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
}

fn is_rfc3339_utc(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z'
        && s.chars()
            .enumerate()
            .all(|(i, c)| [4, 7, 10, 13, 16, 19].contains(&i) || c.is_ascii_digit())
}

/// `show --json ID`: an array holding the one bead (bd's shape), returned as the bead.
fn shown(repo: &Repo, id: &str) -> serde_json::Value {
    let v = repo.json(&["show", id]);
    let all = v
        .as_array()
        .unwrap_or_else(|| panic!("show --json must print an array: {v}"));
    assert_eq!(all.len(), 1, "{v}");
    all[0].clone()
}

/// Commits a hand-written bead file with real git.
fn commit_by_hand(repo: &Repo, files: &[(&str, &str)]) {
    for (id, text) in files {
        repo.write(&bead_path(id), text);
    }
    repo.git(&["add", ".beads"]);
    repo.git(&["commit", "-q", "-m", "hand-written beads"]);
}

/// The JSON error object a `--json` command printed on stderr.
fn json_error(out: &Output) -> serde_json::Value {
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one JSON line on stderr, got:\n{err}"
    );
    let v: serde_json::Value =
        serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("not JSON ({e}): {err}"));
    assert!(v.is_object(), "{v}");
    v
}

// ---------------------------------------------------------------------------------------
// create / q

#[test]
fn create_with_every_flag_writes_front_matter_and_bd_json() {
    let repo = Repo::initialised();
    let a = repo.create("dep target A", &[]);
    let b = repo.create("dep target B", &[]);
    repo.write("body.md", "Body from a file.\n\nSecond paragraph.\n");
    let deps = format!("blocks:{a},related:{b}");
    let before = repo.commit_count();
    let v = repo.json(&[
        "create",
        "Full bead",
        "-t",
        "bug",
        "-p",
        "1",
        "--body-file",
        "body.md",
        "-l",
        "a",
        "-l",
        "b,c",
        "--deps",
        &deps,
        "--spec",
        "specs/x.md",
        "-a",
        "bob",
    ]);
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(repo.status(".beads"), "");

    // JSON: bd's key names, a single object with schema_version 1.
    assert!(v.is_object(), "{v}");
    for k in JSON_KEYS {
        assert!(v.get(k).is_some(), "JSON lacks {k}: {v}");
    }
    assert_eq!(v["schema_version"], 1);
    let id = v["id"].as_str().expect("id").to_string();
    assert!(is_short_id(&id), "{id}");
    assert_eq!(v["title"], "Full bead");
    assert_eq!(v["status"], "open");
    assert_eq!(v["priority"], 1);
    assert_eq!(v["issue_type"], "bug");
    assert_eq!(v["labels"], serde_json::json!(["a", "b", "c"]));
    assert_eq!(v["assignee"], "bob");
    assert_eq!(v["created_by"], "Test User");
    assert!(
        is_rfc3339_utc(v["created_at"].as_str().unwrap_or("")),
        "{v}"
    );
    assert_eq!(v["created_at"], v["updated_at"]);
    assert!(v["closed_at"].is_null());
    assert!(v["close_reason"].is_null());
    assert_eq!(v["spec"], "specs/x.md");
    assert_eq!(
        v["dependencies"],
        serde_json::json!([
            {"depends_on_id": a, "type": "blocks"},
            {"depends_on_id": b, "type": "related"}
        ])
    );
    assert_eq!(
        v["description"].as_str().unwrap_or("").trim_end(),
        "Body from a file.\n\nSecond paragraph."
    );

    // The file: stable key order, the values, the description as body.
    let text = bead_text(&repo, &id);
    assert_eq!(keys(&text), KEY_ORDER, "{text}");
    assert_eq!(field(&text, "id"), id);
    assert_eq!(field(&text, "title"), "Full bead");
    assert_eq!(field(&text, "status"), "open");
    assert_eq!(field(&text, "priority"), "1");
    assert_eq!(field(&text, "issue_type"), "bug");
    assert_eq!(field(&text, "labels"), "[a, b, c]");
    assert_eq!(field(&text, "assignee"), "bob");
    assert_eq!(field(&text, "created_by"), "Test User");
    assert_eq!(field(&text, "closed_at"), "null");
    assert_eq!(field(&text, "spec"), "specs/x.md");
    let (fm, body) = split(&text);
    assert!(
        fm.contains(&format!("depends_on_id: {a}, type: blocks")),
        "{fm}"
    );
    assert!(
        fm.contains(&format!("depends_on_id: {b}, type: related")),
        "{fm}"
    );
    assert_eq!(body.trim_end(), "Body from a file.\n\nSecond paragraph.");

    // The commit: one file, `vermas create: <id> <title>` with trailers.
    assert_eq!(head_files(&repo), [bead_path(&id)]);
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert_eq!(
        msg.lines().next(),
        Some(format!("vermas create: {id} Full bead").as_str())
    );
    assert!(msg.contains("Vermas-Actor: Test User"), "{msg}");
    assert!(msg.contains(&format!("Vermas-Id: {id}")), "{msg}");
    repo.assert_fsck();
}

#[test]
fn create_p_form_priority_and_body_from_stdin() {
    let repo = Repo::initialised();
    let before = repo.commit_count();
    let out = repo
        .cmd(&[
            "create",
            "From stdin",
            "-p",
            "P3",
            "--body-file",
            "-",
            "--json",
        ])
        .write_stdin("piped *markdown*\n")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["priority"], 3);
    assert_eq!(
        v["description"].as_str().unwrap_or("").trim_end(),
        "piped *markdown*"
    );
    let id = v["id"].as_str().expect("id");
    let (_, body) = split(&bead_text(&repo, id));
    assert_eq!(body.trim_end(), "piped *markdown*");
    assert_eq!(field(&bead_text(&repo, id), "priority"), "3");
    assert_eq!(repo.commit_count(), before + 1);

    // -d gives the description; P0 is critical.
    let id = repo.create("With -d", &["-d", "inline description", "-p", "P0"]);
    let text = bead_text(&repo, &id);
    assert_eq!(split(&text).1.trim_end(), "inline description");
    assert_eq!(field(&text, "priority"), "0");
    assert_eq!(field(&text, "issue_type"), "task", "default type is task");
    assert_eq!(field(&text, "assignee"), "null");
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn create_with_parent_numbers_children() {
    let repo = Repo::initialised();
    let p = repo.create("epic", &["-t", "epic"]);
    let c1 = repo.create("child one", &["--parent", &p]);
    let c2 = repo.create("child two", &["--parent", &p]);
    assert_eq!(c1, format!("{p}.1"));
    assert_eq!(c2, format!("{p}.2"));
    assert_eq!(field(&bead_text(&repo, &c1), "parent"), p);
    let v = shown(&repo, &c2);
    assert_eq!(v["id"], c2.as_str());
    assert_eq!(v["parent"], p.as_str());
    // The parent's exact id is not ambiguous with its children's.
    assert_eq!(shown(&repo, &p)["id"], p.as_str());
    assert_eq!(shown(&repo, &c1)["title"], "child one");
    assert_eq!(repo.commit_count(), 4);
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn create_bare_dep_means_blocks_and_unknown_dep_is_refused() {
    let repo = Repo::initialised();
    let a = repo.create("target", &[]);
    let v = repo.json(&["create", "dependent", "--deps", &a]);
    assert_eq!(
        v["dependencies"],
        serde_json::json!([{"depends_on_id": a, "type": "blocks"}])
    );
    let before = repo.commit_count();
    let files = repo.git(&["ls-files", ".beads/issues"]);
    repo.fails(&["q", "dangling", "--deps", "vm-zzzz"], 2);
    repo.fails(&["q", "orphan", "--parent", "vm-zzzz"], 2);
    assert_eq!(repo.commit_count(), before);
    assert_eq!(
        std::fs::read_dir(repo.join(".beads/issues"))
            .expect("dir")
            .count(),
        files.lines().count(),
        "a refused create must not leave a file behind"
    );
}

#[test]
fn q_prints_only_the_id() {
    let repo = Repo::initialised();
    let out = repo.ok(&["q", "quick one", "-p", "1"]);
    let id = out.trim_end_matches('\n');
    assert_eq!(out, format!("{id}\n"), "q prints the id and a newline only");
    assert!(is_short_id(id), "{id:?}");
    assert!(repo.join(&bead_path(id)).is_file());
    assert_eq!(field(&bead_text(&repo, id), "title"), "quick one");
    assert_eq!(repo.commit_count(), 2);
}

#[test]
fn ids_are_prefix_and_four_base36_chars_with_few_beads() {
    let repo = Repo::initialised();
    let mut seen = std::collections::HashSet::new();
    for i in 0..6 {
        let id = repo.create(&format!("bead {i}"), &[]);
        assert!(is_short_id(&id), "{id:?} is not vm- + 4 base36 chars");
        assert!(seen.insert(id.clone()), "duplicate id {id}");
        assert_eq!(field(&bead_text(&repo, &id), "id"), id);
    }
    // The same title twice still gets two ids.
    let x = repo.create("same", &[]);
    let y = repo.create("same", &[]);
    assert_ne!(x, y);
}

// ---------------------------------------------------------------------------------------
// list / show

#[test]
fn list_filters() {
    let repo = Repo::initialised();
    let open = repo.create("open task", &["-l", "red,big", "-a", "zed"]);
    let bug = repo.create("a bug", &["-t", "bug", "-l", "red"]);
    let feat = repo.create("a feature", &["-t", "feature", "-a", "zed"]);
    let done = repo.create("done task", &["-l", "red"]);
    mutate(&repo, &["close", &done, "-r", "finished"]);

    let default = ids(&repo.json(&["list"]));
    assert_eq!(default.len(), 3, "{default:?}");
    assert!(!default.contains(&done), "list hides closed beads");
    assert!(!repo.ok(&["list"]).contains(&done));

    let all = ids(&repo.json(&["list", "--all"]));
    assert_eq!(all.len(), 4);
    assert!(all.contains(&done));
    assert!(repo.ok(&["list", "--all"]).contains(&done));

    assert_eq!(
        ids(&repo.json(&["list", "--status", "closed"])),
        [done.as_str()]
    );
    assert_eq!(ids(&repo.json(&["list", "-s", "open"])).len(), 3);
    assert_eq!(ids(&repo.json(&["list", "--type", "bug"])), [bug.as_str()]);
    assert_eq!(ids(&repo.json(&["list", "-t", "feature"])), [feat.as_str()]);

    let mut red = ids(&repo.json(&["list", "--label", "red"]));
    red.sort();
    let mut want = vec![open.clone(), bug.clone()];
    want.sort();
    assert_eq!(red, want, "closed {done} is hidden even though labelled");
    assert_eq!(
        ids(&repo.json(&["list", "-l", "red", "-l", "big"])),
        [open.as_str()],
        "repeated --label: all must match"
    );
    let mut zed = ids(&repo.json(&["list", "--assignee", "zed"]));
    zed.sort();
    let mut want = vec![open.clone(), feat.clone()];
    want.sort();
    assert_eq!(zed, want);
    assert_eq!(ids(&repo.json(&["list", "-n", "2"])).len(), 2);
    assert_eq!(repo.ok(&["list", "-n", "1"]).lines().count(), 1);
    assert!(
        repo.json(&["list", "--label", "nothing"])
            .as_array()
            .expect("array")
            .is_empty()
    );

    // List items carry bd's keys too.
    let first = &repo.json(&["list", "--all"])[0];
    for k in JSON_KEYS {
        assert!(first.get(k).is_some(), "list item lacks {k}: {first}");
    }
}

#[test]
fn show_accepts_unique_prefixes() {
    let repo = Repo::initialised();
    let id = repo.create("findable", &["-d", "the description"]);
    let hash = &id[3..];
    for q in [
        id.as_str(),
        &id[..id.len() - 1],
        &id[..5],
        &hash[..hash.len() - 1],
        hash,
    ] {
        let v = shown(&repo, q);
        assert_eq!(v["id"], id.as_str(), "prefix {q:?}");
    }
    let human = repo.ok(&["show", &id[..6]]);
    assert!(human.contains(&id), "{human}");
    assert!(human.contains("findable"), "{human}");
    assert!(human.contains("the description"), "{human}");
    // Prefix resolution works for mutating commands too.
    mutate(&repo, &["update", &hash[..3], "-p", "0"]);
    assert_eq!(field(&bead_text(&repo, &id), "priority"), "0");
}

#[test]
fn ambiguous_prefix_is_refused_listing_candidates() {
    let repo = Repo::initialised();
    commit_by_hand(
        &repo,
        &[
            (
                "vm-aaa1",
                "---\nid: vm-aaa1\ntitle: first\nstatus: open\n---\n",
            ),
            (
                "vm-aaa2",
                "---\nid: vm-aaa2\ntitle: second\nstatus: open\n---\n",
            ),
        ],
    );
    for q in ["vm-aa", "vm-aaa", "aaa", "a"] {
        let err = repo.fails(&["show", q], 2);
        assert!(
            err.contains("vm-aaa1") && err.contains("vm-aaa2"),
            "{q}: {err}"
        );
        assert!(err.contains("ambiguous"), "{q}: {err}");
    }
    refused(&repo, &["close", "vm-aaa"], Some("vm-aaa1"));
    assert_eq!(shown(&repo, "vm-aaa2")["title"], "second");
    assert_eq!(shown(&repo, "aaa1")["title"], "first");
}

#[test]
fn unknown_id_is_refused() {
    let repo = Repo::initialised();
    repo.create("exists", &[]);
    let err = repo.fails(&["show", "vm-zzzz"], 2);
    assert!(err.contains("vm-zzzz"), "{err}");
    refused(&repo, &["update", "vm-zzzz", "-p", "1"], None);
    refused(&repo, &["close", "vm-zzzz"], None);
    refused(&repo, &["dep", "add", "vm-zzzz", "vm-yyyy"], None);
    refused(&repo, &["history", "vm-zzzz"], None);
}

// ---------------------------------------------------------------------------------------
// update / claim / close / reopen

#[test]
fn update_changes_fields_in_one_commit() {
    let repo = Repo::initialised();
    let id = ok_env(
        &repo,
        &["q", "original", "-l", "keep"],
        &[("VERMAS_NOW", "1700000000")],
    )
    .trim()
    .to_string();
    mutate_env(
        &repo,
        &[
            "update",
            &id,
            "--status",
            "in_progress",
            "--title",
            "renamed",
            "-p",
            "0",
            "-a",
            "carol",
            "--add-label",
            "x",
            "--add-label",
            "y",
        ],
        &[("VERMAS_NOW", "1700000600")],
    );
    assert_eq!(head_files(&repo), [bead_path(&id)]);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        format!("vermas update: {id} renamed")
    );
    let text = bead_text(&repo, &id);
    assert_eq!(keys(&text), KEY_ORDER);
    assert_eq!(field(&text, "status"), "in_progress");
    assert_eq!(field(&text, "title"), "renamed");
    assert_eq!(field(&text, "priority"), "0");
    assert_eq!(field(&text, "assignee"), "carol");
    assert_eq!(field(&text, "created_at"), T0, "created_at never changes");
    assert_eq!(field(&text, "updated_at"), "2023-11-14T22:23:20Z");
    let v = shown(&repo, &id);
    assert_eq!(v["labels"], serde_json::json!(["keep", "x", "y"]));

    mutate(&repo, &["update", &id, "--remove-label", "x"]);
    assert_eq!(
        shown(&repo, &id)["labels"],
        serde_json::json!(["keep", "y"])
    );

    // Notes are appended with author and time.
    mutate_env(
        &repo,
        &["update", &id, "--notes", "first note", "--actor", "dana"],
        &[("VERMAS_NOW", "1700000000")],
    );
    mutate(&repo, &["update", &id, "--notes", "second note"]);
    let notes = shown(&repo, &id)["notes"].clone();
    let notes = notes.as_array().expect("notes array");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0]["text"], "first note");
    assert_eq!(notes[0]["by"], "dana");
    assert_eq!(notes[0]["at"], T0);
    assert_eq!(notes[1]["text"], "second note");
    assert_eq!(notes[1]["by"], "Test User");
    assert!(is_rfc3339_utc(notes[1]["at"].as_str().unwrap_or("")));
    let (fm, _) = split(&bead_text(&repo, &id));
    assert!(
        fm.contains(&format!("{{at: {T0}, by: dana, text: first note}}")),
        "{fm}"
    );
    repo.assert_fsck();
}

#[test]
fn claim_takes_the_bead_and_refuses_a_second_claimer() {
    let repo = Repo::initialised();
    let id = repo.create("claimable", &[]);
    mutate(&repo, &["update", &id, "--claim", "--actor", "alice"]);
    let text = bead_text(&repo, &id);
    assert_eq!(field(&text, "assignee"), "alice");
    assert_eq!(field(&text, "status"), "in_progress");
    assert!(
        repo.git(&["log", "-1", "--format=%B"])
            .contains("Vermas-Actor: alice")
    );

    let err = refused(
        &repo,
        &["update", &id, "--claim", "--actor", "bob"],
        Some(&id),
    );
    assert!(err.contains("alice"), "refusal names the holder: {err}");

    // VERMAS_ACTOR is the actor too.
    let other = repo.create("second", &[]);
    mutate_env(
        &repo,
        &["update", &other, "--claim"],
        &[("VERMAS_ACTOR", "erin")],
    );
    assert_eq!(field(&bead_text(&repo, &other), "assignee"), "erin");
}

#[test]
fn close_with_reason_then_reopen() {
    let repo = Repo::initialised();
    let id = repo.create("to close", &[]);
    mutate_env(
        &repo,
        &["close", &id, "-r", "done it"],
        &[("VERMAS_NOW", "1700000000")],
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        format!("vermas close: {id} to close")
    );
    let text = bead_text(&repo, &id);
    assert_eq!(field(&text, "status"), "closed");
    assert_eq!(field(&text, "closed_at"), T0);
    assert_eq!(field(&text, "close_reason"), "done it");
    let v = shown(&repo, &id);
    assert_eq!(v["status"], "closed");
    assert_eq!(v["closed_at"], T0);
    assert_eq!(v["close_reason"], "done it");

    mutate(&repo, &["reopen", &id]);
    let text = bead_text(&repo, &id);
    assert_eq!(field(&text, "status"), "open");
    assert_eq!(field(&text, "closed_at"), "null");
    assert_eq!(field(&text, "close_reason"), "null");
    assert!(repo.ok(&["list"]).contains(&id));
    repo.assert_fsck();
}

#[test]
fn close_two_beads_in_one_commit() {
    let repo = Repo::initialised();
    let a = repo.create("one", &[]);
    let b = repo.create("two", &[]);
    let keep = repo.create("three", &[]);
    mutate(&repo, &["close", &a, &b, "-r", "batch"]);
    let mut want = vec![bead_path(&a), bead_path(&b)];
    want.sort();
    assert_eq!(head_files(&repo), want);
    let msg = repo.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains(&format!("Vermas-Id: {a}")), "{msg}");
    assert!(msg.contains(&format!("Vermas-Id: {b}")), "{msg}");
    for id in [&a, &b] {
        assert_eq!(field(&bead_text(&repo, id), "status"), "closed");
        assert_eq!(field(&bead_text(&repo, id), "close_reason"), "batch");
    }
    assert_eq!(field(&bead_text(&repo, &keep), "status"), "open");
    assert_eq!(ids(&repo.json(&["list"])), [keep]);
    repo.assert_fsck();
}

// ---------------------------------------------------------------------------------------
// dependencies

#[test]
fn dep_add_blocks_until_the_blocker_closes() {
    let repo = Repo::initialised();
    let a = repo.create("blocked one", &[]);
    let b = repo.create("blocker", &[]);
    mutate(&repo, &["dep", "add", &a, &b]);
    assert_eq!(head_files(&repo), [bead_path(&a)]);
    assert!(bead_text(&repo, &a).contains(&format!("{{depends_on_id: {b}, type: blocks}}")));

    let ready = ids(&repo.json(&["ready"]));
    assert_eq!(ready, [b.as_str()], "a blocked bead is not ready");
    assert!(!repo.ok(&["ready"]).contains(&a));

    let blocked = repo.json(&["blocked"]);
    assert_eq!(ids(&blocked), [a.as_str()]);
    assert_eq!(blocked[0]["blocked_by"], serde_json::json!([b]));
    let human = repo.ok(&["blocked"]);
    let line_a = human
        .lines()
        .position(|l| l.contains(&a))
        .expect("A listed");
    assert!(
        human.lines().skip(line_a).any(|l| l.contains(&b)),
        "blocked shows what blocks A:\n{human}"
    );

    mutate(&repo, &["close", &b]);
    assert_eq!(ids(&repo.json(&["ready"])), [a.as_str()]);
    assert!(
        repo.json(&["blocked"])
            .as_array()
            .expect("array")
            .is_empty()
    );

    // A related dependency never blocks.
    let c = repo.create("related only", &[]);
    let d = repo.create("other", &[]);
    mutate(&repo, &["dep", "add", &c, &d, "-t", "related"]);
    assert!(ids(&repo.json(&["ready"])).contains(&c));
}

#[test]
fn dep_add_self_is_refused() {
    let repo = Repo::initialised();
    let a = repo.create("me", &[]);
    let err = refused(&repo, &["dep", "add", &a, &a], Some(&a));
    assert!(err.contains(&a), "{err}");
}

#[test]
fn dep_add_cycle_is_refused_with_the_path() {
    let repo = Repo::initialised();
    let a = repo.create("A", &[]);
    let b = repo.create("B", &[]);
    let c = repo.create("C", &[]);
    mutate(&repo, &["dep", "add", &a, &b]);
    mutate(&repo, &["dep", "add", &b, &c]);
    let err = refused(&repo, &["dep", "add", &c, &a], Some(&c));
    let rotations = [
        format!("{a} -> {b} -> {c} -> {a}"),
        format!("{b} -> {c} -> {a} -> {b}"),
        format!("{c} -> {a} -> {b} -> {c}"),
    ];
    assert!(
        rotations.iter().any(|r| err.contains(r.as_str())),
        "stderr should print the cycle path (one of {rotations:?}):\n{err}"
    );
    let out = repo.run(&["dep", "add", &c, &a, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_error(&out);
    assert_eq!(v["code"], "cycle");
}

#[test]
fn dep_rm_removes_the_dependency() {
    let repo = Repo::initialised();
    let a = repo.create("A", &[]);
    let b = repo.create("B", &[]);
    mutate(&repo, &["dep", "add", &a, &b]);
    mutate(&repo, &["dep", "rm", &a, &b]);
    assert_eq!(field(&bead_text(&repo, &a), "dependencies"), "[]");
    assert!(ids(&repo.json(&["ready"])).contains(&a));
    refused(&repo, &["dep", "rm", &a, &b], Some(&a));
}

#[test]
fn dep_tree_shows_transitive_dependencies() {
    let repo = Repo::initialised();
    let a = repo.create("top", &[]);
    let b = repo.create("middle", &[]);
    let c = repo.create("bottom", &[]);
    let other = repo.create("unrelated", &[]);
    mutate(&repo, &["dep", "add", &a, &b]);
    mutate(&repo, &["dep", "add", &b, &c]);
    let human = repo.ok(&["dep", "tree", &a]);
    let pos = |id: &str| {
        human
            .lines()
            .position(|l| l.contains(id))
            .unwrap_or_else(|| panic!("{id} missing from tree:\n{human}"))
    };
    assert!(pos(&a) < pos(&b) && pos(&b) < pos(&c), "{human}");
    assert!(!human.contains(&other), "{human}");

    let v = repo.json(&["dep", "tree", &a]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["id"], a.as_str());
    assert_eq!(v["children"][0]["id"], b.as_str());
    assert_eq!(v["children"][0]["children"][0]["id"], c.as_str());
    assert_eq!(
        v["children"][0]["children"][0]["children"],
        serde_json::json!([])
    );
}

#[test]
fn dep_cycles_reports_hand_written_cycle() {
    let repo = Repo::initialised();
    repo.create("innocent", &[]);
    let out = repo.ok(&["dep", "cycles"]);
    assert!(!out.contains("->"), "{out}");

    commit_by_hand(
        &repo,
        &[
            (
                "vm-cyc1",
                "---\nid: vm-cyc1\ntitle: one\nstatus: open\ndependencies:\n  - {depends_on_id: vm-cyc2, type: blocks}\n---\n",
            ),
            (
                "vm-cyc2",
                "---\nid: vm-cyc2\ntitle: two\nstatus: open\ndependencies:\n  - {depends_on_id: vm-cyc1, type: blocks}\n---\n",
            ),
        ],
    );
    let out = repo.run(&["dep", "cycles"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("vm-cyc1 -> vm-cyc2 -> vm-cyc1")
            || text.contains("vm-cyc2 -> vm-cyc1 -> vm-cyc2"),
        "{text}"
    );
    let out = repo.run(&["dep", "cycles", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let cycles = v.as_array().expect("array of cycles");
    assert_eq!(cycles.len(), 1, "{v}");
    let flat = cycles[0].to_string();
    assert!(flat.contains("vm-cyc1") && flat.contains("vm-cyc2"), "{v}");
}

// ---------------------------------------------------------------------------------------
// ready / labels / clarify

#[test]
fn ready_orders_by_priority_then_age_and_excludes_what_is_not_ready() {
    let repo = Repo::initialised();
    let at = |t: &str, title: &str, p: &str| {
        ok_env(&repo, &["q", title, "-p", p], &[("VERMAS_NOW", t)])
            .trim()
            .to_string()
    };
    at("1700000300", "newer p1", "1");
    at("1700000100", "older p2", "2");
    at("1700000200", "older p1", "1");
    at("1700000000", "oldest p3", "3");
    at("1700000050", "urgent p0", "0");
    let spec = at("1699999000", "a test spec", "0");
    mutate(&repo, &["update", &spec, "-t", "test-spec"]);
    repo.create("a message", &["-t", "message", "-p", "0"]);
    let waiting = at("1699999000", "waiting", "0");
    mutate(&repo, &["clarify", &waiting, "which one?"]);
    let deferred = at("1699999000", "deferred", "0");
    mutate(&repo, &["update", &deferred, "--status", "deferred"]);
    let busy = at("1699999000", "in progress", "0");
    mutate(&repo, &["update", &busy, "--status", "in_progress"]);
    let shut = at("1699999000", "closed", "0");
    mutate(&repo, &["close", &shut]);

    let v = repo.json(&["ready"]);
    assert_eq!(
        titles(&v),
        ["urgent p0", "older p1", "newer p1", "older p2", "oldest p3"]
    );
    assert_eq!(
        titles(&repo.json(&["ready", "-n", "2"])),
        ["urgent p0", "older p1"]
    );
    let human = repo.ok(&["ready"]);
    let p1 = human.find("older p1").expect("older p1 listed");
    let p1b = human.find("newer p1").expect("newer p1 listed");
    assert!(p1 < p1b, "{human}");
    for gone in [
        "a test spec",
        "a message",
        "waiting",
        "deferred",
        "in progress",
        "closed",
    ] {
        assert!(!human.contains(gone), "{gone} must not be ready:\n{human}");
    }
}

#[test]
fn label_add_and_rm() {
    let repo = Repo::initialised();
    let id = repo.create("labelled", &["-l", "keep"]);
    mutate(&repo, &["label", "add", &id, "area:notify"]);
    mutate(&repo, &["label", "add", &id, "later"]);
    assert_eq!(
        shown(&repo, &id)["labels"],
        serde_json::json!(["keep", "area:notify", "later"])
    );
    mutate(&repo, &["label", "rm", &id, "area:notify"]);
    assert_eq!(
        shown(&repo, &id)["labels"],
        serde_json::json!(["keep", "later"])
    );
    assert_eq!(field(&bead_text(&repo, &id), "labels"), "[keep, later]");
    assert_eq!(ids(&repo.json(&["list", "-l", "later"])), [id.as_str()]);
    unchanged(&repo, &["label", "rm", &id, "never-there"], &id);
    unchanged(&repo, &["label", "add", &id, "keep"], &id);
    repo.assert_fsck();
}

#[test]
fn clarify_and_answer() {
    let repo = Repo::initialised();
    let id = repo.create("unclear", &[]);
    mutate(&repo, &["clarify", &id, "GitHub Actions or Buildkite?"]);
    let v = shown(&repo, &id);
    assert_eq!(v["labels"], serde_json::json!(["awaiting:input"]));
    let notes = v["notes"].as_array().expect("notes").clone();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["text"], "Question: GitHub Actions or Buildkite?");
    assert_eq!(notes[0]["by"], "Test User");
    assert!(
        !ids(&repo.json(&["ready"])).contains(&id),
        "awaiting input is not ready"
    );

    mutate(&repo, &["answer", &id, "Buildkite"]);
    let v = shown(&repo, &id);
    assert_eq!(v["labels"], serde_json::json!([]));
    let notes = v["notes"].as_array().expect("notes").clone();
    assert_eq!(notes.len(), 2);
    assert_eq!(notes[1]["text"], "Answer: Buildkite");
    assert!(ids(&repo.json(&["ready"])).contains(&id));

    let err = refused(&repo, &["answer", &id, "again"], Some(&id));
    assert!(err.contains(&id), "{err}");
}

// ---------------------------------------------------------------------------------------
// history

#[test]
fn history_lists_commits_newest_first_with_changes() {
    let repo = Repo::initialised();
    let id = repo.create("tracked", &[]);
    let other = repo.create("noise", &[]);
    mutate(&repo, &["update", &id, "-p", "1"]);
    mutate(&repo, &["update", &other, "-p", "1"]);
    mutate(&repo, &["close", &id, "-r", "shipped"]);

    let v = repo.json(&["history", &id]);
    let entries = v.as_array().expect("history --json is an array");
    let commits: Vec<String> = entries
        .iter()
        .map(|e| e["commit"].as_str().expect("commit").to_string())
        .collect();
    let git_log: Vec<String> = repo
        .git(&["log", "--format=%H", "--", &bead_path(&id)])
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        commits, git_log,
        "history = the commits that touched the file, newest first"
    );
    assert_eq!(commits.len(), 3);

    let changes = |i: usize| -> Vec<String> {
        entries[i]["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .map(|c| c.as_str().expect("line").to_string())
            .collect()
    };
    assert!(
        changes(0).contains(&"- status: open".to_string()),
        "{:?}",
        changes(0)
    );
    assert!(
        changes(0).contains(&"+ status: closed".to_string()),
        "{:?}",
        changes(0)
    );
    assert!(changes(0).contains(&"+ close_reason: shipped".to_string()));
    assert!(
        changes(1).contains(&"- priority: 2".to_string()),
        "{:?}",
        changes(1)
    );
    assert!(
        changes(1).contains(&"+ priority: 1".to_string()),
        "{:?}",
        changes(1)
    );
    assert!(
        changes(2).contains(&format!("+ id: {id}")),
        "{:?}",
        changes(2)
    );

    let human = repo.ok(&["history", &id]);
    let closed = human.find("+ status: closed").expect("close change shown");
    let created = human.find(&format!("+ id: {id}")).expect("creation shown");
    assert!(closed < created, "newest first:\n{human}");
    assert!(human.contains("- status: open"), "{human}");
    assert!(human.contains(&git_log[0][..7]), "{human}");
}

// ---------------------------------------------------------------------------------------
// hand-written and bad input

#[test]
fn minimal_hand_written_bead_takes_defaults() {
    let repo = Repo::initialised();
    commit_by_hand(
        &repo,
        &[(
            "vm-min1",
            "---\nid: vm-min1\ntitle: minimal\nstatus: open\n---\n",
        )],
    );
    let v = repo.json(&["list"]);
    assert_eq!(ids(&v), ["vm-min1"]);
    let s = shown(&repo, "vm-min1");
    assert_eq!(s["priority"], 2);
    assert_eq!(s["issue_type"], "task");
    assert_eq!(s["labels"], serde_json::json!([]));
    assert_eq!(s["dependencies"], serde_json::json!([]));
    assert_eq!(s["description"], "");
    assert!(s["assignee"].is_null());
    assert!(repo.ok(&["show", "vm-min1"]).contains("minimal"));
    assert_eq!(ids(&repo.json(&["ready"])), ["vm-min1"]);

    // A change rewrites it in full, in one commit.
    mutate(&repo, &["update", "vm-min1", "-p", "1"]);
    let text = bead_text(&repo, "vm-min1");
    assert_eq!(keys(&text), KEY_ORDER);
    assert_eq!(field(&text, "priority"), "1");
    assert_eq!(field(&text, "title"), "minimal");
}

#[test]
fn malformed_front_matter_fails_show_but_not_list() {
    let repo = Repo::initialised();
    let good = repo.create("good one", &[]);
    commit_by_hand(
        &repo,
        &[(
            "vm-bad1",
            "---\nid: vm-bad1\ntitle: broken\nstatus: [\n---\nbody\n",
        )],
    );
    let err = repo.fails(&["show", "vm-bad1"], 2);
    assert!(
        err.contains("issues/vm-bad1.md:4:"),
        "show should point at line 4:\n{err}"
    );

    let out = repo.run(&["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(&good), "{}", stdout(&out));
    assert!(!stdout(&out).contains("vm-bad1"));
    assert!(
        stderr(&out).contains("vm-bad1.md"),
        "list warns: {}",
        stderr(&out)
    );

    let out = repo.run(&["show", "vm-bad1", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_error(&out);
    assert_eq!(v["line"], 4);
    assert!(
        v["file"]
            .as_str()
            .unwrap_or("")
            .ends_with("issues/vm-bad1.md"),
        "{v}"
    );
    // The broken file is left as it was.
    assert!(bead_text(&repo, "vm-bad1").contains("status: [\n"));
}

#[test]
fn unclosed_front_matter_fails_show_with_location() {
    let repo = Repo::initialised();
    let good = repo.create("good one", &[]);
    commit_by_hand(
        &repo,
        &[(
            "vm-bad2",
            "---\nid: vm-bad2\ntitle: unclosed\nstatus: open\n",
        )],
    );
    let err = repo.fails(&["show", "vm-bad2"], 2);
    let located = (1..=5).any(|l| err.contains(&format!("issues/vm-bad2.md:{l}:")));
    assert!(
        located,
        "stderr should name issues/vm-bad2.md:LINE:COL:\n{err}"
    );
    let out = repo.run(&["list"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains(&good));
    assert!(stderr(&out).contains("vm-bad2.md"), "{}", stderr(&out));
}

#[test]
fn unknown_status_type_and_priority_are_refused() {
    let repo = Repo::initialised();
    let id = repo.create("victim", &[]);
    let files = || {
        std::fs::read_dir(repo.join(".beads/issues"))
            .expect("dir")
            .count()
    };
    let n = files();
    let err = repo.fails(&["list", "--status", "wip"], 2);
    assert!(err.contains("wip"), "{err}");
    repo.fails(&["list", "--type", "nonsense"], 2);
    let err = refused(&repo, &["update", &id, "--status", "wip"], Some(&id));
    assert!(err.contains("wip"), "{err}");
    refused(&repo, &["update", &id, "-p", "7"], Some(&id));
    refused(&repo, &["update", &id, "-t", "nonsense"], Some(&id));
    let err = refused(&repo, &["create", "x", "-t", "nonsense"], None);
    assert!(err.contains("nonsense"), "{err}");
    let err = refused(&repo, &["q", "x", "-p", "7"], None);
    assert!(err.contains('7'), "{err}");
    refused(&repo, &["q", "x", "-p", "P7"], None);
    refused(&repo, &["q", "x", "-p", "-1"], None);
    assert_eq!(files(), n, "no bead file may be written");
}

/// The actor an attacker uses to slip a `Vermas-Id:` trailer into a commit message.
const INJECTED_ACTOR: &str = "mallory\nVermas-Id: vm-victim";

/// Every commit message on HEAD, each line on its own.
fn log_lines(repo: &Repo) -> Vec<String> {
    repo.git(&["log", "--format=%B"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// Like [`refused`], run with extra environment: exit 2, no new commit (`git log` is
/// unchanged), nothing left in `.beads`; returns stderr.
fn refused_env(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> String {
    let log = repo.git(&["log", "--format=%H"]);
    let out = run_env(repo, args, envs);
    assert_eq!(
        out.status.code(),
        Some(2),
        "vermas {args:?} {envs:?}: expected exit 2\n{}",
        stderr(&out)
    );
    assert_eq!(
        repo.git(&["log", "--format=%H"]),
        log,
        "{args:?} must not commit"
    );
    assert_eq!(repo.status(".beads"), "", "{args:?} must not write");
    stderr(&out)
}

#[test]
fn an_actor_with_a_newline_is_refused_from_the_flag_the_environment_and_git() {
    let repo = Repo::initialised();
    let id = repo.create("victim of nothing", &[]);
    let other = repo.create("other", &[]);
    let before = bead_text(&repo, &id);
    let bead_commands: Vec<Vec<&str>> = vec![
        vec!["create", "Innocent"],
        vec!["q", "Innocent"],
        vec!["update", &id, "--claim"],
        vec!["update", &id, "--title", "New title"],
        vec!["close", &id],
        vec!["label", "add", &id, "x"],
        vec!["dep", "add", &id, &other],
        vec!["clarify", &id, "Why?"],
    ];
    for cmd in &bead_commands {
        // --actor
        let mut args = vec!["--actor", INJECTED_ACTOR];
        args.extend(cmd.iter().copied());
        let err = refused_env(&repo, &args, &[]);
        assert!(
            err.contains("actor") && err.contains("single line") && err.contains("newline"),
            "{cmd:?}: {err}"
        );
        // VERMAS_ACTOR
        let err = refused_env(&repo, cmd, &[("VERMAS_ACTOR", INJECTED_ACTOR)]);
        assert!(
            err.contains("actor") && err.contains("single line") && err.contains("VERMAS_ACTOR"),
            "{cmd:?}: {err}"
        );
    }
    // Other control characters, and the flag on a command that is not about beads.
    let err = refused_env(&repo, &["--actor", "eve\u{1b}[2K", "q", "x"], &[]);
    assert!(err.contains("U+001B"), "{err}");
    refused_env(&repo, &["--actor", "a\rb", "q", "x"], &[]);
    refused_env(
        &repo,
        &[
            "mail",
            "send",
            "mayor/",
            "-s",
            "hi",
            "-m",
            "x",
            "--actor",
            INJECTED_ACTOR,
        ],
        &[],
    );
    // git's identity.
    repo.git(&["config", "user.name", INJECTED_ACTOR]);
    for cmd in &bead_commands {
        let err = refused_env(&repo, cmd, &[]);
        assert!(err.contains("user.name"), "{cmd:?}: {err}");
    }
    assert_eq!(bead_text(&repo, &id), before);
    assert!(
        !log_lines(&repo)
            .iter()
            .any(|l| l.trim() == "Vermas-Id: vm-victim"),
        "an injected trailer reached a commit:\n{}",
        repo.git(&["log", "--format=%B"])
    );
    // A plain actor still works.
    repo.git(&["config", "user.name", "Test User"]);
    mutate_env(
        &repo,
        &["update", &id, "--claim"],
        &[("VERMAS_ACTOR", "mallory")],
    );
    assert!(log_lines(&repo).contains(&"Vermas-Actor: mallory".to_string()));
}

#[test]
fn titles_with_a_newline_or_over_500_characters_are_refused() {
    let repo = Repo::initialised();
    let id = repo.create("Fine", &[]);
    let files = || {
        std::fs::read_dir(repo.join(".beads/issues"))
            .expect("dir")
            .count()
    };
    let n = files();
    let long = "x".repeat(501);
    for title in [
        "Fix login\nVermas-Id: vm-victim",
        "Fix login\r\nVermas-Actor: root",
        "Fix\rlogin",
    ] {
        for cmd in ["create", "q"] {
            let err = refused(&repo, &[cmd, title], None);
            assert!(
                err.contains("title") && err.contains("single line"),
                "{err}"
            );
        }
        let err = refused(&repo, &["update", &id, "--title", title], Some(&id));
        assert!(
            err.contains("title") && err.contains("single line"),
            "{err}"
        );
    }
    for cmd in ["create", "q"] {
        let err = refused(&repo, &[cmd, &long], None);
        assert!(
            err.contains("501 characters") && err.contains("500"),
            "{err}"
        );
    }
    let err = refused(&repo, &["update", &id, "--title", &long], Some(&id));
    assert!(err.contains("501 characters"), "{err}");
    assert_eq!(files(), n, "no bead file may be written");
    assert!(
        !log_lines(&repo)
            .iter()
            .any(|l| l.starts_with("Vermas-Id: vm-victim") || l.starts_with("Vermas-Actor: root")),
        "{}",
        repo.git(&["log", "--format=%B"])
    );
    // 500 characters is the limit, not over it.
    let at_limit = "y".repeat(500);
    let new = mutate(&repo, &["q", &at_limit]);
    assert_eq!(shown(&repo, new.trim())["title"], at_limit.as_str());
    mutate(&repo, &["update", &id, "--title", &at_limit]);
    assert_eq!(shown(&repo, &id)["title"], at_limit.as_str());
}

#[test]
fn spec_paths_must_stay_inside_the_repository() {
    let repo = Repo::initialised();
    let id = repo.create("Has a spec", &["--spec", "specs/login.md"]);
    assert_eq!(field(&bead_text(&repo, &id), "spec"), "specs/login.md");
    for (spec, why) in [
        ("../../etc/passwd", "climbs out"),
        ("specs/../../outside.md", "climbs out"),
        ("/etc/passwd", "absolute"),
    ] {
        let err = refused(&repo, &["create", "x", "--spec", spec], None);
        assert!(err.contains(spec) && err.contains(why), "{spec}: {err}");
        let err = refused(&repo, &["q", "x", "--spec", spec], None);
        assert!(err.contains(why), "{spec}: {err}");
        let err = refused(&repo, &["update", &id, "--spec", spec], Some(&id));
        assert!(err.contains(why), "{spec}: {err}");
    }
    // `..` that stays inside is fine; an empty --spec on update clears the link.
    mutate(&repo, &["update", &id, "--spec", "specs/old/../login.md"]);
    assert_eq!(
        field(&bead_text(&repo, &id), "spec"),
        "specs/old/../login.md"
    );
    mutate(&repo, &["update", &id, "--spec", ""]);
    assert_eq!(field(&bead_text(&repo, &id), "spec"), "null");
}

#[test]
fn json_errors_are_one_object_on_stderr() {
    let repo = Repo::initialised();
    repo.create("exists", &[]);
    for (args, code) in [
        (&["show", "vm-zzzz", "--json"][..], "not_found"),
        (&["q", "x", "-p", "7", "--json"][..], "invalid"),
        (&["--json", "list", "--status", "wip"][..], "invalid"),
    ] {
        let out = repo.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: stdout should be empty");
        let v = json_error(&out);
        assert_eq!(v["schema_version"], 1, "{v}");
        assert_eq!(v["code"], code, "{v}");
        assert!(!v["error"].as_str().unwrap_or("").is_empty(), "{v}");
    }
}

#[test]
fn typed_flags_are_parsed_before_the_command_runs() {
    // Every spelling accepted before stays accepted: P1/p1/1, any-case phases.
    let repo = Repo::initialised();
    let out = repo.run(&["q", "typed", "-p", "P1", "-t", "bug"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = repo.run(&["list", "-p", "p1", "-t", "bug", "-s", "open"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("typed"));
    // A bad value is the domain's own error (code, message, hint), exit 2, and is refused
    // before anything else is looked at: here the bead does not even exist.
    for (args, message) in [
        (&["list", "--status", "wip"][..], "unknown status 'wip'"),
        (&["ready", "-t", "bugg"][..], "unknown type 'bugg'"),
        (
            &["update", "vm-nope", "-p", "P9"][..],
            "unknown priority 'P9'",
        ),
        (
            &["gate", "blue", "vm-nope"][..],
            "unknown gate phase 'blue'",
        ),
        (
            &["dep", "add", "a", "b", "-t", "x"][..],
            "unknown dependency type 'x'",
        ),
        (
            &["mail", "wait", "m", "--timeout", "soon"][..],
            "bad --timeout",
        ),
    ] {
        let mut json = args.to_vec();
        json.push("--json");
        let v = json_error(&repo.run(&json));
        assert_eq!(v["code"], "invalid", "{args:?}: {v}");
        assert!(v["error"].as_str().unwrap().contains(message), "{v}");
        let err = repo.fails(args, 2);
        assert!(
            err.contains(message) && err.contains("help:"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn json_usage_errors_are_json_too() {
    // `--help` promises "errors go to stderr as JSON too": a clap usage error is an error.
    let repo = Repo::initialised();
    for args in [&["show", "--json"][..], &["list", "--bogus", "--json"][..]] {
        let out = repo.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = json_error(&out);
        assert_eq!(v["schema_version"], 1, "{v}");
        assert!(v.get("code").is_some() && v.get("error").is_some(), "{v}");
    }
    // The missing argument is named, not cut off after "were not provided:".
    let v = json_error(&repo.run(&["mol", "pour", "x", "--json"]));
    let msg = v["error"].as_str().unwrap();
    assert!(msg.ends_with("were not provided: --bead <BEAD>"), "{v}");
}

#[test]
fn list_into_closed_pipe_does_not_panic() {
    // `vermas list | head -0`: a closed stdout must end quietly, as git and bd do.
    let repo = Repo::initialised();
    for i in 0..3 {
        repo.create(&format!("bead {i}"), &[]);
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vermas"))
        .current_dir(repo.path())
        .args(["list", "--json"])
        .env("HOME", repo.path())
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("BEADS_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read stderr");
    let status = child.wait().expect("wait");
    assert!(
        !err.contains("panicked"),
        "vermas panicked on a closed pipe:\n{err}"
    );
    assert_ne!(status.code(), Some(101), "exit 101 is a Rust panic");
}

// ---------------------------------------------------------------------------------------
// changes that change nothing, short ids, show's JSON shape, the id prefix, the actor

#[test]
fn closing_a_closed_bead_keeps_its_reason_and_a_new_reason_replaces_it() {
    let repo = Repo::initialised();
    let id = repo.create("to close twice", &[]);
    mutate_env(
        &repo,
        &["close", &id, "-r", "done it"],
        &[("VERMAS_NOW", "1700000000")],
    );
    unchanged(&repo, &["close", &id], &id);
    unchanged(&repo, &["close", &id, "-r", "done it"], &id);
    assert_eq!(field(&bead_text(&repo, &id), "close_reason"), "done it");
    mutate(&repo, &["close", &id, "-r", "shipped in v2"]);
    let text = bead_text(&repo, &id);
    assert_eq!(field(&text, "close_reason"), "shipped in v2");
    assert_eq!(
        field(&text, "closed_at"),
        T0,
        "closing again keeps closed_at"
    );
    assert_eq!(field(&text, "status"), "closed");
}

#[test]
fn commands_that_change_nothing_commit_nothing_and_say_so() {
    let repo = Repo::initialised();
    let id = repo.create("as it is", &["-l", "keep", "-p", "1"]);
    let other = repo.create("depended on", &[]);
    mutate(&repo, &["dep", "add", &id, &other]);
    for args in [
        vec!["update", id.as_str()],
        vec!["update", &id, "-p", "1", "--title", "as it is"],
        vec!["update", &id, "-s", "open", "--add-label", "keep"],
        vec!["update", &id, "--remove-label", "absent"],
        vec!["reopen", &id],
        vec!["label", "add", &id, "keep"],
        vec!["label", "rm", &id, "absent"],
        vec!["dep", "add", &id, &other],
    ] {
        unchanged(&repo, &args, &id);
    }
    // --claim twice: the second finds it already taken by the same actor.
    mutate_env(
        &repo,
        &["update", &id, "--claim"],
        &[("VERMAS_ACTOR", "ann")],
    );
    let before = repo.commit_count();
    let out = run_env(
        &repo,
        &["update", &id, "--claim"],
        &[("VERMAS_ACTOR", "ann")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("nothing changed"), "{}", stderr(&out));
    assert_eq!(repo.commit_count(), before);
    // Several ids: only the one that changes is written and committed.
    mutate(&repo, &["close", &other]);
    let out = mutate(&repo, &["close", &id, &other]);
    assert!(out.contains(&format!("Closed {id}")), "{out}");
    assert!(!out.contains(&format!("Closed {other}")), "{out}");
    assert_eq!(head_files(&repo), [bead_path(&id)]);
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(!body.contains(&format!("Vermas-Id: {other}")), "{body}");
    // --json still prints the bead, and says nothing changed as a JSON line on stderr.
    let before = repo.commit_count();
    let out = repo.run(&["close", &id, "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["id"], id.as_str());
    let warning: serde_json::Value =
        serde_json::from_str(stderr(&out).trim()).expect("a JSON line on stderr");
    assert_eq!(warning["code"], "unchanged");
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn an_exact_hash_is_not_ambiguous_with_its_children() {
    let repo = Repo::initialised();
    let parent = repo.create("parent", &[]);
    let c1 = repo.create("first child", &["--parent", &parent]);
    repo.create("second child", &["--parent", &parent]);
    let hash = &parent[3..];
    assert_eq!(shown(&repo, hash)["id"], parent.as_str());
    assert_eq!(shown(&repo, &c1[3..])["id"], c1.as_str());
    mutate(&repo, &["update", hash, "-p", "0"]);
    assert_eq!(field(&bead_text(&repo, &parent), "priority"), "0");
    // A shorter prefix still matches all three, and asks for more characters.
    let err = repo.fails(&["show", &hash[..3]], 2);
    assert!(err.contains("ambiguous"), "{err}");
    assert!(err.contains("give more characters"), "{err}");
}

#[test]
fn a_hash_shared_by_two_prefixes_asks_for_the_full_id_not_more_characters() {
    let repo = Repo::initialised();
    commit_by_hand(
        &repo,
        &[
            (
                "vm-abcd",
                "---\nid: vm-abcd\ntitle: ours\nstatus: open\n---\n",
            ),
            (
                "xx-abcd",
                "---\nid: xx-abcd\ntitle: imported\nstatus: open\n---\n",
            ),
        ],
    );
    let err = repo.fails(&["show", "abcd"], 2);
    assert!(err.contains("ambiguous"), "{err}");
    assert!(err.contains("vm-abcd") && err.contains("xx-abcd"), "{err}");
    assert!(err.contains("give the full id"), "{err}");
    assert!(!err.contains("more characters"), "{err}");
    assert_eq!(shown(&repo, "xx-abcd")["title"], "imported");
}

#[test]
fn show_json_is_an_array_for_one_id_as_for_several() {
    let repo = Repo::initialised();
    let a = repo.create("one", &[]);
    let b = repo.create("two", &[]);
    let one = repo.json(&["show", &a]);
    assert_eq!(ids(&one), [a.as_str()]);
    assert_eq!(one[0]["title"], "one");
    let both = repo.json(&["show", &a, &b]);
    assert_eq!(ids(&both), [a.as_str(), b.as_str()]);
}

#[test]
fn an_empty_or_missing_config_keeps_the_prefix_of_the_existing_beads() {
    let repo = Repo::initialised();
    let first = repo.create("first", &[]);
    assert!(first.starts_with("vm-"), "{first}");
    repo.write(".beads/vermas.yaml", "");
    let second = repo.create("after emptying the config", &[]);
    assert!(second.starts_with("vm-"), "{second}");
    repo.write(".beads/vermas.yaml", "git:\n  commit: true\n");
    let third = repo.create("config without a prefix", &[]);
    assert!(third.starts_with("vm-"), "{third}");
    std::fs::remove_file(repo.join(".beads/vermas.yaml")).expect("rm config");
    let fourth = repo.create("after deleting the config", &[]);
    assert!(fourth.starts_with("vm-"), "{fourth}");
    assert_eq!(repo.ok(&["config", "get", "prefix"]).trim(), "vm");
    // Writing the config fixes the prefix in use, not the default.
    repo.ok(&["config", "set", "judge.samples", "3"]);
    assert!(repo.read(".beads/vermas.yaml").contains("\nprefix: vm\n"));
}

#[test]
fn beads_with_several_prefixes_and_no_configured_prefix_refuse_to_create() {
    let repo = Repo::initialised();
    commit_by_hand(
        &repo,
        &[
            ("vm-aaaa", "---\nid: vm-aaaa\ntitle: a\nstatus: open\n---\n"),
            ("xx-bbbb", "---\nid: xx-bbbb\ntitle: b\nstatus: open\n---\n"),
        ],
    );
    repo.write(".beads/vermas.yaml", "");
    repo.git(&["commit", "-qam", "empty config"]);
    let before = repo.commit_count();
    let err = repo.fails(&["q", "which prefix?"], 2);
    assert!(err.contains("'vm'") && err.contains("'xx'"), "{err}");
    assert!(err.contains("config set prefix"), "{err}");
    assert_eq!(repo.commit_count(), before);
    assert_eq!(repo.listed().len(), 2, "nothing was created");
    let err = repo.fails(&["config", "set", "judge.samples", "3"], 2);
    assert!(err.contains("config set prefix"), "{err}");
    assert_eq!(repo.read(".beads/vermas.yaml"), "");
    // Choosing one settles it.
    repo.ok(&["config", "set", "prefix", "xx"]);
    assert!(repo.create("settled", &[]).starts_with("xx-"));
}

#[test]
fn a_bad_actor_is_refused_by_every_committing_command() {
    let repo = Repo::initialised();
    let id = repo.create("work", &[]);
    repo.write("tests/t.sh", "#!/bin/sh\ntest_ok() { true; }\n\"$@\"\n");
    repo.write(
        "specs/s.md",
        "# S\n\n## Success Criteria\n\n- [ ] works [verify](tests/t.sh#test_ok)\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "spec"]);
    let marker = repo.join("gate-ran");
    let gate_cmd = format!("touch '{}'", marker.display());
    let commands: Vec<Vec<&str>> = vec![
        vec!["mail", "send", "mayor/", "-s", "hi", "-m", "x"],
        vec!["mol", "pour", "mol-polecat-work", "--bead", &id],
        vec!["gate", "implement", &id, "--cmd", &gate_cmd],
        vec!["status", "--verify", "--record"],
        vec!["config", "set", "judge.samples", "3"],
        vec!["config", "unset", "llm.timeout"],
        vec!["close", &id],
    ];
    for cmd in &commands {
        let err = refused_env(&repo, cmd, &[("VERMAS_ACTOR", INJECTED_ACTOR)]);
        assert!(
            err.contains("actor") && err.contains("single line") && err.contains("VERMAS_ACTOR"),
            "{cmd:?}: {err}"
        );
    }
    repo.git(&["config", "user.name", "mallory\u{7}"]);
    for cmd in &commands {
        let err = refused_env(&repo, cmd, &[]);
        assert!(
            err.contains("U+0007") && err.contains("user.name"),
            "{cmd:?}: {err}"
        );
    }
    assert!(
        !marker.exists(),
        "the gate ran before the actor was refused"
    );
    assert!(!repo.join(".beads/results").exists());
    // Reading commands do not need an actor.
    ok_env(&repo, &["mol", "list"], &[("VERMAS_ACTOR", INJECTED_ACTOR)]);
    ok_env(
        &repo,
        &["dep", "tree", &id],
        &[("VERMAS_ACTOR", INJECTED_ACTOR)],
    );
}
