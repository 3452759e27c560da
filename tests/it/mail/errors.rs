//! Bad input and malformed messages.

use super::*;

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
