//! The bead index cache (`.beads/.cache/index`) as `list`, `ready` and `status` use it: it
//! is read when current, but never trusted over the files (a hand edit, a new file or a
//! deleted one is seen at once), and a missing, old or corrupt index is rebuilt silently,
//! with the same output.

use super::touch_old;
use crate::common::{Repo, stderr, stdout};
use std::time::Duration;

const INDEX: &str = ".beads/.cache/index";

/// Waits until files changed now are older than the index's two-second racy window.
fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
}

/// A repository with four beads whose files are old enough to be cached, and a written
/// index: `vm-a` (P1) blocks `vm-b`, `vm-c` (P0) awaits input, `vm-d` is closed.
fn cached_repo() -> Repo {
    let repo = Repo::initialised();
    let files = [
        (
            "vm-a",
            "---\nid: vm-a\ntitle: Alpha\nstatus: open\npriority: 1\ncreated_at: 2026-01-01T10:00:00Z\n---\n",
        ),
        (
            "vm-b",
            "---\nid: vm-b\ntitle: Beta\nstatus: open\npriority: 1\nlabels: [area:ui]\ncreated_at: 2026-01-02T10:00:00Z\ndependencies:\n  - {depends_on_id: vm-a, type: blocks}\n---\nWaits for alpha.\n",
        ),
        (
            "vm-c",
            "---\nid: vm-c\ntitle: \"Gamma: \\\"quoted\\\"\"\nstatus: open\npriority: 0\nlabels: [awaiting:input]\nnotes:\n  - {at: 2026-01-03T10:00:00Z, by: ann, text: \"Question: which one?\"}\n---\n",
        ),
        (
            "vm-d",
            "---\nid: vm-d\ntitle: Delta\nstatus: closed\nclosed_at: 2026-01-04T10:00:00Z\n---\n",
        ),
    ];
    for (id, text) in files {
        let rel = format!(".beads/issues/{id}.md");
        repo.write(&rel, text);
        touch_old(&repo, &rel);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "beads by hand"]);
    settle();
    repo.ok(&["list"]);
    repo
}

/// What the three reading commands answer: `list --all --json`, `ready --json`, `status
/// --json` and plain `status`.
fn answers(repo: &Repo) -> Vec<String> {
    let mut out = Vec::new();
    for args in [
        &["list", "--all", "-n", "0", "--json"][..],
        &["ready", "-n", "0", "--json"],
        &["status", "--json"],
        &["status"],
        &["list", "--all"],
        &["ready"],
    ] {
        let o = repo.run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?} warned");
        out.push(stdout(&o));
    }
    out
}

/// The ids in a JSON list.
fn ids(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

/// The index's lines after its header, by bead id.
fn index_ids(repo: &Repo) -> Vec<String> {
    crate::common::cache_ids(repo, INDEX, "vermas-index 6")
}

#[test]
fn list_ready_and_status_answer_from_the_files() {
    let repo = cached_repo();
    assert_eq!(ids(&repo.json(&["list"])), ["vm-c", "vm-a", "vm-b"]);
    assert_eq!(ids(&repo.json(&["ready"])), ["vm-a"]);
    let list = repo.json(&["list", "--all", "-n", "0"]);
    let b = &list.as_array().unwrap()[2];
    assert_eq!(b["id"], "vm-b");
    // JSON carries the whole bead, description and notes included.
    assert_eq!(b["description"], "Waits for alpha.");
    assert_eq!(b["labels"][0], "area:ui");
    assert_eq!(b["dependencies"][0]["depends_on_id"], "vm-a");
    let c = &list.as_array().unwrap()[0];
    assert_eq!(c["title"], "Gamma: \"quoted\"");
    assert_eq!(c["notes"][0]["text"], "Question: which one?");
    let status = repo.json(&["status"]);
    assert_eq!(status["ready"], 1);
    assert_eq!(
        status["awaiting"][0]["question"]["text"],
        "Question: which one?"
    );
    assert_eq!(status["by_status"]["closed"], 1);
    assert_eq!(status["percent_done"], 25);
}

#[test]
fn fields_the_line_leaves_out_are_read_from_the_file() {
    // A bead with a branch and a worktree and nothing else the index line leaves out (no
    // body, notes or criteria): its line says the file holds more, so listings read it.
    let repo = cached_repo();
    let rel = ".beads/issues/vm-e.md";
    repo.write(
        rel,
        "---\nid: vm-e\ntitle: Slung\nstatus: in_progress\nbranch: work/e\nworktree: ../wt/e\n---\n",
    );
    touch_old(&repo, rel);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "slung by hand"]);
    settle();
    repo.ok(&["list"]);
    assert!(index_ids(&repo).contains(&"vm-e".to_string()));
    for args in [&["list"][..], &["list", "--all", "-n", "0"]] {
        let list = repo.json(args);
        let e = list
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == "vm-e")
            .expect("vm-e listed");
        assert_eq!(e["branch"], "work/e", "{args:?}");
        assert_eq!(e["worktree"], "../wt/e", "{args:?}");
    }
    assert_eq!(repo.json(&["show", "vm-e"])[0]["branch"], "work/e");
}

#[test]
fn the_index_is_read_when_its_stamp_matches() {
    let repo = cached_repo();
    assert_eq!(index_ids(&repo), ["vm-a", "vm-b", "vm-c", "vm-d"]);
    // Change the title in the cached line only: its stamp still matches the file, so
    // listings take the line as it is (the file is not parsed)...
    let text = repo.read(INDEX).replace("\tAlpha\t", "\tFrom the index\t");
    repo.write(INDEX, &text);
    let plain = repo.ok(&["ready"]);
    assert!(
        plain.contains("vm-a [P1] [task] open - From the index"),
        "{plain}"
    );
    // ...while `show` reads the file itself.
    assert!(repo.ok(&["show", "vm-a"]).contains("vm-a: Alpha"));
}

#[test]
fn a_hand_edit_is_seen_at_once_even_with_the_same_size_and_time() {
    let repo = cached_repo();
    let before = answers(&repo);
    let rel = ".beads/issues/vm-a.md";
    // Same length, same modification time: only the change time tells.
    repo.write(rel, &repo.read(rel).replace("Alpha", "Omega"));
    touch_old(&repo, rel);
    let after = answers(&repo);
    assert_ne!(before, after);
    assert!(after[0].contains("\"Omega\"") && !after[0].contains("\"Alpha\""));
    assert!(after[1].contains("\"Omega\""), "{}", after[1]);
    assert!(
        after[5].contains("vm-a [P1] [task] open - Omega"),
        "{}",
        after[5]
    );
    // Closing the blocker by hand makes its dependant ready at once.
    repo.write(
        rel,
        &repo.read(rel).replace("status: open", "status: closed"),
    );
    assert_eq!(ids(&repo.json(&["ready"])), ["vm-b"]);
    let status = repo.json(&["status"]);
    assert_eq!(status["by_status"]["closed"], 2);
}

#[test]
fn new_and_deleted_files_are_seen_at_once() {
    let repo = cached_repo();
    // A file in a shape vermas does not write (a comment, a block list): read through
    // the YAML parser, cached like any other.
    repo.write(
        ".beads/issues/vm-e.md",
        "---\n# written by hand\nid: vm-e\ntitle: Epsilon\npriority: 0\nlabels:\n  - first\n  - second\n---\n",
    );
    let list = repo.json(&["list"]);
    // Both P0 without a creation time: by id.
    assert_eq!(ids(&list), ["vm-c", "vm-e", "vm-a", "vm-b"]);
    assert_eq!(list[1]["labels"], serde_json::json!(["first", "second"]));
    assert_eq!(ids(&repo.json(&["ready"])), ["vm-e", "vm-a"]);
    // Too young to be cached yet; cached once it has settled.
    assert!(!index_ids(&repo).contains(&"vm-e".to_string()));
    settle();
    repo.ok(&["ready"]);
    assert!(index_ids(&repo).contains(&"vm-e".to_string()));
    std::fs::remove_file(repo.join(".beads/issues/vm-a.md")).expect("rm");
    assert_eq!(ids(&repo.json(&["list"])), ["vm-c", "vm-e", "vm-b"]);
    // A blocker that is gone still holds its dependant back.
    assert_eq!(ids(&repo.json(&["ready"])), ["vm-e"]);
    assert_eq!(index_ids(&repo), ["vm-b", "vm-c", "vm-d", "vm-e"]);
}

#[test]
fn a_deleted_cache_is_rebuilt_with_the_same_answers() {
    let repo = cached_repo();
    let before = answers(&repo);
    std::fs::remove_dir_all(repo.join(".beads/.cache")).expect("rm cache");
    assert_eq!(answers(&repo), before);
    assert_eq!(index_ids(&repo), ["vm-a", "vm-b", "vm-c", "vm-d"]);
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the cache is ignored by git"
    );
}

#[test]
fn a_corrupt_or_old_cache_is_rebuilt_silently() {
    let repo = cached_repo();
    let before = answers(&repo);
    let good = repo.read(INDEX);
    let line_of = |id: &str| {
        good.lines()
            .find(|l| l.starts_with(&format!("{id}\t")))
            .expect("line")
            .to_string()
    };
    let a = line_of("vm-a");
    let corruptions: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x00\xff\xfe not an index \n\t\t\n".to_vec()),
        ("empty", Vec::new()),
        ("truncated", good.as_bytes()[..good.len() / 2].to_vec()),
        (
            "old header",
            good.replacen("vermas-index 6", "vermas-index 3", 1)
                .into_bytes(),
        ),
        (
            "no key",
            format!("vermas-index 6\nno tab here\n{a}\n").into_bytes(),
        ),
        (
            "bad status",
            good.replacen(&a, &a.replacen("\topen\t", "\tbogus\t", 1), 1)
                .into_bytes(),
        ),
        (
            "cut fields",
            good.replacen(&a, &a[..a.len() - 8], 1).into_bytes(),
        ),
        (
            "bad stamp",
            good.replacen(&a, &a.replacen('\t', "\t-x", 1), 1)
                .into_bytes(),
        ),
    ];
    for (what, bytes) in corruptions {
        std::fs::write(repo.join(INDEX), &bytes).expect("write index");
        assert_eq!(answers(&repo), before, "{what}");
        // Rebuilt: the next reads find every bead in a well-formed index.
        repo.ok(&["list"]);
        assert_eq!(index_ids(&repo), ["vm-a", "vm-b", "vm-c", "vm-d"], "{what}");
        assert_eq!(answers(&repo), before, "{what}, rebuilt");
    }
}

#[test]
fn readers_racing_on_a_missing_cache_all_answer_alike() {
    let repo = cached_repo();
    let expected = repo.ok(&["ready", "--json"]);
    std::fs::remove_dir_all(repo.join(".beads/.cache")).expect("rm cache");
    let outputs: Vec<std::process::Output> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| repo.run(&["ready", "--json"])))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("reader panicked"))
            .collect()
    });
    for out in outputs {
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), expected);
        assert_eq!(stderr(&out), "");
    }
    assert_eq!(index_ids(&repo), ["vm-a", "vm-b", "vm-c", "vm-d"]);
    let leftovers = std::fs::read_dir(repo.join(".beads/.cache/tmp"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(leftovers, 0, "no temporary index file is left behind");
}

#[test]
fn a_broken_bead_file_is_reported_and_the_rest_still_listed() {
    let repo = cached_repo();
    repo.write(
        ".beads/issues/vm-x.md",
        "---\nid: vm-x\ntitle: [unclosed\n---\n",
    );
    let o = repo.run(&["ready", "--json"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("vm-x.md"), "{}", stderr(&o));
    let ready: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(ids(&ready), ["vm-a"]);
    let status = repo.ok(&["status"]);
    assert!(status.contains("1 bead file cannot be read"), "{status}");
    settle();
    repo.ok(&["list"]);
    assert!(
        !index_ids(&repo).contains(&"vm-x".to_string()),
        "a broken file is never cached"
    );
}
