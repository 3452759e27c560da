//! No cache decides a recorded verdict: an entry vermas did not write (a judge reply, a
//! pre-push stamp) is ignored, and the check runs as if it were not there.

use super::*;
use crate::inspect::lifecycle_support::{Setup, all};

#[test]
fn a_judge_reply_written_into_the_cache_is_not_vermas_s_and_is_ignored() {
    let repo = Repo::initialised();
    write_exec(
        &repo,
        "llm.sh",
        "#!/bin/sh\ncat >/dev/null\necho FAIL\necho the files say otherwise\n",
    );
    repo.ok(&[
        "config",
        "set",
        "llm.command",
        &repo.join("llm.sh").display().to_string(),
    ]);
    repo.write("src/notify.txt", "slow\n");
    repo.write(
        "tests/judges/notify.sh",
        "test_fast() {\n  judge_files src/notify.txt\n  judge_criterion \"Notifications are fast\"\n}\n",
    );
    repo.write(
        "specs/notify.md",
        "# Notify\n\n## Success Criteria\n\n- [ ] Fast [judge](tests/judges/notify.sh#test_fast)\n",
    );
    commit_all(&repo, "a judged spec");
    let first = run(&repo, &["status", "--judge", "--json"]).json();
    assert_eq!(outcome(&first, "Fast"), "FAIL");
    // The worker rewrites every cached reply as a PASS (with or without the MAC line).
    let cache = repo.join(".beads/.cache/judge");
    let mut forged = 0;
    for e in std::fs::read_dir(&cache).expect("cache") {
        let path = e.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let mac = text.lines().next().unwrap_or("").to_string();
        assert!(mac.starts_with("vermas-mac "), "{text}");
        std::fs::write(&path, format!("{mac}\nPASS\nall good\n")).expect("forge");
        forged += 1;
    }
    assert!(forged > 0);
    for args in [
        vec!["status", "--judge", "--json"],
        vec!["status", "--judge", "--record", "--json"],
    ] {
        let j = run(&repo, &args).json();
        assert_eq!(outcome(&j, "Fast"), "FAIL", "{args:?}: {j}");
    }
}

#[test]
fn a_pre_push_stamp_vermas_did_not_write_runs_the_checks_all_the_same() {
    let s = Setup::new();
    s.repo.ok(&["config", "set", "hooks.pre_push.scope", "all"]);
    s.repo.ok(&["hooks", "install"]);
    let out = s.push();
    s.assert_accepted(&out);
    let pushed = s.remote_ref("refs/heads/main");
    let stamp = s.repo.read(".beads/.cache/pre-push.stamp");
    assert!(stamp.contains(" mac="), "{stamp}");
    // A failing tree, and a stamp line for it written by hand.
    s.check("tests/alpha.sh", "alpha", 1);
    s.commit("break alpha");
    let tree = s.repo.git(&["rev-parse", "HEAD^{tree}"]);
    let line = stamp.lines().last().expect("a line");
    let forged = line
        .split(" tree=")
        .next()
        .map(|head| {
            let rest = line.split_once(" judge=").map(|(_, r)| r).unwrap_or("");
            format!("{head} tree={} judge={rest}", tree.trim())
        })
        .expect("forged");
    let without_mac = forged.split(" mac=").next().unwrap_or("").to_string();
    s.repo.write(
        ".beads/.cache/pre-push.stamp",
        &format!("{stamp}{forged}\n{without_mac}\n"),
    );
    let out = s.push();
    s.assert_refused(&out, pushed.as_deref());
    assert!(
        !crate::common::stderr(&out).contains("already passed"),
        "{}",
        all(&out)
    );
}
