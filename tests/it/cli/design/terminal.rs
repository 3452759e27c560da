//! The approval loop in a real terminal: y, n, e (with an editor) and r (with feedback).

use super::*;

/// An executable editor script `name` in the repository's .git folder (not a work-tree file).
fn editor(repo: &Repo, name: &str, body: &str) -> String {
    let path = repo.join(&format!(".git/{name}"));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write editor");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.display().to_string()
}

#[test]
fn y_in_a_terminal_accepts_and_n_declines_with_nothing_written() {
    let repo = repo();
    let before = repo.commit_count();
    let mut t = terminal(&repo, &["design", "fizzbuzz"], &[]);
    let shown = t.expect(QUESTION);
    assert!(
        shown.contains("Proposed requirements:\n\n# Designed: fizzbuzz\n\n## Functional\n"),
        "{shown}"
    );
    t.send("n");
    let (code, all) = t.finish();
    assert_eq!(code, 1, "{all}");
    assert!(
        all.contains("The requirements were declined: nothing was written."),
        "{all}"
    );
    assert_eq!(repo.commit_count(), before);
    assert!(bead_files(&repo).is_empty());

    let mut t = terminal(&repo, &["design", "fizzbuzz"], &[]);
    t.expect(QUESTION);
    t.send("maybe");
    t.expect("Answer y, n, e or r.");
    t.expect(QUESTION);
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    assert!(all.contains("Created vm-"), "{all}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(the_work(&repo)["title"], "Designed: fizzbuzz");
}

#[test]
fn e_opens_the_editor_and_a_bad_edit_is_shown_then_fixed() {
    let repo = repo();
    let count = repo.join(".git/edits");
    // First edit: an unknown section (refused, with its line). Second: a valid text.
    let ed = editor(
        &repo,
        "edit.sh",
        &format!(
            "n=$(cat '{c}' 2>/dev/null || echo 0); echo $((n + 1)) > '{c}'\n\
             if [ \"$n\" = 0 ]; then grep -q '^## Functional' \"$1\" || exit 3; printf '# T\\n\\n## Wishes\\n- a pony\\n' > \"$1\"; exit 0; fi\n\
             grep -q Wishes \"$1\" && printf '# Fixed title\\n\\n## Functional\\n- Also handles zero\\n' > \"$1\"",
            c = count.display()
        ),
    );
    let mut t = terminal(&repo, &["design", "fizzbuzz"], &[("EDITOR", &ed)]);
    t.expect(QUESTION);
    t.send("e");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("requirements:3:1"), "{shown}");
    assert!(shown.contains("unknown section 'Wishes'"), "{shown}");
    assert!(shown.contains("The edit was not used"), "{shown}");
    t.send("e");
    let shown = t.expect(QUESTION);
    assert!(
        shown.contains(
            "Proposed requirements:\n\n# Fixed title\n\n## Functional\n- Also handles zero"
        ),
        "{shown}"
    );
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    assert_eq!(repo.read(".git/edits").trim(), "2");
    let work = the_work(&repo);
    assert_eq!(work["title"], "Fixed title");
    let id = work["id"].as_str().expect("id");
    let text = repo.read(&format!(".beads/issues/{id}.md"));
    assert!(
        text.ends_with("---\n## Functional\n- Also handles zero\n"),
        "{text}"
    );
}

#[test]
fn r_sends_the_feedback_to_the_model_with_the_previous_proposal() {
    let repo = repo();
    let plog = repo.join(".git/prompts.log");
    let mut t = terminal(
        &repo,
        &["design", "fizzbuzz"],
        &[("FAKE_PROMPT_LOG", plog.to_str().expect("path"))],
    );
    t.expect(QUESTION);
    t.send("r");
    t.expect("Feedback: ");
    t.send("cover zero too");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("- Feedback: cover zero too"), "{shown}");
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    let p = prompts(&plog);
    assert_eq!(p.len(), 2);
    assert!(!p[0].contains("FEEDBACK FROM A PERSON"), "{}", p[0]);
    assert!(
        p[1].contains("PREVIOUS PROPOSAL\n# Designed: fizzbuzz\n"),
        "{}",
        p[1]
    );
    assert!(
        p[1].contains("FEEDBACK FROM A PERSON\ncover zero too\n"),
        "{}",
        p[1]
    );
    let id = the_work(&repo)["id"].as_str().expect("id").to_string();
    assert!(
        repo.read(&format!(".beads/issues/{id}.md"))
            .contains("- Feedback: cover zero too\n")
    );
}

#[test]
fn strategize_in_a_terminal_edits_the_criteria_as_yaml() {
    let repo = repo();
    let id = repo.create("Work", &[]);
    let ed = editor(
        &repo,
        "edit.sh",
        "sed -i 's/It runs/It really runs/' \"$1\"",
    );
    let mut t = terminal(&repo, &["strategize", &id], &[("EDITOR", &ed)]);
    let shown = t.expect(QUESTION);
    assert!(
        shown.contains("Proposed criteria:\n\n- id: ac-1\n  description: The workspace exists\n  verify_command: test -d .beads\n"),
        "{shown}"
    );
    t.send("e");
    let shown = t.expect(QUESTION);
    assert!(shown.contains("description: It really runs"), "{shown}");
    t.send("y");
    let (code, all) = t.finish();
    assert_eq!(code, 0, "{all}");
    let shown = repo.json(&["inspect", "show", &id]);
    assert_eq!(
        shown["spec"]["criteria"][1]["description"],
        "It really runs"
    );
    assert_eq!(shown["spec"]["approved"], false);
}
