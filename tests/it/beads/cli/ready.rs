//! `ready`, labels, and `clarify`/`answer`.

use super::*;

fn titles(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected a JSON array: {v}"))
        .iter()
        .map(|b| b["title"].as_str().expect("title").to_string())
        .collect()
}

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
    ok_env(
        &repo,
        &["q", "a test spec", "-p", "0", "-t", "test-spec"],
        &[("VERMAS_NOW", "1699999000")],
    );
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
