//! Sending: the message file and its commit, the sender, the body from stdin, groups and cc, ephemeral mail.

use super::*;

#[test]
fn send_writes_one_file_in_stable_order_and_one_commit() {
    let repo = mail_repo();
    let before = repo.commit_count();
    let m = send(
        &repo,
        "mayor/",
        "NEEDS_CLARIFICATION: vm-1",
        &["--from", "inspector/judge", "-t", "task", "-p", "urgent"],
    );
    assert_eq!(m["schema_version"], 1);
    let id = m["id"].as_str().unwrap();
    assert!(id.starts_with("msg-") && id.len() == 8, "{id}");
    assert_eq!(repo.commit_count(), before + 1);
    let text = repo.read(&format!(".beads/mail/mayor/{id}.md"));
    let keys: Vec<&str> = text
        .lines()
        .skip(1)
        .take_while(|l| *l != "---")
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "from",
            "to",
            "cc",
            "subject",
            "msg_type",
            "priority",
            "thread",
            "reply_to",
            "created_at",
            "read"
        ]
    );
    assert!(text.contains(&format!("thread: {id}\n")), "{text}");
    assert!(text.ends_with("---\nbody text\n"), "{text}");
    let log = repo.git(&["log", "-1", "--format=%s%n%b"]);
    assert!(
        log.starts_with(&format!("vermas mail send: {id} NEEDS_CLARIFICATION: vm-1")),
        "{log}"
    );
    assert!(log.contains("Vermas-Actor: inspector/judge"), "{log}");
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();
    // The human form says where it went and the commit.
    let out = repo.ok(&["mail", "send", "inspector/critic", "-s", "Hi", "-m", "x"]);
    assert!(
        out.starts_with("Sent msg-") && out.contains(" to inspector/critic: Hi ["),
        "{out}"
    );
}

#[test]
fn sender_is_from_then_vermas_actor_then_git_identity() {
    let repo = mail_repo();
    let m = send(&repo, "mayor/", "a", &["--from", "gastown/polecat-1"]);
    assert_eq!(m["from"], "gastown/polecat-1");
    let out = repo
        .cmd(&["mail", "send", "mayor/", "-s", "b", "-m", "x", "--json"])
        .env("VERMAS_ACTOR", "inspector")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["from"], "inspector/",
        "an address actor takes its normal spelling"
    );
    assert_eq!(send(&repo, "mayor/", "c", &[])["from"], "tester/");
    let err = repo.fails(
        &[
            "mail", "send", "mayor/", "-s", "d", "-m", "x", "--from", "bob",
        ],
        2,
    );
    assert!(err.contains("not a mail address"), "{err}");
}

#[test]
fn without_from_the_sender_is_config_mail_from_else_the_actors_own_mailbox() {
    let repo = mail_repo();
    // git's user.name `tester`: the mailbox `tester/`, in the JSON and in the stored file.
    let m = send(&repo, "mayor/", "from git", &[]);
    assert_eq!(m["from"], "tester/");
    let text = repo.read(&format!(".beads/mail/mayor/{}.md", id_of(&m)));
    assert!(text.contains("\nfrom: tester/\n"), "{text}");
    let log = repo.git(&["log", "-1", "--format=%b"]);
    assert!(log.contains("Vermas-Actor: tester/"), "{log}");
    // --actor and VERMAS_ACTOR name the actor the same way.
    let m = send(&repo, "mayor/", "from --actor", &["--actor", "alice"]);
    assert_eq!(m["from"], "alice/");
    let out = repo
        .cmd(&["mail", "send", "mayor/", "-s", "env", "-m", "x", "--json"])
        .env("VERMAS_ACTOR", "bob")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["from"], "bob/");
    // `alice/` is a real address: a reply to her message lands in her mailbox.
    let asked = send_id(&repo, "mayor/", "Q", &["--actor", "alice"]);
    let r = repo.json(&["mail", "reply", &asked, "-m", "A", "--from", "mayor/"]);
    assert_eq!(
        (r["to"].as_str(), r["mailbox"].as_str()),
        (Some("alice/"), Some("alice"))
    );
    let out = repo.ok(&["mail", "send", "alice/", "-s", "Hi", "-m", "x"]);
    assert!(out.contains(" to alice/: Hi ["), "{out}");
    // Config `mail.from` comes before the actor; --from before both.
    repo.ok(&["config", "set", "mail.from", "inspector/critic"]);
    assert_eq!(
        repo.ok(&["config", "get", "mail.from"]).trim(),
        "inspector/critic"
    );
    let m = send(&repo, "mayor/", "configured", &["--actor", "alice"]);
    assert_eq!(m["from"], "inspector/critic");
    let m = send(&repo, "mayor/", "explicit", &["--from", "gastown/refinery"]);
    assert_eq!(m["from"], "gastown/refinery");
    let r = repo.json(&["mail", "reply", &asked, "-m", "again"]);
    assert_eq!(r["from"], "inspector/critic");
    // A `mail.from` that is no address is refused, naming the setting.
    repo.ok(&["config", "set", "mail.from", "critic"]);
    let before = repo.commit_count();
    let err = repo.fails(&["mail", "send", "mayor/", "-s", "x", "-m", "y"], 2);
    assert!(err.contains("'critic' is not a mail address"), "{err}");
    assert!(err.contains("config `mail.from`"), "{err}");
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn an_actor_that_is_not_a_mailbox_name_is_refused_with_a_hint() {
    // An actor with no letter or digit makes no mailbox name (`New Comer` would make
    // `new-comer/`).
    let repo = Repo::initialised();
    let before = repo.commit_count();
    let odd = ["--actor", "!!!"];
    let err = repo.fails(
        &[&["mail", "send", "mayor/", "-s", "x", "-m", "y"][..], &odd].concat(),
        2,
    );
    assert!(
        err.contains("the actor '!!!' is not a valid mailbox name"),
        "{err}"
    );
    assert!(err.contains("pass --from ADDR"), "{err}");
    assert!(err.contains("vermas config set mail.from ADDR"), "{err}");
    let err = repo.fails(&[&["mail", "inbox"][..], &odd].concat(), 2);
    assert!(
        err.contains("the actor '!!!' is not a valid mailbox name"),
        "{err}"
    );
    assert!(err.contains("vermas mail inbox mayor/"), "{err}");
    assert!(err.contains("mail.from"), "{err}");
    let err = repo.fails(
        &[
            "mail", "send", "mayor/", "-s", "x", "-m", "y", "--actor", "a/b/c",
        ],
        2,
    );
    assert!(
        err.contains("the actor 'a/b/c' is not a valid mailbox name"),
        "{err}"
    );
    let out = repo.run(
        &[
            &["mail", "send", "mayor/", "-s", "x", "-m", "y", "--json"][..],
            &odd,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(v["error"].as_str().unwrap().contains("'!!!'"), "{v}");
    assert_eq!(repo.commit_count(), before, "a refused send made a commit");
    // Either way out works.
    let m = send(&repo, "mayor/", "explicit", &["--from", "inspector/"]);
    assert_eq!(m["from"], "inspector/");
    repo.ok(&["config", "set", "mail.from", "mayor/"]);
    assert_eq!(
        send(&repo, "inspector/", "configured", &[])["from"],
        "mayor/"
    );
    assert_eq!(ids(&repo.json(&["mail", "inbox"])).len(), 1);
}

#[test]
fn body_from_stdin() {
    let repo = mail_repo();
    let out = repo
        .cmd(&["mail", "send", "mayor/", "-s", "piped", "--stdin", "--json"])
        .write_stdin("line one\nline two\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["body"], "line one\nline two");
}

#[test]
fn ephemeral_mail_is_never_committed() {
    let repo = mail_repo();
    let before = repo.commit_count();
    let m = send(
        &repo,
        "mayor/",
        "Ping",
        &["--ephemeral", "--from", "inspector/"],
    );
    let id = id_of(&m);
    assert_eq!(m["ephemeral"], true);
    assert!(
        repo.join(&format!(".beads/wisps/mail/mayor/{id}.md"))
            .is_file()
    );
    assert!(!repo.join(&format!(".beads/mail/mayor/{id}.md")).exists());
    let inbox = repo.json(&["mail", "inbox", "mayor/"]);
    assert_eq!(ids(&inbox), std::slice::from_ref(&id));
    repo.ok(&["mail", "read", &id]);
    // A reply to ephemeral mail stays ephemeral.
    let r = repo.json(&["mail", "reply", &id, "-m", "pong", "--from", "mayor/"]);
    assert_eq!(r["ephemeral"], true);
    repo.ok(&["mail", "archive", &id]);
    assert!(
        repo.join(&format!(".beads/wisps/mail/mayor/archive/{id}.md"))
            .is_file()
    );
    assert_eq!(repo.commit_count(), before, "ephemeral mail made a commit");
    assert_eq!(repo.status(".beads"), "");
    assert_eq!(repo.git(&["ls-files", ".beads/wisps"]), "");
}

#[test]
fn groups_and_cc_deliver_one_file_per_mailbox_in_one_commit() {
    let repo = mail_repo();
    repo.ok(&[
        "config",
        "set",
        "mail.groups.reviewers",
        r#"["inspector/critic", "inspector/advocate", "@leads"]"#,
    ]);
    repo.ok(&["config", "set", "mail.groups.leads", r#"["mayor/"]"#]);
    let before = repo.commit_count();
    let out = repo.json(&[
        "mail",
        "send",
        "@reviewers",
        "-s",
        "Review vm-1",
        "-m",
        "please",
        "--cc",
        "mayor/",
        "--cc",
        "gastown/refinery",
    ]);
    assert_eq!(repo.commit_count(), before + 1);
    let copies = out.as_array().expect("several copies: an array");
    let boxes: Vec<&str> = copies
        .iter()
        .map(|m| m["mailbox"].as_str().unwrap())
        .collect();
    assert_eq!(
        boxes,
        [
            "inspector/critic",
            "inspector/advocate",
            "mayor",
            "gastown/refinery"
        ]
    );
    let thread = copies[0]["id"].as_str().unwrap();
    for m in copies {
        assert_eq!(m["thread"], thread);
        assert_eq!(m["to"], "@reviewers");
        assert_eq!(m["cc"], serde_json::json!(["mayor/", "gastown/refinery"]));
        let path = format!(
            ".beads/mail/{}/{}.md",
            m["mailbox"].as_str().unwrap(),
            m["id"].as_str().unwrap()
        );
        assert!(repo.join(&path).is_file(), "{path}");
    }
    assert_eq!(ids(&repo.json(&["mail", "inbox", "@leads"])).len(), 1);
    assert_eq!(ids(&repo.json(&["mail", "thread", thread])).len(), 4);
    let err = repo.fails(&["mail", "send", "@nobody", "-s", "x", "-m", "y"], 2);
    assert!(err.contains("unknown mail group '@nobody'"), "{err}");
    assert!(err.contains("@leads, @reviewers"), "{err}");
    repo.ok(&["config", "set", "mail.groups.bad", r#"["alice"]"#]);
    let err = repo.fails(&["mail", "send", "@bad", "-s", "x", "-m", "y"], 2);
    assert!(err.contains("mail.groups.bad"), "{err}");
}

/// Minimal messages `msg-c<first>`... up to `msg-c<last>` (not included) in `folder`
/// (under `.beads/mail/`), not committed.
fn write_many_messages(repo: &Repo, folder: &str, first: usize, last: usize) {
    for i in first..last {
        let id = format!("msg-c{i:04}");
        repo.write(
            &format!(".beads/mail/{folder}/{id}.md"),
            &format!(
                "---\nid: {id}\nfrom: mayor/\nto: inspector/\ncc: []\nsubject: \"m {i}\"\n\
                 msg_type: notification\npriority: normal\nthread: {id}\nreply_to: null\n\
                 created_at: 2026-11-26T04:00:00Z\nread: false\n---\nbody\n"
            ),
        );
    }
}

#[test]
fn new_ids_grow_with_the_number_of_messages_in_every_folder() {
    // 600 messages need a 5-character hash (450 fit in 4), counted across mailboxes and
    // archives: from git's index when recorded, by listing the folders when not.
    let recorded = mail_repo();
    write_many_messages(&recorded, "inspector", 0, 300);
    write_many_messages(&recorded, "mayor/archive", 300, 600);
    recorded.git(&["add", ".beads"]);
    recorded.git(&["commit", "-q", "-m", "600 messages"]);
    let id = send_id(&recorded, "critic/", "one more", &[]);
    assert_eq!(id.len(), "msg-".len() + 5, "{id}");
    assert!(
        recorded
            .join(&format!(".beads/mail/critic/{id}.md"))
            .is_file()
    );
    assert_eq!(recorded.status(".beads"), "");

    let unrecorded = mail_repo();
    unrecorded.ok(&["config", "set", "git.commit", "false"]);
    write_many_messages(&unrecorded, "inspector", 0, 300);
    write_many_messages(&unrecorded, "mayor/archive", 300, 600);
    let id = send_id(&unrecorded, "critic/", "one more", &[]);
    assert_eq!(id.len(), "msg-".len() + 5, "{id}");

    let few = mail_repo();
    write_many_messages(&few, "inspector", 0, 400);
    few.git(&["add", ".beads"]);
    few.git(&["commit", "-q", "-m", "400 messages"]);
    let id = send_id(&few, "inspector/", "one more", &[]);
    assert_eq!(id.len(), "msg-".len() + 4, "{id}");
}
