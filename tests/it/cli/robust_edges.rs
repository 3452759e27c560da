//! No crash, no orphan, no leftover: graph walks on 100,000 beads, `doctor` on parent
//! loops and on records that do not parse, the language server on bad frames and on a
//! client that leaves mid-run, and the bd round trip (`import bd` / `export bd`).

use crate::common::*;

/// A bead file as vermas writes it: `vm-c<i>`, blocked by `vm-c<next>` when given.
fn chain_bead(i: usize, next: Option<usize>) -> String {
    let deps = match next {
        Some(n) => format!("dependencies:\n  - {{depends_on_id: vm-c{n}, type: blocks}}\n"),
        None => "dependencies: []\n".to_string(),
    };
    format!(
        "---\nid: vm-c{i}\ntitle: Step {i}\nstatus: open\npriority: 2\nissue_type: task\n\
         labels: []\nassignee: null\ncreated_at: 2026-01-01T00:00:00Z\ncreated_by: Test User\n\
         updated_at: 2026-01-01T00:00:00Z\nclosed_at: null\nclose_reason: null\nparent: null\n\
         spec: null\n{deps}notes: []\n---\n"
    )
}

/// Writes `n` beads in one `blocks` chain (`vm-c0` waits on `vm-c1`... on `vm-c<n-1>`)
/// straight into `.beads/issues/` and commits them with git.
fn write_chain(repo: &Repo, n: usize) {
    let dir = repo.join(".beads/issues");
    for i in 0..n {
        let next = (i + 1 < n).then_some(i + 1);
        std::fs::write(dir.join(format!("vm-c{i}.md")), chain_bead(i, next)).expect("write");
    }
    repo.git(&["add", ".beads/issues"]);
    repo.git(&["commit", "-q", "-m", "a long chain"]);
}

/// A chain that overflowed the stack of the recursive walks in a debug build (25,000 did,
/// 20,000 did not); 100,000 works as well, but takes a minute of a debug build's time.
const LONG: usize = 30_000;

#[test]
fn graph_walks_finish_on_a_long_chain_and_cycle() {
    let repo = Repo::initialised();
    write_chain(&repo, LONG);
    let last = format!("vm-c{}", LONG - 1);

    let doctor = repo.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(0), "{}", stderr(&doctor));
    assert!(
        stdout(&doctor).contains(&format!("{LONG} beads readable")),
        "{}",
        stdout(&doctor)
    );
    assert_eq!(repo.ok(&["dep", "cycles"]).trim(), "No dependency cycles.");
    let ready = repo.json(&["ready"]);
    let ids: Vec<&str> = ready
        .as_array()
        .expect("ready list")
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert_eq!(ids, [last.as_str()]);
    let blocked = repo.ok(&["blocked"]);
    assert!(blocked.contains("vm-c0 [P2]"), "{}", &blocked[..200]);
    // The tree stops at a depth a reader can follow, and says so.
    let tree = repo.json(&["dep", "tree", "vm-c0"]);
    let mut node = &tree;
    let mut depth = 0;
    while let Some(child) = node["children"].get(0) {
        node = child;
        depth += 1;
    }
    assert_eq!(depth, 50);
    assert_eq!(node["id"], "vm-c50");
    assert_eq!(node["truncated"], true);
    let text = repo.ok(&["dep", "tree", "vm-c0"]);
    assert!(
        text.trim_end()
            .ends_with("(its dependencies are deeper than shown)"),
        "{}",
        &text[text.len() - 300..]
    );

    // The last bead waits on the first: one loop through all of them.
    repo.write(
        &format!(".beads/issues/{last}.md"),
        &chain_bead(LONG - 1, Some(0)),
    );
    repo.git(&["commit", "-q", "-a", "-m", "close the loop"]);
    let doctor = repo.run(&["doctor", "--json"]);
    assert_eq!(doctor.status.code(), Some(1), "{}", stderr(&doctor));
    let findings: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("JSON");
    let cycle = findings
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["message"].as_str())
        .find(|m| m.starts_with("dependency cycle: "))
        .expect("the loop is reported");
    assert_eq!(cycle.matches(" -> ").count(), LONG);
    assert!(
        cycle.ends_with(&format!("{last} -> vm-c0")),
        "{}",
        &cycle[cycle.len() - 50..]
    );
    let out = repo.run(&["dep", "cycles", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let cycles: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].len(), LONG + 1);
    assert!(repo.json(&["ready"]).as_array().expect("list").is_empty());
    let tree = repo.json(&["dep", "tree", &last]);
    assert_eq!(tree["children"][0]["id"], "vm-c0");
    repo.ok(&["blocked"]);
}

#[test]
fn doctor_reports_a_loop_of_parents() {
    let repo = Repo::initialised();
    let a = repo.create("Epic A", &[]);
    let b = repo.create("Epic B", &[]);
    for (id, parent) in [(&a, &b), (&b, &a)] {
        let path = format!(".beads/issues/{id}.md");
        let text = repo
            .read(&path)
            .replace("parent: null", &format!("parent: {parent}"));
        repo.write(&path, &text);
    }
    repo.git(&["commit", "-q", "-a", "-m", "each the other's parent"]);
    let out = repo.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (first, second) = if a < b { (&a, &b) } else { (&b, &a) };
    let want = format!(
        "error   parent cycle (each is the next one's child): {first} -> {second} -> {first}"
    );
    assert!(text.lines().any(|l| l == want), "{text}");
}

#[test]
fn doctor_fix_commits_only_records_that_parse_and_names_the_rest() {
    let repo = Repo::initialised();
    repo.create("Recorded", &[]);
    let conflicted = ".beads/issues/vm-conf.md";
    repo.write(
        conflicted,
        "---\nid: vm-conf\ntitle: Conf\n<<<<<<< HEAD\nstatus: open\n=======\nstatus: closed\n\
         >>>>>>> theirs\n---\n",
    );
    // Markers in the body alone still parse as a bead; they are no less a broken merge.
    let body_conflict = ".beads/issues/vm-body.md";
    repo.write(
        body_conflict,
        "---\nid: vm-body\ntitle: Body\n---\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> b\n",
    );
    let unclosed = ".beads/issues/vm-open.md";
    repo.write(unclosed, "---\nid: vm-open\ntitle: Open\nstatus: open\n");
    let partial = ".beads/issues/.tmp-vm-x.md.partial";
    repo.write(partial, "---\nid: vm-x\n");
    let good = ".beads/issues/vm-good.md";
    repo.write(good, "---\nid: vm-good\ntitle: Good\n---\n");

    let out = repo.run(&["doctor", "--fix"]);
    assert_eq!(repo.head_files(), [good]);
    let text = stdout(&out);
    for left in [conflicted, body_conflict, unclosed, partial] {
        assert_eq!(
            repo.status(left),
            format!("?? {left}\n"),
            "{left} was committed"
        );
        let named: Vec<&str> = text.lines().filter(|l| l.contains(left)).collect();
        assert!(
            named
                .iter()
                .any(|l| l.contains("`vermas doctor --fix` leaves it: fix it or remove it")),
            "{left} is not named: {text}"
        );
    }
    // A second --fix commits nothing more.
    let before = repo.commit_count();
    repo.run(&["doctor", "--fix"]);
    assert_eq!(repo.commit_count(), before);
}

/// A bd export of `n` plain issues `vm-i<k>`.
fn bd_issues(n: usize) -> String {
    (0..n)
        .map(|k| format!("{{\"id\":\"vm-i{k}\",\"title\":\"Issue {k}\",\"status\":\"open\",\"priority\":2}}\n"))
        .collect()
}

#[test]
fn an_import_killed_before_its_commit_is_committed_by_the_next_one() {
    let repo = Repo::initialised();
    repo.write("in.jsonl", &bd_issues(40));
    repo.ok(&["import", "bd", "in.jsonl"]);
    // As if killed after writing its files and before its commit.
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    repo.git(&["reset", "-q"]);
    assert_ne!(repo.status(".beads"), "");
    let before = repo.commit_count();

    let out = repo.ok(&["import", "bd", "in.jsonl"]);
    assert!(
        out.contains("40 new, 0 updated, 0 unchanged in commit"),
        "{out}"
    );
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(repo.status(".beads"), "");
    assert_eq!(repo.head_files().len(), 40);
    // Now they are unchanged: nothing more to commit.
    let out = repo.ok(&["import", "bd", "in.jsonl"]);
    assert!(out.contains("0 new, 0 updated, 40 unchanged"), "{out}");
    assert_eq!(repo.commit_count(), before + 1);
    repo.assert_fsck();
}

#[test]
fn export_and_import_again_and_again_change_nothing_with_a_test_spec() {
    let repo = Repo::initialised_with_test_specs();
    let work = repo.create("Do it", &["-d", "What to do."]);
    let spec_file = format!(
        ".beads/issues/vm-spec-{}.md",
        work.trim_start_matches("vm-")
    );
    let spec = repo.read(&spec_file).replace(
        "notes: []\n",
        "notes: []\nacceptance_criteria:\n  - {id: AC-1, description: It works, verify_command: \"true\"}\n  - {id: AC-2, description: It reads well, judge: Is it clear?}\n",
    );
    repo.write(&spec_file, &spec);
    repo.git(&["commit", "-q", "-a", "-m", "criteria"]);

    let snapshot = |repo: &Repo| {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(repo.join(".beads/issues"))
            .expect("issues")
            .map(|e| {
                let e = e.expect("entry");
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).expect("read"),
                )
            })
            .collect();
        files.sort();
        files
    };
    let mut seen = Vec::new();
    for cycle in 1..=3 {
        let before = repo.commit_count();
        repo.ok(&["export", "bd", "out.jsonl"]);
        repo.ok(&["import", "bd", "out.jsonl"]);
        if cycle > 1 {
            assert_eq!(repo.commit_count(), before, "cycle {cycle} made a commit");
            assert_eq!(snapshot(&repo), seen, "cycle {cycle} changed a bead file");
        }
        seen = snapshot(&repo);
    }
    let text = repo.read(&spec_file);
    assert!(text.matches("AC-1").count() <= 2, "{text}");
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn ids_that_collide_on_macos_or_windows_are_refused_by_line() {
    let repo = Repo::initialised();
    repo.write(".beads/issues/vm-5.md", "---\nid: vm-5\ntitle: Five\n---\n");
    repo.git(&["add", ".beads"]);
    repo.git(&["commit", "-q", "-m", "five"]);
    repo.write(
        "in.jsonl",
        concat!(
            "{\"id\":\"vm-1\",\"title\":\"One\"}\n",
            "{\"id\":\"VM-1\",\"title\":\"One again\"}\n",
            "{\"id\":\"CON\",\"title\":\"Console\"}\n",
            "{\"id\":\"nul.1\",\"title\":\"Null child\"}\n",
            "{\"id\":\"Com7\",\"title\":\"Port\"}\n",
            "{\"id\":\"lpt1\",\"title\":\"Printer\"}\n",
            "{\"id\":\"VM-5\",\"title\":\"Five again\"}\n",
            "{\"id\":\"vm-2\",\"title\":\"Two\"}\n",
            "{\"id\":\"console\",\"title\":\"A fine name\"}\n",
        ),
    );
    let err = repo.fails(&["import", "bd", "in.jsonl"], 1);
    for expected in [
        "in.jsonl:2:2: issue VM-1 differs only in case from vm-1 on line 1",
        "in.jsonl:3:2: 'CON' cannot be a bead id: its file CON.md has a name Windows reserves",
        "in.jsonl:4:2: 'nul.1' cannot be a bead id",
        "in.jsonl:5:2: 'Com7' cannot be a bead id",
        "in.jsonl:6:2: 'lpt1' cannot be a bead id",
        "in.jsonl:7:2: issue VM-5 differs only in case from vm-5 in this repository already",
        "error: 6 bad lines of in.jsonl not imported; the other issues were",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
    let mut files: Vec<String> = std::fs::read_dir(repo.join(".beads/issues"))
        .expect("issues")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["console.md", "vm-1.md", "vm-2.md", "vm-5.md"]);
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn export_into_a_fifo_writes_into_it_and_leaves_it_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    use std::time::{Duration, Instant};
    let repo = Repo::initialised();
    repo.create("Exported", &[]);
    let fifo = repo.join("out.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let captured = repo.join("captured.jsonl");
    let mut reader = std::process::Command::new("sh")
        .arg("-c")
        .arg("exec cat out.fifo > captured.jsonl")
        .current_dir(repo.path())
        .spawn()
        .expect("reader");

    repo.ok(&["export", "bd", "out.fifo"]);
    let kind = std::fs::symlink_metadata(&fifo)
        .expect("out.fifo")
        .file_type();
    // The reader ends when the writer closes the fifo; a replaced fifo never gets one.
    let deadline = Instant::now() + Duration::from_secs(10);
    while reader.try_wait().expect("wait").is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = reader.kill();
    let _ = reader.wait();
    assert!(kind.is_fifo(), "out.fifo was replaced by a {kind:?}");
    let text = std::fs::read_to_string(&captured).expect("captured");
    assert_eq!(text, repo.ok(&["export", "bd"]));
    assert!(text.contains("\"title\":\"Exported\""), "{text}");
}

mod lsp_edges {
    //! `vermas lsp` on frames that are not messages, and a client that leaves mid-run.

    use crate::common::*;
    use crate::lsp::client::{Client, file_uri};
    use serde_json::{Value, json};
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    /// The spec's criteria (zero-based lines 4 and 5) and their checks: one whose child
    /// sleeps (its pid in `slow.pid`), one that leaves processes behind in the background.
    const SPEC: &str = "# Edges\n\n## Success Criteria\n\n- [ ] Slow [verify](../tests/edge.sh#test_slow)\n- [ ] Strays [verify](../tests/edge.sh#test_strays)\n";
    const CHECKS: &str = "test_slow() {\n  sleep 1000 &\n  echo $! > slow.pid\n  wait\n}\n\ntest_strays() {\n  sleep 4242 &\n  setsid sleep 4243 &\n  true\n}\n";

    /// A workspace with the spec and its checks committed; its canonical root.
    fn edge_repo() -> (Repo, PathBuf) {
        let repo = Repo::initialised();
        repo.write("tests/edge.sh", CHECKS);
        repo.write("specs/edge.md", SPEC);
        repo.git(&["add", "."]);
        repo.git(&["commit", "-q", "-m", "edge spec"]);
        let root = repo.path().canonicalize().expect("canonical root");
        (repo, root)
    }

    /// Asks the server to run the criterion on zero-based `line`; returns the request id.
    fn start_run(c: &mut Client, uri: &str, line: u64, id: i64) {
        c.send(&json!({
            "jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand",
            "params": {"command": "vermas.runCriterion", "arguments": [uri, line]},
        }));
    }

    /// The state letter of process `pid` (`None` once it is gone).
    fn state(pid: u32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..].trim_start().chars().next()
    }

    /// True while `pid` runs (a zombie has ended).
    fn running(pid: u32) -> bool {
        state(pid).is_some_and(|s| s != 'Z')
    }

    /// The pid the slow check wrote, once it has started sleeping.
    fn slow_pid(repo: &Repo) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(pid) = std::fs::read_to_string(repo.join("slow.pid"))
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok())
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| c.starts_with(b"sleep\0"))
                })
            {
                return pid;
            }
            assert!(Instant::now() < deadline, "the slow check never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits up to `limit` for `pid` to stop running.
    fn ends_within(pid: u32, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while running(pid) {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// The error reply to the next frame that could not be read.
    fn error_reply(c: &mut Client) -> Value {
        c.wait_for(|m| m.get("error").is_some() && m["id"].is_null())
    }

    #[test]
    fn frames_that_are_not_messages_are_answered_and_the_server_goes_on() {
        let (repo, root) = edge_repo();
        let (mut c, _) = Client::initialised(repo.path());
        let uri = file_uri(&root.join("specs/edge.md"));
        c.open(&uri, SPEC);

        c.send_raw(b"Content-Length: 5\r\n\r\nnope!");
        assert_eq!(error_reply(&mut c)["error"]["code"], -32700);
        c.send_raw(b"X-Not-A-Length: 2\r\n\r\n{}");
        let missing = error_reply(&mut c);
        assert_eq!(missing["error"]["code"], -32700, "{missing}");
        assert!(
            missing["error"]["message"]
                .as_str()
                .unwrap()
                .contains("without a Content-Length"),
            "{missing}"
        );
        c.send_raw(b"Content-Length: 7\r\n\r\n{\"a\":1}");
        assert_eq!(error_reply(&mut c)["error"]["code"], -32600);
        // Still serving.
        let links = c.request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(
            links["result"].as_array().expect("links").len(),
            2,
            "{links}"
        );
        // Refused before a byte of it is read into memory; what follows is skipped.
        c.send_raw(b"Content-Length: 99999999999\r\n\r\n");
        let huge = error_reply(&mut c);
        assert_eq!(huge["error"]["code"], -32600, "{huge}");
        assert!(
            huge["error"]["message"]
                .as_str()
                .unwrap()
                .contains("over vermas lsp's limit"),
            "{huge}"
        );
        // The client leaves: exit 1 (no exit notification), not a crash.
        assert_eq!(c.wait_exit(), Some(1), "stderr: {}", c.stderr());

        // A body cut short by the end of the stream.
        let (mut c, _) = Client::initialised(repo.path());
        c.send_raw(b"Content-Length: 50\r\n\r\n{\"jsonrpc\":");
        assert_eq!(c.wait_exit(), Some(1), "stderr: {}", c.stderr());
        assert_eq!(error_reply(&mut c)["error"]["code"], -32700);
    }

    /// Starts the slow criterion in a server on `repo`; the server and the check's pid.
    fn slow_run(repo: &Repo, root: &Path) -> (Client, u32) {
        let (mut c, _) = Client::initialised(repo.path());
        let uri = file_uri(&root.join("specs/edge.md"));
        c.open(&uri, SPEC);
        start_run(&mut c, &uri, 4, 900);
        let pid = slow_pid(repo);
        (c, pid)
    }

    #[test]
    fn shutdown_and_exit_mid_run_end_the_check_at_once() {
        let (repo, root) = edge_repo();
        let (mut c, pid) = slow_run(&repo, &root);
        assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
        c.notify("exit", Value::Null);
        let start = Instant::now();
        assert_eq!(c.wait_exit(), Some(0), "stderr: {}", c.stderr());
        assert!(
            ends_within(pid, Duration::from_secs(5)),
            "the check's sleep {pid} outlived the server"
        );
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_client_leaving_mid_run_ends_the_server_and_the_check_at_once() {
        let (repo, root) = edge_repo();
        let (mut c, pid) = slow_run(&repo, &root);
        let start = Instant::now();
        assert_eq!(c.wait_exit(), Some(1), "stderr: {}", c.stderr());
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the server lingered"
        );
        assert!(
            ends_within(pid, Duration::from_secs(5)),
            "the check's sleep {pid} outlived the server"
        );
    }

    /// The children of process `pid` (of all its threads), each with its state letter.
    fn children(pid: u32) -> Vec<(u32, Option<char>)> {
        let mut out = Vec::new();
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            out.extend(
                list.split_whitespace()
                    .filter_map(|c| c.parse().ok())
                    .map(|c| (c, state(c))),
            );
        }
        out
    }

    #[test]
    fn a_check_s_background_processes_leave_no_zombie_under_the_server() {
        let (repo, root) = edge_repo();
        let (mut c, _) = Client::initialised(repo.path());
        let uri = file_uri(&root.join("specs/edge.md"));
        c.open(&uri, SPEC);
        for round in 0..3 {
            start_run(&mut c, &uri, 5, 910 + round);
            let reply = c.wait_for(|m| m["id"] == json!(910 + round) && m.get("method").is_none());
            assert_eq!(reply["result"]["outcome"], "PASS", "{reply}");
            // Give a stray time to be adopted and to die.
            std::thread::sleep(Duration::from_millis(300));
            let kids = children(c.pid());
            assert!(
                kids.iter().all(|(_, s)| *s != Some('Z')),
                "round {round}: zombie children of the server: {kids:?}"
            );
        }
        c.notify("exit", Value::Null);
        assert_eq!(c.wait_exit(), Some(1), "stderr: {}", c.stderr());
    }
}
