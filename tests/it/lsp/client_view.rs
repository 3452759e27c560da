//! `vermas lsp` as a real client reads it: hover tells where a result is kept, the code
//! action has a kind and names the diagnostics it addresses, diagnostics carry the fix,
//! and `vermas.runCriterion` counts lines from zero both ways.

use crate::common::*;
use crate::lsp::client::{Client, file_uri};
use serde_json::{Value, json};
use std::path::PathBuf;

/// `test_pass` on line 2, `test_fail` on line 6.
const CHECKS: &str =
    "test_pass() {\n  true\n}\n\ntest_fail() {\n  echo \"expected 2, got 3\"\n  return 1\n}\n";

/// Criteria on zero-based lines 4 (passes), 5 (fails) and 6 (a missing function).
const SPEC: &str = "# Demo\n\n## Success Criteria\n\n- [ ] Passing thing [verify](../tests/x.sh#test_pass)\n- [ ] Failing thing [verify](../tests/x.sh#test_fail)\n- [ ] Missing function [verify](../tests/x.sh#test_missing)\n";

/// A workspace with the spec and its checks committed, a client on it with the spec open,
/// and the spec's URI.
fn opened() -> (Repo, Client, String) {
    let repo = Repo::initialised();
    repo.write("tests/x.sh", CHECKS);
    repo.write("specs/demo.md", SPEC);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "demo spec"]);
    let root: PathBuf = repo.path().canonicalize().expect("canonical root");
    let (mut c, _) = Client::initialised(repo.path());
    let uri = file_uri(&root.join("specs/demo.md"));
    c.open(&uri, SPEC);
    (repo, c, uri)
}

/// The reply to `vermas.runCriterion` on zero-based `line`.
fn run(c: &mut Client, uri: &str, line: u64) -> Value {
    c.request(
        "workspace/executeCommand",
        json!({"command": "vermas.runCriterion", "arguments": [uri, line]}),
    )
}

/// The hover text on zero-based `line`.
fn hover(c: &mut Client, uri: &str, line: u64) -> String {
    let reply = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}}),
    );
    reply["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn hover_after_a_committed_run_says_it_is_recorded() {
    let (_repo, mut c, uri) = opened();
    let reply = run(&mut c, &uri, 5);
    assert_eq!(reply["result"]["recorded"], "committed", "{reply:#}");
    let text = hover(&mut c, &uri, 5);
    assert!(text.contains("recorded in .beads/results"), "{text}");
    assert!(!text.contains("not recorded"), "{text}");
}

#[test]
fn run_criterion_answers_with_the_zero_based_line_it_was_given() {
    let (_repo, mut c, uri) = opened();
    for line in [4, 5] {
        let reply = run(&mut c, &uri, line);
        assert_eq!(reply["result"]["line"], line, "{reply:#}");
    }
    // Any line of the criterion names it; the reply gives the criterion's own line.
    let multi = format!("{SPEC}- [ ] Two links\n  [verify](../tests/x.sh#test_pass)\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": multi}]}),
    );
    let reply = run(&mut c, &uri, 8);
    assert_eq!(reply["result"]["line"], 7, "{reply:#}");
}

#[test]
fn the_code_action_has_a_kind_and_the_diagnostics_it_addresses() {
    let (_repo, mut c, uri) = opened();
    run(&mut c, &uri, 5);
    let all = c.diagnostics(&uri);
    let failed: Vec<Value> = all
        .iter()
        .filter(|d| d["code"] == "last-run")
        .cloned()
        .collect();
    assert_eq!(failed.len(), 1, "{all:#?}");
    let ask = |c: &mut Client, only: Value| {
        let mut context = json!({"diagnostics": all});
        if !only.is_null() {
            context["only"] = only;
        }
        c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 4}},
                   "context": context}),
        )["result"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let actions = ask(&mut c, Value::Null);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    let action = &actions[0];
    assert_eq!(action["kind"], "source.vermas.run", "{action:#}");
    assert_eq!(action["command"]["command"], "vermas.runCriterion");
    assert_eq!(action["command"]["arguments"], json!([uri, 5]));
    assert_eq!(action["diagnostics"], json!(failed), "{action:#}");
    assert_eq!(ask(&mut c, json!(["source"])).len(), 1);
    assert_eq!(ask(&mut c, json!(["quickfix"])), Vec::<Value>::new());
}

#[test]
fn diagnostics_carry_the_fix_the_cli_prints() {
    let (repo, mut c, uri) = opened();
    let cli = repo.run(&["spec", "check"]);
    let printed = stderr(&cli) + &String::from_utf8_lossy(&cli.stdout);
    assert!(
        printed.contains("help: define test_missing in tests/x.sh"),
        "{printed}"
    );
    run(&mut c, &uri, 5);
    let all = c.diagnostics(&uri);
    for code in ["spec-check", "last-run"] {
        let d = all
            .iter()
            .find(|d| d["code"] == code)
            .unwrap_or_else(|| panic!("no {code} in {all:#?}"));
        let help = d["data"]["help"].as_str().expect("data.help");
        let message = d["message"].as_str().unwrap();
        assert!(message.ends_with(&format!("\nhelp: {help}")), "{message}");
        // vermas has no web page per code to link.
        assert!(d.get("codeDescription").is_none(), "{d:#}");
    }
    let missing = all.iter().find(|d| d["code"] == "spec-check").unwrap();
    assert!(
        missing["data"]["help"]
            .as_str()
            .unwrap()
            .starts_with("define test_missing in tests/x.sh"),
        "{missing:#}"
    );
}
