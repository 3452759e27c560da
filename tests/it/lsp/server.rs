//! `vermas lsp` end to end: the real binary spawned with piped stdio, driven by a small
//! JSON-RPC client (Content-Length framing, `lsp_client/`), on real temporary git
//! repositories with real shell checks; results checked in the replies, in the record
//! files and with `git`.

use crate::common::*;
use crate::lsp::client::{Client, file_uri};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The check file: `test_pass` on line 2, `test_fail` on line 6.
const CHECKS: &str = "# checks of the demo spec\ntest_pass() {\n  true\n}\n\ntest_fail() {\n  echo \"expected 2, got 3\"\n  return 1\n}\n";

/// The spec: criteria on (zero-based) lines 4, 5 and 6; the last names a missing function.
const SPEC: &str = "# Demo\n\n## Success Criteria\n\n- [ ] Passing thing [verify](../tests/x.sh#test_pass)\n- [ ] Failing thing [verify](../tests/x.sh#test_fail)\n- [ ] Missing function [verify](../tests/x.sh#test_missing)\n";

/// A workspace with the demo spec and its checks committed; its canonical root.
fn demo_repo() -> (Repo, PathBuf) {
    let repo = Repo::initialised();
    repo.write("tests/x.sh", CHECKS);
    repo.write("specs/demo.md", SPEC);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "demo spec"]);
    let root = repo.path().canonicalize().expect("canonical root");
    (repo, root)
}

/// The diagnostics among `all` whose code is `code`, as (zero-based line, severity, message).
fn with_code(all: &[Value], code: &str) -> Vec<(u64, u64, String)> {
    all.iter()
        .filter(|d| d["code"] == code)
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["severity"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Runs the criterion on zero-based `line` of `uri`; the whole response.
fn run_criterion(c: &mut Client, uri: &str, line: u64) -> Value {
    c.request(
        "workspace/executeCommand",
        json!({"command": "vermas.runCriterion", "arguments": [uri, line]}),
    )
}

#[test]
fn links_open_the_check_function_at_its_line() {
    let (repo, root) = demo_repo();
    let (mut c, caps) = Client::initialised(repo.path());
    assert_eq!(caps["documentLinkProvider"]["resolveProvider"], false);
    assert_eq!(
        caps["executeCommandProvider"]["commands"],
        json!(["vermas.runCriterion"])
    );
    let uri = file_uri(&root.join("specs/demo.md"));
    c.open(&uri, SPEC);
    let reply = c.request(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": uri}}),
    );
    let links = reply["result"].as_array().expect("links").clone();
    assert_eq!(links.len(), 3, "{links:#?}");
    let x = file_uri(&root.join("tests/x.sh"));
    assert_eq!(links[0]["target"], format!("{x}#L2"));
    assert_eq!(links[1]["target"], format!("{x}#L6"));
    // A function the file lacks still opens the file, at its top.
    assert_eq!(links[2]["target"], x);
    let column = SPEC.lines().nth(4).unwrap().find("[verify]").unwrap();
    assert_eq!(
        links[0]["range"]["start"],
        json!({"line": 4, "character": column})
    );
    assert_eq!(links[1]["range"]["start"]["line"], 5);
}

#[test]
fn diagnostics_follow_the_unsaved_buffer() {
    let (repo, root) = demo_repo();
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/demo.md"));
    let found = with_code(&c.open(&uri, SPEC), "spec-check");
    assert_eq!(found.len(), 1, "{found:?}");
    let (line, severity, message) = &found[0];
    assert_eq!((*line, *severity), (6, 1), "{message}");
    assert!(message.contains("test_missing"), "{message}");
    // Two lines typed above (not saved): the finding moves with the text.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"text": format!("Intro.\n\n{SPEC}")}]}),
    );
    let found = with_code(&c.diagnostics(&uri), "spec-check");
    assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [8]);
    // A ranged edit fixing the function name clears it.
    let line = SPEC.lines().nth(6).unwrap();
    let at = u64::try_from(line.find("test_missing").unwrap()).unwrap();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3},
               "contentChanges": [{"range": {"start": {"line": 8, "character": at},
                                             "end": {"line": 8, "character": at + 12}},
                                   "text": "test_pass"}]}),
    );
    assert_eq!(with_code(&c.diagnostics(&uri), "spec-check"), []);
    // The file on disk was never touched.
    assert_eq!(repo.read("specs/demo.md"), SPEC);
}

#[test]
fn saving_a_check_file_refreshes_the_open_specs() {
    let (repo, root) = demo_repo();
    let (mut c, _) = Client::initialised(repo.path());
    let spec = file_uri(&root.join("specs/demo.md"));
    assert_eq!(with_code(&c.open(&spec, SPEC), "spec-check").len(), 1);
    let checks = file_uri(&root.join("tests/x.sh"));
    c.open(&checks, CHECKS);
    let fixed = format!("{CHECKS}\ntest_missing() {{\n  true\n}}\n");
    repo.write("tests/x.sh", &fixed);
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": checks}, "text": fixed}),
    );
    assert_eq!(with_code(&c.diagnostics(&spec), "spec-check"), []);
}

#[test]
fn running_a_criterion_records_it_and_shows_its_result() {
    let (repo, root) = demo_repo();
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/demo.md"));
    c.open(&uri, SPEC);
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 3}}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("not run yet"), "{text}");

    let lenses = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = lenses["result"].as_array().unwrap().clone();
    assert_eq!(lenses.len(), 3);
    assert_eq!(lenses[1]["command"]["title"], "Run this criterion");
    assert_eq!(lenses[1]["command"]["command"], "vermas.runCriterion");
    assert_eq!(lenses[1]["command"]["arguments"], json!([uri, 5]));
    assert_eq!(lenses[1]["range"]["start"]["line"], 5);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 0}},
               "context": {"diagnostics": []}}),
    );
    let actions = actions["result"].as_array().unwrap().clone();
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(actions[0]["command"], lenses[1]["command"]);

    let commits = repo.commit_count();
    let failed = run_criterion(&mut c, &uri, 5);
    let result = &failed["result"];
    assert_eq!(result["outcome"], "FAIL", "{failed:#}");
    assert_eq!(result["line"], 5);
    assert_eq!(result["checks"][0]["target"], "tests/x.sh#test_fail");
    assert_eq!(result["checks"][0]["exit_code"], 1);
    assert_eq!(result["recorded"], "committed");
    let bad = with_code(&c.diagnostics(&uri), "last-run");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!((bad[0].0, bad[0].1), (5, 1));
    assert!(
        bad[0].2.contains("FAIL") && bad[0].2.contains("expected 2, got 3"),
        "{}",
        bad[0].2
    );
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 0}}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("**FAIL**") && text.contains("expected 2, got 3"),
        "{text}"
    );

    let passed = run_criterion(&mut c, &uri, 4);
    assert_eq!(passed["result"]["outcome"], "PASS", "{passed:#}");
    assert_eq!(with_code(&c.diagnostics(&uri), "last-run").len(), 1);

    // One commit per run, of the spec's record alone; both criteria in it.
    assert_eq!(repo.commit_count(), commits + 2);
    let log = repo.git(&["log", "-2", "--format=%s", "--name-only"]);
    assert!(
        log.contains("vermas verify: spec:demo specs/demo.md:5 PASS"),
        "{log}"
    );
    assert!(
        log.contains("vermas verify: spec:demo specs/demo.md:6 FAIL"),
        "{log}"
    );
    assert_eq!(
        log.lines()
            .filter(|l| l.starts_with(".beads/"))
            .collect::<Vec<_>>(),
        [".beads/results/spec-demo.yaml"; 2]
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let record = repo.read(".beads/results/spec-demo.yaml");
    assert!(record.contains("verdict: FAIL"), "{record}");
    assert!(record.contains("criterion: specs/demo.md:5"), "{record}");
    assert!(record.contains("criterion: specs/demo.md:6"), "{record}");
    // `status` reads the same record.
    let status = repo.ok(&["status"]);
    assert!(status.contains("demo"), "{status}");

    assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(0), "stderr: {}", c.stderr());
}

#[test]
fn a_fail_recorded_by_status_is_a_diagnostic() {
    let (repo, root) = demo_repo();
    let out = repo.run(&["status", "--verify", "--record"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/demo.md"));
    let bad = with_code(&c.open(&uri, SPEC), "last-run");
    // The failing criterion, and the one whose function is missing (an ERROR).
    let lines: Vec<u64> = bad.iter().map(|b| b.0).collect();
    assert_eq!(lines, [5, 6], "{bad:?}");
    assert!(bad.iter().all(|b| b.1 == 1), "{bad:?}");
    assert!(
        bad[0].2.contains("last run FAIL") && bad[0].2.contains("recorded"),
        "{bad:?}"
    );
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 0}}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("**PASS**") && text.contains("recorded"),
        "{text}"
    );
}

#[test]
fn judge_criteria_run_only_with_an_llm() {
    let (repo, root) = demo_repo();
    repo.write(
        "tests/judges/ui.sh",
        "test_banner() {\n  judge_files specs/demo.md\n  judge_criterion \"It has a title\"\n}\n",
    );
    let spec = "# UI\n\n## Success Criteria\n\n- [ ] The title is clear [judge](../tests/judges/ui.sh#test_banner)\n";
    repo.write("specs/ui.md", spec);
    repo.write_llm_command("no-such-llm-program -p");
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/ui.md"));
    c.open(&uri, spec);
    let skipped = run_criterion(&mut c, &uri, 4);
    assert_eq!(skipped["result"]["outcome"], "SKIP", "{skipped:#}");
    let reason = skipped["result"]["reason"].as_str().unwrap();
    assert!(reason.contains("no runnable LLM"), "{reason}");

    // A stand-in LLM that answers PASS: now the judge runs.
    repo.write(
        "llm.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'Looks right.'\necho PASS\n",
    );
    std::fs::set_permissions(
        repo.join("llm.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.write_llm_command("./llm.sh");
    let judged = run_criterion(&mut c, &uri, 4);
    assert_eq!(judged["result"]["outcome"], "PASS", "{judged:#}");
    assert_eq!(judged["result"]["checks"][0]["kind"], "judge");
}

#[test]
fn outside_a_workspace_results_stay_in_the_session() {
    let repo = Repo::new();
    repo.write("tests/x.sh", CHECKS);
    repo.write("specs/demo.md", SPEC);
    let root = repo.path().canonicalize().unwrap();
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/demo.md"));
    c.open(&uri, SPEC);
    let failed = run_criterion(&mut c, &uri, 5);
    assert_eq!(failed["result"]["outcome"], "FAIL");
    let recorded = failed["result"]["recorded"].as_str().unwrap();
    assert!(
        recorded.starts_with("not recorded: no .beads"),
        "{recorded}"
    );
    let bad = with_code(&c.diagnostics(&uri), "last-run");
    assert_eq!(bad.len(), 1);
    assert!(bad[0].2.contains("run in this session"), "{bad:?}");
    assert!(!repo.join(".beads").exists());
}

#[test]
fn bad_input_gets_an_error_reply_and_the_server_goes_on() {
    let (repo, root) = demo_repo();
    let mut c = Client::start(repo.path());
    let early = c.request("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    // A root that is no local folder: the server's own folder is used.
    c.request(
        "initialize",
        json!({"rootUri": "https://example.org/x", "capabilities": {}}),
    );
    c.notify("initialized", json!({}));
    let unknown = c.request("vermas/nothing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    let spec_uri = file_uri(&root.join("specs/demo.md"));
    for uri in [
        "file:///etc/passwd",
        "untitled:Untitled-1",
        &file_uri(&root.join("README.md")),
    ] {
        let links = c.request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(links["result"], json!([]), "{uri}: {links}");
        let lenses = c.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(lenses["result"], json!([]), "{uri}: {lenses}");
        let run = run_criterion(&mut c, uri, 0);
        assert_eq!(run["error"]["code"], -32803, "{uri}: {run}");
    }
    let bad_params = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": spec_uri}}),
    );
    assert_eq!(bad_params["error"]["code"], -32602, "{bad_params}");
    let bad_uri = c.request(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": "::"}}),
    );
    assert_eq!(bad_uri["error"]["code"], -32602, "{bad_uri}");
    let other = c.request(
        "workspace/executeCommand",
        json!({"command": "rm -rf", "arguments": []}),
    );
    assert_eq!(other["error"]["code"], -32602, "{other}");
    for args in [
        json!([]),
        json!([spec_uri]),
        json!([spec_uri, "five"]),
        json!([5, 5]),
    ] {
        let reply = c.request(
            "workspace/executeCommand",
            json!({"command": "vermas.runCriterion", "arguments": args}),
        );
        assert_eq!(reply["error"]["code"], -32602, "{args}: {reply}");
    }
    c.open(&spec_uri, SPEC);
    let nothing_there = run_criterion(&mut c, &spec_uri, 0);
    assert_eq!(nothing_there["error"]["code"], -32803, "{nothing_there}");
    let message = nothing_there["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no success criterion at line 1"),
        "{message}"
    );
    c.diagnostics(&spec_uri);

    // A malformed spec: broken front matter, an unclosed fence, links to a missing file
    // and out of the repository, a non-ASCII line.
    let broken = "---\nbead: [unclosed\n---\n# Bad\n\n## Success Criteria\n\n- [ ] é😀 [verify](../tests/gone.sh#f)\n- [ ] out [verify](../../../etc/passwd#f)\n\n```sh\nnever closed\n";
    let found = with_code(
        &c.open(&file_uri(&root.join("specs/bad.md")), broken),
        "spec-check",
    );
    let lines: Vec<u64> = found.iter().map(|f| f.0).collect();
    assert!(
        lines.contains(&1) && lines.contains(&7) && lines.contains(&8) && lines.contains(&10),
        "{found:?}"
    );
    let links = c.request(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": file_uri(&root.join("specs/bad.md"))}}),
    );
    assert_eq!(links["result"], json!([]), "{links}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": spec_uri}, "position": {"line": 4000000000u64, "character": 7}}),
    );
    assert_eq!(hover["result"], Value::Null, "{hover}");

    // Still answering.
    let links = c.request(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": spec_uri}}),
    );
    assert_eq!(links["result"].as_array().unwrap().len(), 3);
    let second = c.request("initialize", json!({"capabilities": {}}));
    assert_eq!(second["error"]["code"], -32600, "{second}");
    // exit without shutdown: exit code 1, as the protocol says.
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(1), "stderr: {}", c.stderr());
}

#[test]
fn requests_after_shutdown_are_refused() {
    let (repo, _) = demo_repo();
    let (mut c, _) = Client::initialised(repo.path());
    assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
    let late = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": "file:///x.md"}}),
    );
    assert_eq!(late["error"]["code"], -32600, "{late}");
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(0));
}

#[test]
fn a_frame_that_is_not_json_is_a_parse_error_and_the_server_goes_on() {
    let (repo, _) = demo_repo();
    let (mut c, _) = Client::initialised(repo.path());
    c.send_raw(b"Content-Length: 5\r\n\r\nnope!");
    let reply = c.wait_for(|m| m.get("error").is_some());
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(0), "stderr: {}", c.stderr());
}

#[test]
fn a_burst_of_edits_is_answered_for_its_last_version_only() {
    let (repo, root) = demo_repo();
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/demo.md"));
    c.open(&uri, SPEC);
    // Thirty edits typed faster than diagnostics are computed.
    for version in 2..=31 {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"text": format!("{}\n\n{SPEC}", "x".repeat(version))}]}),
        );
    }
    let last = c.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 31
    });
    let found = with_code(
        last["params"]["diagnostics"]
            .as_array()
            .expect("diagnostics"),
        "spec-check",
    );
    assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [8]);
    let superseded = c
        .kept()
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .count();
    assert!(
        superseded < 10,
        "{superseded} superseded versions were answered as well"
    );
}
