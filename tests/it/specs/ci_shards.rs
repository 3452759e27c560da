//! `status --verify --shard K/N` and `spec list --shard K/N`: a CI matrix of N runners
//! covers every criterion exactly once, the same slices on every machine.

use crate::common::*;
use std::collections::BTreeSet;
use std::path::Path;

/// The `path:line` of every criterion `spec list --json` (with `args`) gives in `dir`.
fn criteria_in(dir: &Path, args: &[&str]) -> BTreeSet<String> {
    let out = assert_cmd::Command::cargo_bin("vermas")
        .expect("binary")
        .current_dir(dir)
        .args(["spec", "list", "--json"])
        .args(args)
        .output()
        .expect("vermas");
    assert!(out.status.success(), "{}", stderr(&out));
    let specs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut all = BTreeSet::new();
    for s in specs.as_array().expect("array") {
        for c in s["criteria"].as_array().expect("criteria") {
            all.insert(format!("{}:{}", s["path"].as_str().unwrap(), c["line"]));
        }
    }
    all
}

#[test]
fn the_shards_of_this_repositorys_specs_cover_every_criterion_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let every = criteria_in(root, &[]);
    assert!(every.len() > 10, "{every:?}");
    for n in 1..=5 {
        let mut seen = BTreeSet::new();
        for k in 1..=n {
            for c in criteria_in(root, &["--shard", &format!("{k}/{n}")]) {
                assert!(seen.insert(c.clone()), "{c} is in two of {n} shards");
            }
        }
        assert_eq!(seen, every, "the {n} shards together");
    }
}

#[test]
fn a_shard_runs_only_its_criteria_and_two_shards_run_each_once() {
    let repo = Repo::initialised();
    repo.write(
        "tests/t.sh",
        "#!/usr/bin/env bash\nmark() { echo x >> \"ran-$1\"; }\ntest_a() { mark a; }\ntest_b() { mark b; }\ntest_c() { mark c; }\ntest_d() { mark d; }\n\"$@\"\n",
    );
    std::process::Command::new("chmod")
        .args(["+x", &repo.join("tests/t.sh").display().to_string()])
        .status()
        .expect("chmod");
    repo.write(
        "specs/s.md",
        "# S\n\n## Success Criteria\n\n- [ ] a [verify](../tests/t.sh#test_a)\n- [ ] b [verify](../tests/t.sh#test_b)\n- [ ] c [verify](../tests/t.sh#test_c)\n- [ ] d [verify](../tests/t.sh#test_d)\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "spec"]);
    let ran = |repo: &Repo| -> Vec<String> {
        ["a", "b", "c", "d"]
            .iter()
            .filter(|x| repo.join(&format!("ran-{x}")).exists())
            .map(|x| x.to_string())
            .collect()
    };
    repo.ok(&["status", "--verify", "--shard", "1/2"]);
    let first = ran(&repo);
    assert_eq!(first.len(), 2, "{first:?}");
    repo.ok(&["status", "--verify", "--shard", "2/2"]);
    assert_eq!(ran(&repo), ["a", "b", "c", "d"]);
    for x in ["a", "b", "c", "d"] {
        assert_eq!(repo.read(&format!("ran-{x}")), "x\n", "{x} ran once");
    }
    let err = repo.fails(&["status", "--verify", "--shard", "3/2"], 2);
    assert!(err.contains("K/N"), "{err}");
    let err = repo.fails(&["status", "--shard", "1/2"], 2);
    assert!(err.contains("--shard goes with --verify"), "{err}");
}
