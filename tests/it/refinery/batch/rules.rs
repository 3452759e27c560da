//! Every rule of a lone request holds inside a batch: a branch that changes a frozen check
//! file, the Inspector's records or adds a symlink under `.beads/` is refused before
//! anything runs, and the rest of the batch lands without it.

use super::*;

/// A check that work 1's test spec runs, frozen by its approval.
const GATE: &str = "#!/usr/bin/env bash\ngate() {\n  true\n}\n\"$@\"\n";

#[test]
fn branches_that_change_their_judges_are_refused_and_the_rest_of_the_batch_lands() {
    let q = Queue::with(
        5,
        &[],
        &[("tests/gate.sh", GATE)],
        &[(1, ["--verify", "tests/gate.sh#gate"])],
    );
    q.f.commit_on("b2", &[(".beads/vermas.yaml", "prefix: vm\n")], "looser");
    q.f.repo.git(&["switch", "-q", "b3"]);
    std::os::unix::fs::symlink("../../w3.txt", q.f.repo.join(".beads/issues/vm-link.md"))
        .expect("symlink");
    q.f.repo.git(&["add", ".beads/issues/vm-link.md"]);
    q.f.repo.git(&["commit", "-q", "-m", "a link"]);
    q.f.repo.git(&["switch", "-q", "main"]);
    q.f.commit_on(
        "b4",
        &[(
            "tests/gate.sh",
            "#!/usr/bin/env bash\ngate() {\n  :\n}\n\"$@\"\n",
        )],
        "easier gate",
    );
    q.submit(1..=5);
    let old = q.f.tip("release");
    let r = q.run(&["--batch", "5"], &[]);
    r.expect_code(1);

    for (i, named) in [
        (2, ".beads/vermas.yaml"),
        (3, ".beads/issues/vm-link.md"),
        (4, "tests/gate.sh"),
    ] {
        let req = q.request(i);
        assert_eq!(req["state"], "rejected", "b{i}: {req:#}");
        let reason = req["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(named), "b{i}: {reason}");
        assert!(req["last_verdict"].is_null(), "b{i} was never inspected");
        assert_ne!(q.f.bead(&q.works[i - 1])["status"], "rejected");
    }
    // Only works 1 and 5 were checked, together, once; release moved once.
    let v = verifications(&r);
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0]["requests"].as_array().map(Vec::len), Some(2));
    let runs = std::fs::read_to_string(q.f.repo.join(".git/verified")).expect("verified");
    assert_eq!(runs.lines().count(), 2, "{runs}");
    assert_eq!(q.release_moves(), 1);
    for i in [1, 5] {
        assert_eq!(q.request(i)["state"], "merged");
    }
    assert_eq!(q.f.repo.git(&["show", "release:tests/gate.sh"]), GATE);
    assert_eq!(q.f.tip("release^1^1"), old);
    let mail = q.mail();
    assert_eq!(
        mail.iter().filter(|s| s.starts_with("NOT MERGED")).count(),
        3,
        "{mail:?}"
    );
    q.f.assert_no_worktree_left();
}
