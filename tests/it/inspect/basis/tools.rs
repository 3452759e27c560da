//! The checked code cannot stand in for the checker: tools are never found inside the
//! repository, and a live check's proof of the call holds under every interpreter.

use super::*;

/// A spec whose criteria `(text, target)` link checks under `tests/`.
fn spec_of(repo: &Repo, criteria: &[(&str, &str)]) {
    let mut text = String::from("# Checks\n\n## Success Criteria\n\n");
    for (t, target) in criteria {
        text.push_str(&format!("- [ ] {t}\n  [verify](tests/{target})\n"));
    }
    repo.write("specs/checks.md", &text);
}

#[test]
fn a_function_not_called_or_failing_is_never_a_pass_whatever_runs_the_script() {
    let repo = Repo::initialised();
    let cases: &[(&str, &str, &str)] = &[
        (
            "sh exits 0",
            "sh.sh",
            "#!/bin/sh\nt() { return 1; }\nexit 0\n",
        ),
        (
            "env sh exit trap",
            "envsh.sh",
            "#!/usr/bin/env sh\ntrap 'exit 0' EXIT\nt() { return 1; }\n\"$@\"\n",
        ),
        (
            "dash subshell",
            "dash.sh",
            "#!/bin/dash\nt() { return 1; }\n(t)\nexit 0\n",
        ),
        ("no shebang", "plain", "t() { return 1; }\nexit 0\n"),
        (
            "tab after bash",
            "tab.sh",
            "#!/bin/bash\t\nt() { return 1; }\nexit 0\n",
        ),
        (
            "bash subshell",
            "bash.sh",
            "#!/bin/bash\nt() { return 1; }\n(t)\nexit 0\n",
        ),
    ];
    let mut criteria = Vec::new();
    for (text, file, body) in cases {
        write_exec(&repo, &format!("tests/{file}"), body);
        criteria.push((*text, format!("{file}#t")));
    }
    // Sourced (not executable): the same under the wrapper.
    repo.write("tests/sourced.sh", "t() { return 1; }\nexit 0\n");
    criteria.push(("sourced exits 0", "sourced.sh#t".to_string()));
    let refs: Vec<(&str, &str)> = criteria.iter().map(|(a, b)| (*a, b.as_str())).collect();
    spec_of(&repo, &refs);
    let r = run(&repo, &["status", "--verify", "--json"]);
    let j = r.json();
    for (text, _) in &refs {
        let o = outcome(&j, text);
        assert!(
            o == "ERROR" || o == "FAIL",
            "{text}: {o}: {}",
            reason(&j, text)
        );
    }
    // A compiled program or another interpreter with a function named cannot be told.
    write_exec(
        &repo,
        "tests/py.sh",
        "#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n",
    );
    spec_of(&repo, &[("python", "py.sh#t")]);
    let j = run(&repo, &["status", "--verify", "--json"]).json();
    assert_eq!(outcome(&j, "python"), "ERROR");
    assert!(
        reason(&j, "python").contains("make it tellable"),
        "{}",
        reason(&j, "python")
    );
}

#[test]
fn a_script_that_names_the_probe_is_refused_and_a_tampered_proof_is_an_error() {
    let repo = Repo::initialised();
    write_exec(
        &repo,
        "tests/forge.sh",
        "#!/bin/bash\nt() { return 1; }\nprintf '%s E\\n%s S 0\\n' \"$__vermas_key\" \"$__vermas_key\" >> \"$__vermas_proof\"; exit 0\n",
    );
    repo.write("tests/lib.sh", ": > \"${VERMAS_PROBE_FILE}\"\n");
    repo.write("tests/uses.sh", ". tests/lib.sh\nt() { true; }\n");
    // Found without naming it (by listing every variable), a forged record is still one
    // too many: vermas's own records come after.
    repo.write(
        "tests/sly.sh",
        "t() { for v in $(compgen -v); do case $v in _*_k) k=${!v};; _*_p) p=${!v};; esac; done; printf '%s S 0\\n' \"$k\" >> \"$p\"; return 1; }\n",
    );
    spec_of(
        &repo,
        &[
            ("forge", "forge.sh#t"),
            ("uses", "uses.sh#t"),
            ("sly", "sly.sh#t"),
        ],
    );
    let j = run(&repo, &["status", "--verify", "--json"]).json();
    assert_eq!(outcome(&j, "forge"), "ERROR");
    assert!(
        reason(&j, "forge").contains("tests/forge.sh:3 names vermas's probe"),
        "{}",
        reason(&j, "forge")
    );
    assert_eq!(outcome(&j, "uses"), "ERROR");
    assert!(
        reason(&j, "uses").contains("tests/lib.sh:1 names vermas's probe"),
        "{}",
        reason(&j, "uses")
    );
    assert_eq!(outcome(&j, "sly"), "ERROR", "{}", reason(&j, "sly"));
    assert!(
        reason(&j, "sly").contains("tampered"),
        "{}",
        reason(&j, "sly")
    );
}

#[test]
fn tools_are_never_found_inside_the_repository() {
    let repo = Repo::initialised();
    // A `bash` of the repository's own, first on PATH (as `./bin` and as its full path).
    write_exec(&repo, "bin/bash", "#!/bin/sh\nexit 0\n");
    repo.write("tests/t.sh", "t() { false; }\n");
    spec_of(&repo, &[("fails", "t.sh#t")]);
    for path in [
        format!("bin:{}", std::env::var("PATH").unwrap_or_default()),
        format!(
            "{}:{}",
            repo.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        ),
        format!(":{}", std::env::var("PATH").unwrap_or_default()),
    ] {
        let j = run_env(&repo, &["status", "--verify", "--json"], &[("PATH", &path)]).json();
        assert_eq!(
            outcome(&j, "fails"),
            "FAIL",
            "PATH {path}: {}",
            reason(&j, "fails")
        );
    }
}

#[test]
fn pytest_cannot_be_shadowed_by_the_repository() {
    let have = std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("pytest is not installed for python3: shadowing not checked");
        return;
    }
    let repo = Repo::initialised();
    repo.write("pytest/__main__.py", "print('1 passed in 0.01s')\n");
    repo.write("pytest/__init__.py", "");
    repo.write("tests/test_x.py", "def test_x():\n    assert False\n");
    spec_of(&repo, &[("py", "test_x.py#test_x")]);
    let j = run(&repo, &["status", "--verify", "--json"]).json();
    assert_eq!(outcome(&j, "py"), "FAIL", "{}", reason(&j, "py"));
}
