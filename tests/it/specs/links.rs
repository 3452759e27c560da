//! Spec links as people and ralph write them: targets with spaces that CommonMark does
//! not read as links, `/`-rooted paths, the `spec check` warning (and `--fix`) for links
//! GitHub would resolve from the wrong folder, and reports that point at the check
//! function's own line. Real repositories, the real binary, real scripts.

use crate::common::*;
use crate::specs::support::*;

/// The criterion named `text` in a `status --json` report.
fn criterion<'a>(j: &'a serde_json::Value, text: &str) -> &'a serde_json::Value {
    j["specs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["criteria"].as_array().into_iter().flatten())
        .find(|c| c["text"] == text)
        .unwrap_or_else(|| panic!("no criterion {text:?} in {j:#}"))
}

/// A spec in wrapix's style: nix subtests named in words after `::`, one with nested
/// parentheses, two links on one line, one in inline code, one with a bad name.
const CITY: &str = "# Gas City

## Success Criteria

- [x] `mkCity` evaluates with minimal config
  [verify](tests/city/unit.nix::city-mkcity-eval)
- [x] Ephemeral workers use git worktrees
  [verify](tests/city/integration.nix::Wait for worker worktree)
- [x] gc convergence triggers the judge gate
  [verify](tests/city/integration.nix::Wait for judge approval (via monitor gate pipeline))
- [x] Merge uses fast-forward only
  [verify](tests/city/integration.nix::Verify merge landed on main), [verify](tests/city/integration.nix::Judge detects merge conflict and rejects)
- [ ] Quoted, not a check `[verify](tests/city/integration.nix::Not a check)`
- [ ] A bad name [verify](tests/city/integration.nix::rm -rf; echo)
";

fn city_repo() -> Repo {
    let repo = Repo::initialised();
    repo.write("specs/gas-city.md", CITY);
    repo.write("tests/city/unit.nix", "{ }\n");
    repo.write("tests/city/integration.nix", "{ }\n");
    repo
}

#[test]
fn links_with_spaces_parse_as_ralph_writes_them() {
    let repo = city_repo();
    let show = repo.json(&["spec", "show", "gas-city"]);
    let criteria = show["criteria"].as_array().expect("criteria");
    assert_eq!(criteria.len(), 6, "{show:#}");
    let links: Vec<Vec<(String, String)>> = criteria
        .iter()
        .map(|c| {
            c["annotations"]
                .as_array()
                .expect("annotations")
                .iter()
                .map(|a| {
                    (
                        a["file"].as_str().unwrap_or_default().to_string(),
                        a["function"].as_str().unwrap_or("<none>").to_string(),
                    )
                })
                .collect()
        })
        .collect();
    let nix = |f: &str| ("tests/city/integration.nix".to_string(), f.to_string());
    assert_eq!(
        links[..4],
        [
            vec![("tests/city/unit.nix".into(), "city-mkcity-eval".into())],
            vec![nix("Wait for worker worktree")],
            vec![nix("Wait for judge approval (via monitor gate pipeline)")],
            vec![
                nix("Verify merge landed on main"),
                nix("Judge detects merge conflict and rejects")
            ],
        ]
    );
    assert!(links[4].is_empty(), "inline code is never a link: {show:#}");
    let bad = &criteria[5]["annotations"][0];
    assert!(
        bad["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a valid function name")),
        "{bad:#}"
    );
    // The criterion text keeps none of the link.
    assert_eq!(criteria[1]["text"], "Ephemeral workers use git worktrees");

    // spec check: the bad name is an error at its place. The one markdown link is warned
    // about (GitHub cannot open `::`); the word-named ones are not (GitHub shows them as
    // text whatever they say, and ralph reads them as written).
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    let all = r.all();
    assert!(all.contains("specs/gas-city.md:14:18"), "{all}");
    assert!(all.contains("specs/gas-city.md:6:3"), "{all}");
    assert!(all.contains("1 error, 1 warning"), "{all}");
}

#[test]
fn a_nix_target_without_a_runner_never_passes_and_with_one_gets_the_name_as_one_argument() {
    let repo = city_repo();
    let r = run(
        &repo,
        &["status", "--verify", "--spec", "gas-city", "--json"],
    );
    r.expect_code(3);
    let j = r.json();
    for text in [
        "Ephemeral workers use git worktrees",
        "gc convergence triggers the judge gate",
        "Merge uses fast-forward only",
    ] {
        let c = criterion(&j, text);
        assert_eq!(c["outcome"], "ERROR", "{c:#}");
        assert!(
            c["reason"]
                .as_str()
                .is_some_and(|r| r.contains("no runner matches it")),
            "{c:#}"
        );
    }
    assert_eq!(criterion(&j, "A bad name")["outcome"], "ERROR", "never run");

    // With a runner for nix files, the subtest name arrives whole, as one argument.
    repo.ok(&[
        "config",
        "set",
        "verify.runners.*.nix",
        "sh tests/run-nix.sh",
    ]);
    repo.write(
        "tests/run-nix.sh",
        "printf '%s|' \"$#\" \"$@\" >> nix-calls\necho >> nix-calls\n",
    );
    let r = run(
        &repo,
        &["status", "--verify", "--spec", "gas-city", "--json"],
    );
    let j = r.json();
    assert_eq!(
        criterion(&j, "Ephemeral workers use git worktrees")["outcome"],
        "PASS",
        "{j:#}"
    );
    let calls = repo.read("nix-calls");
    assert!(
        calls.contains(
            "2|tests/city/integration.nix|Wait for judge approval (via monitor gate pipeline)|"
        ),
        "{calls}"
    );
    assert!(
        calls.contains("2|tests/city/integration.nix|Wait for worker worktree|"),
        "{calls}"
    );
    assert!(!calls.contains("rm -rf"), "a bad name never runs: {calls}");
    // The bad name keeps the run from being all green.
    r.expect_code(3);
}

#[test]
fn a_repository_root_link_runs_from_a_spec_in_a_subfolder() {
    let repo = Repo::initialised();
    repo.write(
        "specs/auth/login.md",
        "# Login\n\n## Success Criteria\n\n- [ ] Logs in [verify](/tests/login.sh#test_login)\n- [ ] Missing [verify](/tests/nope.sh#test_x)\n",
    );
    repo.write("tests/login.sh", "test_login() { touch login-ran; }\n");
    let r = run(&repo, &["status", "--verify", "--json"]);
    r.expect_code(3);
    let j = r.json();
    assert_eq!(criterion(&j, "Logs in")["outcome"], "PASS", "{j:#}");
    assert!(repo.join("login-ran").exists());
    assert_eq!(
        criterion(&j, "Logs in")["checks"][0]["target"],
        "tests/login.sh#test_login"
    );
    assert_eq!(criterion(&j, "Missing")["outcome"], "ERROR");

    // GitHub opens `/tests/login.sh` from the repository root too: no warning for it.
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(1);
    let all = r.all();
    assert!(all.contains("1 error, 0 warnings"), "{all}");
    assert!(
        all.contains("specs/auth/login.md:6:15")
            && all.contains("a leading / is the repository root"),
        "{all}"
    );
}

/// A spec in `specs/` whose links vermas reads from the root but GitHub from `specs/`.
const ROOTED: &str = "# Links

## Success Criteria

- [ ] Bare [verify](tests/x.sh#test_a \"timeout=30s\")
- [ ] Legacy bare [verify](tests/x.sh::test_b)
- [ ] From the spec [verify](../tests/x.sh#test_c)
- [ ] From the root [verify](/tests/x.sh#test_d)
- [ ] Words [verify](tests/x.nix::Wait for it)

Prose naming tests/x.sh#test_a stays.
";

fn rooted_repo() -> Repo {
    let repo = Repo::initialised();
    repo.write("specs/links.md", ROOTED);
    repo.write(
        "specs/deep/more.md",
        "# More\n\n## Success Criteria\n\n- [ ] Deeper [verify](tests/x.sh#test_e)\n",
    );
    repo.write(
        "tests/x.sh",
        "test_a() { :; }\ntest_b() { :; }\ntest_c() { :; }\ntest_d() { :; }\ntest_e() { :; }\n",
    );
    repo.write("tests/x.nix", "{ }\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "specs"]);
    repo
}

#[test]
fn spec_check_warns_where_github_would_open_the_wrong_file() {
    let repo = rooted_repo();
    let r = run(&repo, &["spec", "check"]);
    // Warnings only: spec check still exits 0.
    r.expect_code(0);
    let all = r.all();
    assert!(all.contains("3 warnings"), "{all}");
    assert!(all.contains("specs/links.md:5:12"), "{all}");
    assert!(
        all.contains("opens specs/tests/x.sh on GitHub, which does not exist (404)"),
        "{all}"
    );
    assert!(all.contains("`../tests/x.sh#test_a`"), "the fix: {all}");
    assert!(all.contains("specs/links.md:6:19"), "{all}");
    assert!(all.contains("legacy `::` form"), "{all}");
    assert!(all.contains("`../tests/x.sh#test_b`"), "{all}");
    assert!(all.contains("specs/deep/more.md:5:14"), "{all}");
    assert!(all.contains("`../../tests/x.sh#test_e`"), "{all}");
    for quiet in [":7:", ":8:", ":9:"] {
        assert!(
            !all.contains(&format!("specs/links.md{quiet}")),
            "no warning for {quiet}: {all}"
        );
    }

    // When the spec folder has a file by that path, GitHub opens a different file.
    repo.write("specs/tests/x.sh", "test_a() { :; }\n");
    let r = run(&repo, &["spec", "check", "--json"]);
    r.expect_code(0);
    let j = r.json();
    let first = j
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["file"] == "specs/links.md" && f["line"] == 5)
        .unwrap_or_else(|| panic!("{j:#}"));
    assert_eq!(first["level"], "warning");
    assert_eq!(first["column"], 12);
    assert!(
        first["message"]
            .as_str()
            .is_some_and(|m| m.contains("a different file from the tests/x.sh vermas runs")),
        "{first:#}"
    );
}

#[test]
fn spec_check_fix_writes_links_github_opens_and_they_still_run() {
    let repo = rooted_repo();
    let r = run(&repo, &["spec", "check", "--fix"]);
    r.expect_code(0);
    for line in [
        "-- [ ] Bare [verify](tests/x.sh#test_a \"timeout=30s\")",
        "+- [ ] Bare [verify](../tests/x.sh#test_a \"timeout=30s\")",
        "-- [ ] Legacy bare [verify](tests/x.sh::test_b)",
        "+- [ ] Legacy bare [verify](../tests/x.sh#test_b)",
        "+- [ ] Deeper [verify](../../tests/x.sh#test_e)",
    ] {
        assert!(r.stdout.contains(line), "diff has {line:?}:\n{}", r.stdout);
    }
    let after = ROOTED
        .replace("(tests/x.sh#test_a", "(../tests/x.sh#test_a")
        .replace("(tests/x.sh::test_b)", "(../tests/x.sh#test_b)");
    assert_eq!(repo.read("specs/links.md"), after, "only the links changed");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        " M specs/deep/more.md\n M specs/links.md\n",
        "--fix edits the specs and commits nothing"
    );

    // The result passes spec check, a second --fix has nothing to do, and it all runs.
    let r = run(&repo, &["spec", "check"]);
    r.expect_code(0);
    assert!(r.all().contains("0 errors, 0 warnings"), "{}", r.all());
    let r = run(&repo, &["spec", "check", "--fix"]);
    r.expect_code(0);
    assert!(!r.stdout.contains("+- [ ]"), "{}", r.stdout);
    assert_eq!(repo.read("specs/links.md"), after);
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for text in [
        "Bare",
        "Legacy bare",
        "From the spec",
        "From the root",
        "Deeper",
    ] {
        assert_eq!(criterion(&j, text)["outcome"], "PASS", "{text}: {j:#}");
    }
    assert_eq!(criterion(&j, "Words")["outcome"], "ERROR", "no nix runner");
}

#[test]
fn the_report_points_at_the_check_function_next_to_the_criterion() {
    let repo = Repo::initialised();
    repo.write(
        "specs/a.md",
        "# A\n\n## Success Criteria\n\n- [ ] Shell [verify](../tests/x.sh#test_two)\n- [ ] Python [verify](../tests/t.py#TestX::test_y)\n- [ ] Gone [verify](../tests/x.sh#test_gone)\n",
    );
    repo.write(
        "tests/x.sh",
        "# helpers\n\ntest_one() { :; }\n\ntest_two() {\n  true\n}\n",
    );
    repo.write(
        "tests/t.py",
        "def test_y():\n    pass\n\nclass TestX:\n    def test_y(self):\n        pass\n",
    );
    let r = run(&repo, &["status", "--verify", "--spec", "a"]);
    let line = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("tests/x.sh#test_two"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        line.ends_with("  specs/a.md:5  tests/x.sh:5"),
        "criterion then function: {line:?}"
    );
    let gone = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("tests/x.sh#test_gone"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        gone.ends_with("specs/a.md:7"),
        "no place for a missing function: {gone:?}"
    );

    let r = run(&repo, &["status", "--verify", "--spec", "a", "--json"]);
    let j = r.json();
    assert_eq!(
        criterion(&j, "Shell")["checks"][0]["check_location"],
        "tests/x.sh:5"
    );
    // `Class::method` is the method inside the class, not the module function.
    assert_eq!(
        criterion(&j, "Python")["checks"][0]["check_location"],
        "tests/t.py:5"
    );
    assert!(
        criterion(&j, "Gone")["checks"][0]
            .get("check_location")
            .is_none()
    );
}

#[test]
fn positions_after_non_ascii_text_count_characters() {
    let repo = Repo::initialised();
    // "Grüße ✓" is 7 characters but 10 bytes: the link starts at column 15, byte 19.
    repo.write(
        "specs/umlaut.md",
        "# Umlaut\n\n## Success Criteria\n\n- [ ] Grüße ✓ [verify](tests/x.sh#test_a)\n",
    );
    repo.write("tests/x.sh", "test_a() { :; }\n");
    let r = run(&repo, &["spec", "check"]);
    let all = r.all();
    // The headline counts characters, as editors do (the byte count would say 19).
    assert!(all.contains("warning: specs/umlaut.md:5:15:"), "{all}");
    // The caret sits under the link's `[`, 14 characters into the quoted line.
    let quoted = all
        .lines()
        .position(|l| l.contains("Grüße ✓ [verify]"))
        .unwrap_or_else(|| panic!("no quoted line: {all}"));
    let line = all.lines().nth(quoted).unwrap();
    let caret = all.lines().nth(quoted + 1).unwrap();
    let bracket = line.chars().position(|c| c == '[').unwrap();
    let mark = caret
        .chars()
        .position(|c| c == '^' || c == '─' || c == '┬')
        .unwrap_or_else(|| panic!("no caret under {line:?}: {caret:?}"));
    // The first '[' on the quoted line is the checkbox's; the link's is the next one.
    let link = line
        .char_indices()
        .filter(|(_, c)| *c == '[')
        .nth(1)
        .map(|(b, _)| line[..b].chars().count())
        .unwrap();
    assert!(bracket < link);
    assert_eq!(mark, link, "{line}\n{caret}");
}
