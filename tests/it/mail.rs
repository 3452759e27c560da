//! Agent mail on real repositories: every command, one commit per send/read/archive,
//! ephemeral mail never committed, groups, inbox order, the question flow with two
//! processes and `mail wait`, and each kind of bad input.

use crate::common::{LEAKY_ENV, Repo, stderr, stdout};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// An initialised repository whose git identity (`user.name`) is a valid mailbox name, so
/// mail sent without `--from` comes from `tester/`.
fn mail_repo() -> Repo {
    let repo = Repo::initialised();
    repo.git(&["config", "user.name", "tester"]);
    repo
}

/// `mail send` with `--json`; returns the message object.
fn send(repo: &Repo, to: &str, subject: &str, extra: &[&str]) -> Value {
    let mut args = vec!["mail", "send", to, "-s", subject, "-m", "body text"];
    args.extend_from_slice(extra);
    repo.json(&args)
}

/// The id of a message sent with [`send`].
fn send_id(repo: &Repo, to: &str, subject: &str, extra: &[&str]) -> String {
    id_of(&send(repo, to, subject, extra))
}

/// The `id` of a JSON message.
fn id_of(m: &Value) -> String {
    m["id"].as_str().expect("id").to_string()
}

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

/// The ids of a JSON array of messages.
fn ids(v: &Value) -> Vec<String> {
    v.as_array().expect("array").iter().map(id_of).collect()
}

/// A `vermas` process in `repo` that is not waited for.
fn spawn(repo: &Repo, args: &[&str]) -> std::process::Child {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("vermas"));
    c.current_dir(repo.path()).args(args);
    for var in LEAKY_ENV {
        c.env_remove(var);
    }
    c.env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vermas")
}

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
fn an_actor_that_is_not_a_mailbox_name_is_refused_with_a_hint() {
    // git's user.name is `Test User`: a space, so no mailbox of that name.
    let repo = Repo::initialised();
    let before = repo.commit_count();
    let err = repo.fails(&["mail", "send", "mayor/", "-s", "x", "-m", "y"], 2);
    assert!(
        err.contains("the actor 'Test User' is not a valid mailbox name"),
        "{err}"
    );
    assert!(err.contains("pass --from ADDR"), "{err}");
    assert!(err.contains("vermas config set mail.from ADDR"), "{err}");
    let err = repo.fails(&["mail", "inbox"], 2);
    assert!(
        err.contains("the actor 'Test User' is not a valid mailbox name"),
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
    let out = repo.run(&["mail", "send", "mayor/", "-s", "x", "-m", "y", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(v["error"].as_str().unwrap().contains("'Test User'"), "{v}");
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

#[test]
fn question_flow_two_processes_with_mail_wait() {
    let repo = mail_repo();
    let q = send(
        &repo,
        "mayor/",
        "NEEDS_CLARIFICATION: vm-k3f9",
        &["--from", "inspector/judge", "-t", "task"],
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let started = Instant::now();
    let waiter = spawn(&repo, &["mail", "wait", &q, "--timeout", "60s", "--json"]);
    std::thread::sleep(Duration::from_millis(1200));
    // The mayor reads the question and answers from another process.
    let inbox = repo.json(&["mail", "inbox", "mayor/", "--unread"]);
    assert_eq!(ids(&inbox), std::slice::from_ref(&q));
    repo.ok(&["mail", "read", &q]);
    let r = repo.json(&[
        "mail",
        "reply",
        &q,
        "-m",
        "GitHub Actions",
        "--from",
        "mayor/",
    ]);
    let out = waiter.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(30));
    let got: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(got["id"], r["id"]);
    assert_eq!(got["reply_to"], q.as_str());
    assert_eq!(got["body"], "GitHub Actions");
    assert_eq!(got["schema_version"], 1);
    // Once the reply exists, waiting returns at once (human form).
    let t = Instant::now();
    let shown = repo.ok(&["mail", "wait", &q, "--timeout", "30s"]);
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(shown.contains("GitHub Actions"), "{shown}");
}

#[test]
fn wait_sees_an_answer_in_the_thread_sent_with_reply_to() {
    let repo = mail_repo();
    let q = send_id(&repo, "mayor/", "Q", &["--from", "inspector/"]);
    let waiter = spawn(&repo, &["mail", "wait", &q, "--timeout", "60s"]);
    std::thread::sleep(Duration::from_millis(500));
    repo.ok(&[
        "mail",
        "send",
        "inspector/",
        "-s",
        "A",
        "-m",
        "answer",
        "--reply-to",
        &q,
        "--from",
        "mayor/",
    ]);
    let out = waiter.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("answer"), "{}", stdout(&out));
}

#[test]
fn wait_times_out_with_exit_1() {
    let repo = mail_repo();
    let q = send_id(&repo, "mayor/", "Anyone?", &["--from", "inspector/"]);
    // A message of its own in the thread is no answer.
    repo.ok(&[
        "mail",
        "send",
        "mayor/",
        "-s",
        "Again",
        "-m",
        "x",
        "--from",
        "inspector/",
    ]);
    let t = Instant::now();
    let err = repo.fails(&["mail", "wait", &q, "--timeout", "400ms"], 1);
    assert!(t.elapsed() >= Duration::from_millis(400));
    assert!(
        err.contains(&format!("no reply to {q} within 400ms")),
        "{err}"
    );
    let err = repo.fails(&["mail", "wait", &q, "--timeout", "soon"], 2);
    assert!(err.contains("--timeout"), "{err}");
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let repo = mail_repo();
    let before = repo.commit_count();
    let cases: &[(&[&str], &str)] = &[
        (
            &["mail", "send", "alice", "-s", "x", "-m", "y"],
            "valid addresses: mayor/, inspector/, inspector/<role>, <name>/, <rig>/refinery, <rig>/<agent>, @<group>",
        ),
        (
            &["mail", "send", "a/b/c", "-s", "x", "-m", "y"],
            "not a mail address",
        ),
        (
            &[
                "mail", "send", "mayor/", "--cc", "bob", "-s", "x", "-m", "y",
            ],
            "'bob' is not a mail address",
        ),
        (
            &["mail", "send", "@team", "-s", "x", "-m", "y"],
            "unknown mail group '@team'",
        ),
        (
            &["mail", "send", "mayor/", "-s", "x", "-m", "y", "-t", "memo"],
            "unknown message type 'memo'",
        ),
        (
            &["mail", "send", "mayor/", "-s", "x", "-m", "y", "-p", "soon"],
            "unknown message priority 'soon'",
        ),
        (
            &["mail", "send", "mayor/", "-s", "  ", "-m", "y"],
            "the subject is empty",
        ),
        (&["mail", "send", "mayor/", "-s", "x"], "no body"),
        (
            &[
                "mail",
                "send",
                "mayor/",
                "-s",
                "x",
                "-m",
                "y",
                "--reply-to",
                "msg-nope",
            ],
            "no message matches 'msg-nope'",
        ),
        (
            &["mail", "read", "msg-nope"],
            "no message matches 'msg-nope'",
        ),
        (&["mail", "thread", "zzzz"], "no message matches 'zzzz'"),
        (&["mail", "archive", "msg-nope"], "no message matches"),
        (
            &["mail", "wait", "msg-nope", "--timeout", "1s"],
            "no message matches",
        ),
    ];
    for (args, want) in cases {
        let err = repo.fails(args, 2);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert_eq!(repo.commit_count(), before, "bad input made a commit");
    send(&repo, "mayor/", "one", &[]);
    send(&repo, "mayor/", "two", &[]);
    let err = repo.fails(&["mail", "read", "msg-"], 2);
    assert!(err.contains("ambiguous"), "{err}");
    let out = repo.run(&["mail", "read", "msg-", "--json"]);
    let v: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(v["code"], "ambiguous");
    let out = repo.run(&["mail", "read", "msg-nope", "--json"]);
    let v: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(v["code"], "not_found");
}

#[test]
fn a_malformed_message_is_reported_and_the_others_still_listed() {
    let repo = mail_repo();
    let good = send_id(&repo, "mayor/", "fine", &[]);
    repo.write(
        ".beads/mail/mayor/msg-bad1.md",
        "---\nid: msg-bad1\nfrom: x\nto: mayor/\nsubject: s\npriority: soon\ncreated_at: 2026-01-01T00:00:00Z\n---\n",
    );
    let out = repo.run(&["mail", "inbox", "mayor/", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let inbox: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ids(&inbox), [good]);
    let warn = stderr(&out);
    assert!(warn.contains(".beads/mail/mayor/msg-bad1.md:6:"), "{warn}");
    let human = repo.run(&["mail", "inbox", "mayor/"]);
    assert!(stderr(&human).contains("warning"), "{}", stderr(&human));
    let err = repo.fails(&["mail", "read", "msg-bad1"], 2);
    assert!(err.contains("msg-bad1.md:6:"), "{err}");
    let out = repo.run(&["mail", "read", "msg-bad1", "--json"]);
    let v: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(
        (v["code"].as_str(), v["line"].as_u64()),
        (Some("parse"), Some(6))
    );
    // A file whose id is not its name is refused too.
    repo.write(
        ".beads/mail/mayor/msg-bad2.md",
        "---\nid: msg-other\nfrom: x\nto: mayor/\nsubject: s\ncreated_at: 2026-01-01T00:00:00Z\n---\n",
    );
    let err = repo.fails(&["mail", "read", "msg-bad2"], 2);
    assert!(err.contains("does not match the file name"), "{err}");
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
