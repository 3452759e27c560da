//! Timeouts and output caps: hanging tests, background processes, huge output.

use super::*;

/// Polls until every pid file exists.
fn wait_for_files(repo: &Repo, files: &[&str]) {
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while !files.iter().all(|f| repo.join(f).exists()) {
        assert!(
            std::time::Instant::now() < until,
            "pid files never appeared: {files:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_hanging_test_times_out_and_its_whole_process_group_is_killed() {
    let repo = Repo::initialised();
    repo.write(
        "specs/hang.md",
        "# Hang\n\n## Success Criteria\n\n- [ ] Hangs [verify](tests/hang.sh#test_hang \"timeout=1s\")\n- [ ] Quick [verify](tests/hang.sh#test_quick)\n",
    );
    repo.write(
        "tests/hang.sh",
        r#"test_hang() {
  sleep 300 &
  echo $! > child.pid
  bash -c 'sleep 300 & echo $! > grandchild.pid; wait' &
  echo $! > middle.pid
  echo started
  wait
}
test_quick() { echo quick; }
"#,
    );
    let r = vermas(
        &repo,
        &["status", "--verify", "--json"],
        Opts {
            deadline: Some(Duration::from_secs(60)),
            ..Opts::default()
        },
    );
    wait_for_files(&repo, &["child.pid", "middle.pid", "grandchild.pid"]);
    let pids = read_pids(&repo, &["child.pid", "middle.pid", "grandchild.pid"]);
    let left = wait_gone(&pids, Duration::from_secs(3));
    kill_all(&left);
    let j = r.json();
    r.expect_code(3);
    assert_eq!(outcome(&j, "Hangs"), "ERROR", "{j:#}");
    assert!(
        reason(&j, "Hangs").contains("timed out"),
        "{}",
        reason(&j, "Hangs")
    );
    let hang = &criterion(&j, "Hangs")["checks"][0];
    assert!(
        hang["output"]
            .as_str()
            .is_some_and(|o| o.contains("started")),
        "output written before the timeout is kept: {hang:#}"
    );
    assert_eq!(outcome(&j, "Quick"), "PASS");
    assert!(
        r.elapsed < Duration::from_secs(15),
        "a 1s timeout took {:?}",
        r.elapsed
    );
    assert!(
        left.is_empty(),
        "processes left running after the timeout: {left:?} (of child, middle, grandchild {pids:?})"
    );
}

#[test]
fn a_background_process_holding_the_output_does_not_stall_a_passing_test() {
    let repo = Repo::initialised();
    repo.write(
        "specs/bg.md",
        "# Bg\n\n## Success Criteria\n\n- [ ] Leaves a child [verify](tests/bg.sh#test_bg \"timeout=20s\")\n",
    );
    repo.write(
        "tests/bg.sh",
        "test_bg() {\n  sleep 300 &\n  echo $! > bg.pid\n  echo done\n}\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let pids = read_pids(&repo, &["bg.pid"]);
    let left = wait_gone(&pids, Duration::from_secs(3));
    kill_all(&left);
    r.expect_code(0);
    assert_eq!(outcome(&r.json(), "Leaves a child"), "PASS", "{}", r.stdout);
    assert!(r.elapsed < Duration::from_secs(15), "took {:?}", r.elapsed);
}

#[test]
fn a_test_printing_100_mb_finishes_with_its_output_capped() {
    let repo = Repo::initialised();
    repo.write(
        "specs/flood.md",
        "# Flood\n\n## Success Criteria\n\n- [ ] Floods and fails [verify](tests/flood.sh#test_flood \"timeout=60s\")\n- [ ] Floods one line [verify](tests/flood.sh#test_line \"timeout=60s\")\n",
    );
    repo.write(
        "tests/flood.sh",
        "test_flood() {\n  yes | head -c 100000000\n  echo 'final line'\n  return 1\n}\ntest_line() {\n  head -c 100000000 /dev/zero | tr '\\0' x\n}\n",
    );
    let r = vermas(
        &repo,
        &["status", "--verify", "--json", "--junit", "flood.xml"],
        Opts {
            deadline: Some(Duration::from_secs(60)),
            ..Opts::default()
        },
    );
    r.expect_code(1);
    let j = r.json();
    let cap = 1usize << 20;
    for (t, want) in [("Floods and fails", "FAIL"), ("Floods one line", "PASS")] {
        let c = criterion(&j, t);
        assert_eq!(c["outcome"], want, "{t}");
        let chk = &c["checks"][0];
        let out = chk["output"].as_str().expect("output");
        assert!(
            out.len() <= cap && out.len() >= cap / 2,
            "{t}: kept {} bytes, the cap is {cap}",
            out.len()
        );
        assert_eq!(chk["truncated"], true, "{t}: truncation is marked");
    }
    assert!(
        r.raw.len() < 4 * cap,
        "JSON holds capped output only: {} bytes",
        r.raw.len()
    );
    let xml = repo.read("flood.xml");
    assert_xml_well_formed(&xml);
    assert_eq!(xml.matches("<testcase").count(), 2);

    let r = vermas(
        &repo,
        &["status", "--verify"],
        Opts {
            deadline: Some(Duration::from_secs(60)),
            ..Opts::default()
        },
    );
    r.expect_code(1);
    assert!(
        r.stdout.contains("  [FAIL] Floods and fails"),
        "{}",
        &r.stdout[..r.stdout.len().min(2000)]
    );
    assert!(r.stdout.contains("  [PASS] Floods one line"));
    assert_eq!(r.last_line(), "1 passed, 1 failed, 0 skipped");
    assert!(
        r.stdout.len() < 64 * 1024,
        "the human report shows a snippet, not the flood: {} bytes",
        r.stdout.len()
    );
}

#[test]
fn verify_output_cap_comes_from_config() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "verify.output_cap", "1000"]);
    repo.write(
        "specs/cap.md",
        "# Cap\n\n## Success Criteria\n\n- [ ] Chatty [verify](tests/c.sh#test_chatty)\n",
    );
    repo.write("tests/c.sh", "test_chatty() { seq 1 10000; }\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(0);
    let c = criterion(&r.json(), "Chatty");
    let out = c["checks"][0]["output"].as_str().expect("output");
    assert!(
        out.len() <= 1000 && out.starts_with("1\n2\n3\n"),
        "{}",
        out.len()
    );
    assert_eq!(c["checks"][0]["truncated"], true);
}
