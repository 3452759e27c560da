//! Running the gate command: commands not found, timeouts, huge output, odd bytes.

use super::*;

/// True when process `pid` no longer runs (gone, or a zombie waiting to be reaped).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Err(_) => true,
        Ok(status) => status
            .lines()
            .find(|l| l.starts_with("State:"))
            .is_some_and(|l| l.contains('Z')),
    }
}

/// Waits up to `grace` for `pid` to be gone.
fn gone_within(pid: u32, grace: Duration) -> bool {
    let until = Instant::now() + grace;
    loop {
        if process_gone(pid) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pid(repo: &Repo, rel: &str) -> u32 {
    repo.read(rel)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{rel} holds no pid ({e})"))
}

#[test]
fn a_command_that_is_not_found_is_a_failure() {
    let (repo, id) = setup();
    for phase in ["red", "green", "implement"] {
        let g = expect(
            &repo,
            &[phase, &id, "--cmd", "definitely-not-a-command-7f3a --flag"],
            "reject_failure",
        );
        assert_eq!(g.json["exit_code"], 127);
        assert!(
            g.json["reason"]
                .as_str()
                .is_some_and(|r| r.contains("not found")),
            "{phase}: the reason says not found: {}",
            g.stdout
        );
    }
    // The human report says so too.
    let out = repo.run(&[
        "gate",
        "green",
        &id,
        "--cmd",
        "definitely-not-a-command-7f3a",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("not found"), "{}", stdout(&out));
    assert!(stdout(&out).contains("reject_failure"), "{}", stdout(&out));
    finish(&repo);
}

#[test]
fn a_hanging_command_times_out_and_its_whole_group_is_killed() {
    let (repo, id) = setup();
    // A test that already printed a failure, then hangs with a background grandchild.
    let cmd = "printf -- '--- FAIL: TestX (0.00s)\\n'; sleep 30 & echo $! > bg.pid; sleep 30";
    let g = gate(&repo, &["red", &id, "--cmd", cmd]);
    assert_ne!(
        g.class(),
        "accept",
        "a timeout is never accept: {}",
        g.stdout
    );
    assert_eq!(g.code, Some(1), "{}", g.stdout);
    assert!(g.json["exit_code"].is_null(), "killed: no exit code");
    assert!(
        g.json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("timed out")),
        "{}",
        g.stdout
    );
    assert!(
        g.elapsed < Duration::from_secs(10),
        "gates.timeout 1s: took {:?}",
        g.elapsed
    );
    let ms = g.json["duration_ms"].as_u64().expect("duration_ms");
    assert!((900..10_000).contains(&ms), "duration_ms {ms}");
    let pid = read_pid(&repo, "bg.pid");
    assert!(
        gone_within(pid, Duration::from_secs(3)),
        "background grandchild {pid} still runs"
    );

    // GREEN hanging: not accept either.
    let g = gate(&repo, &["green", &id, "--cmd", "sleep 30"]);
    assert_eq!((g.class() != "accept", g.code), (true, Some(1)));

    // A command that exits at once but leaves a grandchild holding the output open.
    let cmd = "sleep 30 & echo $! > bg2.pid; echo done";
    let g = expect(&repo, &["implement", &id, "--cmd", cmd], "accept");
    assert!(g.elapsed < Duration::from_secs(10), "took {:?}", g.elapsed);
    let pid = read_pid(&repo, "bg2.pid");
    assert!(
        gone_within(pid, Duration::from_secs(3)),
        "left-behind grandchild {pid} still runs"
    );
    finish(&repo);
}

#[test]
fn huge_output_is_capped_and_the_snippet_starts_at_the_first_failure() {
    let (repo, id) = setup();
    repo.ok(&["config", "set", "gates.timeout", "60s"]);
    let cmd = "echo preamble; printf -- '--- FAIL: TestHuge (0.00s)\\n'; \
               yes 'padding padding padding padding padding' | head -c 100000000; exit 1";
    let g = expect(&repo, &["red", &id, "--cmd", cmd], "accept");
    assert!(
        g.elapsed < Duration::from_secs(30),
        "100 MB took {:?}",
        g.elapsed
    );
    let snippet = g.json["snippet"].as_str().expect("snippet");
    assert!(snippet.len() <= 1024, "snippet is {} bytes", snippet.len());
    assert!(
        snippet.starts_with("--- FAIL: TestHuge"),
        "snippet starts at the failure: {snippet:.80}"
    );
    let size = std::fs::metadata(repo.join(&format!(".beads/results/{id}.yaml")))
        .expect("record")
        .len();
    assert!(size < 8 * 1024, "record file is {size} bytes");
    assert!(
        g.stdout.len() < 8 * 1024,
        "JSON is {} bytes",
        g.stdout.len()
    );
    let c = checks(&repo, &id);
    assert!(c[0]["snippet"].as_str().is_some_and(|s| s.len() <= 1024));

    // A failure line in the middle of moderate output: the snippet starts there.
    let noise = "echo 'noise line that is not interesting at all, just filler text here'";
    let cmd = format!(
        "for i in $(seq 60); do {noise}; done; echo '--- FAIL: TestMiddle (0.01s)'; \
         echo '    fizz_test.go:9: got 14'; for i in $(seq 60); do {noise}; done; exit 1"
    );
    let g = expect(&repo, &["red", &id, "--cmd", &cmd], "accept");
    let snippet = g.json["snippet"].as_str().expect("snippet");
    assert!(snippet.len() <= 1024, "snippet is {} bytes", snippet.len());
    assert!(
        snippet.starts_with("--- FAIL: TestMiddle (0.01s)\n    fizz_test.go:9: got 14\n"),
        "{snippet:.120}"
    );
    // GREEN with huge passing output.
    let g = expect(
        &repo,
        &["implement", &id, "--cmd", "head -c 20000000 /dev/zero"],
        "accept",
    );
    assert!(g.json["snippet"].as_str().is_some_and(|s| s.len() <= 1024));
    finish(&repo);
}

#[test]
fn non_utf8_and_control_bytes_keep_the_record_valid_yaml() {
    let (repo, id) = setup();
    let cmd = "printf 'bad \\377\\376 bytes \\300\\n\\033[31mred\\033[0m \\001\\002 \\r\\n\
               key: value\\n- item\\n# hash\\n\\000nul\\n--- FAIL: TestBytes \\377\\n'; exit 1";
    let g1 = expect(&repo, &["red", &id, "--cmd", cmd], "accept");
    assert_eq!(g1.json["attempt"], 1);
    record(&repo, &id);
    // vermas reads its own record back to append the second attempt.
    let g2 = expect(&repo, &["red", &id, "--cmd", cmd], "accept");
    assert_eq!(g2.json["attempt"], 2, "{}\n{}", g2.stdout, g2.stderr);
    let c = checks(&repo, &id);
    assert_eq!(c.len(), 2);
    let snippet = c[1]["snippet"].as_str().expect("snippet");
    assert!(snippet.contains("TestBytes"), "{snippet:?}");
    assert_eq!(c[1]["attempt"], 2);
    // And a third, GREEN this time, still reads it.
    expect(
        &repo,
        &["green", &id, "--cmd", "printf '\\377ok\\n'"],
        "accept",
    );
    assert_eq!(checks(&repo, &id).len(), 3);
    finish(&repo);
}
