//! `vermas export bd` on a store with bead files that do not parse: the warnings come
//! first, every other bead is written, and the export fails after.

use crate::common::{Repo, stderr, stdout};

#[test]
fn export_warns_of_broken_bead_files_first_and_fails_after_writing_the_rest() {
    let repo = Repo::initialised();
    let described = repo.create("Described", &["-d", "A body."]);
    repo.create("Bare", &[]);
    repo.ok(&["update", &described, "--notes", "a note"]);
    let good = repo.ok(&["export", "bd"]);
    assert_eq!(good.lines().count(), 2, "{good}");
    // Old enough to be cached: the export is made from index lines and files alike.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(repo.ok(&["export", "bd"]), good);
    repo.write(
        ".beads/issues/vm-zz.md",
        "---\nid: vm-zz\ntitle: [unclosed\n---\n",
    );
    repo.write(
        ".beads/issues/vm-aa.md",
        "---\nid: vm-other\ntitle: Misnamed\n---\n",
    );

    let failed = "error: 2 bead files could not be read and are not in the export";
    let out = repo.run(&["export", "bd"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), good);
    let err = stderr(&out);
    let warnings = err.lines().filter(|l| l.starts_with("warning")).count();
    assert_eq!(warnings, 2, "{err}");
    assert!(
        err.contains("vm-zz.md") && err.contains("vm-aa.md"),
        "{err}"
    );
    assert_eq!(err.lines().last(), Some(failed), "{err}");

    let out = repo.run(&["export", "bd", "out.jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Exported 2 beads to out.jsonl\n");
    assert_eq!(repo.read("out.jsonl"), good);
    assert_eq!(stderr(&out).lines().last(), Some(failed));

    let out = repo.run(&["export", "bd", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), good);
    let lines: Vec<serde_json::Value> = stderr(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let warned = |w: &serde_json::Value| w["code"] == "parse" && w["warning"].is_string();
    assert!(lines[..2].iter().all(warned), "{lines:?}");
    assert_eq!(lines[2]["code"], "parse");
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("2 bead files")
    );
}
