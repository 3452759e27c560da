//! `ready` and `blocked` hold work back as bd does: `conditional-blocks` until its target
//! closed as a failure, `waits-for` until the target's children are all closed.

use crate::common::*;

/// The ids `ready --json` lists (all of them).
fn ready(repo: &Repo) -> Vec<String> {
    ids(&repo.json(&["ready", "-n", "0"]))
}

/// The ids of a JSON array of beads.
fn ids(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_string())
        .collect()
}

/// The ids `blocked --json` lists, each with what holds it.
fn blocked(repo: &Repo) -> Vec<(String, Vec<String>)> {
    repo.json(&["blocked"])
        .as_array()
        .expect("blocked is an array")
        .iter()
        .map(|b| {
            let by = b["blocked_by"].as_array().unwrap().iter();
            (
                b["id"].as_str().unwrap().to_string(),
                by.map(|x| x.as_str().unwrap().to_string()).collect(),
            )
        })
        .collect()
}

#[test]
fn conditional_blocks_waits_for_its_target_to_fail() {
    let repo = Repo::initialised();
    let try_it = repo.create("try the fast path", &[]);
    let fallback = repo.create(
        "fallback",
        &["--deps", &format!("conditional-blocks:{try_it}")],
    );
    let plain = repo.create("after it", &["--deps", &try_it]);
    // Open target: both wait.
    assert_eq!(ready(&repo), std::slice::from_ref(&try_it));
    let held = blocked(&repo);
    assert!(
        held.contains(&(fallback.clone(), vec![try_it.clone()])),
        "{held:?}"
    );
    let text = repo.ok(&["blocked"]);
    assert!(text.contains("[conditional-blocks]"), "{text}");

    // Closed as a success: `blocks` lets go, the fallback never runs.
    repo.ok(&["close", &try_it, "--reason", "done, all green"]);
    let now = ready(&repo);
    assert!(now.contains(&plain) && !now.contains(&fallback), "{now:?}");
    assert!(blocked(&repo).iter().any(|(id, _)| id == &fallback));

    // Closed as a failure (any case, anywhere in the reason): the fallback is ready.
    repo.ok(&["reopen", &try_it]);
    repo.ok(&["close", &try_it, "--reason", "Approach FAILED on CI"]);
    let now = ready(&repo);
    assert!(now.contains(&fallback) && now.contains(&plain), "{now:?}");
    assert!(blocked(&repo).is_empty(), "{:?}", blocked(&repo));
}

#[test]
fn waits_for_holds_until_every_child_of_the_target_is_closed() {
    let repo = Repo::initialised();
    let spawner = repo.create("survey", &[]);
    let a = repo.create("item a", &["--parent", &spawner]);
    let b = repo.create("item b", &["--parent", &spawner]);
    // A child by a parent-child edge counts too.
    let c = repo.create("item c", &["--deps", &format!("parent-child:{spawner}")]);
    let gate = repo.create("aggregate", &["--deps", &format!("waits-for:{spawner}")]);
    let now = ready(&repo);
    assert!(!now.contains(&gate), "{now:?}");
    assert!(
        blocked(&repo).contains(&(gate.clone(), vec![spawner.clone()])),
        "{:?}",
        blocked(&repo)
    );
    // The spawner itself closing does not open the gate: its children do.
    repo.ok(&["close", &spawner, &a, &b]);
    assert!(!ready(&repo).contains(&gate));
    repo.ok(&["close", &c]);
    assert!(ready(&repo).contains(&gate), "{:?}", ready(&repo));
    assert!(blocked(&repo).is_empty());

    // A target with no children holds nothing back.
    let lone = repo.create("lone", &[]);
    let free = repo.create("free", &["--deps", &format!("waits-for:{lone}")]);
    assert!(ready(&repo).contains(&free));
}
