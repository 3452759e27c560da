//! The Inspector's lifecycle hooks: `vermas_core::inspect::lifecycle::run` called directly on a
//! workspace opened over a real temporary repository, with real hook scripts (a failing
//! Pre hook stops its point, a failing Post hook is a warning, the payload on stdin, the
//! environment, the timeout, symlinks leading outside, files without an execute bit);
//! `vermas hooks list` through the binary; and the role-aware LLM stand-in
//! `fixtures/llm-roles` the pipeline's tests rely on.

use crate::common::*;
use crate::specs::support::*;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;
use vermas_core::inspect::lifecycle::{self, HookPoint, HookReport};
use vermas_core::workspace::Workspace;

/// The workspace of `repo`, opened as vermas opens it (config read).
fn workspace(repo: &Repo) -> Workspace {
    Workspace::open(repo.join(".beads")).expect("open the workspace")
}

/// Runs `point`'s hooks in `repo` with `payload`.
fn fire(repo: &Repo, point: HookPoint, payload: &serde_json::Value) -> HookReport {
    lifecycle::run(&workspace(repo), point, payload)
}

/// A hook script that appends its own name (`$0`'s file name) to `log`.
fn recorder(log: &Path) -> String {
    format!("#!/bin/sh\nbasename \"$0\" >> '{}'\n", log.display())
}

/// The lines of `path`, or none when it does not exist.
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_pre_hook_that_exits_3_stops_its_point_and_later_hooks_do_not_run() {
    let repo = Repo::initialised();
    let log = repo.join("ran.log");
    write_exec(
        &repo,
        ".beads/hooks/PreInspect",
        "#!/bin/sh\necho 'looked fine' \necho 'not today' >&2\nexit 3\n",
    );
    write_exec(&repo, ".beads/hooks/PreInspect.d/10-later", &recorder(&log));
    let r = fire(&repo, HookPoint::PreInspect, &json!({"bead_id": "vm-1"}));
    assert_eq!(
        r.stopped.as_deref(),
        Some("PreInspect hook .beads/hooks/PreInspect exited 3: looked fine"),
        "{r:?}"
    );
    assert_eq!(r.ran.len(), 1, "{r:?}");
    assert_eq!(r.ran[0].exit_code, Some(3));
    assert!(r.ran[0].output.contains("not today"), "{r:?}");
    assert!(!r.ran[0].timed_out);
    assert!(
        lines(&log).is_empty(),
        "a later hook ran: {:?}",
        lines(&log)
    );

    // In `.d/`, the hooks run by name and stop at the first that fails.
    write_exec(&repo, ".beads/hooks/PreInspect", "#!/bin/sh\nexit 0\n");
    write_exec(&repo, ".beads/hooks/PreInspect.d/05-first", &recorder(&log));
    write_exec(
        &repo,
        ".beads/hooks/PreInspect.d/07-refuses",
        "#!/bin/sh\necho 'the tree is dirty' >&2\nexit 3\n",
    );
    let r = fire(&repo, HookPoint::PreInspect, &json!({}));
    assert_eq!(
        r.stopped.as_deref(),
        Some("PreInspect hook .beads/hooks/PreInspect.d/07-refuses exited 3: the tree is dirty")
    );
    let ran: Vec<&str> = r.ran.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(
        ran,
        [
            ".beads/hooks/PreInspect",
            ".beads/hooks/PreInspect.d/05-first",
            ".beads/hooks/PreInspect.d/07-refuses"
        ]
    );
    assert_eq!(lines(&log), ["05-first"]);
}

#[test]
fn a_failing_post_hook_is_a_warning_and_the_next_one_runs() {
    let repo = Repo::initialised();
    let log = repo.join("ran.log");
    write_exec(
        &repo,
        ".beads/hooks/PostVerify.d/10-fails",
        "#!/bin/sh\necho nope >&2\nexit 5\n",
    );
    write_exec(&repo, ".beads/hooks/PostVerify.d/20-runs", &recorder(&log));
    // A file whose name starts with a dot is not a hook.
    write_exec(&repo, ".beads/hooks/PostVerify.d/.hidden", &recorder(&log));
    let r = fire(&repo, HookPoint::PostVerify, &json!({}));
    assert_eq!(r.stopped, None);
    assert_eq!(
        r.warnings,
        ["PostVerify hook .beads/hooks/PostVerify.d/10-fails exited 5: nope"]
    );
    assert_eq!(r.ran.len(), 2);
    assert_eq!(r.ran[0].exit_code, Some(5));
    assert_eq!(r.ran[1].exit_code, Some(0));
    assert_eq!(lines(&log), ["20-runs"]);

    // An On point behaves the same.
    write_exec(&repo, ".beads/hooks/OnVerifyFail", "#!/bin/sh\nexit 1\n");
    write_exec(&repo, ".beads/hooks/OnVerifyFail.d/a", &recorder(&log));
    let r = fire(&repo, HookPoint::OnVerifyFail, &json!({}));
    assert_eq!(r.stopped, None);
    assert_eq!(
        r.warnings,
        ["OnVerifyFail hook .beads/hooks/OnVerifyFail exited 1"]
    );
    assert_eq!(lines(&log), ["20-runs", "a"]);
}

#[test]
fn the_payload_arrives_on_stdin_exactly_with_vermas_hook_and_root_set() {
    let repo = Repo::initialised();
    let out = repo.join("seen");
    write_exec(
        &repo,
        ".beads/hooks/PostAudit",
        &format!(
            "#!/bin/sh\ncat > '{0}.stdin'\nprintf '%s\\n%s\\n%s\\n' \"$VERMAS_HOOK\" \"$VERMAS_ROOT\" \"$(pwd -P)\" > '{0}.env'\necho 'hello from the hook'\n",
            out.display()
        ),
    );
    let payload = json!({
        "bead_id": "vm-7",
        "title": "Ünïcode \"quoted\" and\nnewline",
        "criteria": [{"id": "ac-1", "met": true}, {"id": "ac-2", "met": false}],
        "confidence": 0.25,
    });
    let r = fire(&repo, HookPoint::PostAudit, &payload);
    assert_eq!(r.stopped, None);
    assert!(r.warnings.is_empty(), "{r:?}");
    let stdin = std::fs::read_to_string(out.with_extension("stdin")).expect("hook ran");
    assert_eq!(stdin, format!("{payload}\n"));
    let back: serde_json::Value = serde_json::from_str(&stdin).expect("JSON");
    assert_eq!(back, payload);
    let root = std::fs::canonicalize(repo.path()).expect("root");
    let root = root.display().to_string();
    assert_eq!(
        lines(&out.with_extension("env")),
        ["PostAudit", root.as_str(), root.as_str()]
    );
    assert_eq!(r.ran[0].output, "hello from the hook\n");
    assert_eq!(r.ran[0].path, ".beads/hooks/PostAudit");
}

#[test]
fn a_hook_past_inspect_hook_timeout_is_killed_with_what_it_started() {
    let repo = Repo::initialised();
    repo.ok(&["config", "set", "inspect.hook_timeout", "1s"]);
    let pidfile = repo.join("sleeper.pid");
    write_exec(
        &repo,
        ".beads/hooks/PreJudgment",
        &format!(
            "#!/bin/sh\necho waiting\nsleep 30 &\necho $! > '{}'\nwait\n",
            pidfile.display()
        ),
    );
    let log = repo.join("ran.log");
    write_exec(&repo, ".beads/hooks/PreJudgment.d/later", &recorder(&log));
    let r = fire(&repo, HookPoint::PreJudgment, &json!({}));
    assert_eq!(
        r.stopped.as_deref(),
        Some("PreJudgment hook .beads/hooks/PreJudgment timed out after 1s: waiting")
    );
    assert_eq!(r.ran.len(), 1);
    assert!(r.ran[0].timed_out);
    assert_eq!(r.ran[0].exit_code, None);
    assert!(
        (900..10_000).contains(&r.ran[0].duration_ms),
        "{}",
        r.ran[0].duration_ms
    );
    assert!(lines(&log).is_empty());
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    assert_eq!(
        wait_gone(&[pid], Duration::from_secs(5)),
        Vec::<i32>::new(),
        "the hook's child is still running"
    );

    // At a Post point a timeout is a warning.
    write_exec(&repo, ".beads/hooks/PostJudgment", "#!/bin/sh\nsleep 30\n");
    let r = fire(&repo, HookPoint::PostJudgment, &json!({}));
    assert_eq!(r.stopped, None);
    assert_eq!(
        r.warnings,
        ["PostJudgment hook .beads/hooks/PostJudgment timed out after 1s"]
    );
}

#[test]
fn a_bad_hook_timeout_is_refused_with_its_key() {
    let repo = Repo::initialised();
    let err = repo.fails(&["config", "set", "inspect.hook_timeout", "soon"], 2);
    assert!(
        err.contains("inspect.hook_timeout: 'soon' is not a duration"),
        "{err}"
    );
    assert_eq!(
        repo.ok(&["config", "get", "inspect.hook_timeout"]).trim(),
        "30s"
    );
}

#[test]
fn a_hook_symlinked_outside_the_repository_is_refused_and_not_run() {
    let repo = Repo::initialised();
    let outside = tempfile::tempdir().expect("tempdir");
    let marker = outside.path().join("ran");
    let script = outside.path().join("hook.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .expect("write");
    chmod_x(&script);
    std::fs::create_dir_all(repo.join(".beads/hooks/PostCritic.d")).expect("mkdir");
    std::os::unix::fs::symlink(&script, repo.join(".beads/hooks/PreCritic")).expect("link");
    let r = fire(&repo, HookPoint::PreCritic, &json!({}));
    let stop = r.stopped.expect("refused");
    assert!(
        stop.starts_with(
            "PreCritic hook .beads/hooks/PreCritic is a symlink leading outside the repository"
        ),
        "{stop}"
    );
    assert!(r.ran.is_empty());
    assert!(!marker.exists(), "the outside script ran");

    // At a Post point it is a warning, and a symlink staying inside runs.
    let log = repo.join("ran.log");
    write_exec(&repo, "scripts/inside.sh", &recorder(&log));
    std::os::unix::fs::symlink(&script, repo.join(".beads/hooks/PostCritic.d/10-out"))
        .expect("link");
    std::os::unix::fs::symlink(
        repo.join("scripts/inside.sh"),
        repo.join(".beads/hooks/PostCritic.d/20-in"),
    )
    .expect("link");
    let r = fire(&repo, HookPoint::PostCritic, &json!({}));
    assert_eq!(r.stopped, None);
    assert_eq!(r.warnings.len(), 1, "{r:?}");
    assert!(
        r.warnings[0].contains("10-out is a symlink leading outside the repository"),
        "{r:?}"
    );
    assert_eq!(r.ran.len(), 1);
    assert_eq!(r.ran[0].path, ".beads/hooks/PostCritic.d/20-in");
    assert_eq!(lines(&log), ["inside.sh"]);
    assert!(!marker.exists());
}

#[test]
fn a_hook_without_an_execute_bit_is_passed_over_with_a_warning() {
    let repo = Repo::initialised();
    let log = repo.join("ran.log");
    repo.write(".beads/hooks/PreAdvocate", &recorder(&log));
    write_exec(&repo, ".beads/hooks/PreAdvocate.d/10-runs", &recorder(&log));
    let r = fire(&repo, HookPoint::PreAdvocate, &json!({}));
    assert_eq!(
        r.stopped, None,
        "a passed-over hook does not stop a Pre point"
    );
    assert_eq!(
        r.warnings,
        [
            "PreAdvocate hook .beads/hooks/PreAdvocate is not an executable file: passed over (chmod +x it)"
        ]
    );
    assert_eq!(r.ran.len(), 1);
    assert_eq!(lines(&log), ["10-runs"]);
}

#[test]
fn a_pre_hook_that_cannot_start_stops_its_point() {
    let repo = Repo::initialised();
    write_exec(
        &repo,
        ".beads/hooks/PreAuditPlan",
        "#!/no/such/interpreter\n",
    );
    let log = repo.join("ran.log");
    write_exec(&repo, ".beads/hooks/PreAuditPlan.d/later", &recorder(&log));
    let r = fire(&repo, HookPoint::PreAuditPlan, &json!({}));
    let stop = r.stopped.expect("stopped");
    assert!(
        stop.starts_with("PreAuditPlan hook .beads/hooks/PreAuditPlan cannot start"),
        "{stop}"
    );
    assert!(lines(&log).is_empty());
}

#[test]
fn no_hooks_is_an_empty_report_at_every_point() {
    let repo = Repo::initialised();
    for point in HookPoint::ALL {
        let r = fire(&repo, point, &json!({}));
        assert!(
            r.ran.is_empty() && r.stopped.is_none() && r.warnings.is_empty(),
            "{}: {r:?}",
            point.name()
        );
    }
    assert_eq!(HookPoint::ALL.len(), 14);
    assert!(HookPoint::PreInspect.is_pre());
    assert!(!HookPoint::OnVerifyEscalate.is_pre());
    assert_eq!(HookPoint::PostJudgment.name(), "PostJudgment");
}

#[test]
fn hooks_list_shows_git_hooks_and_lifecycle_hooks_in_pipeline_order() {
    let repo = Repo::initialised();
    let out = repo.ok(&["hooks", "list"]);
    assert!(
        out.contains("git       pre-push           not installed (`vermas git-hooks install`)"),
        "{out}"
    );
    assert!(
        out.contains("no lifecycle hooks (.beads/hooks/<Point> or <Point>.d/*)"),
        "{out}"
    );
    let j = repo.json(&["hooks", "list"]);
    assert_eq!(j["git"][0]["name"], "pre-push");
    assert_eq!(j["git"][0]["installed"], false);
    assert_eq!(j["lifecycle"], json!([]));

    write_exec(&repo, ".beads/hooks/OnVerifyFail.d/notify", "#!/bin/sh\n");
    repo.write(".beads/hooks/PostVerify.d/draft", "#!/bin/sh\n");
    write_exec(&repo, ".beads/hooks/PreAuditPlan", "#!/bin/sh\n");
    repo.ok(&["hooks", "install"]);
    let out = repo.ok(&["hooks", "list"]);
    let listed: Vec<&str> = out.lines().filter(|l| l.starts_with("lifecycle")).collect();
    assert_eq!(
        listed,
        [
            "lifecycle PreAuditPlan       .beads/hooks/PreAuditPlan",
            "lifecycle PostVerify         .beads/hooks/PostVerify.d/draft  (not executable: passed over)",
            "lifecycle OnVerifyFail       .beads/hooks/OnVerifyFail.d/notify",
        ],
        "{out}"
    );
    assert!(
        out.contains("git       pre-push           installed"),
        "{out}"
    );
    let j = repo.json(&["hooks", "list"]);
    assert_eq!(j["git"][0]["installed"], true);
    assert_eq!(
        j["lifecycle"],
        json!([
            {"point": "PreAuditPlan", "path": ".beads/hooks/PreAuditPlan", "executable": true},
            {"point": "PostVerify", "path": ".beads/hooks/PostVerify.d/draft", "executable": false},
            {"point": "OnVerifyFail", "path": ".beads/hooks/OnVerifyFail.d/notify", "executable": true},
        ])
    );
}

#[test]
fn hooks_list_outside_vermas_shows_git_hooks_and_outside_git_is_refused() {
    let repo = Repo::new();
    let out = repo.ok(&["hooks", "list"]);
    assert!(out.contains("git       pre-push"), "{out}");
    assert!(out.contains("no lifecycle hooks"), "{out}");

    let plain = tempfile::tempdir().expect("tempdir");
    let o = repo
        .cmd_in(plain.path(), &["hooks", "list"])
        .env(
            "GIT_CEILING_DIRECTORIES",
            plain.path().parent().expect("parent"),
        )
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not inside a git work tree"),
        "{}",
        stderr(&o)
    );
}

// ---- fixtures/llm-roles: the role-aware LLM stand-in ----

/// A prompt for `role` naming criteria `ids`.
fn prompt(role: &str, ids: &[&str]) -> String {
    let mut p = format!("You are the {role}.\nROLE: {role}\n\nCRITERIA AND EVIDENCE\n");
    for id in ids {
        p.push_str(&format!("CRITERION {id}\n  {id} holds\n  outcome: PASS\n"));
    }
    p
}

/// The stand-in started with `prompt` on stdin and `env` set, in its own process group.
fn start_llm(prompt: &str, env: &[(&str, &str)]) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(roles_llm());
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("start fixtures/llm-roles");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(prompt.as_bytes())
        .expect("write the prompt");
    child
}

/// The stand-in's answer to `prompt` with `env`.
fn ask(prompt: &str, env: &[(&str, &str)]) -> Output {
    start_llm(prompt, env).wait_with_output().expect("wait")
}

#[test]
fn llm_roles_answers_each_role_in_its_shape() {
    let ids = ["ac-1", "ac-2", "ac-3"];
    let o = ask(&prompt("auditor", &ids), &[("FAKE_UNMET", "ac-2")]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "ac-1: met (the evidence shows it)\nac-2: not met (the evidence does not show it)\nac-3: met (the evidence shows it)\n"
    );
    for role in ["advocate", "critic"] {
        let o = ask(&prompt(role, &ids), &[]);
        assert!(o.status.success());
        let text = stdout(&o);
        assert!(text.starts_with(&format!("BRIEF ({role}): ")), "{text}");
    }

    let o = ask(&prompt("judge", &ids), &[]);
    let text = stdout(&o);
    let last: serde_json::Value =
        serde_json::from_str(text.lines().last().expect("a line")).expect("a final JSON line");
    assert_eq!(last["verdict"], "PASS");
    assert_eq!(last["confidence"], 0.9);
    assert!(last["reasons"].as_array().is_some_and(|r| !r.is_empty()));
    assert_eq!(last["question"], "");

    let o = ask(
        &prompt("judge", &ids),
        &[
            ("FAKE_VERDICT", "NEEDS_HUMAN"),
            ("FAKE_CONFIDENCE", "0.4"),
            ("FAKE_QUESTION", "Is \"0\" a valid n?"),
        ],
    );
    let text = stdout(&o);
    let last: serde_json::Value =
        serde_json::from_str(text.lines().last().expect("a line")).expect("JSON");
    assert_eq!(last["verdict"], "NEEDS_HUMAN");
    assert_eq!(last["confidence"], 0.4);
    assert_eq!(last["question"], "Is \"0\" a valid n?");

    // No ROLE line: a live-spec judge check's prompt.
    let o = ask("Does the file say hello?\n", &[]);
    assert_eq!(stdout(&o).lines().next(), Some("PASS"));
}

#[test]
fn llm_roles_garbage_fail_and_hang_only_hit_the_role_named() {
    let ids = ["ac-1"];
    let o = ask(&prompt("critic", &ids), &[("FAKE_GARBAGE_ROLE", "critic")]);
    assert!(o.status.success());
    assert!(!stdout(&o).contains("BRIEF"), "{}", stdout(&o));
    assert!(!stdout(&o).trim().is_empty());
    let o = ask(
        &prompt("advocate", &ids),
        &[("FAKE_GARBAGE_ROLE", "critic")],
    );
    assert!(stdout(&o).starts_with("BRIEF (advocate): "));
    let o = ask(&prompt("judge", &ids), &[("FAKE_GARBAGE_ROLE", "judge")]);
    assert!(
        o.stdout.iter().all(|b| *b != b'{'),
        "no JSON: {}",
        stdout(&o)
    );

    let o = ask(&prompt("judge", &ids), &[("FAKE_FAIL_ROLE", "judge")]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "the judge model is unavailable\n");
    assert_eq!(stdout(&o), "");

    let mut hung = start_llm(&prompt("auditor", &ids), &[("FAKE_HANG_ROLE", "auditor")]);
    std::thread::sleep(Duration::from_millis(1500));
    let still = hung.try_wait().expect("try_wait").is_none();
    // SAFETY: kill(2) on the process group the test started.
    unsafe {
        libc::kill(-(hung.id() as i32), libc::SIGKILL);
    }
    let _ = hung.wait();
    assert!(still, "the hanging role answered");
}

#[test]
fn llm_roles_log_shows_advocate_and_critic_overlapping() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("calls.log");
    let log_s = log.display().to_string();
    let env = [
        ("FAKE_SLEEP_ADVOCATE", "1"),
        ("FAKE_SLEEP_CRITIC", "1"),
        ("FAKE_LOG", log_s.as_str()),
    ];
    let a = start_llm(&prompt("advocate", &["ac-1"]), &env);
    let c = start_llm(&prompt("critic", &["ac-1"]), &env);
    assert!(a.wait_with_output().expect("advocate").status.success());
    assert!(c.wait_with_output().expect("critic").status.success());
    ask(&prompt("judge", &["ac-1"]), &env);

    let calls: Vec<(String, f64, f64)> = lines(&log)
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 3, "{l}");
            (
                f[0].to_string(),
                f[1].parse().expect("start"),
                f[2].parse().expect("end"),
            )
        })
        .collect();
    let find = |role: &str| {
        calls
            .iter()
            .find(|c| c.0 == role)
            .unwrap_or_else(|| panic!("no {role} line in {calls:?}"))
            .clone()
    };
    let (adv, cri, judge) = (find("advocate"), find("critic"), find("judge"));
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(adv.2 - adv.1 >= 1.0 && cri.2 - cri.1 >= 1.0, "{calls:?}");
    assert!(adv.1 < cri.2 && cri.1 < adv.2, "overlap: {calls:?}");
    assert!(
        judge.1 >= adv.2 && judge.1 >= cri.2,
        "judge after: {calls:?}"
    );
    assert!(
        judge.2 - judge.1 < 1.0,
        "the judge did not sleep: {calls:?}"
    );
}

/// Sets the execute bits of `path`.
fn chmod_x(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}
