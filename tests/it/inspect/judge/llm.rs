//! The LLM command: failures, timeouts, stdin, configuration, the judge role, how it is run.

use super::*;

#[test]
fn llm_failures_are_errors_never_passes() {
    let t = Judged::new();
    let cases: &[(&str, &[&str])] = &[
        ("exit1", &["exit 1"]),
        ("empty", &[]),
        ("garbage", &[]),
        ("contradict", &[]),
    ];
    for (mode, words) in cases {
        let calls = t.calls();
        let r = t.run(&["status", "--judge"], mode);
        r.expect_code(3);
        assert!(
            r.stdout.contains("  [ERROR] The banner is shown"),
            "{mode}:\n{}",
            r.stdout
        );
        assert_eq!(
            r.last_line(),
            "0 passed, 0 failed, 0 skipped, 1 error",
            "{mode}"
        );
        let (r, o, why) = t.judge_json(mode, &[]);
        r.expect_code(3);
        assert_eq!(o, "ERROR", "{mode}");
        assert!(!why.is_empty(), "{mode}: an ERROR says why");
        for w in *words {
            assert!(why.contains(w), "{mode}: {why}");
        }
        assert_eq!(
            t.calls(),
            calls + 2,
            "{mode}: a reply without a verdict is not cached"
        );
    }
}

#[test]
fn a_hanging_llm_times_out_and_is_killed() {
    let t = Judged::new();
    t.repo.ok(&["config", "set", "llm.timeout", "1s"]);
    let (r, o, why) = t.judge_json("hang", &[]);
    let pids = read_pids(&t.repo, &[&t.pidfile().display().to_string()]);
    let left = wait_gone(&pids, Duration::from_secs(3));
    kill_all(&left);
    r.expect_code(3);
    assert_eq!(o, "ERROR");
    assert!(why.contains("timed out"), "{why}");
    assert!(r.elapsed < Duration::from_secs(15), "took {:?}", r.elapsed);
    assert!(
        left.is_empty(),
        "the LLM's processes are left running: {left:?}"
    );
}

#[test]
fn a_timeout_option_on_the_judge_link_bounds_the_call() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] The banner is shown\n  [judge](tests/judges/ui.sh#test_banner \"timeout=1s\")\n",
    );
    let (r, o, why) = t.judge_json("hang", &[]);
    let pids = read_pids(&t.repo, &[&t.pidfile().display().to_string()]);
    kill_all(&wait_gone(&pids, Duration::from_secs(3)));
    r.expect_code(3);
    assert_eq!(o, "ERROR");
    assert!(why.contains("timed out"), "{why}");
    assert!(r.elapsed < Duration::from_secs(15), "took {:?}", r.elapsed);
}

/// Makes the judged file big enough that the prompt (about 300 KB) cannot fit in a pipe
/// buffer: an LLM command that exits without reading all of stdin then always closes the
/// pipe while vermas is still writing the prompt.
fn big_prompt(t: &Judged) {
    t.repo
        .ok(&["config", "set", "judge.max_file_bytes", "1000000"]);
    let mut big = String::from("<BANNER> Welcome\n");
    while big.len() < 300_000 {
        big.push_str("some more of the page, line after line\n");
    }
    t.repo.write("src/ui.txt", &big);
}

#[test]
fn an_llm_command_that_ignores_stdin_does_not_break_vermas() {
    let t = Judged::new();
    big_prompt(&t);
    t.repo.ok(&[
        "config",
        "set",
        "llm.command",
        "echo PASS; echo answered without reading the prompt",
    ]);
    let (r, o, why) = t.judge_json("pass", &[]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert!(why.contains("answered without reading"), "{why}");
}

#[test]
fn a_missing_or_empty_llm_command_says_how_to_configure_it() {
    let t = Judged::new();
    // (A big prompt makes the outcome independent of how fast `sh` gives up.)
    big_prompt(&t);
    for command in [
        "/nonexistent/vermas-no-such-llm -p",
        "vermas-no-such-llm-command -p",
        "",
    ] {
        t.repo.write_llm_command(command);
        let r = t.run(&["status", "--judge"], "pass");
        r.expect_code(3);
        assert!(
            r.stdout.contains("  [ERROR] The banner is shown"),
            "{command:?}:\n{}",
            r.stdout
        );
        assert!(
            r.stdout.contains("llm.command"),
            "{command:?}: the error tells how to configure the LLM:\n{}",
            r.stdout
        );
        let (_, o, why) = t.judge_json("pass", &[]);
        assert_eq!(o, "ERROR", "{command:?}");
        assert!(why.contains("llm.command"), "{command:?}: {why}");
    }
    assert_eq!(t.calls(), 0);
}

#[test]
fn the_judge_role_may_have_its_own_command() {
    let t = Judged::new();
    t.repo.write_llm_command("vermas-no-such-llm-command");
    t.repo.ok(&[
        "config",
        "set",
        "llm.roles.judge",
        &format!("'{}'", fake_llm().display()),
    ]);
    let (r, o, _) = t.judge_json("pass", &[]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert_eq!(t.calls(), 1);
}

#[test]
fn the_llm_command_runs_with_sh_in_the_repo_root_with_the_prompt_on_stdin() {
    let t = Judged::new();
    // A compound command only `sh -c` understands; it records where it ran.
    t.repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("pwd -P > llm-cwd.txt; '{}'", fake_llm().display()),
    ]);
    let r = vermas(
        &t.repo,
        &["status", "--judge"],
        Opts {
            env: vec![
                ("FAKE_LLM_MODE", "keyword".into()),
                ("FAKE_LLM_LOG", t.log().display().to_string()),
                ("FAKE_LLM_PROMPTS", t.prompts_dir().display().to_string()),
            ],
            dir: Some(t.repo.join("src")),
            ..Opts::default()
        },
    );
    r.expect_code(0);
    assert!(
        r.stdout.contains("  [PASS] The banner is shown"),
        "{}",
        r.stdout
    );
    let root = std::fs::canonicalize(t.repo.path()).expect("canon");
    assert_eq!(t.repo.read("llm-cwd.txt").trim(), root.to_string_lossy());
    assert!(!t.repo.join("src/llm-cwd.txt").exists());
    assert_eq!(t.calls(), 1);
    assert!(t.prompts()[0].contains("<BANNER> Welcome"));
}
