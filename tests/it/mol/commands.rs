//! Molecules end to end: pour, wisp, step changes, squash, burn and the workflow executor,
//! on real temporary git repositories with the real binary.

use crate::common::{Repo, stderr, stdout};
use serde_json::Value;
use std::process::{Command, Stdio};

/// A diamond: `plan`, then `left`, `middle` and `right` in parallel, then `merge`.
const DIAMOND: &str = r#"
formula = "diamond"
description = "Plan, three parallel pieces, merge"
version = 1

[[steps]]
id = "plan"
title = "Plan {{topic}}"
description = "Decide how to do {{topic}}."

[[steps]]
id = "left"
title = "Left"
description = "The left piece."
needs = ["plan"]

[[steps]]
id = "middle"
title = "Middle"
description = "The middle piece."
needs = ["plan"]

[[steps]]
id = "right"
title = "Right"
description = "The right piece."
needs = ["plan"]

[[steps]]
id = "merge"
title = "Merge"
description = "Put the pieces together."
needs = ["left", "middle", "right"]

[vars.topic]
description = "What the work is about"
default = "things"
"#;

/// `n` independent steps `s1`..`sn`.
fn flat(n: usize) -> String {
    let mut f =
        String::from("formula = \"flat\"\ndescription = \"Independent steps\"\nversion = 1\n");
    for i in 1..=n {
        f.push_str(&format!(
            "\n[[steps]]\nid = \"s{i}\"\ntitle = \"Step {i}\"\ndescription = \"Do {i}.\"\n"
        ));
    }
    f
}

/// An initialised repository with the diamond formula committed and one bead.
fn setup() -> (Repo, String) {
    let repo = Repo::initialised();
    repo.write(".beads/formulas/diamond.formula.toml", DIAMOND);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "formula"]);
    let bead = repo.create("Ship the thing", &[]);
    (repo, bead)
}

/// Pours `formula` for `bead` and returns the molecule's JSON.
fn pour(repo: &Repo, formula: &str, bead: &str) -> Value {
    repo.json(&["mol", "pour", formula, "--bead", bead])
}

fn step<'a>(mol: &'a Value, id: &str) -> &'a Value {
    mol["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {mol}"))
}

#[test]
fn pour_writes_one_committed_file_with_every_step_pending() {
    let (repo, bead) = setup();
    let before = repo.commit_count();
    let prefix = &bead[..bead.len() - 1];
    let mol = repo.json(&[
        "mol",
        "pour",
        "diamond",
        "--bead",
        prefix,
        "--var",
        "topic=docs",
    ]);
    let id = mol["id"].as_str().expect("id").to_string();
    assert!(id.starts_with("mol-"), "{id}");
    assert_eq!(mol["schema_version"], 1);
    assert_eq!(mol["state"], "liquid");
    assert_eq!(mol["bead_id"], bead.as_str());
    assert_eq!(mol["formula"], "diamond");
    assert_eq!(step(&mol, "plan")["title"], "Plan docs");
    assert!(
        mol["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "pending")
    );
    let file = format!(".beads/mols/{id}.yaml");
    let text = repo.read(&file);
    assert!(
        text.starts_with(&format!("id: {id}\nformula: diamond\n")),
        "{text}"
    );
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(repo.status(".beads"), "");
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert!(
        subject.starts_with(&format!("vermas mol pour: {id}")),
        "{subject}"
    );
    repo.assert_fsck();

    let listed = repo.json(&["mol", "list"]);
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["steps_total"], 5);
    let human = repo.ok(&["mol", "list"]);
    assert!(human.contains("0/5 steps"), "{human}");
}

#[test]
fn steps_move_through_start_done_block_with_one_commit_each() {
    let (repo, bead) = setup();
    let id = pour(&repo, "diamond", &bead)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let short = &id["mol-".len()..];

    let ready = repo.json(&["mol", "ready", short]);
    assert_eq!(ready.as_array().unwrap().len(), 1);
    assert_eq!(ready[0]["id"], "plan");

    let err = repo.fails(&["mol", "done", &id, "merge"], 2);
    assert!(err.contains("needs left, middle, right"), "{err}");
    repo.fails(&["mol", "done", &id, "nosuch"], 2);
    repo.fails(&["mol", "show", "mol-zzzzzz"], 2);

    let before = repo.commit_count();
    repo.ok(&["mol", "start", &id, "plan"]);
    let done = repo.json(&["mol", "done", &id, "plan", "--output", "the plan"]);
    assert_eq!(done["step"]["status"], "completed");
    assert_eq!(done["step"]["output"], "the plan");
    repo.ok(&["mol", "block", &id, "left", "--reason", "waiting on design"]);
    assert_eq!(repo.commit_count(), before + 3);
    assert_eq!(repo.status(".beads"), "");

    let ready: Vec<Value> = repo
        .json(&["mol", "ready", &id])
        .as_array()
        .unwrap()
        .clone();
    let ids: Vec<&str> = ready.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["middle", "right"]);

    let show = repo.ok(&["mol", "show", &id]);
    assert!(show.contains("1/5 steps"), "{show}");
    assert!(show.contains("reason: waiting on design"), "{show}");
    let mol = repo.json(&["mol", "show", &id]);
    assert_eq!(step(&mol, "left")["status"], "blocked");
    assert_eq!(step(&mol, "left")["reason"], "waiting on design");
    assert!(step(&mol, "plan")["completed_at"].is_string());

    repo.fails(&["mol", "done", &id, "plan"], 2);
}

#[test]
fn concurrent_done_on_different_steps_loses_neither() {
    let repo = Repo::initialised();
    repo.write(".beads/formulas/flat.formula.toml", &flat(8));
    let bead = repo.create("Parallel work", &[]);
    let id = pour(&repo, "flat", &bead)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = repo.commit_count();
    let children: Vec<_> = (1..=8)
        .map(|i| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_vermas"));
            c.current_dir(repo.path())
                .args(["mol", "done", &id, &format!("s{i}")])
                .args(["--output", &format!("out {i}")])
                .env("NO_COLOR", "1")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", repo.path())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for var in crate::common::LEAKY_ENV {
                c.env_remove(var);
            }
            c.spawn().expect("spawn vermas")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    }
    let mol = repo.json(&["mol", "show", &id]);
    for i in 1..=8 {
        let s = step(&mol, &format!("s{i}"));
        assert_eq!(s["status"], "completed", "{mol}");
        assert_eq!(s["output"], format!("out {i}").as_str());
    }
    assert_eq!(repo.commit_count(), before + 8);
    assert_eq!(repo.status(".beads/mols"), "");
    repo.assert_fsck();
}

/// A handler that logs when each step starts and ends, sleeping in between, and prints
/// the step id and the outputs it was given.
const TIMING_HANDLER: &str = r#"#!/bin/sh
input=$(cat)
mkdir -p times
date +%s.%N > "times/$VERMAS_STEP_ID.start"
sleep 1
date +%s.%N > "times/$VERMAS_STEP_ID.end"
echo "noise on stderr" >&2
printf '%s' "$input" > "times/$VERMAS_STEP_ID.json"
echo "did $VERMAS_STEP_ID"
"#;

fn time_of(repo: &Repo, step: &str, which: &str) -> f64 {
    repo.read(&format!("times/{step}.{which}"))
        .trim()
        .parse()
        .expect("timestamp")
}

#[test]
fn run_executes_independent_steps_in_parallel() {
    let (repo, bead) = setup();
    repo.write("handler.sh", TIMING_HANDLER);
    repo.git(&["update-index", "--chmod=+x", "--add", "handler.sh"]);
    std::fs::set_permissions(
        repo.join("handler.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let id = pour(&repo, "diamond", &bead)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = repo.commit_count();
    let out = repo.ok(&[
        "mol",
        "run",
        &id,
        "--handler",
        "./handler.sh",
        "--jobs",
        "3",
    ]);
    assert!(out.contains("[done] plan ("), "{out}");
    assert!(
        out.trim_end()
            .ends_with(&format!("{id}: all 5 steps complete")),
        "{out}"
    );

    // left, middle and right ran at the same time: each started before any ended.
    let pieces = ["left", "middle", "right"];
    let last_start = pieces
        .iter()
        .map(|s| time_of(&repo, s, "start"))
        .fold(f64::MIN, f64::max);
    let first_end = pieces
        .iter()
        .map(|s| time_of(&repo, s, "end"))
        .fold(f64::MAX, f64::min);
    assert!(last_start < first_end, "no overlap: {out}");
    // ...and after plan, before merge.
    assert!(time_of(&repo, "plan", "end") <= time_of(&repo, "left", "start"));
    assert!(first_end <= time_of(&repo, "merge", "start"));

    let input: Value = serde_json::from_str(&repo.read("times/merge.json")).expect("JSON");
    assert_eq!(input["molecule"], id.as_str());
    assert_eq!(input["formula"], "diamond");
    assert_eq!(input["bead_id"], bead.as_str());
    assert_eq!(input["vars"]["topic"], "things");
    assert_eq!(input["step"]["id"], "merge");
    assert_eq!(input["step"]["needs"][2], "right");
    assert_eq!(input["outputs"]["left"], "did left");

    let mol = repo.json(&["mol", "show", &id]);
    assert_eq!(step(&mol, "merge")["output"], "did merge");
    assert_eq!(
        repo.commit_count(),
        before + 10,
        "one commit to take each step, one to record it"
    );
    assert_eq!(repo.status(".beads"), "");
}

#[test]
fn run_stops_when_nothing_can_proceed_and_says_which() {
    let (repo, bead) = setup();
    let id = pour(&repo, "diamond", &bead)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let handler =
        r#"if [ "$VERMAS_STEP_ID" = middle ]; then echo "middle broke" >&2; exit 3; fi; echo fine"#;
    let out = repo.run(&["mol", "run", &id, "--handler", handler]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("[blocked] middle: middle broke"), "{text}");
    assert!(
        text.contains("3/5 steps complete; cannot proceed: middle (blocked: middle broke), merge (waits for middle)"),
        "{text}"
    );
    let mol = repo.json(&["mol", "show", &id]);
    assert_eq!(step(&mol, "middle")["status"], "blocked");
    assert_eq!(step(&mol, "left")["output"], "fine");

    // A new run tries the blocked step again.
    let report = repo.json(&["mol", "run", &id, "--handler", "echo fixed"]);
    assert_eq!(report["complete"], true);
    assert_eq!(report["ran"].as_array().unwrap().len(), 2);
}

#[test]
fn wisps_are_never_committed_and_expire() {
    let repo = Repo::initialised();
    repo.write(".beads/formulas/flat.formula.toml", &flat(2));
    let before = repo.commit_count();
    let wisp = repo.json(&["mol", "wisp", "flat", "--ttl", "30m"]);
    let id = wisp["id"].as_str().unwrap().to_string();
    assert_eq!(wisp["state"], "vapor");
    assert!(wisp["expires_at"].is_string());
    assert!(repo.join(&format!(".beads/wisps/mols/{id}.yaml")).is_file());
    repo.ok(&["mol", "done", &id, "s1"]);
    assert_eq!(repo.commit_count(), before);
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "?? .beads/formulas/\n"
    );

    repo.fails(&["mol", "wisp", "flat", "--ttl", "soon"], 2);

    // An hour later the next mol command removes it.
    let out = repo
        .cmd(&["mol", "list", "--json"])
        .env("VERMAS_NOW", "2999-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "[]");
    assert!(!repo.join(&format!(".beads/wisps/mols/{id}.yaml")).exists());
}

#[test]
fn squash_archives_a_digest_and_burn_deletes_in_one_commit() {
    let (repo, bead) = setup();
    let first = pour(&repo, "diamond", &bead)["id"]
        .as_str()
        .unwrap()
        .to_string();
    repo.ok(&["mol", "done", &first, "plan", "--output", "planned"]);
    let before = repo.commit_count();
    let digest = repo.json(&["mol", "squash", &first, "--summary", "half done"]);
    assert_eq!(digest["state"], "archive");
    assert_eq!(digest["summary"], "half done");
    assert_eq!(step(&digest, "plan")["output"], "planned");
    assert_eq!(step(&digest, "merge")["status"], "pending");
    assert!(!repo.join(&format!(".beads/mols/{first}.yaml")).exists());
    let archived = repo.read(&format!(".beads/mols/archive/{first}.yaml"));
    assert!(archived.contains("summary: half done"), "{archived}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(repo.status(".beads"), "");
    let err = repo.fails(&["mol", "show", &first], 2);
    assert!(err.contains("squashed"), "{err}");

    let second = pour(&repo, "diamond", &bead)["id"]
        .as_str()
        .unwrap()
        .to_string();
    repo.ok(&["mol", "start", &second, "plan"]);
    let err = repo.fails(&["mol", "burn", &second], 2);
    assert!(err.contains("plan (in_progress)"), "{err}");
    let before = repo.commit_count();
    repo.ok(&["mol", "burn", &second, "--force"]);
    assert!(!repo.join(&format!(".beads/mols/{second}.yaml")).exists());
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(repo.status(".beads"), "");
    assert_eq!(repo.json(&["mol", "list"]), serde_json::json!([]));
    repo.assert_fsck();
}

#[test]
fn cook_prints_the_proto_and_bad_input_exits_2() {
    let (repo, bead) = setup();
    let proto = repo.json(&["mol", "cook", "diamond", "--var", "topic=tests"]);
    assert_eq!(proto["schema_version"], 1);
    assert_eq!(proto["formula"], "diamond");
    assert_eq!(proto["steps"][0]["title"], "Plan tests");
    assert_eq!(proto["steps"].as_array().unwrap().len(), 5);
    let human = repo.ok(&["mol", "cook", "diamond"]);
    assert!(human.contains("merge"), "{human}");

    repo.fails(&["mol", "cook", "no-such-formula"], 2);
    repo.fails(&["mol", "pour", "no-such-formula", "--bead", &bead], 2);
    repo.fails(&["mol", "pour", "diamond", "--bead", "vm-nope"], 2);
    assert_eq!(repo.json(&["mol", "list"]), serde_json::json!([]));
}

#[test]
fn a_hand_written_molecule_with_a_mistake_points_at_the_line() {
    let repo = Repo::initialised();
    repo.write(
        ".beads/mols/mol-hand.yaml",
        "id: mol-hand\nformula: f\nstate: liquid\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\nsteps:\n- {id: a, title: A, colour: red}\n",
    );
    let err = repo.fails(&["mol", "show", "mol-hand"], 2);
    assert!(err.contains("mol-hand.yaml:7"), "{err}");
}

#[test]
fn pour_passes_the_bead_as_the_bead_id_variable() {
    let repo = Repo::initialised();
    let bead = repo.create("Verify me", &[]);
    let mol = pour(&repo, "mol-inspect", &bead);
    assert_eq!(mol["vars"]["bead_id"], bead.as_str());
    let verify = step(&mol, "verify");
    assert!(
        verify["description"].as_str().unwrap().contains(&bead),
        "{verify}"
    );
    let ready = repo.json(&["mol", "ready", mol["id"].as_str().unwrap()]);
    assert_eq!(ready[0]["id"], "verify");
}
