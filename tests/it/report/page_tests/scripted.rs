//! The scripted repositories the report is tested on, built through vermas's own commands
//! with the role-aware LLM stand-in (fixtures/llm-roles): one with every kind of record the
//! page shows, one full of hostile text.

use crate::common::*;
use crate::specs::support::*;

/// The live spec: one criterion that always passes, one that flips with `state/cache`,
/// one that always fails.
const HEALTH_SPEC: &str = "# Service health\n\n## Success Criteria\n\n\
- [ ] The service answers [verify](../tests/health.sh#test_up)\n\
- [ ] The cache stays warm [verify](../tests/health.sh#test_cache)\n\
- [ ] Logs rotate daily [verify](../tests/health.sh#test_rotate)\n";

/// The checks of the live spec.
const HEALTH_SH: &str = "#!/usr/bin/env bash\n\
test_up() {\n  true\n}\n\
test_cache() {\n  grep -qx warm state/cache\n}\n\
test_rotate() {\n  echo 'rotation missing: no logrotate entry'\n  return 1\n}\n\
\"$@\"\n";

/// The cache criterion's state at each of the five recorded runs.
pub const CACHE_RUNS: [&str; 5] = ["warm", "cold", "warm", "cold", "warm"];

/// The question the judge asks about the NEEDS_HUMAN work.
pub const QUESTION: &str = "Which CI provider: GitHub Actions or Buildkite?";

/// The ids of the scripted repository's records.
pub struct Scripted {
    /// The repository.
    pub repo: Repo,
    /// Work that passed inspection and was merged by the refinery.
    pub passed: String,
    /// Work that failed inspection (with a failure report).
    pub failed: String,
    /// Work whose inspection asked a person.
    pub asked: String,
    /// Work whose test spec waits for approval.
    pub pending: String,
    /// Work blocked by the failed one.
    pub blocked: String,
}

/// Work `title` with one criterion checked by `cmd`, approved when `approve`.
pub fn work(repo: &Repo, title: &str, cmd: &str, approve: bool) -> String {
    let work = repo.ok(&["q", title]).trim().to_string();
    let spec = work.replacen("vm-", "vm-spec-", 1);
    repo.ok(&[
        "inspect",
        "add-criteria",
        &spec,
        "-d",
        &format!("{title}: done"),
        "--cmd",
        cmd,
    ]);
    if approve {
        repo.ok(&["inspect", "approve", &spec]);
    }
    work
}

/// Commits every change in the work tree.
pub fn commit_all(repo: &Repo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

/// The scripted repository: a live spec recorded five times (one criterion flaky, one
/// failing), work that passed and was merged, work that failed with its failure report,
/// work waiting for a person's answer, a test spec pending approval, blocked work.
pub fn scripted() -> Scripted {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.write("specs/health.md", HEALTH_SPEC);
    write_exec(&repo, "tests/health.sh", HEALTH_SH);
    repo.write(".gitignore", "state/\n");
    commit_all(&repo, "the health spec");
    for state in CACHE_RUNS {
        repo.write("state/cache", &format!("{state}\n"));
        let r = run(&repo, &["status", "--verify", "--record", "--no-cache"]);
        assert_eq!(r.code, Some(1), "a failing criterion: {}", r.all());
    }

    let passed = work(&repo, "Ship the ok file", "test -f ok", true);
    let failed = work(&repo, "Ship the config", "test -f config.toml", true);
    let asked = work(&repo, "Pick the CI provider", "true", true);
    let pending = work(&repo, "Write the changelog", "test -f CHANGELOG.md", false);
    let blocked = repo.ok(&["q", "Deploy the release"]).trim().to_string();
    repo.ok(&["dep", "add", &blocked, &failed]);
    repo.ok(&["q", "Tidy the README", "--no-spec"]);
    repo.write("ok", "yes\n");
    commit_all(&repo, "the ok file");

    run(&repo, &["inspect", "run", &passed]).expect_code(0);
    run(&repo, &["inspect", "run", &failed]).expect_code(1);
    run_env(
        &repo,
        &["inspect", "run", &asked],
        &[("FAKE_VERDICT", "NEEDS_HUMAN"), ("FAKE_QUESTION", QUESTION)],
    );

    // The passed work's branch goes through the refinery.
    repo.git(&["switch", "-q", "-c", "feature"]);
    repo.write("notes.txt", "shipped\n");
    commit_all(&repo, "work on feature");
    repo.git(&["switch", "-q", "main"]);
    repo.ok(&["refinery", "submit", "feature", "--bead", &passed]);
    let tmp = tempfile::tempdir().expect("tmp");
    let tmpdir = tmp.path().display().to_string();
    run_env(
        &repo,
        &["refinery", "run", "--once"],
        &[("TMPDIR", &tmpdir)],
    );
    Scripted {
        repo,
        passed,
        failed,
        asked,
        pending,
        blocked,
    }
}

/// A repository whose records carry hostile text: a bead titled as a script, a check
/// whose output is markup, an LLM reply with an `<img onerror>` and `javascript:` links,
/// and a spec linking a `javascript:` target. Returns it with the hostile work's id.
pub fn hostile() -> (Repo, String) {
    let repo = Repo::initialised_with_test_specs();
    repo.write_llm_command(&roles_llm().display().to_string());
    repo.write(
        "specs/evil.md",
        "# <script>alert('spec')</script>\n\n## Success Criteria\n\n\
         - [ ] Runs <img src=x onerror=alert(1)> [verify](javascript:alert(1)#x) \
         [click](javascript:alert(2))\n",
    );
    repo.ok(&["q", "<script>alert(1)</script>"]);
    let work = work(
        &repo,
        "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','title')\">",
        "echo '<script>document.title=\"PWNED\"</script><img src=x onerror=alert(3)>'; exit 1",
        true,
    );
    commit_all(&repo, "hostile records");
    let reply = "BRIEF (critic): <img src=x onerror=\"document.documentElement.setAttribute('data-pwned','critic')\"> \
                 [details](javascript:alert(4)) <a href=\"javascript:alert(5)\">here</a>";
    run_env(
        &repo,
        &["inspect", "run", &work],
        &[("FAKE_REPLY_CRITIC", reply)],
    )
    .expect_code(1);
    run(&repo, &["status", "--verify", "--record"]);
    (repo, work)
}
