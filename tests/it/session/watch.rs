//! The `mail inbox --watch` and `inspect pending --watch` views, in plain mode through a pipe.

use super::*;

#[test]
fn mail_inbox_watch_redraws_when_a_message_arrives() {
    let repo = Repo::initialised();
    let watch = Watch::start(&repo, &["mail", "inbox", "mayor/", "--watch"]);
    watch.wait_for("the empty inbox", |t| t.contains("No messages for mayor/."));
    // Nothing changes: no new frame.
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(frames(&watch.text()), 1, "{}", watch.text());

    repo.ok(&[
        "mail",
        "send",
        "mayor/",
        "-s",
        "Merged the login fix",
        "-m",
        "x",
        "--from",
        "alice/",
    ]);
    let text = watch.wait_for("the new message", |t| t.contains("Merged the login fix"));
    assert_eq!(frames(&text), 2, "one new frame:\n{text}");
    let last = text.rsplit("---\n").next().unwrap_or_default();
    assert!(last.contains("mayor/: 1 message, 1 unread"), "{last}");
    assert!(!text.contains('\x1b'), "no escapes into a pipe: {text:?}");

    // Mail to someone else is not this inbox's change.
    repo.ok(&[
        "mail",
        "send",
        "inspector/",
        "-s",
        "Elsewhere",
        "-m",
        "x",
        "--from",
        "alice/",
    ]);
    std::thread::sleep(Duration::from_millis(800));
    assert!(!watch.text().contains("Elsewhere"));
    assert_eq!(frames(&watch.text()), 2, "{}", watch.text());
    watch.interrupt();
}

#[test]
fn inspect_pending_watch_redraws_when_a_spec_appears_and_is_approved() {
    let repo = Repo::initialised_with_test_specs();
    let watch = Watch::start(&repo, &["inspect", "pending", "--watch"]);
    watch.wait_for("the empty list", |t| t.contains("No test specs waiting"));
    let work = repo.create("Add dark mode", &[]);
    let text = watch.wait_for("the new spec", |t| t.contains(&work));
    assert!(text.contains("vermas inspect pending"), "{text}");
    let spec = repo.json(&["inspect", "pending"])[0]["id"]
        .as_str()
        .expect("spec id")
        .to_string();
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        "works",
        "--cmd",
        "true",
    ]);
    watch.wait_for("the added criterion", |t| {
        t.rsplit("---\n")
            .next()
            .is_some_and(|f| f.contains("1 criterion"))
    });
    repo.ok(&["inspect", "approve", &spec]);
    watch.wait_for("the list empty again", |t| {
        t.rsplit("---\n")
            .next()
            .is_some_and(|f| f.contains("No test specs waiting"))
    });
    watch.interrupt();
}

#[test]
fn watch_views_refuse_json_and_a_closed_pipe_ends_them() {
    let repo = Repo::initialised();
    for args in [
        &["mail", "inbox", "mayor/", "--watch", "--json"][..],
        &["inspect", "pending", "--watch", "--json"][..],
    ] {
        let err = repo.fails(args, 2);
        assert!(
            err.contains("does not combine with --json"),
            "{args:?}: {err}"
        );
    }
    // The reader going away ends the watch quietly.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' mail inbox mayor/ --watch | head -n 1",
            env!("CARGO_BIN_EXE_vermas")
        ))
        .current_dir(repo.path())
        .env("HOME", repo.path())
        .env_remove("TMUX")
        .output()
        .expect("sh");
    assert!(
        stdout(&out).starts_with("vermas mail inbox mayor/"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bad_addresses_and_folders_without_beads_are_refused() {
    let repo = Repo::initialised();
    let err = repo.fails(&["mail", "inbox", "no body", "--watch"], 2);
    assert!(err.contains("no body"), "{err}");
    let bare = Repo::new();
    for args in [
        &["start"][..],
        &["stop"][..],
        &["status-line"][..],
        &["mail", "inbox", "mayor/", "--watch"][..],
        &["inspect", "pending", "--watch"][..],
    ] {
        let err = bare.fails(args, 2);
        assert!(err.contains("no .beads folder"), "{args:?}: {err}");
    }
}
