//! Judge checks end to end (issue 3): rubric
//! files, the prompt, the LLM command (the scripted stand-in `fixtures/llm`), verdict
//! parsing, errors, the reply cache and sampling. Real repositories, the real binary.

use crate::common::*;
use crate::live_support::*;
use std::path::PathBuf;
use std::time::Duration;

/// The judged spec: its one criterion is on line 5.
const UI_SPEC: &str = "# UI\n\n## Success Criteria\n\n- [ ] The banner is shown\n  [judge](tests/judges/ui.sh#test_banner)\n";

const UI_RUBRIC: &str =
    "test_banner() {\n  judge_files src/ui.txt\n  judge_criterion \"The page shows a BANNER\"\n}\n";

/// A repository whose LLM is the fake, plus a scratch folder (outside the repository)
/// for the fake's call log, saved prompts and pid file.
struct Judged {
    repo: Repo,
    scratch: tempfile::TempDir,
}

impl Judged {
    /// The UI spec, its rubric and the judged file; `llm.command` is the fake.
    fn new() -> Judged {
        let repo = Repo::initialised();
        repo.ok(&[
            "config",
            "set",
            "llm.command",
            &format!("'{}'", fake_llm().display()),
        ]);
        repo.write("specs/ui.md", UI_SPEC);
        repo.write("tests/judges/ui.sh", UI_RUBRIC);
        repo.write("src/ui.txt", "line one\n<BANNER> Welcome\n");
        Judged {
            repo,
            scratch: tempfile::Builder::new()
                .prefix("vermas-llm")
                .tempdir()
                .expect("tempdir"),
        }
    }

    fn log(&self) -> PathBuf {
        self.scratch.path().join("calls.log")
    }

    fn prompts_dir(&self) -> PathBuf {
        self.scratch.path().join("prompts")
    }

    fn pidfile(&self) -> PathBuf {
        self.scratch.path().join("llm.pids")
    }

    /// LLM calls made so far.
    fn calls(&self) -> usize {
        line_count(&self.log())
    }

    /// Every prompt the fake was sent.
    fn prompts(&self) -> Vec<String> {
        std::fs::read_dir(self.prompts_dir())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).expect("prompt"))
            .collect()
    }

    /// Runs vermas with the fake in `mode` (and extra environment).
    fn run_with(&self, args: &[&str], mode: &str, extra: &[(&'static str, &str)]) -> Run {
        let mut env = vec![
            ("FAKE_LLM_MODE", mode.to_string()),
            ("FAKE_LLM_LOG", self.log().display().to_string()),
            ("FAKE_LLM_PROMPTS", self.prompts_dir().display().to_string()),
            ("FAKE_LLM_PIDFILE", self.pidfile().display().to_string()),
        ];
        env.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        vermas(
            &self.repo,
            args,
            Opts {
                env,
                deadline: Some(Duration::from_secs(60)),
                ..Opts::default()
            },
        )
    }

    fn run(&self, args: &[&str], mode: &str) -> Run {
        self.run_with(args, mode, &[])
    }

    /// `status --judge --json` in `mode`, the criterion's outcome and reason.
    fn judge_json(&self, mode: &str, extra: &[&str]) -> (Run, String, String) {
        let mut args = vec!["status", "--judge", "--json"];
        args.extend_from_slice(extra);
        let r = self.run(&args, mode);
        let j = r.json();
        let (o, why) = (
            outcome(&j, "The banner is shown"),
            reason(&j, "The banner is shown"),
        );
        (r, o, why)
    }
}

#[test]
fn a_passing_judge_shows_its_reasoning() {
    let t = Judged::new();
    let r = t.run(&["status", "--judge"], "pass");
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "Judge: ui", "{}", r.stdout);
    assert!(
        lines.contains(&"  [PASS] The banner is shown"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .lines()
            .any(|l| l.contains("tests/judges/ui.sh#test_banner") && l.contains("specs/ui.md:5")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("The fake judge read the files and found the criterion met."),
        "the reasoning is shown under a PASS:\n{}",
        r.stdout
    );
    assert_eq!(r.last_line(), "1 passed, 0 failed, 0 skipped");
    assert_eq!(t.calls(), 1);
    let (_, o, why) = t.judge_json("pass", &[]);
    assert_eq!(o, "PASS");
    assert!(why.contains("found the criterion met"), "{why}");
}

#[test]
fn a_failing_judge_fails_the_run_with_its_reasoning() {
    let t = Judged::new();
    let r = t.run(&["status", "--judge"], "fail");
    r.expect_code(1);
    assert!(
        r.stdout.contains("  [FAIL] The banner is shown"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("found the criterion unmet"),
        "{}",
        r.stdout
    );
    assert_eq!(r.last_line(), "0 passed, 1 failed, 0 skipped");
}

#[test]
fn json_and_decorated_replies_are_understood() {
    let t = Judged::new();
    let (r, o, why) = t.judge_json("json-pass", &["--no-cache"]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert!(why.contains("fake json judge"), "{why}");
    let (r, o, _) = t.judge_json("json-fail", &["--no-cache"]);
    r.expect_code(1);
    assert_eq!(o, "FAIL");
    for (reply, want, code) in [
        ("Looks fine overall.\n\n**PASS**", "PASS", 0),
        ("Verdict: FAIL\nThe banner is missing.", "FAIL", 1),
        ("Reasoning first.\nPASS", "PASS", 0),
        ("```json\n{\"pass\": false}\n```", "FAIL", 1),
    ] {
        let r = t.run_with(
            &["status", "--judge", "--json", "--no-cache"],
            "pass",
            &[("FAKE_LLM_REPLY", reply)],
        );
        assert_eq!(
            outcome(&r.json(), "The banner is shown"),
            want,
            "reply {reply:?}"
        );
        r.expect_code(code);
    }
}

/// Runs `status --judge` (text, then `--json`) with the fake answering `reply`; returns
/// the text run and the criterion's JSON outcome and reason.
fn judged_reply(t: &Judged, reply: &str) -> (Run, String, String) {
    let text = t.run_with(
        &["status", "--judge", "--no-cache"],
        "pass",
        &[("FAKE_LLM_REPLY", reply)],
    );
    let r = t.run_with(
        &["status", "--judge", "--json", "--no-cache"],
        "pass",
        &[("FAKE_LLM_REPLY", reply)],
    );
    let j = r.json();
    assert_eq!(r.code, text.code, "text and JSON runs agree for {reply:?}");
    (
        text,
        outcome(&j, "The banner is shown"),
        reason(&j, "The banner is shown"),
    )
}

#[test]
fn json_quoted_in_a_failing_reply_does_not_make_it_pass() {
    let t = Judged::new();
    // The judged file itself holds JSON that looks like a verdict.
    t.repo.write("src/ui.txt", "line one\n{\"pass\": true}\n");
    for reply in [
        "FAIL\nThe page has no banner. A passing answer would read {\"verdict\": \"PASS\"}.",
        "Verdict: FAIL\nsrc/ui.txt only holds {\"pass\": true}, which is data, not a banner.",
        "**FAIL**\nThe format asked for:\n```json\n{\"verdict\": \"PASS\"}\n```\nNo banner in:\n```\nline one\n```",
    ] {
        let (r, o, why) = judged_reply(&t, reply);
        r.expect_code(1);
        assert!(
            r.stdout.contains("  [FAIL] The banner is shown"),
            "reply {reply:?}:\n{}",
            r.stdout
        );
        assert_eq!(o, "FAIL", "reply {reply:?}");
        assert!(!why.is_empty(), "reply {reply:?}: the reasoning is kept");
    }
}

#[test]
fn a_final_json_block_must_agree_with_the_verdict_line() {
    let t = Judged::new();
    let (r, o, why) = judged_reply(
        &t,
        "FAIL\nThe banner is missing.\n```json\n{\"verdict\": \"PASS\"}\n```",
    );
    r.expect_code(3);
    assert!(
        r.stdout.contains("  [ERROR] The banner is shown"),
        "{}",
        r.stdout
    );
    assert_eq!(o, "ERROR");
    assert!(
        why.contains("contradicts") && why.contains("says PASS") && why.contains("says FAIL"),
        "{why}"
    );
    // Agreeing, or with no verdict line at all, the final block decides.
    let (r, o, _) = judged_reply(
        &t,
        "FAIL\n```json\n{\"verdict\": \"FAIL\", \"reasoning\": \"no banner\"}\n```",
    );
    r.expect_code(1);
    assert_eq!(o, "FAIL");
    let (r, o, why) = judged_reply(
        &t,
        "The banner is there.\n```\n{\"verdict\": \"PASS\", \"reasoning\": \"banner found\"}\n```",
    );
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert_eq!(why, "banner found");
}

#[test]
fn the_prompt_holds_both_criteria_and_the_numbered_files() {
    let t = Judged::new();
    t.run(&["status", "--judge"], "pass").expect_code(0);
    let prompts = t.prompts();
    assert_eq!(prompts.len(), 1);
    let p = &prompts[0];
    assert!(p.contains("The banner is shown"), "spec criterion:\n{p}");
    assert!(
        p.contains("The page shows a BANNER"),
        "rubric criterion:\n{p}"
    );
    assert!(p.contains("src/ui.txt"), "{p}");
    // A line number, a separator, then the line.
    let numbered = |n: usize, text: &str| {
        p.lines().any(|l| {
            l.trim_start()
                .strip_prefix(&n.to_string())
                .is_some_and(|rest| rest.ends_with(text) && rest.len() > text.len())
        })
    };
    assert!(numbered(1, "line one"), "line numbers:\n{p}");
    assert!(numbered(2, "<BANNER> Welcome"), "line numbers:\n{p}");
    assert!(
        p.contains("PASS") && p.contains("FAIL"),
        "asks for a verdict:\n{p}"
    );
}

#[test]
fn the_verdict_depends_on_the_judged_file() {
    let t = Judged::new();
    let (r, o, _) = t.judge_json("keyword", &[]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    t.repo.write("src/ui.txt", "line one\nno welcome here\n");
    let (r, o, why) = t.judge_json("keyword", &[]);
    r.expect_code(1);
    assert_eq!(o, "FAIL");
    assert!(why.contains("BANNER"), "{why}");
    assert_eq!(t.calls(), 2, "a changed file is judged again");
    // Back as it was: the first reply is reused.
    t.repo.write("src/ui.txt", "line one\n<BANNER> Welcome\n");
    let (r, o, _) = t.judge_json("keyword", &[]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    assert_eq!(t.calls(), 2);
}

#[test]
fn unchanged_inputs_are_answered_from_the_cache() {
    let t = Judged::new();
    t.repo.write(
        "specs/more.md",
        "# More\n\n## Success Criteria\n\n- [ ] Second judged thing [judge](tests/judges/ui.sh#test_banner)\n",
    );
    let before = t.repo.commit_count();
    let r = t.run(&["status", "--judge", "--jobs", "2"], "pass");
    r.expect_code(0);
    assert_eq!(t.calls(), 2, "one call per judged criterion");
    let r2 = t.run(&["status", "--judge", "--jobs", "2"], "pass");
    r2.expect_code(0);
    assert_eq!(t.calls(), 2, "an unchanged second run makes no LLM call");
    assert_eq!(r2.last_line(), "2 passed, 0 failed, 0 skipped");
    assert!(
        r2.stdout.contains("found the criterion met"),
        "cached reasoning is shown too:\n{}",
        r2.stdout
    );
    // Even when the fake would now say FAIL: the cached verdict stands.
    let r3 = t.run(&["status", "--judge"], "fail");
    r3.expect_code(0);
    assert_eq!(t.calls(), 2);
    let cache = t.repo.join(".beads/.cache/judge");
    assert!(
        std::fs::read_dir(&cache).is_ok_and(|d| d.count() >= 1),
        "replies are kept in .beads/.cache/judge"
    );
    assert_eq!(t.repo.status(".beads"), "", "the cache is not tracked");
    assert_eq!(t.repo.commit_count(), before, "judging commits nothing");

    // --no-cache asks again (both criteria).
    let r = t.run(&["status", "--judge", "--no-cache"], "pass");
    r.expect_code(0);
    assert_eq!(t.calls(), 4);

    // A changed judged file, rubric criterion, spec criterion or command: new calls.
    t.repo
        .write("src/ui.txt", "line one\n<BANNER> Welcome back\n");
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 5, "judged file changed");
    t.repo.write(
        "tests/judges/ui.sh",
        &UI_RUBRIC.replace("shows a BANNER", "shows a big BANNER"),
    );
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 6, "rubric criterion changed");
    t.repo.write(
        "specs/ui.md",
        &UI_SPEC.replace("The banner is shown", "The banner is visible"),
    );
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 7, "spec criterion changed");
    t.repo.ok(&[
        "config",
        "set",
        "llm.command",
        &format!("'{}' --model other", fake_llm().display()),
    ]);
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 8, "LLM command changed");
    t.run(&["status", "--judge", "--spec", "ui"], "pass")
        .expect_code(0);
    assert_eq!(t.calls(), 8);
}

#[test]
fn disagreeing_samples_are_unstable() {
    let t = Judged::new();
    t.repo.ok(&["config", "set", "judge.samples", "3"]);
    let r = t.run(&["status", "--judge"], "alternate");
    r.expect_code(1);
    assert_eq!(t.calls(), 3, "three samples");
    assert!(
        r.stdout.contains("  [UNSTABLE] The banner is shown"),
        "{}",
        r.stdout
    );
    assert!(
        r.last_line().starts_with("0 passed, 0 failed, 0 skipped"),
        "{}",
        r.stdout
    );
    let (r, o, why) = t.judge_json("alternate", &["--no-cache"]);
    r.expect_code(1);
    assert_eq!(o, "UNSTABLE");
    assert!(!why.is_empty(), "UNSTABLE says why");
    assert_eq!(t.calls(), 6);
    let xml_run = t.run(&["status", "--judge", "--junit", "j.xml"], "alternate");
    xml_run.expect_code(1);
    assert!(
        t.repo.read("j.xml").contains("<failure"),
        "UNSTABLE is a JUnit failure"
    );
    // Agreeing samples decide.
    let (r, o, _) = t.judge_json("pass", &["--no-cache"]);
    r.expect_code(0);
    assert_eq!(o, "PASS");
    let (r, o, _) = t.judge_json("fail", &["--no-cache"]);
    r.expect_code(1);
    assert_eq!(o, "FAIL");
}

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
fn a_rubric_with_a_syntax_error_is_an_error() {
    let t = Judged::new();
    t.repo.write(
        "tests/judges/ui.sh",
        "test_banner() {\n  judge_files src/ui.txt\n  if then fi\n  judge_criterion \"X\"\n}\n",
    );
    let r = t.run(&["status", "--judge"], "pass");
    r.expect_code(3);
    assert!(
        r.stdout.contains("  [ERROR] The banner is shown"),
        "{}",
        r.stdout
    );
    let (_, o, why) = t.judge_json("pass", &[]);
    assert_eq!(o, "ERROR");
    assert!(
        why.contains("tests/judges/ui.sh"),
        "names the rubric: {why}"
    );
    assert_eq!(t.calls(), 0, "no LLM call for a broken rubric");
}

#[test]
fn a_missing_rubric_function_or_file_is_an_error() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] No such function [judge](tests/judges/ui.sh#test_nope)\n- [ ] No function named [judge](tests/judges/ui.sh)\n- [ ] No such file [judge](tests/judges/gone.sh#test_banner)\n",
    );
    let r = t.run(&["status", "--judge", "--json"], "pass");
    r.expect_code(3);
    let j = r.json();
    for c in ["No such function", "No function named", "No such file"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}: {j:#}");
        assert!(!reason(&j, c).is_empty());
    }
    assert_eq!(t.calls(), 0);
}

#[test]
fn judge_files_outside_the_repository_are_refused() {
    let t = Judged::new();
    let outside = tempfile::Builder::new()
        .prefix("vermas-outside")
        .tempdir()
        .expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), "TOPSECRET\n").expect("write");
    let name = outside
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        t.repo.join("src/link.txt"),
    )
    .expect("symlink");
    let abs = outside.path().join("secret.txt").display().to_string();
    t.repo.write(
        "tests/judges/out.sh",
        &format!(
            "test_dotdot() {{ judge_files ../{name}/secret.txt; judge_criterion \"X\"; }}\n\
             test_abs() {{ judge_files '{abs}'; judge_criterion \"X\"; }}\n\
             test_link() {{ judge_files src/link.txt; judge_criterion \"X\"; }}\n\
             test_mixed() {{ judge_files src/ui.txt src/../../{name}/secret.txt; judge_criterion \"X\"; }}\n"
        ),
    );
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] Dot dot [judge](tests/judges/out.sh#test_dotdot)\n- [ ] Absolute [judge](tests/judges/out.sh#test_abs)\n- [ ] Symlink [judge](tests/judges/out.sh#test_link)\n- [ ] Mixed [judge](tests/judges/out.sh#test_mixed)\n",
    );
    let r = t.run(&["status", "--judge", "--json"], "pass");
    r.expect_code(3);
    let j = r.json();
    for c in ["Dot dot", "Absolute", "Symlink", "Mixed"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}: {j:#}");
        assert!(reason(&j, c).contains("outside"), "{c}: {}", reason(&j, c));
    }
    assert_eq!(t.calls(), 0, "nothing was sent to the LLM");
    assert!(t.prompts().iter().all(|p| !p.contains("TOPSECRET")));
}

#[test]
fn judge_files_globs_are_expanded() {
    let t = Judged::new();
    t.repo.write("src/a.txt", "alpha content\n");
    t.repo.write("src/b.txt", "beta content\n");
    t.repo.write("src/c.md", "gamma content\n");
    t.repo.write(
        "tests/judges/ui.sh",
        "test_banner() {\n  judge_files 'src/*.txt'\n  judge_criterion \"The page shows a BANNER\"\n}\n",
    );
    t.run(&["status", "--judge"], "pass").expect_code(0);
    let p = t.prompts().pop().expect("a prompt");
    for want in [
        "src/a.txt",
        "alpha content",
        "src/b.txt",
        "beta content",
        "src/ui.txt",
    ] {
        assert!(p.contains(want), "{want}:\n{p}");
    }
    assert!(!p.contains("gamma content"), "{p}");
}

#[test]
fn big_files_are_capped_and_the_cut_is_marked() {
    let t = Judged::new();
    t.repo.ok(&["config", "set", "judge.max_file_bytes", "100"]);
    let mut big = String::from("<BANNER> at the top\n");
    while big.len() < 2000 {
        big.push_str("filler filler filler filler\n");
    }
    big.push_str("TAILWORD at the end\n");
    t.repo.write("src/ui.txt", &big);
    t.run(&["status", "--judge"], "pass").expect_code(0);
    let p = t.prompts().pop().expect("a prompt");
    assert!(p.contains("<BANNER> at the top"), "{p}");
    assert!(!p.contains("TAILWORD"), "the file is cut at the cap:\n{p}");
    assert!(
        p.to_lowercase().contains("truncat"),
        "the cut is marked in the prompt:\n{p}"
    );
}

#[test]
fn invalid_judge_targets_are_errors_and_never_run() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] Substitution [judge](tests/judges/evil.sh#$(touch${IFS}pwned))\n- [ ] Dash [judge](tests/judges/evil.sh#-x)\n- [ ] Escapes [judge](../../evil.sh#test_x)\n",
    );
    t.repo.write(
        "tests/judges/evil.sh",
        "touch rubric-sourced\ntest_x() { touch rubric-called; judge_files src/ui.txt; judge_criterion \"X\"; }\n",
    );
    let r = t.run(&["status", "--judge", "--json"], "pass");
    r.expect_code(3);
    let j = r.json();
    for c in ["Substitution", "Dash", "Escapes"] {
        assert_eq!(outcome(&j, c), "ERROR", "{c}");
    }
    for m in ["pwned", "rubric-sourced", "rubric-called"] {
        assert!(!t.repo.join(m).exists(), "{m}");
    }
    assert_eq!(t.calls(), 0);
}

#[test]
fn verify_and_judge_run_only_when_asked() {
    let t = Judged::new();
    t.repo.write(
        "specs/ui.md",
        "# UI\n\n## Success Criteria\n\n- [ ] The banner is shown\n  [judge](tests/judges/ui.sh#test_banner)\n- [ ] The build works [verify](tests/build.sh#test_build)\n",
    );
    t.repo
        .write("tests/build.sh", "test_build() { touch build-ran; }\n");

    let r = t.run(&["status", "--judge"], "pass");
    r.expect_code(0);
    assert!(r.stdout.starts_with("Judge: ui\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("  [SKIP] The build works (verify only)"),
        "{}",
        r.stdout
    );
    assert!(!t.repo.join("build-ran").exists());
    assert_eq!(t.calls(), 1);

    let r = t.run(&["status", "--verify"], "pass");
    r.expect_code(0);
    assert!(
        r.stdout
            .contains("  [SKIP] The banner is shown (judge only)"),
        "{}",
        r.stdout
    );
    assert!(t.repo.join("build-ran").exists());
    assert_eq!(t.calls(), 1, "--verify asks no LLM");

    let before = t.repo.commit_count();
    let r = t.run(
        &["status", "--verify", "--judge", "--no-cache", "--record"],
        "pass",
    );
    r.expect_code(0);
    assert!(r.stdout.starts_with("Verify + Judge: ui\n"), "{}", r.stdout);
    assert_eq!(r.last_line(), "2 passed, 0 failed, 0 skipped");
    assert_eq!(t.calls(), 2);
    assert_eq!(t.repo.commit_count(), before + 1);
    let rec = t.repo.read(".beads/results/spec-ui.yaml");
    let rec: serde_json::Value = serde_saphyr::from_str(&rec).expect("yaml");
    assert_eq!(rec["verdict"], "PASS");
    let kinds: Vec<&str> = rec["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| c["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["judge", "verify"]);
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
