//! The question flow between two processes and `mail wait`.

use super::*;

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
