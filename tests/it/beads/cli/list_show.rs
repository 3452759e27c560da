//! `list` and `show`: filters, id prefixes, ambiguous and unknown ids, show's JSON shape.

use super::*;

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
