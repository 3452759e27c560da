//! `vermas ralph status` on a plain vermas repository (no wrapix state): the beads ready,
//! in progress and awaiting input, redrawn with `--watch`; and `clarify --from-output`,
//! which turns an agent's `RALPH_CLARIFY: question` line into `awaiting:input`.

use crate::common::*;
use crate::specs::support::command;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// An initialised repository whose new beads wait for nothing.
fn plain_repo() -> Repo {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "specs.auto_create", "false"]);
    repo
}

#[test]
fn clarify_takes_the_question_from_an_agents_output() {
    let repo = plain_repo();
    let id = repo.create("Pick a CI", &[]);
    repo.write(
        "agent.log",
        "Looked at the workflows.\nRALPH_CLARIFY: GitHub Actions or Buildkite?\nRALPH_CLARIFY: a second one\n",
    );
    repo.ok(&["clarify", &id, "--from-output", "agent.log"]);
    let bead = repo.json(&["show", &id]);
    let text = bead.to_string();
    assert!(text.contains("awaiting:input"), "{text}");
    assert!(text.contains("GitHub Actions or Buildkite?"), "{text}");
    assert!(!text.contains("a second one"), "{text}");

    // From stdin, as Claude's stream JSON.
    let other = repo.create("Pick a database", &[]);
    let mut child = command(&repo, &["clarify", &other, "--from-output", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"type":"result","result":"Hmm.\nRALPH_CLARIFY: Postgres or SQLite?"}"#)
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert!(
        repo.json(&["show", &other])
            .to_string()
            .contains("Postgres or SQLite?")
    );

    // No question in the output: refused, nothing written.
    repo.write("done.log", "RALPH_COMPLETE\n");
    let commits = repo.commit_count();
    let err = repo.fails(&["clarify", &other, "--from-output", "done.log"], 2);
    assert!(err.contains("RALPH_CLARIFY"), "{err}");
    assert_eq!(repo.commit_count(), commits);
}

#[test]
fn ralph_status_without_ralphs_state_shows_the_repositorys_beads() {
    let repo = plain_repo();
    let ready = repo.create("Ready one", &[]);
    let busy = repo.create("Busy one", &[]);
    repo.ok(&["update", &busy, "--status", "in_progress"]);
    let asking = repo.create("Asking one", &[]);
    repo.write("agent.log", "RALPH_CLARIFY: Which region?\n");
    repo.ok(&["clarify", &asking, "--from-output", "agent.log"]);
    let out = repo.ok(&["ralph", "status"]);
    assert!(!out.contains("ralph plan"), "{out}");
    assert!(out.starts_with("Ralph Status: this repository\n"), "{out}");
    assert!(out.contains("  Ready:       1\n"), "{out}");
    assert!(out.contains("  Awaiting:    1\n"), "{out}");
    assert!(
        out.contains(&format!("Ready (1):\n  [ready] {ready}  Ready one\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("In Progress (1):\n  [current] {busy}  Busy one\n")),
        "{out}"
    );
    assert!(out.contains("Awaiting Input (1):"), "{out}");
    assert!(
        out.contains(&asking) && out.contains("\"Which region?\""),
        "{out}"
    );
}

/// Kills the watch when the test ends, however it ends.
struct Watch(Child);

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn ralph_status_watch_redraws_when_the_beads_change() {
    let repo = plain_repo();
    repo.create("First thing", &[]);
    let mut watch = Watch(
        command(&repo, &["ralph", "status", "-w"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn"),
    );
    let out = watch.0.stdout.take().expect("stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |want: &str| {
        let mut seen = Vec::new();
        loop {
            match lines.recv_timeout(Duration::from_secs(20)) {
                Ok(line) if line.contains(want) => return,
                Ok(line) => seen.push(line),
                Err(_) => panic!("no line with {want:?} in:\n{}", seen.join("\n")),
            }
        }
    };
    wait_for("First thing");
    repo.create("Second thing", &[]);
    wait_for("Second thing");
    assert!(
        watch.0.try_wait().unwrap().is_none(),
        "the watch keeps going"
    );
    let refused = repo.fails(&["ralph", "status", "--watch", "--verify"], 2);
    assert!(refused.contains("--watch"), "{refused}");
}
