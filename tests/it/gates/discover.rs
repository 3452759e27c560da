//! `vermas discover` end to end: real project files (package.json with pnpm, yarn and npm
//! workspaces, Makefile, justfile, GitHub workflows, .gitlab-ci.yml, Cargo.toml, go.mod,
//! pyproject.toml) in real temporary git repositories, the Quality Commands table and its
//! JSON, `--write` storing gates in one commit, and each kind of malformed input.

use crate::common::*;

/// The discovered rows as `(type, command, source:line)`.
fn rows(repo: &Repo) -> Vec<(String, String, String)> {
    let v = repo.json(&["discover"]);
    assert_eq!(v["schema_version"], 1);
    v["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_string(),
                c["command"].as_str().unwrap().to_string(),
                format!("{}:{}", c["source"].as_str().unwrap(), c["line"]),
            )
        })
        .collect()
}

/// `(type, command, source:line)` from string slices.
fn row(t: &str, c: &str, s: &str) -> (String, String, String) {
    (t.into(), c.into(), s.into())
}

/// The `missing` types of the JSON answer.
fn missing(repo: &Repo) -> Vec<String> {
    let v = repo.json(&["discover"]);
    v["missing"]
        .as_array()
        .expect("missing")
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// A pnpm monorepo: root scripts and two workspace packages, one excluded by `!`.
fn pnpm_monorepo(repo: &Repo) {
    repo.write(
        "package.json",
        r#"{
  "name": "acme",
  "private": true,
  "scripts": {
    "dev": "vite",
    "build": "turbo build",
    "lint": "eslint .",
    "check-types": "tsc --noEmit",
    "test": "vitest run",
    "test:e2e": "playwright test"
  }
}
"#,
    );
    repo.write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
    repo.write(
        "pnpm-workspace.yaml",
        "packages:\n  - \"packages/*\"\n  - \"!packages/legacy\"\n",
    );
    repo.write(
        "packages/ui/package.json",
        "{\n  \"name\": \"@acme/ui\",\n  \"scripts\": {\n    \"build\": \"tsup\",\n    \"test\": \"jest\"\n  }\n}\n",
    );
    repo.write(
        "packages/legacy/package.json",
        "{\n  \"name\": \"@acme/legacy\",\n  \"scripts\": {\n    \"test\": \"mocha\"\n  }\n}\n",
    );
}

#[test]
fn pnpm_scripts_and_workspace_packages() {
    let repo = Repo::initialised();
    pnpm_monorepo(&repo);
    assert_eq!(
        rows(&repo),
        vec![
            row("lint", "pnpm run lint", "package.json:7"),
            row("typecheck", "pnpm run check-types", "package.json:8"),
            row("test", "pnpm run test", "package.json:9"),
            row("test", "pnpm run test:e2e", "package.json:10"),
            row(
                "test",
                "pnpm --filter @acme/ui run test",
                "packages/ui/package.json:5"
            ),
            row("build", "pnpm run build", "package.json:6"),
            row(
                "build",
                "pnpm --filter @acme/ui run build",
                "packages/ui/package.json:4"
            ),
        ]
    );
    assert_eq!(missing(&repo), vec!["format", "ci"]);
    let table = repo.ok(&["discover"]);
    assert!(table.starts_with("Quality Commands"), "{table}");
    assert!(
        table.lines().any(|l| l.starts_with("test ")
            && l.contains("pnpm run test ")
            && l.ends_with("package.json:9")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("format ") && l.contains("not found")),
        "{table}"
    );
    assert!(
        !table.contains("legacy"),
        "excluded package listed:\n{table}"
    );
}

#[test]
fn yarn_and_npm_workspaces_and_npm_placeholder() {
    let repo = Repo::initialised();
    repo.write(
        "package.json",
        "{\n  \"workspaces\": {\"packages\": [\"apps/**\"]},\n  \"scripts\": {\"ci\": \"run-s lint test\"}\n}\n",
    );
    repo.write("yarn.lock", "");
    repo.write(
        "apps/web/site/package.json",
        "{\n  \"name\": \"site\",\n  \"scripts\": {\n    \"test\": \"jest\"\n  }\n}\n",
    );
    assert_eq!(
        rows(&repo),
        vec![
            row(
                "test",
                "yarn workspace site test",
                "apps/web/site/package.json:4"
            ),
            row("ci", "yarn ci", "package.json:3"),
        ]
    );

    let npm = Repo::initialised();
    npm.write(
        "package.json",
        "{\n  \"workspaces\": [\"libs/*\"],\n  \"scripts\": {\n    \"test\": \"echo \\\"Error: no test specified\\\" && exit 1\",\n    \"format\": \"prettier --check .\"\n  }\n}\n",
    );
    npm.write(
        "libs/core/package.json",
        "{\"name\": \"core\", \"scripts\": {\"test\": \"node --test\"}}",
    );
    assert_eq!(
        rows(&npm),
        vec![
            row("format", "npm run format", "package.json:5"),
            row(
                "test",
                "npm run test --workspace=libs/core",
                "libs/core/package.json:1"
            ),
        ]
    );
}

#[test]
fn makefile_targets_and_justfile_recipes() {
    let repo = Repo::initialised();
    repo.write(
        "Makefile",
        "GO ?= go\nVERSION := 1.0\n\n.PHONY: all lint test build ci\n\nall: build\n\nlint:\n\t$(GO) vet ./...\n\ntest: lint\n\t$(GO) test ./...\n\nbuild:\n\t$(GO) build ./...\n\ninstall:\n\tcp x /usr/bin\n",
    );
    repo.write(
        "justfile",
        "set shell := [\"bash\", \"-c\"]\nalias t := test\n\n# the tests\ntest *ARGS:\n    cargo test {{ARGS}}\n\n[private]\n@fmt:\n    cargo fmt --check\n\nci: fmt test\n",
    );
    assert_eq!(
        rows(&repo),
        vec![
            row("lint", "make lint", "Makefile:8"),
            row("format", "just fmt", "justfile:9"),
            row("test", "make test", "Makefile:11"),
            row("test", "just test", "justfile:5"),
            row("build", "make build", "Makefile:14"),
            row("ci", "just ci", "justfile:12"),
        ]
    );
    assert_eq!(missing(&repo), vec!["typecheck"]);
}

#[test]
fn github_workflow_run_steps_line_by_line() {
    let repo = Repo::initialised();
    repo.write(
        ".github/workflows/ci.yml",
        r#"name: CI
on:
  push:
    branches: [main]
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - name: Lint and test
        run: |
          echo "running the tests"
          npx eslint .
          npx tsc --noEmit
          # a comment
          npx vitest run \
            --coverage
      - run: npm run build
  rust:
    runs-on: ubuntu-latest
    steps:
      - run: rustup component add clippy
      - run: cargo clippy --all-targets -- -D warnings
"#,
    );
    repo.write(
        ".github/workflows/release.yaml",
        "on: push\njobs:\n  r:\n    steps:\n      - run: \"make ci\"\n",
    );
    assert_eq!(
        rows(&repo),
        vec![
            row("lint", "npx eslint .", ".github/workflows/ci.yml:14"),
            row(
                "lint",
                "cargo clippy --all-targets -- -D warnings",
                ".github/workflows/ci.yml:24"
            ),
            row(
                "typecheck",
                "npx tsc --noEmit",
                ".github/workflows/ci.yml:15"
            ),
            row(
                "test",
                "npx vitest run --coverage",
                ".github/workflows/ci.yml:17"
            ),
            row("build", "npm run build", ".github/workflows/ci.yml:19"),
            row("ci", "make ci", ".github/workflows/release.yaml:5"),
        ]
    );
}

#[test]
fn gitlab_ci_scripts() {
    let repo = Repo::initialised();
    repo.write(
        ".gitlab-ci.yml",
        r#"stages: [test, build]
variables:
  GOFLAGS: -mod=readonly
.go: &go
  image: golang:1.22
  before_script:
    - go mod download
unit:
  <<: *go
  stage: test
  script:
    - go vet ./...
    - go test -race ./...
compile:
  stage: build
  script: go build -o app .
"#,
    );
    assert_eq!(
        rows(&repo),
        vec![
            row("lint", "go vet ./...", ".gitlab-ci.yml:12"),
            row("test", "go test -race ./...", ".gitlab-ci.yml:13"),
            row("build", "go build -o app .", ".gitlab-ci.yml:16"),
        ]
    );
}

#[test]
fn cargo_go_and_pyproject_manifests() {
    let repo = Repo::initialised();
    repo.write(
        "Cargo.toml",
        "# the crate\n[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    );
    repo.write("go.mod", "// tools\nmodule example.com/x\n\ngo 1.22\n");
    repo.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = []\n\n[dependency-groups]\ndev = [\"pytest>=8\", \"ruff\"]\n\n[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n",
    );
    repo.write("uv.lock", "version = 1\n");
    assert_eq!(
        rows(&repo),
        vec![
            row(
                "lint",
                "cargo clippy --all-targets -- -D warnings",
                "Cargo.toml:2"
            ),
            row("lint", "go vet ./...", "go.mod:2"),
            row("lint", "uv run ruff check .", "pyproject.toml:8"),
            row("format", "cargo fmt --check", "Cargo.toml:2"),
            row("typecheck", "uv run mypy .", "pyproject.toml:11"),
            row("test", "cargo test", "Cargo.toml:2"),
            row("test", "go test ./...", "go.mod:2"),
            row("test", "uv run pytest", "pyproject.toml:6"),
            row("build", "cargo build", "Cargo.toml:2"),
            row("build", "go build ./...", "go.mod:2"),
        ]
    );
    assert_eq!(missing(&repo), vec!["ci"]);
}

#[test]
fn pyproject_without_configured_tools_implies_nothing() {
    let repo = Repo::initialised();
    repo.write("pyproject.toml", "[project]\nname = \"x\"\n");
    assert!(rows(&repo).is_empty());
    assert_eq!(
        missing(&repo),
        vec!["lint", "format", "typecheck", "test", "build", "ci"]
    );
    let table = repo.ok(&["discover"]);
    for kind in ["lint", "format", "typecheck", "test", "build", "ci"] {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(kind) && l.contains("not found")),
            "{kind} not reported missing:\n{table}"
        );
    }
}

#[test]
fn same_command_from_two_sources_is_listed_once() {
    let repo = Repo::initialised();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    );
    repo.write(
        ".github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: cargo test\n      - run: cargo test --release\n",
    );
    let tests: Vec<_> = rows(&repo).into_iter().filter(|r| r.0 == "test").collect();
    assert_eq!(
        tests,
        vec![
            row("test", "cargo test", "Cargo.toml:1"),
            row("test", "cargo test --release", ".github/workflows/ci.yml:5"),
        ]
    );
}

#[test]
fn write_stores_gates_in_exactly_one_commit() {
    let repo = Repo::initialised();
    pnpm_monorepo(&repo);
    let before = repo.commit_count();
    let out = repo.ok(&["discover", "--write"]);
    assert!(out.contains("gates.green = pnpm run test"), "{out}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(
        repo.ok(&["config", "get", "gates.green"]).trim(),
        "pnpm run test"
    );
    assert_eq!(
        repo.ok(&["config", "get", "gates.red"]).trim(),
        "pnpm run test"
    );
    assert_eq!(
        repo.ok(&["config", "get", "gates.refactor"]).trim(),
        "pnpm run test"
    );
    assert_eq!(
        repo.ok(&["config", "get", "gates.implement"]).trim(),
        "pnpm run build"
    );
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert_eq!(
        subject.trim(),
        "vermas discover: gates.red/green/refactor = pnpm run test, gates.implement = pnpm run build"
    );
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.trim(), ".beads/vermas.yaml");
    assert_eq!(repo.status(".beads"), "");
    // Nothing changed: no second commit.
    repo.ok(&["discover", "--write"]);
    assert_eq!(repo.commit_count(), before + 1);
    repo.assert_fsck();
}

#[test]
fn write_json_reports_gates_and_falls_back_to_lint_and_typecheck() {
    let repo = Repo::initialised();
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\naddopts = \"-q\"\n[tool.ruff]\n[tool.mypy]\n",
    );
    let v = repo.json(&["discover", "--write"]);
    assert_eq!(v["gates"]["gates.green"], "pytest");
    assert_eq!(v["gates"]["gates.implement"], "ruff check . && mypy .");
    assert!(v["commit"].is_string(), "{v}");
    assert_eq!(
        repo.ok(&["config", "get", "gates.implement"]).trim(),
        "ruff check . && mypy ."
    );
}

#[test]
fn write_with_nothing_found_fails_without_committing() {
    let repo = Repo::initialised();
    let before = repo.commit_count();
    let err = repo.fails(&["discover", "--write"], 2);
    assert!(err.contains("nothing to write"), "{err}");
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn without_beads_it_reads_the_git_root_but_cannot_write() {
    let repo = Repo::new();
    repo.write("go.mod", "module example.com/x\n");
    repo.write("sub/dir/keep", "");
    let out = repo
        .cmd_in(&repo.join("sub/dir"), &["discover"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("go.mod:1"), "{}", stdout(&out));
    let err = repo.fails(&["discover", "--write"], 2);
    assert!(err.contains("no .beads folder"), "{err}");
}

#[test]
fn malformed_package_json_is_a_warning_and_the_rest_is_reported() {
    let repo = Repo::initialised();
    repo.write(
        "package.json",
        "{\n  \"scripts\": {\n    \"test\": \"vitest\",\n  }\n}\n",
    );
    repo.write("Makefile", "test:\n\tnpx vitest\n");
    let out = repo.run(&["discover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains("package.json:4:3"), "{err}");
    assert!(err.contains("trailing comma"), "{err}");
    assert!(stdout(&out).contains("Makefile:1"), "{}", stdout(&out));
    assert_eq!(rows(&repo), vec![row("test", "make test", "Makefile:1")]);
}

#[test]
fn malformed_makefile_is_a_warning_and_the_rest_is_reported() {
    let repo = Repo::initialised();
    repo.write(
        "Makefile",
        "lint:\n\tgo vet ./...\n\ntest:\n    go test ./...\n",
    );
    repo.write("go.mod", "module example.com/x\n");
    let out = repo.run(&["discover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("Makefile:5:5"), "{err}");
    assert!(err.contains("missing separator"), "{err}");
    assert!(err.contains("tab"), "{err}");
    let got = rows(&repo);
    assert!(got.iter().all(|r| !r.2.starts_with("Makefile")), "{got:?}");
    assert!(
        got.contains(&row("test", "go test ./...", "go.mod:1")),
        "{got:?}"
    );
}

#[test]
fn malformed_workflow_yaml_is_a_warning_and_the_rest_is_reported() {
    let repo = Repo::initialised();
    repo.write(
        ".github/workflows/broken.yml",
        "jobs:\n  t:\n    steps:\n      - run: cargo test\n     oops: [\n",
    );
    repo.write(
        ".github/workflows/good.yml",
        "jobs:\n  t:\n    steps:\n      - run: cargo build\n",
    );
    let out = repo.run(&["discover", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let warning: serde_json::Value =
        serde_json::from_str(err.lines().next().expect("a warning line")).expect("JSON warning");
    assert_eq!(warning["code"], "parse");
    assert!(
        warning["warning"]
            .as_str()
            .unwrap()
            .starts_with(".github/workflows/broken.yml:5:6:"),
        "{warning}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["warnings"][0]["file"], ".github/workflows/broken.yml");
    assert_eq!(v["warnings"][0]["line"], 5);
    assert_eq!(v["warnings"][0]["column"], 6);
    assert_eq!(v["commands"][0]["command"], "cargo build");
    assert_eq!(v["commands"][0]["source"], ".github/workflows/good.yml");
    assert_eq!(v["commands"][0]["line"], 4);
}

#[test]
fn malformed_toml_manifest_points_at_line_and_column() {
    let repo = Repo::initialised();
    repo.write("Cargo.toml", "[package]\nname = \"x\nversion = \"0.1.0\"\n");
    repo.write("justfile", "test:\n    cargo test\n");
    let out = repo.run(&["discover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("Cargo.toml:2:"), "{}", stderr(&out));
    assert_eq!(rows(&repo), vec![row("test", "just test", "justfile:1")]);
}

#[test]
fn nothing_readable_exits_2() {
    let repo = Repo::initialised();
    repo.write("package.json", "{\"scripts\": ");
    repo.write("Makefile", "test\n");
    let err = repo.fails(&["discover"], 2);
    assert!(err.contains("package.json:1:"), "{err}");
    assert!(err.contains("Makefile:1:1"), "{err}");
    assert!(
        err.contains("no quality-command source could be read"),
        "{err}"
    );
    let before = repo.commit_count();
    repo.fails(&["discover", "--write"], 2);
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn an_empty_project_reports_every_type_missing_and_succeeds() {
    let repo = Repo::initialised();
    let out = repo.ok(&["discover"]);
    assert!(out.contains("no package.json"), "{out}");
    assert_eq!(missing(&repo).len(), 6);
}
