//! Hand-written beads: defaults, malformed or unclosed front matter, unknown values.

use super::*;

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
