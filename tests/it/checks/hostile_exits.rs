//! A sourced function that ends the shell in a way vermas's recorder does not see, or ends
//! it with 0 after failing, is never a pass: a file without `exit`, `trap`, `eval` or shell
//! options runs without the exit recorder, and every way of leaving the shell hidden from
//! that reading (`exec`, a signal, `builtin`/`command` exit, an exit built from parts, a
//! file sourced at run time, a trap set under another name, `set -e` under another name)
//! is an ERROR or a FAIL; a trap's `exit 0` after the function failed is an ERROR where the
//! recorder runs too; a script that redefines a command vermas's own code runs (`printf`,
//! `return`, `builtin`, an alias, `enable -n`) is not run.

use crate::common::*;
use crate::specs::support::*;

/// A repository whose spec links `tests/<name>.sh#t` for each `(name, text)`, each file
/// holding `text`.
fn checks(files: &[(&str, &str)]) -> Repo {
    let repo = Repo::initialised();
    let mut spec = String::from("# Hostile exits\n\n## Success Criteria\n\n");
    for (name, text) in files {
        spec.push_str(&format!("- [ ] {name}\n  [verify](../tests/{name}.sh#t)\n"));
        repo.write(&format!("tests/{name}.sh"), &format!("{text}\n"));
    }
    repo.write("specs/exits.md", &spec);
    repo
}

/// Runs every check and returns `(name, outcome, reason)` for each.
fn outcomes(repo: &Repo, files: &[(&str, &str)]) -> Vec<(String, String, String)> {
    let r = run(repo, &["status", "--verify", "--json", "--no-cache"]);
    let j = r.json();
    files
        .iter()
        .map(|(name, _)| (name.to_string(), outcome(&j, name), reason(&j, name)))
        .collect()
}

#[test]
fn leaving_the_shell_where_the_scan_cannot_see_it_is_never_a_pass() {
    // None of these files names exit, trap or eval, or sets options: no exit recorder.
    let files = [
        ("replaced", "t() { exec true; }"),
        ("killed", "t() { kill -9 $$; }"),
        ("terminated", "t() { kill $$; }"),
        ("builtin_exit", "t() { builtin \"ex\"it 0; return 1; }"),
        ("command_exit", "t() { command \"ex\"it 0; return 1; }"),
        (
            "built_eval",
            "t() { local e=ev; e+=al; $e \"ex\"\"it 0\"; return 1; }",
        ),
        (
            "sourced_at_run_time",
            "t() { local f; f=$(mktemp); echo \"ex\"\"it 0\" > \"$f\"; . \"$f\"; return 1; }",
        ),
        (
            "return_trap",
            "t() { local x=tr; x+=ap; $x \"ex\"\"it 0\" RETURN; return 1; }",
        ),
        (
            "debug_trap",
            "t() { local x=tr; x+=ap; $x \"ex\"\"it 0\" DEBUG; return 1; }",
        ),
        (
            "skipping_debug_trap",
            "t() { shopt -s extdebug; local x=tr; x+=ap; $x false DEBUG; return 1; }",
        ),
        (
            "hidden_errexit",
            "t() { local s=se; s+=t; $s -e; false; return 0; }",
        ),
        (
            "exit_trap_after",
            "t() { local x=tr; x+=ap; $x \"ex\"\"it 0\" EXIT; return 1; }",
        ),
    ];
    let repo = checks(&files);
    for (name, got, why) in outcomes(&repo, &files) {
        assert!(
            got == "ERROR" || got == "FAIL",
            "{name}: {got} ({why}): a function that did not succeed passed"
        );
    }
}

#[test]
fn a_traps_exit_0_after_the_function_failed_is_an_error_where_the_recorder_runs() {
    let files = [
        // The recorder runs: these files name trap or exit.
        ("return_trap", "t() { trap 'exit 0' RETURN; return 1; }"),
        ("err_trap", "t() { trap 'exit 0' ERR; false; return 1; }"),
        ("debug_trap", "t() { trap 'exit 0' DEBUG; return 1; }"),
        (
            "builtin_return_trap",
            "t() { builtin trap 'exit 0' RETURN; return 1; }",
        ),
        (
            "self_removing_trap",
            "t() { trap 'trap - RETURN; exit 0' RETURN; return 1; }",
        ),
        (
            "signal_trap",
            "t() { trap 'exit 0' TERM; kill -TERM $$; return 1; }",
        ),
        (
            "hidden_trap_exit_seen",
            "t() { local x=tr; x+=ap; $x 'exit 0' RETURN; return 1; }",
        ),
        // What still passes and fails as it should.
        ("exits_0", "t() { [ -d / ] && exit 0; return 1; }"),
        ("exit_3_then_trap", "t() { trap 'exit 0' RETURN; exit 3; }"),
        ("exits_3", "t() { trap 'echo bye' RETURN; exit 3; }"),
        (
            "returns_0_with_a_trap",
            "t() { trap 'echo bye' RETURN; return 0; }",
        ),
    ];
    let repo = checks(&files);
    for (name, got, why) in outcomes(&repo, &files) {
        let want = match name.as_str() {
            "exits_0" | "returns_0_with_a_trap" => "PASS",
            "exits_3" => "FAIL",
            _ => "ERROR",
        };
        assert_eq!(got, want, "{name}: {why}");
        if want == "ERROR" && name != "signal_trap" {
            assert!(why.contains("cannot be told"), "{name}: {why}");
        }
    }
}

#[test]
fn a_script_that_redefines_what_vermas_runs_to_record_is_not_run() {
    let files = [
        (
            "printf",
            "t() { printf() { builtin printf \"$1\" \"$2\" 0; builtin \"ex\"it 0; }; return 1; }",
        ),
        (
            "return_fn",
            "return() { builtin return 0; }\nt() { return 1; }",
        ),
        (
            "return_inside",
            "t() { return() { builtin return 0; }; return 1; }",
        ),
        ("builtin_fn", "function builtin { :; }\nt() { return 1; }"),
        (
            "alias",
            "shopt -s expand_aliases\nalias printf='echo'\nt() { return 1; }",
        ),
        ("enable", "enable -n printf\nt() { return 1; }"),
        (
            "ordinary",
            "pushd() { command pushd \"$@\" >/dev/null; }\nt() { return 0; }",
        ),
    ];
    let repo = checks(&files);
    let lines = [
        ("printf", 1, "defines a function `printf`"),
        ("return_fn", 1, "defines a function `return`"),
        ("return_inside", 1, "defines a function `return`"),
        ("builtin_fn", 1, "defines a function `builtin`"),
        ("alias", 2, "defines an alias `printf`"),
        ("enable", 1, "turns a builtin off"),
    ];
    for (name, got, why) in outcomes(&repo, &files) {
        if name == "ordinary" {
            assert_eq!(got, "PASS", "{name}: {why}");
            continue;
        }
        assert_eq!(got, "ERROR", "{name}: {why}");
        let (_, line, what) = lines.iter().find(|(n, ..)| *n == name).unwrap();
        assert!(
            why.contains(&format!("tests/{name}.sh:{line} {what}")) && why.contains("not run"),
            "{name}: {why}"
        );
    }
}
