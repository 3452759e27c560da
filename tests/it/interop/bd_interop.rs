//! `vermas import bd` and `vermas export bd` against bd's own JSONL format, on real
//! repositories with the real binary, checked with real git.

use crate::common::{Repo, stderr, stdout};
use serde_json::{Map, Value};

/// A bd `issues.jsonl` as bd writes it: older lines (times with fractions and offsets,
/// Go's `\u003c` escapes) and a newer one (`_type`, counts, `owner`, string comment ids),
/// every dependency type bd knows plus a custom one, labels, comments, a closed issue with
/// its reason, unicode, multi-line texts, a tombstone and a memory record.
const BD_LINES: &[&str] = &[
    r#"{"id":"bd-a1b2","title":"Notifications für alle ✉","description":"Users get notified within 2s.\n\nSee the \u003cnotify\u003e module \u0026 its docs.","design":"Push via SSE.\nFallback: polling every 5s.","acceptance_criteria":"- [ ] p95 latency under 2s\n- [ ] works offline","notes":"Spike done in branch notify-spike.","status":"open","priority":1,"issue_type":"epic","assignee":"alice","created_at":"2025-10-14T00:31:56.394717-07:00","created_by":"alice","updated_at":"2025-10-15T09:02:11.5-07:00","external_ref":"gh-42","labels":["area:notify","ux"]}"#,
    r#"{"id":"bd-a1b2.1","title":"Wire the SSE endpoint","description":"Add /events.","status":"in_progress","priority":2,"issue_type":"task","assignee":"bob","estimated_minutes":90,"created_at":"2025-10-14T01:00:00.123456-07:00","created_by":"alice","updated_at":"2025-10-16T10:00:00-07:00","labels":["backend"],"dependencies":[{"issue_id":"bd-a1b2.1","depends_on_id":"bd-a1b2","type":"parent-child","created_at":"2025-10-14T01:00:00.2-07:00","created_by":"alice"},{"issue_id":"bd-a1b2.1","depends_on_id":"bd-c3d4","type":"blocks","created_at":"2025-10-14T01:05:00-07:00","created_by":"bob"}],"comments":[{"id":7,"issue_id":"bd-a1b2.1","author":"bob","text":"Started on this.\nUsing axum.","created_at":"2025-10-15T08:00:00Z"},{"id":9,"issue_id":"bd-a1b2.1","author":"alice","text":"👍 ship it","created_at":"2025-10-15T09:30:12.75-07:00"}]}"#,
    r#"{"id":"bd-c3d4","title":"Login times out behind the proxy","description":"Steps:\n1. Open /login\n2. Wait 30s","status":"closed","priority":0,"issue_type":"bug","created_at":"2025-10-10T12:00:00Z","created_by":"carol","updated_at":"2025-10-12T16:45:00Z","closed_at":"2025-10-12T16:45:00Z","close_reason":"Fixed in #311: raised the proxy timeout","labels":["auth"]}"#,
    r#"{"id":"bd-dead","title":"Old idea","status":"tombstone","priority":2,"issue_type":"task","created_at":"2025-09-01T00:00:00Z","updated_at":"2025-09-02T00:00:00Z","deleted_at":"2025-09-02T00:00:00Z","deleted_by":"alice","delete_reason":"duplicate","original_type":"task"}"#,
    r#"{"id":"bd-e5f6","title":"Merge notify-spike","status":"pinned","priority":3,"issue_type":"merge-request","created_at":"2025-10-17T00:00:00Z","updated_at":"2025-10-17T00:00:00Z","dependencies":[{"issue_id":"bd-e5f6","depends_on_id":"bd-c3d4","type":"blocks","created_at":"2025-10-17T00:00:00Z","created_by":"daemon"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2","type":"parent-child","created_at":"2025-10-17T00:00:00Z","created_by":"daemon"},{"issue_id":"bd-e5f6","depends_on_id":"bd-c3d4","type":"conditional-blocks","created_at":"2025-10-17T00:00:00Z","created_by":"daemon"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2","type":"waits-for","created_at":"2025-10-17T00:00:00Z","created_by":"daemon","metadata":"{\"gate\":\"all-children\"}"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2.1","type":"related","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-g7h8","type":"discovered-from","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-g7h8","type":"replies-to","created_at":"2025-10-17T00:00:00Z","thread_id":"bd-g7h8"},{"issue_id":"bd-e5f6","depends_on_id":"bd-k9m0","type":"relates-to","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-k9m0","type":"duplicates","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-c3d4","type":"supersedes","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-g7h8","type":"authored-by","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-g7h8","type":"assigned-to","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2","type":"approved-by","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2","type":"attests","created_at":"2025-10-17T00:00:00Z","metadata":"{\"skill\":\"go\"}"},{"issue_id":"bd-e5f6","depends_on_id":"bd-k9m0","type":"tracks","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-c3d4","type":"until","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-c3d4","type":"caused-by","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2.1","type":"validates","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-a1b2","type":"delegated-from","created_at":"2025-10-17T00:00:00Z"},{"issue_id":"bd-e5f6","depends_on_id":"bd-k9m0","type":"reviewed-by","created_at":"2025-10-17T00:00:00Z","created_by":"eve"}]}"#,
    r#"{"_type":"issue","id":"bd-g7h8","title":"Document the notify API","description":"Write docs/notify.md.","status":"in_progress","priority":2,"issue_type":"chore","assignee":"dana","owner":"dana@example.com","created_at":"2026-05-25T04:59:19Z","created_by":"dana","updated_at":"2026-05-25T05:12:10Z","started_at":"2026-05-25T04:59:20Z","dependencies":[{"issue_id":"bd-g7h8","depends_on_id":"bd-a1b2","type":"discovered-from","created_at":"2026-05-25T00:59:20Z","created_by":"dana","metadata":"{}"}],"comments":[{"id":"019ef36c-f2b2-7b40-b537-b7e5a78077d7","issue_id":"bd-g7h8","author":"dana","text":"Draft is up","created_at":"2026-05-25T05:00:04Z"}],"dependency_count":1,"dependent_count":0,"comment_count":1}"#,
    r#"{"id":"bd-k9m0","title":"Digest e-mails","description":"","status":"deferred","priority":4,"issue_type":"feature","created_at":"2025-11-01T00:00:00Z","updated_at":"2025-11-01T00:00:00Z","spec_id":"specs/digest.md"}"#,
    r#"{"_type":"memory","key":"deploy.window","value":"Fridays are frozen"}"#,
];

/// The ids of the issues in [`BD_LINES`] (not the tombstone), sorted.
const IMPORTED: &[&str] = &[
    "bd-a1b2",
    "bd-a1b2.1",
    "bd-c3d4",
    "bd-e5f6",
    "bd-g7h8",
    "bd-k9m0",
];

/// Keys bd derives as it exports; vermas neither keeps nor writes them.
const DERIVED: &[&str] = &[
    "_type",
    "dependency_count",
    "dependent_count",
    "comment_count",
];

fn jsonl(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A vermas repository holding bd's `issues.jsonl`, committed as bd users keep it.
fn repo_with_bd_file(lines: &[&str]) -> Repo {
    let repo = Repo::initialised();
    repo.write(".beads/issues.jsonl", &jsonl(lines));
    repo.git(&["add", ".beads/issues.jsonl"]);
    repo.git(&["commit", "-q", "-m", "bd export"]);
    repo
}

fn show(repo: &Repo, id: &str) -> Value {
    let v = repo.json(&["show", id]);
    v.as_array().expect("show gives an array")[0].clone()
}

fn object(line: &str) -> Map<String, Value> {
    match serde_json::from_str(line) {
        Ok(Value::Object(o)) => o,
        other => panic!("not an object: {line}: {other:?}"),
    }
}

fn without_derived(mut o: Map<String, Value>) -> Map<String, Value> {
    for k in DERIVED {
        o.remove(*k);
    }
    o
}

fn changed_files(repo: &Repo, rev: &str) -> Vec<String> {
    repo.git(&["show", "--name-only", "--format=", rev])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn import_makes_one_bead_per_issue_in_one_commit() {
    let repo = repo_with_bd_file(BD_LINES);
    let before = repo.commit_count();
    let out = repo.ok(&["import", "bd"]);
    assert!(
        out.starts_with("Imported .beads/issues.jsonl: 6 new, 0 updated, 0 unchanged in commit "),
        "{out}"
    );
    assert!(
        out.contains("Skipped 1 deleted issue (bd tombstones)"),
        "{out}"
    );
    assert!(out.contains("Skipped 1 non-issue record"), "{out}");
    assert_eq!(repo.commit_count(), before + 1, "exactly one commit");
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(
        subject.starts_with("vermas import bd: bd-a1b2 Notifications für alle ✉ (+5 more)"),
        "{subject}"
    );
    let mut files = changed_files(&repo, "HEAD");
    files.sort();
    let mut expected: Vec<String> = IMPORTED
        .iter()
        .map(|id| format!(".beads/issues/{id}.md"))
        .collect();
    // The repository had no beads of its own: it takes the imported issues' prefix.
    expected.push(".beads/vermas.yaml".to_string());
    expected.sort();
    assert_eq!(files, expected);
    assert!(
        out.contains("Adopted the id prefix 'bd' of the imported issues (was 'vm'"),
        "{out}"
    );
    assert_eq!(repo.ok(&["config", "get", "prefix"]).trim(), "bd");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert!(!repo.join(".beads/issues/bd-dead.md").exists());

    // The child task: every field of its own, its parent, both dependencies, two notes.
    let task = show(&repo, "bd-a1b2.1");
    assert_eq!(task["title"], "Wire the SSE endpoint");
    assert_eq!(task["status"], "in_progress");
    assert_eq!(task["priority"], 2);
    assert_eq!(task["issue_type"], "task");
    assert_eq!(task["assignee"], "bob");
    assert_eq!(task["labels"], serde_json::json!(["backend"]));
    assert_eq!(task["parent"], "bd-a1b2");
    assert_eq!(task["created_at"], "2025-10-14T08:00:00Z");
    assert_eq!(task["created_by"], "alice");
    assert_eq!(
        task["dependencies"],
        serde_json::json!([{"depends_on_id": "bd-c3d4", "type": "blocks"}])
    );
    assert_eq!(
        task["notes"],
        serde_json::json!([
            {"at": "2025-10-15T08:00:00Z", "by": "bob", "text": "Started on this.\nUsing axum."},
            {"at": "2025-10-15T16:30:12Z", "by": "alice", "text": "👍 ship it"},
        ])
    );

    // The closed bug keeps its time and reason.
    let bug = show(&repo, "bd-c3d4");
    assert_eq!(bug["status"], "closed");
    assert_eq!(bug["priority"], 0);
    assert_eq!(bug["closed_at"], "2025-10-12T16:45:00Z");
    assert_eq!(
        bug["close_reason"],
        "Fixed in #311: raised the proxy timeout"
    );
    assert_eq!(bug["description"], "Steps:\n1. Open /login\n2. Wait 30s");

    // The epic: design, acceptance criteria and notes as marked sections of the body,
    // fields vermas lacks on its last line.
    let epic = show(&repo, "bd-a1b2");
    assert_eq!(epic["title"], "Notifications für alle ✉");
    let body = epic["description"].as_str().expect("description");
    assert!(
        body.starts_with(
            "Users get notified within 2s.\n\nSee the <notify> module & its docs.\n\n\
             <!-- bd:design -->\n## Design\n\nPush via SSE.\nFallback: polling every 5s.\n\n\
             <!-- bd:acceptance_criteria -->\n## Acceptance Criteria\n\n- [ ] p95 latency under 2s\n\
             - [ ] works offline\n\n<!-- bd:notes -->\n## Notes\n\nSpike done in branch notify-spike.\n\n<!-- bd: {"
        ),
        "{body}"
    );
    assert!(body.contains(r#""external_ref":"gh-42""#), "{body}");
    assert!(
        body.contains(r#""created_at":"2025-10-14T00:31:56.394717-07:00""#),
        "{body}"
    );

    // Every dependency type: those vermas has as dependencies, the custom one kept on
    // the bd line; pinned stays pinned, merge-request reads as task.
    let mr = show(&repo, "bd-e5f6");
    assert_eq!(mr["parent"], "bd-a1b2");
    assert_eq!(mr["status"], "pinned");
    assert_eq!(mr["issue_type"], "task");
    let types: Vec<&str> = mr["dependencies"]
        .as_array()
        .expect("deps")
        .iter()
        .map(|d| d["type"].as_str().expect("type"))
        .collect();
    assert_eq!(
        types,
        [
            "blocks",
            "conditional-blocks",
            "waits-for",
            "related",
            "discovered-from",
            "replies-to",
            "relates-to",
            "duplicates",
            "supersedes",
            "authored-by",
            "assigned-to",
            "approved-by",
            "attests",
            "tracks",
            "until",
            "caused-by",
            "validates",
            "delegated-from",
        ]
    );
    let mr_body = mr["description"].as_str().expect("description");
    assert!(
        !mr_body.contains(r#""status""#),
        "the bead holds pinned itself: {mr_body}"
    );
    for kept in [r#""issue_type":"merge-request""#, r#""type":"reviewed-by""#] {
        assert!(mr_body.contains(kept), "{kept} not in {mr_body}");
    }

    // The newer line: its owner and start time kept, the counts bd derives left out.
    let doc = show(&repo, "bd-g7h8");
    let doc_body = doc["description"].as_str().expect("description");
    assert!(
        doc_body.contains(r#""owner":"dana@example.com""#),
        "{doc_body}"
    );
    assert!(!doc_body.contains("dependency_count"), "{doc_body}");
    assert_eq!(show(&repo, "bd-k9m0")["spec"], "specs/digest.md");
    assert_eq!(show(&repo, "bd-k9m0")["status"], "deferred");

    // vermas works on what it imported: the open epic is ready, the blocked work is not.
    let ready = repo.json(&["ready", "-n", "0"]);
    let ready: Vec<&str> = ready
        .as_array()
        .expect("ready")
        .iter()
        .map(|b| b["id"].as_str().expect("id"))
        .collect();
    assert!(ready.contains(&"bd-a1b2"), "{ready:?}");
    assert!(!ready.contains(&"bd-c3d4"), "{ready:?}");
}

#[test]
fn a_second_import_of_the_same_file_changes_nothing_and_commits_nothing() {
    let repo = repo_with_bd_file(BD_LINES);
    repo.ok(&["import", "bd"]);
    let head = repo.git(&["rev-parse", "HEAD"]);
    let out = repo.run(&["import", "bd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Imported .beads/issues.jsonl: 0 new, 0 updated, 6 unchanged\n"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("nothing changed: every issue in .beads/issues.jsonl"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head, "no new commit");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let json = repo.json(&["import", "bd"]);
    assert_eq!(json["unchanged"].as_array().map(Vec::len), Some(6));
    assert_eq!(json["commit"], Value::Null);
}

#[test]
fn a_changed_issue_updates_its_bead_and_keeps_what_vermas_added() {
    let repo = repo_with_bd_file(BD_LINES);
    repo.ok(&["import", "bd"]);
    // Work done in vermas after the import: a label and a note bd does not know.
    repo.ok(&["label", "add", "bd-c3d4", "regression"]);
    repo.ok(&["update", "bd-c3d4", "--notes", "Seen again on staging"]);
    let before = repo.commit_count();

    let mut lines: Vec<String> = BD_LINES.iter().map(|l| l.to_string()).collect();
    lines[2] = lines[2]
        .replace(
            "Login times out behind the proxy",
            "Login times out behind any proxy",
        )
        .replace(
            r#""labels":["auth"]"#,
            r#""labels":["auth"],"comments":[{"id":12,"issue_id":"bd-c3d4","author":"carol","text":"Verified on prod","created_at":"2025-10-13T09:00:00Z"}]"#,
        );
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    repo.write(".beads/issues.jsonl", &jsonl(&refs));
    let out = repo.ok(&["import", "bd"]);
    assert!(
        out.starts_with("Imported .beads/issues.jsonl: 0 new, 1 updated, 5 unchanged in commit "),
        "{out}"
    );
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(changed_files(&repo, "HEAD"), [".beads/issues/bd-c3d4.md"]);
    let bug = show(&repo, "bd-c3d4");
    assert_eq!(bug["title"], "Login times out behind any proxy");
    assert_eq!(bug["labels"], serde_json::json!(["auth", "regression"]));
    let notes: Vec<&str> = bug["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n["text"].as_str().expect("text"))
        .collect();
    assert_eq!(notes, ["Verified on prod", "Seen again on staging"]);
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".beads/issues"]),
        ""
    );
}

#[test]
fn export_of_an_import_gives_back_every_field_of_bd_s_lines() {
    let repo = repo_with_bd_file(BD_LINES);
    repo.ok(&["import", "bd"]);
    let text = repo.ok(&["export", "bd"]);
    let exported: Vec<&str> = text.lines().collect();
    let mut originals: Vec<&str> = BD_LINES
        .iter()
        .copied()
        .filter(|l| !l.contains(r#""status":"tombstone""#) && !l.contains(r#""_type":"memory""#))
        .collect();
    originals.sort_by_key(|l| object(l)["id"].as_str().map(str::to_string));
    assert_eq!(exported.len(), originals.len(), "{text}");
    for (line, original) in exported.iter().zip(&originals) {
        let got = object(line);
        let want = without_derived(object(original));
        // Field by field first, for a readable failure.
        for key in [
            "id",
            "title",
            "description",
            "design",
            "acceptance_criteria",
            "notes",
            "status",
            "priority",
            "issue_type",
            "assignee",
            "labels",
            "dependencies",
            "comments",
            "created_at",
            "created_by",
            "updated_at",
            "closed_at",
            "close_reason",
            "external_ref",
            "spec_id",
        ] {
            assert_eq!(got.get(key), want.get(key), "{key} of {}", want["id"]);
        }
        assert_eq!(got, want, "every field of {}", want["id"]);
        // A line with nothing bd derives comes back byte for byte as bd wrote it.
        if !DERIVED
            .iter()
            .any(|k| original.contains(&format!("\"{k}\"")))
        {
            assert_eq!(line, original);
        }
    }
}

#[test]
fn import_export_import_gives_the_same_beads() {
    let first = repo_with_bd_file(BD_LINES);
    first.ok(&["import", "bd"]);
    first.ok(&["export", "bd", "round.jsonl"]);
    let exported = first.read("round.jsonl");

    let second = Repo::initialised();
    second.write("from-vermas.jsonl", &exported);
    let out = second.ok(&["import", "bd", "from-vermas.jsonl"]);
    assert!(
        out.starts_with("Imported from-vermas.jsonl: 6 new,"),
        "{out}"
    );
    for id in IMPORTED {
        let path = format!(".beads/issues/{id}.md");
        assert_eq!(second.read(&path), first.read(&path), "{path}");
    }
    assert_eq!(second.ok(&["export", "bd"]), exported);
}

#[test]
fn bad_lines_are_reported_by_line_number_and_the_others_imported() {
    let lines = [
        BD_LINES[2],
        r#"{"id":"bd-x1","title":"Broken" "status":"open"}"#,
        r#"{"title":"No id here","status":"open","priority":1}"#,
        r#"{"id":"bd-x2","title":"Odd status","status":"wip","priority":1}"#,
        "",
        r#"{"id":"bd-x3","title":"Too urgent","status":"open","priority":9}"#,
        r#"{"id":"bd-c3d4","title":"Same id again","status":"open"}"#,
        r#"["an","array"]"#,
        r#"{"id":"bd x4","title":"Space in id"}"#,
        r#"{"id":"bd-x5","title":"Bad time","created_at":"yesterday"}"#,
        BD_LINES[6],
    ];
    let repo = repo_with_bd_file(&lines);
    let before = repo.commit_count();
    let err = repo.fails(&["import", "bd"], 1);
    for expected in [
        ".beads/issues.jsonl:2:32: not JSON: expected `,` or `}`",
        ".beads/issues.jsonl:3:1: the issue has no id",
        ".beads/issues.jsonl:4:36: unknown status 'wip'",
        ".beads/issues.jsonl:6:52: priority 9 is out of range",
        ".beads/issues.jsonl:7:2: issue bd-c3d4 is on line 1 already",
        ".beads/issues.jsonl:8:1: a bd issue is a JSON object",
        ".beads/issues.jsonl:9:2: 'bd x4' cannot be a bead id",
        ".beads/issues.jsonl:10:34: `created_at` is not an RFC 3339 time: 'yesterday'",
        "error: 8 bad lines of .beads/issues.jsonl not imported; the other issues were",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
    // The good lines were imported, in one commit of their beads only.
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(
        changed_files(&repo, "HEAD"),
        [
            ".beads/issues/bd-c3d4.md",
            ".beads/issues/bd-k9m0.md",
            ".beads/vermas.yaml"
        ]
    );
    assert_eq!(
        show(&repo, "bd-c3d4")["title"],
        "Login times out behind the proxy"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // The same report as JSON, and nothing more to import.
    let out = repo.run(&["import", "bd", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let bad: Vec<(u64, u64)> = v["bad_lines"]
        .as_array()
        .expect("bad_lines")
        .iter()
        .map(|b| (b["line"].as_u64().unwrap(), b["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        bad,
        [
            (2, 32),
            (3, 1),
            (4, 36),
            (6, 52),
            (7, 2),
            (8, 1),
            (9, 2),
            (10, 34)
        ]
    );
    assert_eq!(v["unchanged"], serde_json::json!(["bd-c3d4", "bd-k9m0"]));
    let last = stderr(&out);
    assert!(last.contains(r#""code":"parse""#), "{last}");
}

#[test]
fn export_writes_to_stdout_or_a_file_sorted_by_id() {
    let repo = Repo::initialised();
    let parent = repo.create(
        "Ship the notifier",
        &["-t", "feature", "-p", "1", "-l", "area:notify"],
    );
    let child = repo.create("Write the endpoint", &["--parent", &parent]);
    let other = repo.create(
        "Unrelated chore",
        &["-t", "chore", "--deps", &format!("related:{parent}")],
    );
    repo.ok(&["update", &child, "--notes", "half done <ok> & going"]);
    repo.ok(&["close", &other, "-r", "not needed"]);

    let text = repo.ok(&["export", "bd"]);
    let lines: Vec<Map<String, Value>> = text.lines().map(object).collect();
    let ids: Vec<&str> = lines.iter().map(|o| o["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(ids.len(), 3);
    let by_id = |id: &str| lines.iter().find(|o| o["id"] == id).expect("line").clone();

    let p = by_id(&parent);
    assert_eq!(p["issue_type"], "feature");
    assert_eq!(p["priority"], 1);
    assert_eq!(p["labels"], serde_json::json!(["area:notify"]));
    assert_eq!(p["status"], "open");
    assert!(p.get("dependencies").is_none());

    let c = by_id(&child);
    let deps = c["dependencies"].as_array().expect("deps");
    assert_eq!(deps.len(), 1);
    assert_eq!(deps[0]["issue_id"], child.as_str());
    assert_eq!(deps[0]["depends_on_id"], parent.as_str());
    assert_eq!(deps[0]["type"], "parent-child");
    let comments = c["comments"].as_array().expect("comments");
    assert_eq!(comments[0]["issue_id"], child.as_str());
    assert_eq!(comments[0]["author"], "Test User");
    assert_eq!(comments[0]["text"], "half done <ok> & going");
    assert!(
        text.contains(r#""text":"half done \u003cok\u003e \u0026 going""#),
        "{text}"
    );

    let o = by_id(&other);
    assert_eq!(o["status"], "closed");
    assert_eq!(o["close_reason"], "not needed");
    assert!(o["closed_at"].is_string());
    assert_eq!(o["dependencies"][0]["type"], "related");

    // To a file (positional, -o, or - for stdout), with the same content.
    let out = repo.ok(&["export", "bd", "out/bd.jsonl"]);
    assert_eq!(out, "Exported 3 beads to out/bd.jsonl\n");
    assert_eq!(repo.read("out/bd.jsonl"), text);
    repo.ok(&["export", "bd", "-o", "second.jsonl"]);
    assert_eq!(repo.read("second.jsonl"), text);
    assert_eq!(repo.ok(&["export", "bd", "-"]), text);
    let json = repo.json(&["export", "bd", "third.jsonl"]);
    assert_eq!(json["exported"], 3);
    // Exporting records nothing in git.
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".beads"]), "");
}

#[test]
fn export_of_an_empty_store_is_empty() {
    let repo = Repo::initialised();
    let out = repo.run(&["export", "bd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        repo.ok(&["export", "bd", "empty.jsonl"]),
        "Exported 0 beads to empty.jsonl\n"
    );
    assert_eq!(repo.read("empty.jsonl"), "");
}

#[test]
fn a_missing_file_or_workspace_is_refused_with_exit_2() {
    let repo = Repo::initialised();
    let head = repo.git(&["rev-parse", "HEAD"]);
    let err = repo.fails(&["import", "bd"], 2);
    assert!(err.contains("no bd export at .beads/issues.jsonl"), "{err}");
    let err = repo.fails(&["import", "bd", "nope.jsonl"], 2);
    assert!(err.contains("no bd export at nope.jsonl"), "{err}");
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);

    let bare = Repo::new();
    bare.write("issues.jsonl", &jsonl(&[BD_LINES[2]]));
    let err = bare.fails(&["import", "bd", "issues.jsonl"], 2);
    assert!(err.contains("no .beads folder"), "{err}");
    bare.fails(&["export", "bd"], 2);
}

#[test]
fn import_reads_the_export_bd_s_metadata_names() {
    // bd can keep its export under another name (`jsonl_export` in metadata.json).
    let repo = Repo::initialised();
    repo.write(
        ".beads/metadata.json",
        "{\"jsonl_export\": \"beads.jsonl\"}\n",
    );
    repo.write(".beads/beads.jsonl", &jsonl(&[BD_LINES[2]]));
    let out = repo.ok(&["import", "bd"]);
    assert!(out.contains("beads.jsonl"), "{out}");
    let id = object(BD_LINES[2])["id"].as_str().expect("id").to_string();
    assert_eq!(show(&repo, &id)["id"], id.as_str());
    // Without metadata.json, the usual name.
    std::fs::remove_file(repo.join(".beads/metadata.json")).expect("rm");
    let err = repo.fails(&["import", "bd"], 2);
    assert!(err.contains("no bd export at .beads/issues.jsonl"), "{err}");
}

#[test]
fn vermas_beads_come_back_the_same_through_bd_jsonl() {
    let first = Repo::initialised();
    let parent = first.create("Ship the notifier", &["-t", "epic", "-p", "0", "-l", "a,b"]);
    let child = first.create(
        "Write the endpoint",
        &[
            "--parent",
            &parent,
            "--spec",
            "specs/notify.md",
            "-d",
            "Body\n\n  indented",
        ],
    );
    let other = first.create("Tidy up", &["--deps", &format!("waits-for:{child}")]);
    first.ok(&["update", &child, "--notes", "half done", "-a", "bob"]);
    first.ok(&["close", &other, "-r", "done"]);
    let exported = first.ok(&["export", "bd"]);

    let second = Repo::initialised();
    second.write("in.jsonl", &exported);
    second.ok(&["import", "bd", "in.jsonl"]);
    for id in [&parent, &child, &other] {
        let path = format!(".beads/issues/{id}.md");
        assert_eq!(second.read(&path), first.read(&path), "{path}");
    }
    assert_eq!(second.ok(&["export", "bd"]), exported);
}

#[test]
fn a_byte_order_mark_and_crlf_line_ends_are_read() {
    let repo = Repo::initialised();
    let text = format!("\u{feff}{}\r\n\r\n{}\r\n", BD_LINES[2], BD_LINES[6]);
    repo.write("windows.jsonl", &text);
    let out = repo.ok(&["import", "bd", "windows.jsonl"]);
    assert!(
        out.starts_with("Imported windows.jsonl: 2 new, 0 updated, 0 unchanged"),
        "{out}"
    );
    assert_eq!(
        show(&repo, "bd-c3d4")["description"],
        "Steps:\n1. Open /login\n2. Wait 30s"
    );
}
