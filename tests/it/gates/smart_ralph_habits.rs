//! smart-ralph's habits: `discover --write` records the quality commands in the spec's
//! `research.md` as smart-ralph's "Quality Commands" section with its `**Local CI**:` line,
//! and `tasks verify` learnings carry the last lines of the failing command's output.

use crate::common::*;

/// A pnpm project: lint, check-types, test, test:e2e and build scripts.
fn pnpm_project(repo: &Repo) {
    repo.write(
        "package.json",
        r#"{
  "name": "acme",
  "scripts": {
    "build": "tsc -b",
    "lint": "eslint .",
    "check-types": "tsc --noEmit",
    "test": "vitest run",
    "test:e2e": "playwright test"
  }
}
"#,
    );
    repo.write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
}

const RESEARCH: &str = "---\nspec: login\nphase: research\n---\n\n# Research: login\n\n## Executive Summary\n\nLogins.\n\n## Open Questions\n\n- none\n";

#[test]
fn discover_write_records_quality_commands_in_research_md() {
    let repo = Repo::initialised();
    pnpm_project(&repo);
    repo.write("specs/.current-spec", "login\n");
    repo.write("specs/login/research.md", RESEARCH);
    let out = repo.ok(&["discover", "--write"]);
    assert!(out.contains("specs/login/research.md"), "{out}");
    let text = repo.read("specs/login/research.md");
    let section = "## Quality Commands\n\n| Type | Command | Source |\n|------|---------|--------|\n\
        | Lint | `pnpm run lint` | package.json:5 |\n\
        | TypeCheck | `pnpm run check-types` | package.json:6 |\n\
        | Unit Test | Not found | - |\n\
        | Integration Test | Not found | - |\n\
        | E2E Test | `pnpm run test:e2e` | package.json:8 |\n\
        | Test (all) | `pnpm run test` | package.json:7 |\n\
        | Build | `pnpm run build` | package.json:4 |\n\n\
        **Local CI**: `pnpm run lint && pnpm run check-types && pnpm run test && pnpm run build`\n";
    assert!(
        text.starts_with("---\nspec: login\nphase: research\n---\n\n# Research: login\n\n## Executive Summary\n\nLogins.\n\n## Open Questions\n\n- none\n"),
        "{text}"
    );
    assert!(text.ends_with(&format!("- none\n\n{section}")), "{text}");

    // Again after a change: the section is replaced where it is, never doubled.
    repo.write("Makefile", "ci:\n\tpnpm run lint && pnpm run test\n");
    let v = repo.json(&["discover", "--write", "--spec", "login"]);
    assert_eq!(v["research"], "specs/login/research.md", "{v}");
    let text = repo.read("specs/login/research.md");
    assert_eq!(text.matches("## Quality Commands").count(), 1, "{text}");
    assert!(text.contains("**Local CI**: `make ci`\n"), "{text}");
    assert!(text.contains("## Open Questions"), "{text}");
}

#[test]
fn discover_write_refuses_a_spec_folder_that_is_not_there() {
    let repo = Repo::initialised();
    pnpm_project(&repo);
    let commits = repo.commit_count();
    let err = repo.fails(&["discover", "--write", "--spec", "nope"], 2);
    assert!(err.contains("specs/nope"), "{err}");
    assert_eq!(repo.commit_count(), commits, "nothing is stored");
    // Without a smart-ralph spec only the gates are stored.
    let out = repo.ok(&["discover", "--write"]);
    assert!(!out.contains("research.md"), "{out}");
    assert!(!repo.join("specs").exists());
}

#[test]
fn learnings_carry_the_failing_commands_last_output_lines() {
    let repo = Repo::initialised();
    repo.write(
        "specs/feat/tasks.md",
        "- [ ] V1 [VERIFY] Suite: sh -c 'seq 1 80; echo \"expected 2, got 3\"; exit 1'\n",
    );
    let o = repo.run(&["tasks", "verify", "specs/feat/tasks.md"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let progress = repo.read("specs/feat/.progress.md");
    assert!(progress.contains("V1 [VERIFY] Suite: FAIL"), "{progress}");
    assert!(progress.contains("\n  ```text\n"), "{progress}");
    assert!(
        progress.contains("\n  expected 2, got 3\n  ```\n"),
        "{progress}"
    );
    // The last 50 lines only (smart-ralph: "truncate to last 50 lines in learnings").
    assert!(
        progress.contains("\n  32\n") && !progress.contains("\n  31\n"),
        "{progress}"
    );
}
