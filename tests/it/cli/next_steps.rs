//! Every output says what to do next: init, an empty status, a new task waiting for its
//! test spec, pending specs, a spec without criteria, a missing spec, no live spec at all,
//! and a spec naming a bead that does not exist.

use crate::common::*;

#[test]
fn each_output_names_the_next_command() {
    let repo = Repo::new();
    let init = repo.ok(&["init", "--prefix", "vm"]);
    assert!(init.contains("committed them as"), "{init}");
    assert!(
        init.contains("Next: track work with `vermas create"),
        "{init}"
    );
    let status = repo.ok(&["status"]);
    assert!(
        status.starts_with("Beads: 0 (0% done)\n"),
        "no trailing spaces: {status:?}"
    );
    let created = repo.ok(&["create", "Pick a CI provider"]);
    assert!(created.contains("--no-spec"), "{created}");
    let work = created
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .trim_end_matches(':')
        .to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    let pending = repo.ok(&["inspect", "pending"]);
    assert!(
        pending.contains(&format!("vermas inspect add-criteria {spec}"))
            && pending.contains(&format!("vermas strategize {work}")),
        "{pending}"
    );
    let shown = repo.ok(&["inspect", "show", &work]);
    assert!(shown.contains("pending approval (its test spec"), "{shown}");
    assert!(shown.contains("vermas inspect add-criteria"), "{shown}");
    let missing = repo.fails(
        &[
            "inspect",
            "add-criteria",
            "vm-spec-zzzz",
            "-d",
            "x",
            "--cmd",
            "true",
        ],
        2,
    );
    assert!(missing.contains("vermas inspect pending"), "{missing}");
    let out = repo.run(&["status", "--verify"]);
    assert!(
        stderr(&out).contains("write a first live spec"),
        "{}",
        stderr(&out)
    );
    repo.write(
        "specs/s.md",
        "---\nbead: vm-k3f9\n---\n# S\n## Success Criteria\n- [ ] a [verify](../t.sh#f)\n",
    );
    repo.write("t.sh", "f() { true; }\n");
    let out = repo.run(&["spec", "check"]);
    assert!(
        stderr(&out).contains("the spec names bead vm-k3f9, which does not exist"),
        "{}",
        stderr(&out)
    );
}
