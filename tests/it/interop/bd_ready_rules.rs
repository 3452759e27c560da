//! bd's remaining ready rules (issue 30), with the real binary on real repositories: a
//! child of a held parent is not ready (to every generation), `pinned` is neither ready
//! nor blocking, a `waits-for` edge keeps its `any-children` gate (on `dep add`, through
//! import and export) and honours it, an import into a repository without beads takes the
//! imported prefix, and `stats` counts bd's own types as themselves.

use crate::common::{Repo, stderr, stdout};
use serde_json::Value;

/// The ids `ready --json` lists, sorted.
fn ready(repo: &Repo) -> Vec<String> {
    let v = repo.json(&["ready", "-n", "0"]);
    let mut ids: Vec<String> = v
        .as_array()
        .expect("a list")
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect();
    ids.sort();
    ids
}

/// `ids` sorted, as owned strings.
fn sorted(ids: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn a_child_of_a_held_parent_is_not_ready_down_every_generation() {
    let repo = Repo::initialised();
    let blocker = repo.create("blocker", &[]);
    let parent = repo.create("parent", &[]);
    repo.ok(&["dep", "add", &parent, &blocker]);
    let kid = repo.create("kid", &["--parent", &parent]);
    let grandkid = repo.create("grandkid", &["--parent", &kid]);
    assert_eq!(ready(&repo), sorted(&[&blocker]));
    let blocked = repo.ok(&["blocked"]);
    assert!(
        blocked.contains(&format!("blocked by {parent}")),
        "the kid names its parent: {blocked}"
    );
    let stats = repo.json(&["stats"]);
    assert_eq!(stats["summary"]["ready_issues"], 1);
    repo.ok(&["close", &blocker]);
    assert_eq!(ready(&repo), sorted(&[&parent, &kid, &grandkid]));
}

#[test]
fn pinned_is_not_ready_work_and_blocks_nothing() {
    let repo = Repo::initialised();
    let pin = repo.create("standing orders", &[]);
    let after = repo.create("after the pin", &["--deps", &pin]);
    let kid = repo.create("kid of the pin", &["--parent", &pin]);
    assert_eq!(ready(&repo), sorted(&[&pin, &kid]));
    repo.ok(&["update", &pin, "-s", "pinned"]);
    assert_eq!(ready(&repo), sorted(&[&after, &kid]));
    assert_eq!(
        repo.ok(&["blocked"]).trim(),
        "Nothing is blocked.",
        "nothing waits on a pin"
    );
    assert!(
        repo.read(&format!(".beads/issues/{pin}.md"))
            .contains("status: pinned\n")
    );
    let stats = repo.json(&["stats"]);
    assert_eq!(stats["summary"]["pinned_issues"], 1);
    assert_eq!(stats["by_status"]["pinned"], 1);
    // A pinned bd issue stays pinned through import and export.
    let exported = repo.ok(&["export", "bd"]);
    assert!(
        exported.contains(&format!(r#""id":"{pin}""#)) && exported.contains(r#""status":"pinned""#),
        "{exported}"
    );
}

#[test]
fn an_any_children_gate_opens_at_the_first_closed_child() {
    let repo = Repo::initialised();
    let spawner = repo.create("spawner", &[]);
    let one = repo.create("child one", &["--parent", &spawner]);
    let two = repo.create("child two", &["--parent", &spawner]);
    let any = repo.create("any", &[]);
    let all = repo.create("all", &[]);
    let out = repo.ok(&["dep", "add", &any, &spawner, "--gate", "any-children"]);
    assert!(out.contains("(waits-for, any-children)"), "{out}");
    repo.ok(&["dep", "add", &all, &spawner, "-t", "waits-for"]);
    assert!(
        repo.read(&format!(".beads/issues/{any}.md"))
            .contains(&format!(
                "  - {{depends_on_id: {spawner}, type: waits-for, gate: any-children}}\n"
            ))
    );
    assert_eq!(ready(&repo), sorted(&[&spawner, &one, &two]));
    repo.ok(&["close", &one]);
    assert_eq!(ready(&repo), sorted(&[&spawner, &two, &any]));
    repo.ok(&["close", &two]);
    assert_eq!(ready(&repo), sorted(&[&spawner, &any, &all]));
    // A gate belongs to waits-for alone.
    let err = repo.fails(
        &[
            "dep",
            "add",
            &all,
            &one,
            "-t",
            "blocks",
            "--gate",
            "any-children",
        ],
        2,
    );
    assert!(err.contains("only a waits-for edge has one"), "{err}");
    let shown = repo.json(&["show", &any]);
    assert_eq!(shown[0]["dependencies"][0]["gate"], "any-children");

    // Exported as bd keeps it, and read back the same.
    let exported = repo.ok(&["export", "bd"]);
    let line = exported
        .lines()
        .find(|l| l.contains(&format!(r#""id":"{any}""#)))
        .expect("the line");
    let v: Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["dependencies"][0]["type"], "waits-for");
    assert_eq!(
        v["dependencies"][0]["metadata"],
        r#"{"gate":"any-children"}"#
    );
}

#[test]
fn an_imported_any_children_gate_is_honoured() {
    let repo = Repo::initialised();
    repo.write(
        ".beads/issues.jsonl",
        concat!(
            r#"{"id":"bd-s","title":"Spawner","status":"open"}"#,
            "\n",
            r#"{"id":"bd-s.1","title":"One","status":"closed","dependencies":[{"issue_id":"bd-s.1","depends_on_id":"bd-s","type":"parent-child"}]}"#,
            "\n",
            r#"{"id":"bd-s.2","title":"Two","status":"open","dependencies":[{"issue_id":"bd-s.2","depends_on_id":"bd-s","type":"parent-child"}]}"#,
            "\n",
            r#"{"id":"bd-w","title":"Any","status":"open","dependencies":[{"issue_id":"bd-w","depends_on_id":"bd-s","type":"waits-for","metadata":"{\"gate\":\"any-children\"}"}]}"#,
            "\n",
            r#"{"id":"bd-v","title":"All","status":"open","dependencies":[{"issue_id":"bd-v","depends_on_id":"bd-s","type":"waits-for","metadata":"{\"gate\":\"all-children\"}"}]}"#,
            "\n",
        ),
    );
    repo.ok(&["import", "bd"]);
    assert_eq!(ready(&repo), sorted(&["bd-s", "bd-s.2", "bd-w"]));
}

#[test]
fn an_import_into_a_repository_without_beads_takes_the_imported_prefix() {
    let repo = Repo::new();
    repo.ok(&["init"]);
    let folder_prefix = repo.ok(&["config", "get", "prefix"]).trim().to_string();
    repo.write(
        "bd.jsonl",
        "{\"id\":\"bd-a1\",\"title\":\"One\"}\n{\"id\":\"bd-a2\",\"title\":\"Two\"}\n",
    );
    let out = repo.ok(&["import", "bd", "bd.jsonl"]);
    assert!(
        out.contains(&format!(
            "Adopted the id prefix 'bd' of the imported issues (was '{folder_prefix}'"
        )),
        "{out}"
    );
    let new = repo.create("mine", &[]);
    assert!(new.starts_with("bd-"), "{new}");
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD~1"]);
    assert!(files.contains(".beads/vermas.yaml"), "one commit: {files}");

    // With beads of its own, the prefix stays, and the way to change it is said.
    let other = Repo::initialised();
    other.create("ours", &[]);
    other.write("bd.jsonl", "{\"id\":\"wx-b1\",\"title\":\"Theirs\"}\n");
    let o = other.run(&["import", "bd", "bd.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`vermas config set prefix wx` makes them match"),
        "{}",
        stderr(&o)
    );
    assert!(!stdout(&o).contains("Adopted"));
    assert_eq!(other.ok(&["config", "get", "prefix"]).trim(), "vm");
}

#[test]
fn stats_counts_bds_own_types_as_themselves() {
    let repo = Repo::initialised();
    repo.write(
        "bd.jsonl",
        concat!(
            r#"{"id":"vm-a1","title":"An agent","issue_type":"agent"}"#,
            "\n",
            r#"{"id":"vm-a2","title":"A convoy","issue_type":"convoy"}"#,
            "\n",
            r#"{"id":"vm-a3","title":"A task","issue_type":"task"}"#,
            "\n",
        ),
    );
    repo.ok(&["import", "bd", "bd.jsonl"]);
    let v = repo.json(&["stats"]);
    assert_eq!(v["by_type"]["agent"], 1, "{v}");
    assert_eq!(v["by_type"]["convoy"], 1, "{v}");
    assert_eq!(v["by_type"]["task"], 1, "{v}");
    let text = repo.ok(&["stats"]);
    assert!(
        text.contains("By type:      agent 1, convoy 1, task 1"),
        "{text}"
    );
}
