//! The `code` of `--json` errors: each kind of refusal has its own stable name (see the
//! error codes in docs/conventions.md), all with exit 2.

use crate::common::*;

/// Runs `args` with `--json`, expects exit 2 and one JSON error object on stderr.
fn refusal(repo: &Repo, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.push("--json");
    let err = repo.fails(&all, 2);
    let line = err.lines().find(|l| l.starts_with('{')).unwrap_or("");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {err}"))
}

#[test]
fn each_kind_of_refusal_has_its_own_code() {
    let repo = Repo::initialised();
    let id = repo.create("shared work", &[]);
    let closed = repo.create("finished work", &[]);
    repo.ok(&["close", &closed]);
    repo.ok(&["--actor", "alice", "update", &id, "--claim"]);
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["list", "--status", "wip"],
            "invalid",
            "unknown status 'wip'",
        ),
        (
            &["status", "--baseline", "main"],
            "usage",
            "--baseline goes with --verify",
        ),
        (
            &["update", &closed, "--claim"],
            "wrong_state",
            "is closed; reopen it first",
        ),
        (
            &["--actor", "bob", "update", &id, "--claim"],
            "conflict",
            "is already claimed by alice",
        ),
        (
            &["config", "set", "nope.key", "1"],
            "config",
            "unknown config key 'nope.key'",
        ),
    ];
    for (args, code, message) in cases {
        let v = refusal(&repo, args);
        assert_eq!(v["code"], code, "{args:?}: {v}");
        assert_eq!(v["schema_version"], 1, "{v}");
        assert!(
            v["error"].as_str().unwrap_or("").contains(message),
            "{args:?}: {v}"
        );
        // Without --json the message and its hint read as before.
        let err = repo.fails(args, 2);
        assert!(
            err.starts_with("error: ") && err.contains(message),
            "{args:?}: {err}"
        );
    }
    let err = repo.fails(&["--actor", "bob", "update", &id, "--claim"], 2);
    assert!(err.contains("help: ask them, or reassign it"), "{err}");
}
