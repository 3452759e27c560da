//! `start` and `stop` outside and inside tmux, on a terminal or not, layout, and refusals.

use super::*;

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
