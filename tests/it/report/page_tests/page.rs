//! The page as a file: one self-contained document that forbids scripts, escapes hostile
//! text, reads only what is committed, `--since`, `--out` and its errors, a repository
//! with no ledger, and records with fields this vermas does not know.

use super::scripted::*;
use crate::common::*;
use crate::specs::support::*;

/// Runs `report --out page.html` in `repo` and returns the page.
fn page(repo: &Repo, extra: &[&str]) -> String {
    let mut args = vec!["report", "--out", "page.html"];
    args.extend(extra);
    run(repo, &args).expect_code(0);
    std::fs::read_to_string(repo.join("page.html")).expect("the page")
}

/// A repository with the health spec recorded at each of `states`.
fn recorded(states: &[&str]) -> Repo {
    let repo = Repo::initialised();
    repo.write(
        "specs/warm.md",
        "# Warm\n\n## Success Criteria\n\n- [ ] The cache stays warm [verify](../tests/warm.sh#test_cache)\n",
    );
    write_exec(
        &repo,
        "tests/warm.sh",
        "#!/usr/bin/env bash\ntest_cache() {\n  grep -qx warm state\n}\n\"$@\"\n",
    );
    repo.write(".gitignore", "state\npage.html\n");
    commit_all(&repo, "the warm spec");
    for s in states {
        repo.write("state", &format!("{s}\n"));
        run(&repo, &["status", "--verify", "--record", "--no-cache"]);
    }
    repo
}

#[test]
fn the_page_is_one_file_that_loads_nothing_and_allows_no_script() {
    let repo = recorded(&["warm"]);
    let html = page(&repo, &[]);
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
    assert!(
        html.contains(r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'none';"#),
        "a policy that forbids scripts and loads"
    );
    for never in ["<script", "<link", " src=", "http://", "@import", "url("] {
        assert!(!html.contains(never), "{never} in the page");
    }
    assert!(html.contains("@media (prefers-color-scheme: dark)"));
    assert!(html.contains(r#"<th scope="col">"#) && html.contains("<caption>"));
    assert!(
        html.contains(r#"aria-label="PASS at "#),
        "marks say their outcome"
    );
}

#[test]
fn hostile_text_is_escaped_in_the_file() {
    let (repo, _) = hostile();
    let html = page(&repo, &[]);
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("&lt;img src=x onerror="));
    for never in [
        "<script",
        "<img",
        "<a href=\"javascript",
        "href=\"javascript",
    ] {
        assert!(!html.contains(never), "{never} in the page");
    }
}

#[test]
fn the_default_page_goes_to_the_ignored_cache_and_is_printed_as_a_file_link() {
    let repo = recorded(&["warm"]);
    let r = run(&repo, &["report"]);
    r.expect_code(0);
    let url = r.stdout.trim();
    let real = std::fs::canonicalize(repo.path()).expect("canonical");
    assert_eq!(
        url,
        format!("file://{}/.beads/.cache/report.html", real.display())
    );
    assert!(repo.join(".beads/.cache/report.html").is_file());
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "nothing to commit"
    );
    let json = run(&repo, &["report", "--json"]).json();
    assert_eq!(json["url"], url);
    assert_eq!(json["specs"], 1);
}

#[test]
fn a_missing_folder_or_an_unknown_revision_is_refused() {
    let repo = recorded(&[]);
    let e = run(&repo, &["report", "--out", "no/such/page.html"]);
    e.expect_code(2);
    assert!(e.stderr.contains("does not exist"), "{}", e.stderr);
    let e = run(&repo, &["report", "--since", "no-such-rev"]);
    e.expect_code(2);
    assert!(e.stderr.contains("no-such-rev"), "{}", e.stderr);
}

#[test]
fn since_keeps_the_history_recorded_after_the_revision() {
    let repo = recorded(&["warm", "cold", "warm"]);
    let all = page(&repo, &[]);
    assert_eq!(
        all.matches(r#"class="mk "#).count(),
        3,
        "three recorded runs"
    );
    assert_eq!(all.matches(r#"aria-label="FAIL at "#).count(), 1);
    // After the first record: the FAIL and the last PASS.
    let first = repo.git(&["log", "--format=%H", "--reverse", "--grep=vermas verify"]);
    let first = first.lines().next().expect("a record");
    let since = page(&repo, &["--since", first]);
    assert_eq!(since.matches(r#"class="mk "#).count(), 2, "{since}");
    assert!(since.contains("History since"));
}

#[test]
fn only_the_committed_ledger_is_shown() {
    let repo = Repo::initialised();
    let id = repo.ok(&["q", "Committed title"]).trim().to_string();
    let file = format!(".beads/issues/{id}.md");
    let text = repo.read(&file);
    repo.write(&file, &text.replace("Committed title", "Edited by hand"));
    let html = page(&repo, &[]);
    assert!(html.contains("Committed title"));
    assert!(
        !html.contains("Edited by hand"),
        "an uncommitted edit shows"
    );
}

#[test]
fn a_repository_without_a_ledger_shows_its_specs() {
    let repo = Repo::new();
    repo.write(
        "specs/a.md",
        "# A\n\n## Success Criteria\n\n- [ ] It works [verify](../tests/a.sh#test_a)\n",
    );
    commit_all(&repo, "a spec");
    let html = page(&repo, &[]);
    assert!(html.contains("It works"));
    assert!(html.contains("not recorded"));
}

#[test]
fn fields_this_vermas_does_not_know_are_ignored_and_absent_ones_unknown() {
    let repo = Repo::initialised();
    let id = repo.ok(&["q", "Judged elsewhere"]).trim().to_string();
    repo.write(
        &format!(".beads/results/{id}.yaml"),
        &format!(
            "key: {id}\nverdict: PASS\nconfidence: 0.8\nat: 2026-11-22T10:00:00Z\nhead: 0123456789abcdef0123456789abcdef01234567\n\
             tree: fedcba9876543210fedcba9876543210fedcba98\napproval: 'approvals are not authenticated: anyone can approve'\nsigned_by: null\n\
             checks:\n- criterion: ac-1\n  kind: verify_command\n  command: 'true'\n  exit_code: 0\n  outcome: PASS\n  duration_ms: 1\n  attempt: 1\n  proof: {{pid: 4}}\n"
        ),
    );
    commit_all(&repo, "a record from a newer vermas");
    let html = page(&repo, &[]);
    assert!(
        html.contains(&format!(r#"id="work-{id}""#)),
        "the inspection shows"
    );
    assert!(html.contains("fedcba9876543210fedcba9876543210fedcba98"));
    assert!(html.contains("approvals are not authenticated: anyone can approve"));
    assert!(html.contains("Diff base</dt><dd><span class=\"muted\">not recorded"));
}

#[test]
fn the_scripted_page_holds_the_failure_report_and_the_question() {
    let s = scripted();
    let html = page(&s.repo, &[]);
    assert!(html.contains(&format!(r#"id="work-{}""#, s.failed)));
    assert!(
        html.contains(&format!(r#"id="report-{}.1""#, s.failed)),
        "the failure report"
    );
    assert!(html.contains(QUESTION));
    assert!(html.contains(&format!("<code>vm-spec-{}</code>", &s.pending[3..])));
    let row = &html[html
        .find(&format!("<code>{}</code>", s.blocked))
        .expect("blocked row")..];
    let row = &row[..row.find("</tr>").expect("row end")];
    assert!(
        row.contains(&s.failed),
        "{} blocked by {}: {row}",
        s.blocked,
        s.failed
    );
    assert!(html.contains(&format!("<code>{}</code>", s.asked)));
    assert!(html.contains(&format!("<code>{}</code>", s.passed)));
}

#[test]
fn a_clone_and_a_linked_worktree_write_the_same_page() {
    let s = scripted();
    let original = page(&s.repo, &[]);
    let clone = tempfile::tempdir().expect("tmp");
    let there = clone.path().join("elsewhere");
    s.repo.git(&[
        "clone",
        "-q",
        s.repo.path().to_str().expect("utf-8"),
        there.to_str().expect("utf-8"),
    ]);
    let out = s
        .repo
        .cmd_in(&there, &["report", "--out", "page.html"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cloned = std::fs::read_to_string(there.join("page.html")).expect("page");
    assert_eq!(cloned, original, "the clone's page differs");

    // A linked worktree reads the one ledger: the same records.
    let linked = clone.path().join("linked");
    s.repo.git(&[
        "worktree",
        "add",
        "-q",
        linked.to_str().expect("utf-8"),
        "-b",
        "side",
    ]);
    let out = s
        .repo
        .cmd_in(&linked, &["report", "--out", "page.html"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let side = std::fs::read_to_string(linked.join("page.html")).expect("page");
    assert!(side.contains(&format!(r#"id="work-{}""#, s.failed)));
    assert!(side.contains(QUESTION));
}

#[test]
fn the_answer_shown_is_a_reply_from_the_address_asked_or_an_answer_note() {
    let s = scripted();
    let before = page(&s.repo, &[]);
    let asked = &before[before
        .find(r#"<table id="questions">"#)
        .expect("the question")..];
    let msg = asked
        .split("<code>")
        .nth(2)
        .and_then(|c| c.split("</code>").next())
        .expect("the question's message")
        .to_string();
    // A reply from someone the question was not asked of is not an answer.
    s.repo.ok(&[
        "mail",
        "reply",
        &msg,
        "-m",
        "Use Jenkins (not asked)",
        "--from",
        "alice/",
    ]);
    let html = page(&s.repo, &[]);
    assert!(html.contains("not answered yet"), "{msg}");
    assert!(!html.contains("Use Jenkins"));
    s.repo.ok(&[
        "mail",
        "reply",
        &msg,
        "-m",
        "Use Buildkite on our runners",
        "--from",
        "mayor/",
    ]);
    let html = page(&s.repo, &[]);
    assert!(
        html.contains("<dd>Use Buildkite on our runners"),
        "the mayor's reply answers"
    );
    s.repo.ok(&["answer", &s.asked, "GitHub Actions, hosted"]);
    let html = page(&s.repo, &[]);
    assert!(
        html.contains("<dd>GitHub Actions, hosted"),
        "the answer note wins"
    );
    assert!(
        !html.contains(r#"<table id="questions">"#),
        "no question waits"
    );
}
