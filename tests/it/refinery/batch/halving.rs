//! A batch that does not pass is halved until the culprit stands alone: what passes lands,
//! the culprit is rejected with its own failure report; a request that conflicts with one
//! before it in its batch lets the first land and waits in the queue.

use super::*;

#[test]
fn one_bad_branch_in_the_middle_of_sixteen_is_found_by_halving() {
    let q = Queue::new(16, &[9]);
    q.submit(1..=16);
    let old = q.f.tip("release");
    let r = q.run(&["--batch", "16"], &[]);
    r.expect_code(1);

    // 1 + 2 * log2(16) verifications at most; the first was of all sixteen and failed.
    let v = verifications(&r);
    assert!(v.len() <= 9, "{} verifications: {v:#?}", v.len());
    assert_eq!(q.verified_commits(), v.len());
    assert_eq!(v[0]["requests"].as_array().map(Vec::len), Some(16));
    assert_eq!(v[0]["passed"], false);
    let culprit = q.request(9);
    assert_eq!(culprit["state"], "rejected", "{culprit:#}");
    assert_eq!(culprit["last_verdict"], "FAIL");
    assert!(culprit["batch"].is_null(), "judged alone: {culprit:#}");
    let alone = serde_json::json!([culprit["id"]]);
    assert!(
        v.iter()
            .any(|v| v["requests"] == alone && v["passed"] == false),
        "{v:#?}"
    );

    // The fifteen others landed; the culprit's file is not on release.
    for i in (1..=16).filter(|i| *i != 9) {
        let req = q.request(i);
        assert_eq!(req["state"], "merged", "b{i}: {req:#}");
        assert_eq!(
            q.f.repo.git(&["show", &format!("release:w{i}.txt")]),
            "ok\n"
        );
        assert_eq!(q.f.bead(&q.works[i - 1])["status"], "closed");
    }
    let shown = q.f.repo.run(&["show", "release:w9.txt"]);
    assert!(!shown.status.success(), "the culprit's file landed");
    assert!(
        q.f.repo
            .git(&["merge-base", "--is-ancestor", &old, "release"])
            .is_empty()
    );

    // The culprit's own failure report: its work rejected, a result bead, REJECTED mailed.
    let work = q.f.bead(&q.works[8]);
    assert_eq!(work["status"], "rejected", "{work:#}");
    let feedback = q.f.repo.ok(&["inspect", "feedback", &q.works[8]]);
    assert!(feedback.contains("w9.txt reads ok"), "{feedback}");
    let mail = q.mail();
    assert!(mail.contains(&"REJECTED: work 9".to_string()), "{mail:?}");
    assert_eq!(mail.iter().filter(|s| s.starts_with("MERGED")).count(), 15);
    q.f.assert_no_worktree_left();
    q.f.repo.assert_fsck();
}

#[test]
fn a_conflict_inside_a_batch_lands_the_first_and_requeues_the_second() {
    let q = Queue::new(3, &[]);
    // b2 also writes w1.txt, otherwise than b1 does: each merges onto release alone.
    q.f.commit_on("b2", &[("w1.txt", "not ok\n")], "b2 writes w1 too");
    q.submit(1..=3);
    let r = q.run(&["--batch", "3", "--once"], &[]);
    r.expect_code(0);
    let v = verifications(&r);
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0]["requests"].as_array().map(Vec::len), Some(2));
    for i in [1, 3] {
        assert_eq!(q.request(i)["state"], "merged");
    }
    let second = q.request(2);
    assert_eq!(second["state"], "queued", "{second:#}");
    let reason = second["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("re-queued") && reason.contains("w1.txt"),
        "{reason}"
    );
    assert_eq!(q.f.repo.git(&["show", "release:w1.txt"]), "ok\n");

    // The next run takes it alone on the new tip, where it conflicts for good.
    let r = q.run(&[], &[]);
    r.expect_code(1);
    let second = q.request(2);
    assert_eq!(second["state"], "conflict", "{second:#}");
    assert_eq!(second["conflicts"], serde_json::json!(["w1.txt"]));
    assert!(q.mail().contains(&"CONFLICT: work 2".to_string()));
    q.f.assert_no_worktree_left();
}
