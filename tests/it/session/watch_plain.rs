//! `status --watch` outside tmux: frames written plainly to a pipe, usage errors for a zero
//! interval and for `--tmux` without a terminal, and a prompt end on termination signals.
//! The tmux side is in `watch_tmux.rs`.

use crate::common::*;
use crate::specs::support::*;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Sends signal `name` (as `kill` spells it) to `pid`.
fn signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(sent.success(), "kill -{name} {pid}");
}

/// Starts `status ARGS` outside tmux with stdout piped, lets it run for `for_`, then kills
/// it; returns whether it was still running, the stdout bytes and stderr.
fn piped_watch(repo: &Repo, args: &[&str], for_: Duration) -> (bool, Vec<u8>, String) {
    let mut child = command(repo, args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    std::thread::sleep(for_);
    let still_running = child.try_wait().expect("wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    let bytes = reader.join().expect("reader");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    (still_running, bytes, err)
}

#[test]
fn watch_piped_prints_plain_frames_without_escapes() {
    let repo = Repo::initialised();
    repo.create("Something to show", &[]);
    let (still_running, bytes, err) = piped_watch(
        &repo,
        &["status", "--watch", "1"],
        Duration::from_millis(2500),
    );
    let text = String::from_utf8_lossy(&bytes).into_owned();
    assert!(
        still_running,
        "--watch ended by itself:\n{text}\nstderr: {err}"
    );
    assert!(
        !bytes.contains(&0x1b),
        "no clear-screen or cursor escapes when stdout is a pipe:\n{text:?}"
    );
    assert!(
        text.matches("Ready: 1").count() >= 2,
        "the summary is drawn at least twice in 2.5 s:\n{text}\nstderr: {err}"
    );
    assert!(text.matches("Beads: 1").count() >= 2, "{text}");
    let frames = text.matches("vermas status  (every 1s").count();
    let separators = text.lines().filter(|l| *l == "---").count();
    assert!(frames >= 2, "{text}");
    assert_eq!(
        separators,
        frames - 1,
        "frames are separated by a `---` line:\n{text}"
    );
    assert!(
        !text.contains("Recent .beads commits"),
        "no feed pane outside tmux"
    );
}

#[test]
fn watch_zero_seconds_is_a_usage_error() {
    let repo = Repo::initialised();
    let r = vermas(
        &repo,
        &["status", "--watch", "0"],
        Opts {
            deadline: Some(Duration::from_secs(20)),
            ..Opts::default()
        },
    );
    r.expect_code(2);
    assert!(r.stderr.contains("--watch 0"), "{}", r.stderr);
    assert!(r.stderr.contains("at least 1 second"), "{}", r.stderr);
    assert!(
        !r.stdout.contains("vermas status"),
        "nothing drawn: {}",
        r.stdout
    );
}

#[test]
fn tmux_flag_outside_a_terminal_is_a_clear_error() {
    let repo = Repo::initialised();
    let r = vermas(
        &repo,
        &["status", "--watch", "1", "--tmux"],
        Opts {
            deadline: Some(Duration::from_secs(20)),
            ..Opts::default()
        },
    );
    r.expect_code(2);
    assert!(r.stderr.contains("--tmux needs a terminal"), "{}", r.stderr);
    assert!(!r.stderr.contains("open terminal failed"), "{}", r.stderr);
    assert!(
        !r.stdout.contains("vermas status"),
        "nothing drawn: {}",
        r.stdout
    );
}

/// Starts a watch outside tmux with stdout piped, waits for its first frame, sends signal
/// `name` (as `kill` spells it) and asserts it ends within two seconds.
fn assert_watch_ends_on(name: &str) {
    let repo = Repo::initialised();
    let mut child = command(&repo, &["status", "--watch", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let mut first = [0u8; 1];
    out.read_exact(&mut first).expect("a first frame");
    signal(child.id(), name);
    let until = Instant::now() + Duration::from_secs(2);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the watch was still running 2 s after SIG{name}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success(), "SIG{name} ends the watch: {status:?}");
}

#[test]
fn watch_ends_promptly_on_sigint_sigterm_and_sighup() {
    assert_watch_ends_on("INT");
    assert_watch_ends_on("TERM");
    assert_watch_ends_on("HUP");
}

#[test]
fn tmux_flag_needs_watch() {
    let repo = Repo::initialised();
    let r = run(&repo, &["status", "--tmux"]);
    r.expect_code(2);
    assert!(r.stderr.contains("--watch"), "{}", r.stderr);
}
