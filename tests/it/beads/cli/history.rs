//! `history`: the bead's commits, newest first, with their changes.

use super::*;

#[test]
fn history_lists_commits_newest_first_with_changes() {
    let repo = Repo::initialised();
    let id = repo.create("tracked", &[]);
    let other = repo.create("noise", &[]);
    mutate(&repo, &["update", &id, "-p", "1"]);
    mutate(&repo, &["update", &other, "-p", "1"]);
    mutate(&repo, &["close", &id, "-r", "shipped"]);

    let v = repo.json(&["history", &id]);
    let entries = v.as_array().expect("history --json is an array");
    let commits: Vec<String> = entries
        .iter()
        .map(|e| e["commit"].as_str().expect("commit").to_string())
        .collect();
    let git_log: Vec<String> = repo
        .git(&["log", "--format=%H", "--", &bead_path(&id)])
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        commits, git_log,
        "history = the commits that touched the file, newest first"
    );
    assert_eq!(commits.len(), 3);

    let changes = |i: usize| -> Vec<String> {
        entries[i]["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .map(|c| c.as_str().expect("line").to_string())
            .collect()
    };
    assert!(
        changes(0).contains(&"- status: open".to_string()),
        "{:?}",
        changes(0)
    );
    assert!(
        changes(0).contains(&"+ status: closed".to_string()),
        "{:?}",
        changes(0)
    );
    assert!(changes(0).contains(&"+ close_reason: shipped".to_string()));
    assert!(
        changes(1).contains(&"- priority: 2".to_string()),
        "{:?}",
        changes(1)
    );
    assert!(
        changes(1).contains(&"+ priority: 1".to_string()),
        "{:?}",
        changes(1)
    );
    assert!(
        changes(2).contains(&format!("+ id: {id}")),
        "{:?}",
        changes(2)
    );

    let human = repo.ok(&["history", &id]);
    let closed = human.find("+ status: closed").expect("close change shown");
    let created = human.find(&format!("+ id: {id}")).expect("creation shown");
    assert!(closed < created, "newest first:\n{human}");
    assert!(human.contains("- status: open"), "{human}");
    assert!(human.contains(&git_log[0][..7]), "{human}");
}
