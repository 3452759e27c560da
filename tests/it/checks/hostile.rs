//! Verdicts that cannot be gamed: the line that decides survives megabytes of output, a
//! bash function's own status decides (not an EXIT trap's), a proof of entry cannot be
//! forged from inside the script, pytest's skip and xfail are not passes, no process of a
//! check outlives it (whatever its environment, and when vermas is killed), a function
//! defined twice points at the definition bash runs, and `--jobs 0` is refused.

use crate::common::*;
use crate::specs::support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A repository with one spec of `(criterion, link target)` pairs.
fn spec_repo(links: &[(&str, &str)]) -> Repo {
    let repo = Repo::initialised();
    let mut spec = String::from("# Hostile\n\n## Success Criteria\n\n");
    for (text, target) in links {
        spec.push_str(&format!("- [ ] {text}\n  [verify](../tests/{target})\n"));
    }
    repo.write("specs/hostile.md", &spec);
    repo
}

/// The pids of processes whose command line contains `needle` (read from /proc).
fn processes_matching(needle: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        if line.contains(needle) && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `within` for no process to match `needle`; returns those still there
/// (killed, so a failing test leaves nothing behind).
fn gone_within(needle: &str, within: Duration) -> Vec<i32> {
    let until = Instant::now() + within;
    loop {
        let left = processes_matching(needle);
        if left.is_empty() || Instant::now() > until {
            kill_all(&left);
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A number no other test or run uses, to recognise this test's `sleep` processes.
fn unique(base: u32) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{base}.{}{:09}", std::process::id(), nanos)
}

/// Waits until `file` exists in `repo` (a check got that far).
fn wait_for_file(repo: &Repo, file: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while !repo.join(file).exists() {
        assert!(Instant::now() < until, "{file} was never written");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
}

#[test]
fn a_gate_sees_a_failure_line_printed_after_megabytes_of_output() {
    let repo = Repo::initialised();
    let id = repo.create("Gated", &[]);
    for bytes in [500_000, 3_000_000] {
        let cmd = format!(
            "head -c {bytes} /dev/zero | tr '\\0' a; echo; echo '--- FAIL: TestFoo'; exit 1"
        );
        let v = repo.json(&["gate", "red", &id, "--cmd", &cmd]);
        assert_eq!(v["classification"], "accept", "{bytes} bytes: {v:#}");
        assert!(
            v["snippet"]
                .as_str()
                .is_some_and(|s| s.starts_with("--- FAIL: TestFoo")),
            "{bytes} bytes: the snippet shows the failure: {}",
            v["snippet"]
        );
    }
}

#[test]
fn a_checks_output_keeps_its_tail_and_says_what_it_left_out() {
    let repo = spec_repo(&[("floods", "flood.sh#test_flood")]);
    repo.write(
        "tests/flood.sh",
        "test_flood() {\n  echo first line\n  head -c 3000000 /dev/zero | tr '\\0' a\n  echo\n  echo 'verdict: the last line'\n  return 1\n}\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(1);
    let check = &criterion(&r.json(), "floods")["checks"][0];
    let out = check["output"].as_str().expect("output");
    assert!(out.starts_with("first line\n"), "{}", &out[..40]);
    assert!(
        out.ends_with("verdict: the last line\n"),
        "the tail is kept"
    );
    assert!(out.contains("bytes of output left out here"), "a marker");
    assert!(out.len() <= 1 << 20, "within the cap: {}", out.len());
    assert_eq!(check["truncated"], true);
}

#[test]
fn an_exit_trap_cannot_turn_a_failing_function_into_a_pass() {
    let repo = spec_repo(&[
        ("sourced fails", "t.sh#test_b"),
        ("sourced passes", "t.sh#test_ok"),
        ("sourced exits", "t.sh#test_exit"),
        ("dispatched fails", "x.sh#test_b"),
        ("dispatched passes", "x.sh#test_ok"),
    ]);
    repo.write(
        "tests/t.sh",
        "trap 'exit 0' EXIT\ntest_b() { return 1; }\ntest_ok() { true; }\ntest_exit() { exit 4; }\n",
    );
    write_exec(
        &repo,
        "tests/x.sh",
        "#!/bin/bash\ntrap 'exit 0' EXIT\ntest_b() { return 1; }\ntest_ok() { true; }\n\"$@\"\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for (text, want) in [
        ("sourced fails", "FAIL"),
        ("sourced passes", "PASS"),
        ("sourced exits", "FAIL"),
        ("dispatched fails", "FAIL"),
        ("dispatched passes", "PASS"),
    ] {
        assert_eq!(outcome(&j, text), want, "{text}: {}", reason(&j, text));
    }
    assert!(
        reason(&j, "sourced fails").contains("test_b returned 1"),
        "{}",
        reason(&j, "sourced fails")
    );
}

#[test]
fn a_sourced_function_keeps_its_own_exit_traps_and_its_status_still_decides() {
    let repo = spec_repo(&[
        ("cleans up and fails", "t.sh#test_fails"),
        ("cleans up and passes", "t.sh#test_passes"),
        ("fails under set -e", "t.sh#test_errexit"),
        ("passes its trap past vermas", "t.sh#test_bypass"),
        ("replaces itself", "t.sh#test_exec"),
    ]);
    repo.write(
        "tests/t.sh",
        "set -e\n\
         test_fails() { trap 'rm -f made; exit 0' EXIT INT; touch made; exit 3; }\n\
         test_passes() { trap 'echo cleaned up $?' EXIT; return 0; }\n\
         test_errexit() { false; echo not reached; }\n\
         test_bypass() { builtin trap 'exit 0' EXIT; exit 1; }\n\
         test_exec() { exec true; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for (text, want) in [
        ("cleans up and fails", "FAIL"),
        ("cleans up and passes", "PASS"),
        ("fails under set -e", "FAIL"),
        ("passes its trap past vermas", "ERROR"),
        ("replaces itself", "ERROR"),
    ] {
        assert_eq!(outcome(&j, text), want, "{text}: {}", reason(&j, text));
    }
    assert!(
        reason(&j, "cleans up and fails").contains("test_fails exited with 3"),
        "{}",
        reason(&j, "cleans up and fails")
    );
    assert!(
        !repo.path().join("made").exists(),
        "the script's own trap ran"
    );
    let passes = &criterion(&j, "cleans up and passes")["checks"][0];
    assert!(
        passes["output"]
            .as_str()
            .is_some_and(|o| o.contains("cleaned up 0")),
        "{passes}"
    );
    assert!(
        reason(&j, "passes its trap past vermas").contains("outcome cannot be told"),
        "{}",
        reason(&j, "passes its trap past vermas")
    );
}

#[test]
fn a_file_that_cannot_exit_runs_without_the_exit_recorder_and_an_exit_it_hides_is_an_error() {
    let repo = spec_repo(&[
        ("returns true", "plain.sh#test_ok"),
        ("returns false", "plain.sh#test_no"),
        ("exits 0", "seen.sh#test_seen"),
        (
            "exits 0 where the scan cannot see it",
            "hidden.sh#test_hidden",
        ),
    ]);
    repo.write(
        "tests/plain.sh",
        "test_ok() { true; }\ntest_no() { false; }\n",
    );
    repo.write("tests/seen.sh", "test_seen() { exit 0; }\n");
    repo.write("tests/hidden.sh", "test_hidden() { \"ex\"\"it\" 0; }\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for (text, want) in [
        ("returns true", "PASS"),
        ("returns false", "FAIL"),
        ("exits 0", "PASS"),
        ("exits 0 where the scan cannot see it", "ERROR"),
    ] {
        assert_eq!(outcome(&j, text), want, "{text}: {}", reason(&j, text));
    }
    assert!(
        reason(&j, "exits 0 where the scan cannot see it").contains("never ran"),
        "{}",
        reason(&j, "exits 0 where the scan cannot see it")
    );
}

#[test]
fn a_call_vermas_did_not_make_or_a_forged_record_is_no_proof() {
    let repo = spec_repo(&[
        ("subshell at top level", "c.sh#test_c"),
        ("forged record", "d.sh#test_d"),
        ("forged in a dispatcher", "e.sh#test_e"),
        ("subshell in a dispatcher", "f.sh#test_f"),
    ]);
    repo.write("tests/c.sh", "test_c() { return 1; }\n(test_c)\nexit 0\n");
    repo.write(
        "tests/d.sh",
        "test_d() { return 1; }\nprintf '%s\\n' L E \"$VERMAS_PROBE_FN\" \"E $VERMAS_PROBE_FN\" 'S 0' >> \"$VERMAS_PROBE_FILE\"\nexit 0\n",
    );
    write_exec(
        &repo,
        "tests/e.sh",
        "#!/bin/bash\ntest_e() { return 1; }\nprintf '%s\\n' L E \"$VERMAS_PROBE_FN\" >> \"${VERMAS_PROBE_FILE:-/dev/null}\"\nexit 0\n",
    );
    write_exec(
        &repo,
        "tests/f.sh",
        "#!/bin/bash\ntest_f() { return 1; }\n(test_f)\nexit 0\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for text in ["subshell at top level", "subshell in a dispatcher"] {
        assert_eq!(outcome(&j, text), "ERROR", "{text}: {}", reason(&j, text));
        assert!(reason(&j, text).contains("never ran"), "{text}");
    }
    // A script that reaches for the probe is not run at all.
    for (text, line) in [
        ("forged record", "tests/d.sh:2"),
        ("forged in a dispatcher", "tests/e.sh:3"),
    ] {
        assert_eq!(outcome(&j, text), "ERROR", "{text}: {}", reason(&j, text));
        assert!(
            reason(&j, text).contains(&format!("{line} names vermas's probe")),
            "{text}: {}",
            reason(&j, text)
        );
    }
}

/// True when `python3 -m pytest` works here.
fn have_pytest() -> bool {
    std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn pytest_skip_and_xfail_are_not_passes() {
    if !have_pytest() {
        eprintln!("pytest is not installed for python3: skip, xfail and xpass not checked");
        return;
    }
    let repo = spec_repo(&[
        ("skipped", "test_p.py#test_skip"),
        ("expected to fail", "test_p.py#test_xfail"),
        ("unexpectedly passes", "test_p.py#test_xpass"),
        ("passes", "test_p.py#test_ok"),
    ]);
    repo.write(
        "tests/test_p.py",
        "import pytest\n\n@pytest.mark.skip(reason='later')\ndef test_skip():\n    assert False\n\n@pytest.mark.xfail\ndef test_xfail():\n    assert False\n\n@pytest.mark.xfail\ndef test_xpass():\n    assert True\n\ndef test_ok():\n    assert True\n",
    );
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for (text, want) in [
        ("skipped", "SKIP"),
        ("expected to fail", "FAIL"),
        ("unexpectedly passes", "FAIL"),
        ("passes", "PASS"),
    ] {
        assert_eq!(outcome(&j, text), want, "{text}: {}", reason(&j, text));
    }
}

#[test]
fn pytest_missing_is_an_error_not_a_failure() {
    let repo = spec_repo(&[("passes", "test_p.py#test_ok")]);
    repo.write("tests/test_p.py", "def test_ok():\n    assert True\n");
    // A python3 that cannot import pytest: -S leaves out site-packages.
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v python3"])
            .output()
            .expect("sh")
            .stdout,
    )
    .expect("utf-8");
    // Outside the repository: PATH entries inside it are never searched.
    let outside = tempfile::tempdir().expect("tempdir");
    let bin = outside.path().join("nopytest");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let fake = bin.join("python3");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nexec {} -S \"$@\"\n", real.trim()),
    )
    .expect("write");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let r = run_env(&repo, &["status", "--verify", "--json"], &[("PATH", &path)]);
    let j = r.json();
    assert_eq!(outcome(&j, "passes"), "ERROR", "{}", reason(&j, "passes"));
    assert!(
        reason(&j, "passes").contains("No module named pytest"),
        "{}",
        reason(&j, "passes")
    );
}

#[test]
fn a_process_that_leaves_with_an_empty_environment_ends_with_its_check() {
    let n = unique(302);
    let repo = spec_repo(&[
        ("escapes", "esc.sh#test_esc"),
        ("runs on", "esc.sh#test_slow"),
    ]);
    repo.write(
        "tests/esc.sh",
        &format!(
            "test_esc() {{\n  env -i setsid sleep {n} &\n  ( env -i sh -c 'sleep {n} &' & )\n  sleep 0.2\n}}\ntest_slow() {{\n  sleep 1\n}}\n"
        ),
    );
    let r = run(&repo, &["status", "--verify", "--jobs", "2"]);
    r.expect_code(0);
    let left = gone_within(&format!("sleep {n}"), Duration::from_millis(300));
    assert!(left.is_empty(), "left running after the checks: {left:?}");
}

/// Starts `vermas args` in `repo`, waits for `file`, kills vermas with SIGKILL, and returns
/// the processes matching `needle` still there two seconds later.
fn kill_vermas_during(repo: &Repo, args: &[&str], file: &str, needle: &str) -> Vec<i32> {
    let mut child = command(repo, args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vermas");
    wait_for_file(repo, file);
    assert!(
        !processes_matching(needle).is_empty(),
        "the command under test is running"
    );
    child.kill().expect("SIGKILL vermas");
    child.wait().expect("wait vermas");
    gone_within(needle, Duration::from_secs(2))
}

#[test]
fn killing_vermas_ends_the_check_it_was_running() {
    let n = unique(303);
    let repo = spec_repo(&[("sleeps", "slow.sh#test_slow")]);
    repo.write(
        "tests/slow.sh",
        &format!("test_slow() {{\n  env -i setsid sleep {n} &\n  touch started\n  sleep {n}\n}}\n"),
    );
    let left = kill_vermas_during(
        &repo,
        &["status", "--verify"],
        "started",
        &format!("sleep {n}"),
    );
    assert!(
        left.is_empty(),
        "left running after vermas was killed: {left:?}"
    );
}

#[test]
fn killing_inspect_run_ends_the_llm_command() {
    let n = unique(304);
    let repo = Repo::initialised();
    repo.write_llm_command(&format!("touch llm.started; sleep {n}; true"));
    repo.write_fizz(&[("ac-1", "true")], true);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "work and spec"]);
    let left = kill_vermas_during(
        &repo,
        &["inspect", "run", "vm-fizz"],
        "llm.started",
        &format!("sleep {n}"),
    );
    assert!(left.is_empty(), "the LLM command outlived vermas: {left:?}");
}

#[test]
fn a_function_defined_twice_points_at_the_one_bash_runs_and_is_warned_about() {
    let repo = spec_repo(&[("twice", "tw.sh#test_t")]);
    repo.write("tests/tw.sh", "test_t() { true; }\n\ntest_t() { false; }\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    let c = criterion(&r.json(), "twice");
    assert_eq!(c["outcome"], "FAIL");
    assert_eq!(c["checks"][0]["check_location"], "tests/tw.sh:3", "{c:#}");
    let findings = repo.json(&["spec", "check"]);
    let warning = findings
        .as_array()
        .expect("array")
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("more than once"))
        })
        .unwrap_or_else(|| panic!("no warning about test_t in {findings:#}"));
    assert_eq!(warning["level"], "warning");
    assert_eq!(warning["file"], "specs/hostile.md");
    assert_eq!(warning["line"], 6);
    assert_eq!(warning["column"], 3);
    let message = warning["message"].as_str().unwrap_or("");
    assert!(message.contains("lines 1 and 3"), "{message}");
}

#[test]
fn jobs_zero_is_refused() {
    let repo = spec_repo(&[("passes", "ok.sh#test_ok")]);
    repo.write("tests/ok.sh", "test_ok() { true; }\n");
    let err = repo.fails(&["status", "--verify", "--jobs", "0"], 2);
    assert!(err.contains("--jobs"), "{err}");
    assert!(err.contains("0 is not in 1.."), "{err}");
}

#[test]
fn a_check_that_kills_what_runs_it_is_an_error_and_the_next_check_still_runs() {
    let repo = spec_repo(&[
        ("kills its runner", "t.sh#test_kill"),
        ("runs after", "t.sh#test_after"),
    ]);
    repo.write(
        "tests/t.sh",
        "test_kill() { kill -9 $PPID; sleep 1; return 0; }\ntest_after() { true; }\n",
    );
    let r = run(&repo, &["status", "--verify", "--json", "--jobs", "1"]);
    let j = r.json();
    assert_eq!(
        outcome(&j, "kills its runner"),
        "ERROR",
        "{}",
        reason(&j, "kills its runner")
    );
    assert!(
        reason(&j, "kills its runner").contains("outcome cannot be told"),
        "{}",
        reason(&j, "kills its runner")
    );
    assert_eq!(
        outcome(&j, "runs after"),
        "PASS",
        "{}",
        reason(&j, "runs after")
    );
}

#[test]
fn a_check_that_kills_what_runs_it_runs_once_and_is_never_green() {
    // Each check notes that it ran, then kills its runner at once: sometimes before the
    // runner could say the check started. Such a check is never run a second time, and it
    // never reads as passed.
    let names: Vec<String> = (0..12).map(|i| format!("kills its runner {i}")).collect();
    let links: Vec<(String, String)> = (0..12)
        .map(|i| (names[i].clone(), format!("k.sh#test_k{i}")))
        .collect();
    let pairs: Vec<(&str, &str)> = links
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let repo = spec_repo(&pairs);
    let mut script = String::new();
    for i in 0..12 {
        script.push_str(&format!(
            "test_k{i}() {{ echo {i} >> \"$RAN\"; kill -9 $PPID; sleep 1; return 0; }}\n"
        ));
    }
    repo.write("tests/k.sh", &script);
    let ran = repo.join("ran.txt");
    let r = run_env(
        &repo,
        &["status", "--verify", "--json", "--jobs", "2"],
        &[("RAN", ran.to_str().expect("utf-8 path"))],
    );
    let j = r.json();
    for name in &names {
        assert_eq!(outcome(&j, name), "ERROR", "{}", reason(&j, name));
    }
    let text = std::fs::read_to_string(&ran).expect("the checks ran");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    let mut once: Vec<String> = (0..12).map(|i| i.to_string()).collect();
    once.sort_unstable();
    assert_eq!(lines, once, "each check ran exactly once");
}
