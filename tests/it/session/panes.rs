//! The session's status line and what its panes run.

use super::*;

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
fn the_status_line_counts_mail_pending_test_specs_and_the_refinery_queue() {
    if !have_tmux() {
        return;
    }
    let repo = repo_with_a_branch();
    // No .beads/mq folder yet: an empty queue.
    assert_eq!(
        repo.ok(&["status-line"]).trim(),
        "mayor: 0 unread | inspector: 0 unread | pending test specs: 0 | refinery queue: 0"
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
        "mayor: 2 unread | inspector: 1 unread | pending test specs: 1 | refinery queue: 1",
        "{}",
        stderr(&line)
    );

    let v = repo.json(&["status-line"]);
    assert_eq!(v["refinery_queued"], 1);
    assert_eq!(v["pending_test_specs"], 1);
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
