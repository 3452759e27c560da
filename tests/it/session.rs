//! The two-pane session (issue 11 item 3): `start` and `stop` against a real tmux server
//! of each test's own (`TMUX_TMPDIR` in a temporary folder, killed at the end even when
//! the test fails), outside tmux (a session `vermas-<repo>`) and inside it (`$TMUX`
//! pointing at the test's server: a new window); the status line the session shows; and
//! the `mail inbox --watch` / `inspect pending --watch` views its panes run, driven in
//! plain mode through a pipe.

use crate::common::*;
use crate::session_support::*;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

#[test]
fn start_without_a_terminal_opens_two_panes_and_prints_the_attach_command() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let name = session_of(&repo);
    let before = repo.commit_count();

    let out = server.vermas_ok(&repo, &["start"]);
    assert!(out.contains(&format!("Started session {name}")), "{out}");
    assert!(
        out.contains(&format!("Attach with: tmux attach -t {name}")),
        "{out}"
    );
    assert_eq!(server.sessions(&repo), vec![name.clone()]);

    let panes = server.wait_running(&repo, &format!("={name}:"));
    let (left, right) = (&panes[0], &panes[1]);
    assert_eq!(left.left, 0, "{panes:?}");
    assert!(right.left > left.width, "the inspector is right: {panes:?}");
    assert!(
        left.start.contains("vermas mail inbox mayor/ --watch"),
        "{left:?}"
    );
    assert!(
        right.start.contains("vermas inspect pending --watch"),
        "{right:?}"
    );
    assert_eq!(
        (left.role.as_str(), right.role.as_str()),
        ("mayor", "inspector")
    );
    // Default ratio: half and half (one column goes to the border).
    assert!(left.width.abs_diff(right.width) <= 1, "{panes:?}");

    server.wait_for_text(&repo, &format!("={name}:.0"), "No messages for mayor/.");
    server.wait_for_text(&repo, &format!("={name}:.1"), "No test specs waiting");

    // Starting writes nothing and commits nothing.
    assert_eq!(repo.commit_count(), before);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn a_second_start_reuses_the_session_and_stop_removes_it() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let name = session_of(&repo);
    server.vermas_ok(&repo, &["start"]);
    server.wait_running(&repo, &format!("={name}:"));

    let again = server.vermas_ok(&repo, &["start"]);
    assert!(
        again.contains(&format!("Session {name} is running already")),
        "{again}"
    );
    assert!(again.contains("Attach with: tmux attach -t"), "{again}");
    assert_eq!(server.sessions(&repo), vec![name.clone()]);
    let windows = server.ok(&repo, &["list-windows", "-a", "-F", "#{window_id}"]);
    assert_eq!(windows.lines().count(), 1, "{windows}");
    assert_eq!(server.panes(&repo, &format!("={name}:")).len(), 2);

    let json = server.vermas(&repo, &["start", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["session"], name.as_str());
    assert_eq!(v["created"], false);
    assert_eq!(v["attached"], false);
    assert_eq!(v["panes"][0]["role"], "mayor");

    let out = server.vermas_ok(&repo, &["stop"]);
    assert_eq!(out.trim(), format!("Stopped session {name}"));
    assert!(server.sessions(&repo).is_empty());

    let out = server.vermas_ok(&repo, &["stop"]);
    assert!(out.starts_with("No vermas session is running for"), "{out}");
}

#[test]
fn stop_with_no_tmux_server_at_all_says_nothing_runs() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let out = server.vermas_ok(&repo, &["stop"]);
    assert!(
        out.contains("No vermas session is running") && out.contains("nothing to stop"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&server.vermas(&repo, &["stop", "--json"]).stdout).expect("JSON");
    assert_eq!(v["stopped"], serde_json::json!([]));
}

#[test]
fn the_ratio_comes_from_layout_and_survives_a_resize() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "layout.ratio", "30"]);
    let server = Server::new();
    let name = session_of(&repo);
    server.vermas_ok(&repo, &["start"]);
    let window = format!("={name}:");
    let panes = server.wait_running(&repo, &window);
    let share = |p: &[PaneInfo]| p[0].width * 100 / p[0].window_width;
    assert!(share(&panes).abs_diff(30) <= 2, "{panes:?}");

    // A client of another size (here: the window resized) keeps the ratio.
    server.ok(
        &repo,
        &["resize-window", "-t", &window, "-x", "200", "-y", "40"],
    );
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let panes = server.panes(&repo, &window);
        if panes[0].window_width == 200 && share(&panes).abs_diff(30) <= 1 {
            break;
        }
        assert!(Instant::now() < until, "ratio lost on resize: {panes:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `git init`, vermas with test specs, a commit and a branch `feature` one commit ahead.
fn repo_with_a_branch() -> Repo {
    let repo = Repo::initialised_with_test_specs();
    repo.git(&["switch", "-q", "-c", "feature"]);
    repo.write("feature.txt", "new\n");
    repo.git(&["add", "feature.txt"]);
    repo.git(&["commit", "-q", "-m", "feature"]);
    repo.git(&["switch", "-q", "main"]);
    repo
}

#[test]
fn the_status_line_counts_mail_pending_specs_and_the_refinery_queue() {
    if !have_tmux() {
        return;
    }
    let repo = repo_with_a_branch();
    // No .beads/mq folder yet: an empty queue.
    assert_eq!(
        repo.ok(&["status-line"]).trim(),
        "mayor: 0 unread | inspector: 0 unread | pending specs: 0 | refinery queue: 0"
    );
    let work = repo.create("Ship the feature", &[]);
    for subject in ["one", "two"] {
        repo.ok(&[
            "mail", "send", "mayor/", "-s", subject, "-m", "x", "--from", "alice/",
        ]);
    }
    let read = repo.ok(&[
        "mail",
        "send",
        "inspector/",
        "-s",
        "three",
        "-m",
        "x",
        "--from",
        "alice/",
    ]);
    let msg = read.split_whitespace().nth(1).expect("message id");
    repo.ok(&["mail", "read", msg]);
    repo.ok(&["refinery", "submit", "feature", "--bead", &work]);

    let server = Server::new();
    let name = session_of(&repo);
    server.vermas_ok(&repo, &["start"]);
    server.wait_running(&repo, &format!("={name}:"));
    let opts = server.ok(
        &repo,
        &[
            "show-options",
            "-t",
            &format!("={name}:"),
            "status-interval",
        ],
    );
    assert_eq!(opts.trim(), "status-interval 5");
    let right = server.ok(
        &repo,
        &[
            "show-options",
            "-v",
            "-t",
            &format!("={name}:"),
            "status-right",
        ],
    );
    let command = right
        .trim()
        .strip_prefix("#(")
        .and_then(|c| c.strip_suffix(')'))
        .unwrap_or_else(|| panic!("status-right runs no command: {right}"));
    assert!(command.ends_with("status-line"), "{command}");

    // Run it as tmux does, from anywhere: it finds the repository itself.
    let line = Command::new("sh")
        .args(["-c", command])
        .current_dir("/")
        .env("HOME", repo.path())
        .env_remove("BEADS_DIR")
        .output()
        .expect("sh");
    assert_eq!(
        stdout(&line).trim(),
        // The inspector's one unread message is the new test spec's notice; the read one
        // does not count.
        "mayor: 2 unread | inspector: 1 unread | pending specs: 1 | refinery queue: 1",
        "{}",
        stderr(&line)
    );

    let v = repo.json(&["status-line"]);
    assert_eq!(v["refinery_queued"], 1);
    assert_eq!(v["pending_specs"], 1);
}

#[test]
fn inside_tmux_start_opens_a_window_and_stop_closes_only_it() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let root = repo.path().display().to_string();
    server.ok(
        &repo,
        &[
            "new-session",
            "-d",
            "-s",
            "work",
            "-n",
            "base",
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            &root,
            "sleep 600",
        ],
    );
    let ids = server.ok(
        &repo,
        &[
            "display-message",
            "-p",
            "-t",
            "work",
            "#{pid},#{session_id},#{pane_id}",
        ],
    );
    let ids: Vec<&str> = ids.trim().split(',').collect();
    let tmux_var = format!(
        "{},{},{}",
        server.socket(),
        ids[0],
        ids[1].trim_start_matches('$')
    );
    let inside = |args: &[&str]| -> Output {
        repo.cmd(args)
            .env("TMUX", &tmux_var)
            .env("TMUX_PANE", ids[2])
            .output()
            .expect("run vermas")
    };
    let name = session_of(&repo);

    let out = inside(&["start"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(&format!("Opened window {name}")), "{text}");
    assert!(text.contains("in session work"), "{text}");
    assert!(!text.contains("Attach with"), "{text}");
    assert_eq!(server.sessions(&repo), vec!["work".to_string()]);
    let windows = server.ok(
        &repo,
        &["list-windows", "-t", "work", "-F", "#{window_name}"],
    );
    assert_eq!(
        windows.lines().collect::<Vec<_>>(),
        vec!["base", name.as_str()]
    );
    let target = format!("work:{name}");
    let panes = server.wait_running(&repo, &target);
    assert!(
        panes[0].start.contains("mail inbox mayor/ --watch"),
        "{panes:?}"
    );
    assert!(
        panes[1].start.contains("inspect pending --watch"),
        "{panes:?}"
    );
    // The status line is the user's: vermas shows its own on the panes' borders.
    let border = server.ok(
        &repo,
        &[
            "show-options",
            "-w",
            "-v",
            "-t",
            &target,
            "pane-border-format",
        ],
    );
    assert!(border.contains("status-line)"), "{border}");
    let status = server.ok(&repo, &["show-options", "-v", "-t", "work", "status-right"]);
    assert!(!status.contains("vermas"), "{status}");

    let again = inside(&["start"]);
    assert!(
        stdout(&again).contains("is open already"),
        "{}",
        stdout(&again)
    );
    let windows = server.ok(
        &repo,
        &["list-windows", "-t", "work", "-F", "#{window_name}"],
    );
    assert_eq!(windows.lines().count(), 2, "{windows}");

    let out = inside(&["stop"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!("Stopped window {name}")),
        "{}",
        stdout(&out)
    );
    let windows = server.ok(
        &repo,
        &["list-windows", "-t", "work", "-F", "#{window_name}"],
    );
    assert_eq!(windows.trim(), "base", "only the user's window is left");
}

#[test]
fn an_agent_follows_the_watch_in_its_pane() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.ok(&[
        "config",
        "set",
        "agents.mayor",
        "echo MAYOR-AGENT-UP; sleep 600",
    ]);
    let server = Server::new();
    let name = session_of(&repo);
    server.vermas_ok(&repo, &["start"]);
    let panes = server.wait_running(&repo, &format!("={name}:"));
    assert!(
        panes[0]
            .start
            .contains("mail inbox mayor/ --watch; echo MAYOR-AGENT-UP; sleep 600"),
        "{panes:?}"
    );
    assert!(!panes[1].start.contains("MAYOR-AGENT-UP"), "{panes:?}");
    let left = format!("={name}:.0");
    server.wait_for_text(&repo, &left, "No messages for mayor/.");
    // Ctrl-C ends the watch, and the agent takes the pane over.
    server.ok(&repo, &["send-keys", "-t", &left, "C-c"]);
    server.wait_for_text(&repo, &left, "MAYOR-AGENT-UP");
}

#[test]
fn a_pane_command_from_config_replaces_the_default() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.ok(&[
        "config",
        "set",
        "layout.right.command",
        "echo CUSTOM-RIGHT; sleep 600",
    ]);
    repo.ok(&["config", "set", "layout.right.role", "critic"]);
    let server = Server::new();
    let name = session_of(&repo);
    server.vermas_ok(&repo, &["start"]);
    let right = format!("={name}:.1");
    server.wait_for_text(&repo, &right, "CUSTOM-RIGHT");
    let panes = server.panes(&repo, &format!("={name}:"));
    assert_eq!(panes[1].role, "critic");
    assert!(panes[1].start.contains("echo CUSTOM-RIGHT"), "{panes:?}");
}

#[test]
fn on_a_terminal_start_attaches_and_ends_when_the_client_detaches() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let name = session_of(&repo);
    let mut term = terminal(&server, &repo, &["start"]);
    wait_attached(&server, &repo, &name, &term);
    // The session was made the terminal's size, less tmux's status line.
    let size = server.ok(
        &repo,
        &[
            "display-message",
            "-p",
            "-t",
            &format!("={name}:"),
            "#{window_width}x#{window_height}",
        ],
    );
    assert_eq!(size.trim(), "100x29");
    server.ok(&repo, &["detach-client", "-s", &format!("={name}")]);
    assert_eq!(term.wait_for(Duration::from_secs(15)), 0, "{}", term.text());
    assert!(
        term.text().contains(&format!("Started session {name}")),
        "{}",
        term.text()
    );
    assert!(!term.text().contains("Attach with"), "{}", term.text());
    assert_eq!(
        server.sessions(&repo),
        vec![name.clone()],
        "detaching keeps it running"
    );

    // --attach to the running one; --detach leaves it alone even on a terminal.
    let mut again = terminal(&server, &repo, &["start", "--attach"]);
    wait_attached(&server, &repo, &name, &again);
    server.ok(&repo, &["detach-client", "-s", &format!("={name}")]);
    assert_eq!(
        again.wait_for(Duration::from_secs(15)),
        0,
        "{}",
        again.text()
    );
    assert!(
        again.text().contains("is running already"),
        "{}",
        again.text()
    );
    let mut detached = terminal(&server, &repo, &["start", "--detach"]);
    assert_eq!(
        detached.wait_for(Duration::from_secs(15)),
        0,
        "{}",
        detached.text()
    );
    assert!(
        detached.text().contains("Attach with: tmux attach -t"),
        "{}",
        detached.text()
    );
}

#[test]
fn start_attach_without_a_terminal_is_refused_and_starts_nothing() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let out = server.vermas(&repo, &["start", "--attach"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--attach needs a terminal"),
        "{}",
        stderr(&out)
    );
    assert!(server.sessions(&repo).is_empty());
    let out = server.vermas(&repo, &["start", "--attach", "--detach"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_session_of_the_same_name_for_another_folder_is_not_taken_over() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    let server = Server::new();
    let name = session_of(&repo);
    server.ok(
        &repo,
        &["new-session", "-d", "-s", &name, "-c", "/", "sleep 600"],
    );
    let out = server.vermas(&repo, &["start"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "a tmux session named {name} is running, but not for"
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.panes(&repo, &format!("={name}:")).len(), 1);
}

#[test]
fn without_tmux_on_path_start_and_stop_say_so() {
    let repo = Repo::initialised();
    let empty = tempfile::tempdir().expect("tempdir");
    for args in [&["start"][..], &["stop"][..]] {
        let out = repo
            .cmd(args)
            .env("PATH", empty.path())
            .output()
            .expect("run vermas");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("tmux is not installed"), "{err}");
        assert!(err.contains("install tmux"), "{err}");
    }
}

#[test]
fn bad_layout_settings_are_refused_with_their_key() {
    let repo = Repo::initialised();
    let cases: &[(&str, &str, &str)] = &[
        ("layout.ratio", "95", "layout.ratio must be from 10 to 90"),
        ("layout.ratio", "half", "layout.ratio"),
        (
            "layout.left.role",
            "poet",
            "unknown role 'poet' in layout.left.role",
        ),
        ("agents.poet", "claude", "unknown role 'poet' in agents"),
        ("agents.mayor", " ", "agents.mayor is empty"),
        ("layout.middle", "x", "unknown config key 'layout.middle'"),
    ];
    for (key, value, want) in cases {
        let err = repo.fails(&["config", "set", key, value], 2);
        assert!(err.contains(want), "{key}={value}: {err}");
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // By hand: the error points at the line.
    let text = repo.read(".beads/vermas.yaml");
    repo.write(".beads/vermas.yaml", &text.replace("ratio: 50", "ratio: 5"));
    let err = repo.fails(&["start"], 2);
    assert!(err.contains("layout.ratio must be from 10 to 90"), "{err}");
    assert!(err.contains("vermas.yaml:"), "{err}");
}

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
