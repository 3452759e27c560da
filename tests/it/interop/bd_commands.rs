//! The bead commands spelled as bd spells them, end to end on real temporary git
//! repositories with the real binary: `label list` / `label remove`, `dep remove`,
//! `list -p/--title`, `ready --assignee/--label/--unassigned`, `search`, `stats`,
//! `delete [--force]` and `comments [add]`; their `--json` keys are bd's. Every change is
//! checked in git; every refusal changes nothing.

use crate::common::*;

/// The ids of a JSON array of beads.
fn ids(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

/// Runs `args`, asserts exit 2, and that neither the files nor git changed.
fn refused(repo: &Repo, args: &[&str]) -> String {
    let head = repo.git(&["rev-parse", "HEAD"]);
    let err = repo.fails(args, 2);
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head, "{args:?} committed");
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "{args:?} wrote");
    err
}

#[test]
fn label_list_shows_a_beads_labels_or_every_label_with_its_count() {
    let repo = Repo::initialised();
    let a = repo.create("a", &["-l", "auth,ui"]);
    repo.create("b", &["-l", "auth"]);
    let c = repo.create("c", &[]);
    let v = repo.json(&["label", "list", &a]);
    assert_eq!(v, serde_json::json!(["auth", "ui"]));
    assert_eq!(repo.json(&["label", "list", &c]), serde_json::json!([]));
    assert!(repo.ok(&["label", "list", &c]).contains("has no labels"));
    let all = serde_json::json!([{"label": "auth", "count": 2}, {"label": "ui", "count": 1}]);
    assert_eq!(repo.json(&["label", "list"]), all);
    assert_eq!(repo.json(&["label", "list-all"]), all);
    let text = repo.ok(&["label", "list"]);
    assert!(text.contains("auth  (2 beads)"), "{text}");
    refused(&repo, &["label", "list", "vm-nosuch"]);
}

#[test]
fn label_remove_and_dep_remove_are_label_rm_and_dep_rm() {
    let repo = Repo::initialised();
    let a = repo.create("a", &["-l", "ui"]);
    let b = repo.create("b", &["--deps", &a]);
    repo.ok(&["label", "remove", &a, "ui"]);
    assert_eq!(repo.json(&["label", "list", &a]), serde_json::json!([]));
    assert!(
        repo.git(&["log", "-1", "--format=%s"])
            .starts_with("vermas label rm: ")
    );
    repo.ok(&["dep", "remove", &b, &a]);
    let shown = repo.json(&["show", &b]);
    assert_eq!(shown[0]["dependencies"], serde_json::json!([]));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    refused(&repo, &["dep", "remove", &b, &a]);
}

#[test]
fn list_filters_by_priority_and_title_text_in_any_case() {
    let repo = Repo::initialised();
    let login = repo.create("Fix the Login page", &["-p", "1"]);
    let docs = repo.create("Write docs", &["-p", "1"]);
    let other = repo.create("Logout button", &[]);
    let mut p1 = ids(&repo.json(&["list", "-p", "1"]));
    p1.sort();
    let mut want = [login.clone(), docs.clone()];
    want.sort();
    assert_eq!(p1, want);
    assert_eq!(ids(&repo.json(&["list", "--priority", "P1"])).len(), 2);
    assert_eq!(ids(&repo.json(&["list", "--title", "LOG"])).len(), 2);
    assert_eq!(
        ids(&repo.json(&["list", "--title", "login"])),
        [login.as_str()]
    );
    assert_eq!(
        ids(&repo.json(&["list", "--title", "log", "-p", "2"])),
        [other]
    );
    refused(&repo, &["list", "-p", "9"]);
    refused(&repo, &["list", "--priority", "high"]);
}

#[test]
fn ready_filters_by_assignee_label_and_unassigned() {
    let repo = Repo::initialised();
    let ann = repo.create("ann's", &["-a", "ann", "-l", "backend"]);
    let free = repo.create("free", &["-l", "backend,ui"]);
    let blocked = repo.create("blocked", &["-a", "ann", "--deps", &free]);
    let ready = |args: &[&str]| {
        let mut all = vec!["ready"];
        all.extend_from_slice(args);
        ids(&repo.json(&all))
    };
    assert_eq!(ready(&["--assignee", "ann"]), [ann.as_str()]);
    assert_eq!(ready(&["-a", "ann"]), [ann.as_str()]);
    assert_eq!(ready(&["--unassigned"]), [free.as_str()]);
    assert_eq!(ready(&["-u"]), [free.as_str()]);
    assert_eq!(ready(&["--label", "backend"]).len(), 2);
    assert_eq!(ready(&["-l", "backend", "-l", "ui"]), [free.as_str()]);
    assert_eq!(ready(&["-l", "backend,ui"]), [free.as_str()]);
    assert!(!ready(&[]).contains(&blocked));
    refused(&repo, &["ready", "-a", "ann", "-u"]);
}

#[test]
fn search_finds_text_in_title_description_and_notes_in_any_case() {
    let repo = Repo::initialised();
    let title = repo.create("Parser crashes", &[]);
    let body = repo.create("Plain", &["-d", "the PARSER is slow"]);
    let note = repo.create("Other", &[]);
    repo.ok(&["update", &note, "--notes", "seen in parser.rs on ARM64"]);
    let closed = repo.create("old parser bug", &[]);
    repo.ok(&["close", &closed]);
    let none = repo.create("Unrelated", &[]);

    let found = ids(&repo.json(&["search", "parser"]));
    assert_eq!(found.len(), 4, "{found:?}");
    for id in [&title, &body, &note, &closed] {
        assert!(found.contains(id), "{id} not found in {found:?}");
    }
    assert!(!found.contains(&none));
    // bd's keys, with the full body.
    let v = repo.json(&["search", "slow"]);
    assert_eq!(v[0]["id"], body.as_str());
    assert_eq!(v[0]["description"], "the PARSER is slow");
    assert_eq!(ids(&repo.json(&["search", "arm64"])), [note.as_str()]);
    assert_eq!(
        ids(&repo.json(&["search", "parser", "-s", "closed"])),
        [closed]
    );
    assert_eq!(ids(&repo.json(&["search", "parser", "-n", "1"])).len(), 1);
    let text = repo.ok(&["search", "crashes"]);
    assert!(text.contains("Found 1 bead matching 'crashes'"), "{text}");
    assert!(repo.ok(&["search", "zzz"]).contains("No beads found"));
    refused(&repo, &["search", " "]);
    refused(&repo, &["search"]);
}

#[test]
fn stats_counts_by_status_ready_and_blocked_with_bds_keys() {
    let repo = Repo::initialised();
    let a = repo.create("a", &[]);
    repo.create("b", &["--deps", &a]);
    let c = repo.create("c", &["-t", "bug"]);
    repo.ok(&["close", &c]);
    let d = repo.create("d", &[]);
    repo.ok(&["update", &d, "-s", "in_progress"]);
    let v = repo.json(&["stats"]);
    assert_eq!(v["schema_version"], 1);
    let s = &v["summary"];
    assert_eq!(s["total_issues"], 4);
    assert_eq!(s["open_issues"], 2);
    assert_eq!(s["in_progress_issues"], 1);
    assert_eq!(s["closed_issues"], 1);
    assert_eq!(s["blocked_issues"], 1);
    assert_eq!(s["ready_issues"], 1);
    assert!(s["average_lead_time_hours"].as_f64().is_some());
    assert_eq!(v["by_status"]["open"], 2);
    assert_eq!(v["by_type"]["bug"], 1);
    let text = repo.ok(&["stats"]);
    assert!(text.contains("Ready:        1"), "{text}");
    assert!(text.contains("Blocked:      1"), "{text}");
}

#[test]
fn delete_without_force_shows_what_would_go_exits_2_and_deletes_nothing() {
    let repo = Repo::initialised();
    let a = repo.create("doomed", &[]);
    let b = repo.create("waits on it", &["--deps", &a]);
    let out = repo.run(&["delete", &a]);
    assert_eq!(out.status.code(), Some(2));
    let shown = stdout(&out);
    assert!(shown.contains(&format!("{a}: doomed")), "{shown}");
    assert!(shown.contains(&format!("{b} -> {a} (blocks)")), "{shown}");
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert!(repo.join(&format!(".beads/issues/{a}.md")).exists());
    refused(&repo, &["delete", &a]);
    // With --json the preview is bd-shaped, the refusal a JSON error.
    let out = repo.run(&["delete", &a, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["delete"][0]["id"], a.as_str());
    assert_eq!(v["references"][0]["id"], b.as_str());
    assert!(stderr(&out).contains("\"error\""), "{}", stderr(&out));
    refused(&repo, &["delete", "vm-nosuch", "--force"]);
    refused(&repo, &["delete", "vm-nosuch"]);
}

#[test]
fn delete_force_removes_the_file_and_every_reference_in_one_commit() {
    let repo = Repo::initialised();
    let a = repo.create("doomed", &[]);
    let b = repo.create(
        "waits on it",
        &["--deps", &format!("blocks:{a},related:{a}")],
    );
    let child = repo.create("child", &["--parent", &a]);
    let keep = repo.create("untouched", &[]);
    let commits = repo.commit_count();
    let v = repo.json(&["delete", &a, "--force"]);
    assert_eq!(v["deleted"], serde_json::json!([a]));
    assert_eq!(v["deleted_count"], 1);
    assert_eq!(v["dependencies_removed"], 3);
    assert_eq!(repo.commit_count(), commits + 1);
    let mut want = [
        format!("D .beads/issues/{a}.md"),
        format!("M .beads/issues/{b}.md"),
        format!("M .beads/issues/{child}.md"),
    ];
    want.sort();
    assert_eq!(repo.head_changes(), want);
    assert!(
        repo.git(&["log", "-1", "--format=%s"])
            .starts_with(&format!("vermas delete: {a} doomed"))
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert_eq!(
        repo.json(&["show", &b])[0]["dependencies"],
        serde_json::json!([])
    );
    assert_eq!(
        repo.json(&["show", &child])[0]["parent"],
        serde_json::Value::Null
    );
    assert_eq!(repo.json(&["show", &keep])[0]["id"], keep.as_str());
    assert!(!repo.join(&format!(".beads/issues/{a}.md")).exists());
    // Still in history.
    assert!(repo.ok(&["history", &a]).contains("vermas delete"));
    // Several at once, by prefix too.
    let x = repo.create("x", &[]);
    let y = repo.create("y", &[]);
    let out = repo.ok(&["delete", &x, &y[3..], "--force"]);
    assert!(
        out.contains(&format!("Deleted {x}")) && out.contains(&format!("Deleted {y}")),
        "{out}"
    );
    assert_eq!(repo.head_changes().len(), 2);
}

#[test]
fn comments_list_a_beads_notes_and_comments_add_adds_one() {
    let repo = Repo::initialised();
    let id = repo.create("a", &[]);
    assert_eq!(repo.json(&["comments", &id]), serde_json::json!([]));
    assert!(repo.ok(&["comments", &id]).contains("No comments on"));
    let commits = repo.commit_count();
    let added = repo.json(&["comments", "add", &id, "Working on it"]);
    assert_eq!(added["schema_version"], 1);
    assert_eq!(added["id"], 1);
    assert_eq!(added["issue_id"], id.as_str());
    assert_eq!(added["author"], "Test User");
    assert_eq!(added["text"], "Working on it");
    assert!(
        added["created_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    assert_eq!(repo.commit_count(), commits + 1);
    assert_eq!(repo.head_changes(), [format!("M .beads/issues/{id}.md")]);
    repo.ok(&["update", &id, "--notes", "second"]);
    let list = repo.json(&["comments", &id]);
    assert_eq!(list[1]["text"], "second");
    assert_eq!(list[1]["id"], 2);
    // The same notes `show` has.
    assert_eq!(
        repo.json(&["show", &id])[0]["notes"][0]["text"],
        "Working on it"
    );
    let text = repo.ok(&["comments", &id]);
    assert!(text.contains("[Test User] Working on it at "), "{text}");
    refused(&repo, &["comments", "add", &id, "  "]);
    refused(&repo, &["comments", "add", "vm-nosuch", "text"]);
    refused(&repo, &["comments", "vm-nosuch"]);
    refused(&repo, &["comments"]);
}
