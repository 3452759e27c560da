//! The inbox, `read`, `reply` and `thread`, `archive`, and hand edits seen through the index.

use super::*;

/// Same as [`send`], at a fixed time (`VERMAS_NOW`).
fn send_at(repo: &Repo, at: i64, to: &str, subject: &str, extra: &[&str]) -> String {
    let mut args = vec!["mail", "send", to, "-s", subject, "-m", "x", "--json"];
    args.extend_from_slice(extra);
    let out = repo
        .cmd(&args)
        .env("VERMAS_NOW", at.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    id_of(&v)
}

#[test]
fn inbox_without_an_address_is_your_own_mailbox() {
    let repo = mail_repo();
    let mine = send_id(&repo, "tester/", "for tester", &["--from", "mayor/"]);
    let hers = send_id(&repo, "alice/", "for alice", &["--from", "mayor/"]);
    send_id(&repo, "mayor/", "for the mayor", &[]);
    assert_eq!(ids(&repo.json(&["mail", "inbox"])), [mine]);
    let human = repo.ok(&["mail", "inbox"]);
    assert!(
        human.starts_with("tester/: 1 message, 1 unread\n"),
        "{human}"
    );
    assert_eq!(
        ids(&repo.json(&["mail", "inbox", "--actor", "alice"])),
        [hers]
    );
    let out = repo
        .cmd(&["mail", "inbox", "--json"])
        .env("VERMAS_ACTOR", "mayor")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["subject"], "for the mayor");
    // With `mail.from` set, that is whose inbox it is, as it is who sends.
    repo.ok(&["config", "set", "mail.from", "mayor/"]);
    let inbox = repo.json(&["mail", "inbox", "--actor", "alice"]);
    assert_eq!(inbox[0]["subject"], "for the mayor");
    assert!(
        repo.ok(&["mail", "inbox", "inspector/"])
            .contains("No messages for inspector/.")
    );
}

#[test]
fn inbox_is_unread_first_then_priority_then_newest() {
    let repo = mail_repo();
    let m1 = send_at(&repo, 1_000_000, "mayor/", "normal old", &[]);
    let m2 = send_at(&repo, 1_000_000, "mayor/", "urgent old", &["-p", "urgent"]);
    let m3 = send_at(&repo, 2_000_000, "mayor/", "normal new", &[]);
    let m4 = send_at(&repo, 3_000_000, "mayor/", "low newest", &["-p", "low"]);
    let m5 = send_at(&repo, 500_000, "mayor/", "urgent read", &["-p", "urgent"]);
    send_at(&repo, 4_000_000, "inspector/", "elsewhere", &[]);
    repo.ok(&["mail", "read", &m5]);
    let inbox = repo.json(&["mail", "inbox", "mayor/"]);
    assert_eq!(ids(&inbox), [&m2, &m3, &m1, &m4, &m5].map(String::clone));
    assert_eq!(inbox[0]["body"], "x");
    assert_eq!(inbox[0]["mailbox"], "mayor");
    assert_eq!(inbox[4]["read"], true);
    let unread = repo.json(&["mail", "inbox", "mayor", "--unread"]);
    assert_eq!(ids(&unread), [&m2, &m3, &m1, &m4].map(String::clone));
    let human = repo.ok(&["mail", "inbox", "mayor/"]);
    let lines: Vec<&str> = human.lines().collect();
    assert_eq!(lines[0], "mayor/: 5 messages, 4 unread");
    assert!(lines[1].starts_with(&format!("* {m2}")), "{human}");
    assert!(lines[5].starts_with(&format!("  {m5}")), "{human}");
    // Without an address: the actor's own inbox.
    let out = repo
        .cmd(&["mail", "inbox", "--json"])
        .env("VERMAS_ACTOR", "inspector/")
        .output()
        .unwrap();
    assert_eq!(ids(&serde_json::from_slice(&out.stdout).unwrap()).len(), 1);
    assert!(
        repo.ok(&["mail", "inbox", "rig/empty"])
            .contains("No messages for rig/empty.")
    );
}

#[test]
fn read_marks_read_with_one_commit_and_only_once() {
    let repo = mail_repo();
    let id = send_id(&repo, "mayor/", "Read me", &[]);
    let before = repo.commit_count();
    let shown = repo.ok(&["mail", "read", &id[4..7]]);
    assert!(shown.starts_with(&format!("{id}: Read me\n")), "{shown}");
    assert!(shown.contains("\nbody text\n"), "{shown}");
    assert_eq!(repo.commit_count(), before + 1);
    assert!(
        repo.read(&format!(".beads/mail/mayor/{id}.md"))
            .contains("read: true\n")
    );
    let log = repo.git(&["log", "-1", "--format=%s"]);
    assert_eq!(log.trim(), format!("vermas mail read: {id} Read me"));
    let again = repo.json(&["mail", "read", &id]);
    assert_eq!(
        (again["read"].clone(), again["schema_version"].clone()),
        (Value::Bool(true), Value::from(1))
    );
    assert_eq!(
        repo.commit_count(),
        before + 1,
        "reading again changes nothing"
    );
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn reply_goes_to_the_sender_in_the_same_thread_and_thread_lists_it() {
    let repo = mail_repo();
    let q = send_at(
        &repo,
        1_000_000,
        "mayor/",
        "Which CI?",
        &["--from", "inspector/judge"],
    );
    let before = repo.commit_count();
    let out = repo
        .cmd(&["mail", "reply", &q, "-m", "GitHub Actions", "--json"])
        .env("VERMAS_ACTOR", "mayor/")
        .env("VERMAS_NOW", "1000000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(r["to"], "inspector/judge");
    assert_eq!(r["mailbox"], "inspector/judge");
    assert_eq!(r["from"], "mayor/");
    assert_eq!(r["subject"], "RE: Which CI?");
    assert_eq!(r["msg_type"], "reply");
    assert_eq!(r["thread"], q.as_str());
    assert_eq!(r["reply_to"], q.as_str());
    let rid = id_of(&r);
    assert!(
        repo.join(&format!(".beads/mail/inspector/judge/{rid}.md"))
            .is_file()
    );
    // A reply to the reply: still one thread, shown in answer order.
    let rr = repo.json(&[
        "mail",
        "reply",
        &rid,
        "-m",
        "thanks",
        "--from",
        "inspector/judge",
    ]);
    assert_eq!(rr["subject"], "RE: Which CI?");
    assert_eq!(rr["to"], "mayor/");
    let thread = repo.json(&["mail", "thread", &rid]);
    assert_eq!(ids(&thread), [q.clone(), rid.clone(), id_of(&rr)]);
    let human = repo.ok(&["mail", "thread", &q]);
    assert!(
        human.starts_with(&format!("Thread {q} (3 messages)")),
        "{human}"
    );
    assert!(human.contains("    GitHub Actions\n"), "{human}");
    // A (hand-written) message from someone without a mailbox cannot be replied to.
    repo.write(
        ".beads/mail/mayor/msg-plain.md",
        "---\nid: msg-plain\nfrom: Test User\nto: mayor/\nsubject: s\ncreated_at: 2026-01-01T00:00:00Z\n---\nhi\n",
    );
    let err = repo.fails(
        &["mail", "reply", "msg-plain", "-m", "x", "--from", "mayor/"],
        2,
    );
    assert!(err.contains("no mailbox to reply to"), "{err}");
}

#[test]
fn archive_moves_the_file_in_one_commit() {
    let repo = mail_repo();
    let id = send_id(&repo, "inspector/critic", "Old news", &[]);
    let before = repo.commit_count();
    let out = repo.ok(&["mail", "archive", &id]);
    assert!(
        out.starts_with(&format!("Archived {id} from inspector/critic: Old news [")),
        "{out}"
    );
    assert_eq!(repo.commit_count(), before + 1);
    let changed = repo.git(&["show", "--name-status", "--format=", "-M", "HEAD"]);
    assert!(
        changed.contains(&format!(
            ".beads/mail/inspector/critic/{id}.md\t.beads/mail/inspector/critic/archive/{id}.md"
        )),
        "{changed}"
    );
    assert_eq!(repo.status(".beads"), "");
    assert!(ids(&repo.json(&["mail", "inbox", "inspector/critic"])).is_empty());
    let thread = repo.json(&["mail", "thread", &id]);
    assert_eq!(thread[0]["archived"], true);
    let err = repo.fails(&["mail", "archive", &id], 2);
    assert!(err.contains("already archived"), "{err}");
    // An archived message can still be read.
    assert!(repo.ok(&["mail", "read", &id]).contains("(archived)"));
    repo.assert_fsck();
}

#[test]
fn hand_edits_are_seen_at_once_through_the_index() {
    let repo = mail_repo();
    let id = send_id(&repo, "mayor/", "Original", &[]);
    let rel = format!(".beads/mail/mayor/{id}.md");
    // Age the file so the index caches it, then list (which writes the index).
    let touch = |path: &str| {
        let ok = Command::new("touch")
            .args(["-d", "2020-01-01 00:00:00"])
            .arg(repo.join(path))
            .status()
            .unwrap()
            .success();
        assert!(ok);
    };
    touch(&rel);
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(
        repo.json(&["mail", "inbox", "mayor/"])[0]["subject"],
        "Original"
    );
    let index = repo.read(".beads/.cache/mail/mail~mayor");
    assert!(index.contains(&id), "the index holds the message: {index}");
    // A hand edit keeping the same size and mtime still shows (ctime differs).
    let text = repo.read(&rel).replace("Original", "Editedxx");
    repo.write(&rel, &text);
    touch(&rel);
    assert_eq!(
        repo.json(&["mail", "inbox", "mayor/"])[0]["subject"],
        "Editedxx"
    );
    std::fs::remove_file(repo.join(&rel)).unwrap();
    assert!(ids(&repo.json(&["mail", "inbox", "mayor/"])).is_empty());
}
