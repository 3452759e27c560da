//! Dependencies: `dep add`, `dep rm`, `dep tree` and `dep cycles`.

use super::*;

#[test]
fn dep_add_blocks_until_the_blocker_closes() {
    let repo = Repo::initialised();
    let a = repo.create("blocked one", &[]);
    let b = repo.create("blocker", &[]);
    mutate(&repo, &["dep", "add", &a, &b]);
    assert_eq!(repo.head_files(), [bead_path(&a)]);
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
