//! `update`, `claim`, `close` and `reopen`, and commands that change nothing.

use super::*;

/// 1700000000 as RFC 3339 UTC.
const T0: &str = "2023-11-14T22:13:20Z";

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
    assert_eq!(repo.head_files(), [bead_path(&id)]);
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
    assert_eq!(repo.head_files(), want);
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
    assert_eq!(repo.head_files(), [bead_path(&id)]);
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
