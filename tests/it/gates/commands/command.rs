//! Where the gate command comes from (`--cmd`, the criterion, config) and how its variables are filled in.

use super::*;

#[test]
fn the_command_comes_from_cmd_then_the_criterion_then_config() {
    let (repo, id) = setup();
    repo.write(
        "tests/fizz.sh",
        "test_unit() {\n  echo \"unit test of fizz ran\"\n}\n",
    );
    repo.git(&["add", "tests/fizz.sh"]);
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "fizzbuzz 15 prints FizzBuzz", verify_command: "echo criterion one"}"#,
            r#"{id: ac-2, description: "Unit tests pass", verify: "tests/fizz.sh#test_unit"}"#,
            r#"{id: ac-3, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
        ],
    );

    let g = expect(&repo, &["green", &id, "--ac", "1"], "accept");
    assert_eq!(g.json["command"], "echo criterion one");
    assert_eq!(g.json["criterion"], "ac-1");
    assert_eq!(g.json["snippet"], "criterion one\n");

    let g = expect(&repo, &["green", &id, "--ac", "2"], "accept");
    assert_eq!(g.json["criterion"], "ac-2");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.contains("tests/fizz.sh") && c.contains("test_unit")),
        "a verify target runs its file's function: {}",
        g.stdout
    );
    assert!(
        g.json["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("unit test of fizz ran")),
        "{}",
        g.stdout
    );

    // --cmd wins over the criterion, which still names the evidence.
    let g = expect(
        &repo,
        &["green", &id, "--ac", "1", "--cmd", "echo given"],
        "accept",
    );
    assert_eq!(g.json["command"], "echo given");
    assert_eq!(g.json["criterion"], "ac-1");

    // Two runnable criteria and nothing configured: which one is ambiguous.
    let err = refused_keep(&repo, &["green", &id]);
    assert!(err.contains("--ac"), "the hint names --ac: {err}");

    // Config's command for the phase, when no criterion is picked.
    repo.ok(&["config", "set", "gates.green", "echo from config"]);
    let g = expect(&repo, &["green", &id], "accept");
    assert_eq!(g.json["command"], "echo from config");
    // The criterion's own command wins over config's.
    let g = expect(&repo, &["green", &id, "--ac", "1"], "accept");
    assert_eq!(g.json["command"], "echo criterion one");
    // Config's command is per phase.
    refused_keep(&repo, &["red", &id]);
    finish(&repo);
}

/// A test spec with one judged criterion and one runnable one (ac-2).
fn one_runnable_criterion(repo: &Repo, id: &str) {
    write_spec(
        repo,
        &format!("{id}-spec"),
        id,
        &[
            r#"{id: ac-1, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
            r#"{id: ac-2, description: "fizzbuzz 15 prints FizzBuzz", verify_command: "echo the only one {ac_index}"}"#,
        ],
    );
}

#[test]
fn a_single_runnable_criterion_needs_no_ac_and_is_named_in_the_evidence() {
    let (repo, id) = setup();
    one_runnable_criterion(&repo, &id);
    let g = expect(&repo, &["green", &id], "accept");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("echo the only one")),
        "the criterion's command ran: {}",
        g.stdout
    );
    assert_eq!(
        g.json["criterion"], "ac-2",
        "the criterion that ran is named in the evidence: {}",
        g.stdout
    );
    assert_eq!(
        g.json["command"], "echo the only one 'AC-2'",
        "{{ac_index}} names the criterion as AC-N: {}",
        g.stdout
    );
    let c = checks(&repo, &id).pop().expect("a check");
    assert_eq!(c["criterion"], "ac-2", "{c}");
    let notes = notes(&repo, &id);
    assert!(
        notes
            .last()
            .is_some_and(|n| n.starts_with("Gate green ac-2: accept (")),
        "{notes:?}"
    );
    finish(&repo);
}

#[test]
fn a_single_runnable_criterion_comes_before_config() {
    // --cmd, else the criterion's command, else gates.<phase>.
    let (repo, id) = setup();
    one_runnable_criterion(&repo, &id);
    repo.ok(&["config", "set", "gates.green", "echo from config"]);
    let g = expect(&repo, &["green", &id], "accept");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("echo the only one")),
        "with one runnable criterion, its command wins over gates.green: {}",
        g.stdout
    );
    // A phase with nothing configured still finds it.
    let g = expect(&repo, &["red", &id], "reject_vanity");
    assert!(
        g.json["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("echo the only one"))
    );
    finish(&repo);
}

#[test]
fn config_gives_the_command_of_a_bead_without_a_test_spec() {
    let (repo, id) = setup();
    repo.ok(&[
        "config",
        "set",
        "gates.implement",
        "echo built {mission_id}",
    ]);
    let g = expect(&repo, &["implement", &id], "accept");
    assert_eq!(g.json["command"], format!("echo built '{id}'"));
    assert_eq!(g.json["snippet"], format!("built {id}\n"));
    assert!(g.json["criterion"].is_null(), "{}", g.stdout);
    finish(&repo);
}

#[test]
fn variables_are_substituted_and_shell_syntax_is_left_alone() {
    let (repo, id) = setup();
    repo.write("tests/unit/fizz.sh", "test_unit() { echo unit; }\n");
    repo.git(&["add", "tests/unit/fizz.sh"]);
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "Judged", judge: "tests/judges/x.sh#test_x"}"#,
            r#"{id: ac-2, description: "Prints FizzBuzz for 15!", verify: "tests/unit/fizz.sh#test_unit"}"#,
        ],
    );
    let root = std::fs::canonicalize(repo.path()).expect("canonical root");
    let root = root.display().to_string();
    let cmd = "echo mission={mission_id} wt={worktree_dir} file={test_file} dir={test_dir} \
               ac={ac_index} n={ac_number} title={ac_title} surface={surface_area} root={project_root}";
    let g = expect(&repo, &["green", &id, "--ac", "2", "--cmd", cmd], "accept");
    let want = format!(
        "echo mission='{id}' wt='{root}' file='tests/unit/fizz.sh' dir='tests/unit' \
         ac='AC-2' n='2' title='prints-fizzbuzz-for-15' surface='api,cli' root='{root}'"
    );
    assert_eq!(
        g.json["command"],
        want.as_str(),
        "the command after substitution, each value quoted"
    );
    assert_eq!(
        g.json["snippet"],
        format!("{}\n", want[5..].replace('\'', ""))
    );

    // ${HOME} and {{ are the shell's.
    let g = expect(
        &repo,
        &[
            "implement",
            &id,
            "--cmd",
            "echo \"home=${HOME}\" '{{x}}'; { echo grouped; }",
        ],
        "accept",
    );
    assert_eq!(
        g.json["command"],
        "echo \"home=${HOME}\" '{{x}}'; { echo grouped; }"
    );
    assert_eq!(
        g.json["snippet"],
        format!("home={} {{{{x}}}}\ngrouped\n", repo.path().display())
    );
    finish(&repo);
}

#[test]
fn an_unknown_variable_is_refused_before_anything_runs() {
    let (repo, id) = setup();
    let err = refused(
        &repo,
        &["red", &id, "--cmd", "touch ran-anyway; echo {nope}"],
        &id,
    );
    assert!(err.contains("{nope}"), "names the variable: {err}");
    assert!(
        err.contains("{mission_id}") || err.contains("mission_id"),
        "lists the known ones: {err}"
    );
    assert!(!repo.join("ran-anyway").exists(), "nothing ran");
    // Same for a command from config.
    repo.ok(&["config", "set", "gates.green", "echo {test_name}"]);
    let err = refused(&repo, &["green", &id], &id);
    assert!(err.contains("{test_name}"), "{err}");
    finish(&repo);
}

#[test]
fn no_command_anywhere_is_refused_with_a_hint() {
    let (repo, id) = setup();
    let err = refused(&repo, &["green", &id], &id);
    assert!(
        err.contains("--cmd") && err.contains("gates.green"),
        "the hint says where a command can come from: {err}"
    );
    // A test spec whose only criterion is judged has no command either.
    let spec = format!("{id}-spec");
    write_spec(
        &repo,
        &spec,
        &id,
        &[
            r#"{id: ac-1, description: "Code is idiomatic", judge: "tests/judges/fizz.sh#test_idiomatic"}"#,
        ],
    );
    let err = refused(&repo, &["red", &id], &id);
    assert!(err.contains("gates.red"), "{err}");
    let err = refused(&repo, &["red", &id, "--ac", "1"], &id);
    assert!(err.contains("judge criterion"), "{err}");
    finish(&repo);
}

#[test]
fn a_hostile_label_reaches_the_command_as_one_word_and_never_runs() {
    let repo = Repo::initialised();
    let hostile = "surface:x;touch${IFS}PWNED";
    let quotes = "surface:$(touch${IFS}PWNED2)'\"`touch${IFS}PWNED3`";
    let id = repo.create("Hostile labels", &["-l", hostile, "-l", quotes]);
    let want = "x;touch${IFS}PWNED,$(touch${IFS}PWNED2)'\"`touch${IFS}PWNED3`\n";
    for cmd in [
        "printf '%s\\n' {surface_area} > got.txt",
        "printf '%s\\n' \"{surface_area}\" > got.txt",
        "printf '%s\\n' '{surface_area}' > got.txt",
        "printf '%s\\n' \"$(printf %s {surface_area})\" > got.txt",
    ] {
        let g = expect(&repo, &["implement", &id, "--cmd", cmd], "accept");
        assert_eq!(
            repo.read("got.txt"),
            want,
            "{cmd}: the value arrives intact as one word\n{}",
            g.stdout
        );
        for marker in ["PWNED", "PWNED2", "PWNED3"] {
            assert!(
                !repo.join(marker).exists(),
                "{cmd}: the label ran as shell code ({marker})"
            );
        }
    }
    // The same through a command from config.
    repo.ok(&[
        "config",
        "set",
        "gates.green",
        "echo {surface_area} > got.txt",
    ]);
    expect(&repo, &["green", &id], "accept");
    assert_eq!(repo.read("got.txt"), want);
    assert!(!repo.join("PWNED").exists());
    assert_eq!(repo.status(".beads"), "");
    repo.assert_fsck();
}

#[test]
fn a_hostile_folder_name_reaches_the_command_as_one_word_and_never_runs() {
    // The repository lives in a folder whose name is shell code.
    let outer = Repo::new();
    let root = outer.join("a $(touch PWNED) b");
    std::fs::create_dir_all(&root).expect("mkdir");
    let r = root.display().to_string();
    outer.git(&["init", "-q", "-b", "main", &r]);
    outer.git(&["-C", &r, "config", "user.name", "Test User"]);
    outer.git(&["-C", &r, "config", "user.email", "test@example.com"]);
    outer.git(&["-C", &r, "config", "commit.gpgsign", "false"]);
    let in_root = |args: &[&str]| {
        let out = outer.cmd_in(&root, args).output().expect("run vermas");
        assert!(
            out.status.success(),
            "vermas {args:?}: {}\n{}",
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    };
    in_root(&["init", "--prefix", "vm"]);
    let id = in_root(&["q", "Lives in a strange folder"])
        .trim()
        .to_string();
    let cmd = "printf '%s\\n' {project_root} \"{worktree_dir}\" '{project_root}' > got.txt";
    in_root(&["gate", "implement", &id, "--cmd", cmd]);
    let canonical = std::fs::canonicalize(&root).expect("canonical root");
    let want = format!("{}\n", canonical.display()).repeat(3);
    assert_eq!(
        std::fs::read_to_string(root.join("got.txt")).expect("got.txt"),
        want,
        "the folder arrives intact, one word each time"
    );
    assert!(
        !root.join("PWNED").exists() && !outer.join("PWNED").exists(),
        "the folder name ran as shell code"
    );
    let status = outer.git(&["-C", &r, "status", "--porcelain", "--", ".beads"]);
    assert_eq!(status, "", "the gate's evidence is committed");
}
