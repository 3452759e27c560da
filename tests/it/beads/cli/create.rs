//! `create` and `q`: flags, priorities, parents, dependencies, ids and the id prefix.

use super::*;

fn is_short_id(id: &str) -> bool {
    id.len() == 7
        && id.starts_with("vm-")
        && id[3..]
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
}

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
    assert_eq!(repo.head_files(), [bead_path(&id)]);
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

/// `n` minimal beads `<prefix>-c0000`... written into `.beads/issues` (not committed).
fn write_many_beads(repo: &Repo, prefix: &str, n: usize) {
    for i in 0..n {
        let id = format!("{prefix}-c{i:04}");
        repo.write(
            &bead_path(&id),
            &format!("---\nid: {id}\ntitle: bead {i}\nstatus: open\n---\n"),
        );
    }
}

#[test]
fn new_ids_grow_with_the_number_of_beads_whether_committed_or_not() {
    // 600 beads need a 5-character hash (450 still fit in 4): the count comes from git's
    // index when changes are recorded, from the folder when they are not.
    let recorded = Repo::initialised();
    // A folder below sorts between the two runs of beads in git's index: both count.
    write_many_beads(&recorded, "aa", 300);
    recorded.write(".beads/issues/notes/readme.md", "not a bead\n");
    write_many_beads(&recorded, "vm", 300);
    recorded.git(&["add", ".beads"]);
    recorded.git(&["commit", "-q", "-m", "600 beads"]);
    let id = recorded.create("one more", &["--no-spec"]);
    assert_eq!(id.len(), "vm-".len() + 5, "{id}");
    assert_eq!(recorded.status(".beads"), "");

    let unrecorded = Repo::initialised();
    unrecorded.ok(&["config", "set", "git.commit", "false"]);
    write_many_beads(&unrecorded, "vm", 600);
    let id = unrecorded.create("one more", &["--no-spec"]);
    assert_eq!(id.len(), "vm-".len() + 5, "{id}");

    let few = Repo::initialised();
    write_many_beads(&few, "vm", 400);
    few.git(&["add", ".beads"]);
    few.git(&["commit", "-q", "-m", "400 beads"]);
    let id = few.create("one more", &["--no-spec"]);
    assert_eq!(id.len(), "vm-".len() + 4, "{id}");
}
