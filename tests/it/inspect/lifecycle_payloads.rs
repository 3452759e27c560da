//! What each lifecycle hook point is given on stdin: every point names the bead
//! (`bead_id`), PreAdvocate and PreCritic get the evidence, PreJudgment the two briefs,
//! and the Post and On points what their step produced.

use crate::common::*;
use crate::specs::support::*;

/// The points a passing `inspect run` fires.
const POINTS: [&str; 10] = [
    "PreInspect",
    "PostVerify",
    "PostAudit",
    "PreAdvocate",
    "PostAdvocate",
    "PreCritic",
    "PostCritic",
    "PreJudgment",
    "PostJudgment",
    "OnVerifyPass",
];

#[test]
fn every_hook_point_gets_the_bead_and_what_its_step_needs() {
    let repo = Repo::initialised();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.write_fizz(&[("ac-1", "true")], true);
    let dir = repo.join("payloads");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let record = format!("#!/bin/sh\ncat > '{}/'\"$VERMAS_HOOK\"\n", dir.display());
    for point in POINTS {
        write_exec(&repo, &format!(".beads/hooks/{point}"), &record);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "work, spec and hooks"]);
    run(&repo, &["inspect", "run", "vm-fizz"]).expect_code(0);
    let payload = |point: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.join(point))
            .unwrap_or_else(|_| panic!("{point} did not run"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{point}: {e}: {text}"))
    };
    for point in POINTS {
        assert_eq!(payload(point)["bead_id"], "vm-fizz", "{point}");
    }
    assert_eq!(payload("PostVerify")["checks"][0]["id"], "ac-1");
    assert_eq!(payload("PostAudit")["audit"][0]["finding"], "met");
    for point in ["PreAdvocate", "PreCritic"] {
        let evidence = payload(point)["evidence"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(evidence.contains("CRITERION ac-1"), "{point}: {evidence}");
    }
    let briefs = payload("PreJudgment");
    assert!(
        briefs["briefs"]["advocate"]
            .as_str()
            .unwrap_or_default()
            .contains("advocate")
    );
    assert!(
        briefs["briefs"]["critic"]
            .as_str()
            .unwrap_or_default()
            .contains("critic")
    );
    assert_eq!(payload("PostJudgment")["judgment"]["decision"], "PASS");
    assert_eq!(payload("OnVerifyPass")["verdict"], "PASS");
}
