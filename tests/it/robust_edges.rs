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

/// The size that overflowed the stack of the recursive walks (20,000 did not).
const LONG: usize = 100_000;

#[test]
fn graph_walks_finish_on_a_100000_long_chain_and_cycle() {
    let repo = Repo::initialised();
    write_chain(&repo, LONG);
    let last = format!("vm-c{}", LONG - 1);

    let doctor = repo.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(0), "{}", stderr(&doctor));
    assert!(
        stdout(&doctor).contains("100000 beads readable"),
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
