//! Role workspaces as the design lays them out (issue 30): `init --roles --workspaces` (or
//! the `roles.workspaces` setting) gives each role `.beads/roles/<role>/` with its
//! `CLAUDE.md` (the role's context, one source: `.beads/roles/<role>.md`) and
//! `.claude/settings.json` (the role's vermas commands allowed, nothing that writes the
//! Inspector's records), in one commit; `start` opens the mayor's and the Inspector's panes
//! there.

use crate::common::*;
use crate::session::support::*;
use serde_json::Value;

/// Every role with a workspace.
const ROLES: [&str; 8] = [
    "mayor",
    "inspector",
    "auditor",
    "advocate",
    "critic",
    "judge",
    "designer",
    "strategist",
];

/// The allow and deny lists of a role's settings.
fn permissions(repo: &Repo, role: &str) -> (Vec<String>, Vec<String>) {
    let v: Value =
        serde_json::from_str(&repo.read(&format!(".beads/roles/{role}/.claude/settings.json")))
            .expect("settings.json is JSON");
    let list = |k: &str| -> Vec<String> {
        v["permissions"][k]
            .as_array()
            .expect("a list")
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    (list("allow"), list("deny"))
}

#[test]
fn init_workspaces_gives_each_role_its_context_and_settings_in_one_commit() {
    let repo = Repo::initialised();
    let before = repo.commit_count();
    let out = repo.ok(&["init", "--roles", "--workspaces"]);
    assert_eq!(repo.commit_count(), before + 1, "one commit");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    for role in ROLES {
        for file in ["CLAUDE.md", ".claude/settings.json"] {
            let path = format!(".beads/roles/{role}/{file}");
            assert!(out.contains(&format!("wrote {path}")), "{out}");
            assert!(
                repo.git(&["ls-files", &path]).trim() == path,
                "{path} is committed"
            );
        }
        let context = repo.read(&format!(".beads/roles/{role}.md"));
        let claude = repo.read(&format!(".beads/roles/{role}/CLAUDE.md"));
        assert!(
            claude.starts_with(&format!(
                "<!-- vermas: the {role}'s context, copied from .beads/roles/{role}.md"
            )),
            "{claude}"
        );
        assert!(claude.ends_with(&context), "{role}: the context itself");
        let (allow, deny) = permissions(&repo, role);
        assert!(allow.contains(&"Bash(vermas mail:*)".to_string()), "{role}");
        for denied in [
            "Edit(**/.beads/**)",
            "Write(**/.beads/**)",
            "Bash(vermas inspect approve:*)",
            "Bash(vermas config set:*)",
        ] {
            assert!(deny.contains(&denied.to_string()), "{role}: {denied}");
        }
        // Every command a role is allowed exists in the real binary.
        for a in &allow {
            let command = a
                .strip_prefix("Bash(vermas ")
                .and_then(|c| c.strip_suffix(":*)"))
                .expect("a vermas command");
            let mut args: Vec<&str> = command.split(' ').collect();
            args.push("--help");
            repo.ok(&args);
        }
    }
    let (inspector, _) = permissions(&repo, "inspector");
    assert!(inspector.contains(&"Bash(vermas inspect run:*)".to_string()));
    let (judge_allow, judge_deny) = permissions(&repo, "judge");
    assert!(!judge_allow.contains(&"Bash(vermas inspect run:*)".to_string()));
    assert!(judge_deny.contains(&"Bash(vermas inspect run:*)".to_string()));
    let (mayor, _) = permissions(&repo, "mayor");
    assert!(mayor.contains(&"Bash(vermas sling:*)".to_string()));

    // A run with nothing changed writes nothing.
    let before = repo.commit_count();
    repo.ok(&["init", "--roles", "--workspaces"]);
    assert_eq!(repo.commit_count(), before);
}

#[test]
fn the_context_has_one_source_and_settings_edits_are_kept() {
    let repo = Repo::initialised();
    repo.ok(&["init", "--roles", "--workspaces"]);
    // A person edits the judge's context: doctor says the copy is out of date, and the
    // next run copies it again.
    let path = ".beads/roles/judge.md";
    repo.write(path, &format!("{}\nAlso: be brief.\n", repo.read(path)));
    repo.git(&["commit", "-qam", "judge edit"]);
    let doctor = repo.ok(&["doctor"]);
    assert!(
        doctor.contains(".beads/roles/judge/CLAUDE.md: out of date with .beads/roles/judge.md"),
        "{doctor}"
    );
    // A person's edit to a settings file is kept unless --force.
    let settings = ".beads/roles/mayor/.claude/settings.json";
    repo.write(settings, "{\"permissions\": {\"allow\": []}}\n");
    repo.git(&["commit", "-qam", "mayor settings"]);
    let out = repo.ok(&["init", "--roles", "--workspaces"]);
    assert!(out.contains("wrote .beads/roles/judge/CLAUDE.md"), "{out}");
    assert!(
        out.contains(
            "kept .beads/roles/mayor/.claude/settings.json (it was changed; --force writes over it)"
        ),
        "{out}"
    );
    assert!(
        repo.read(".beads/roles/judge/CLAUDE.md")
            .ends_with("Also: be brief.\n")
    );
    assert!(!repo.ok(&["doctor"]).contains("out of date"));
    repo.ok(&["init", "--roles", "--workspaces", "--force"]);
    assert!(repo.read(settings).contains("Bash(vermas sling:*)"));
    // --force alone is refused.
    let err = repo.fails(&["init", "--force"], 2);
    assert!(err.contains("give it with --roles"), "{err}");
}

#[test]
fn the_setting_makes_init_roles_write_the_workspaces() {
    let repo = Repo::initialised();
    repo.ok(&["init", "--roles"]);
    assert!(!repo.join(".beads/roles/mayor").exists());
    assert_eq!(
        repo.ok(&["config", "get", "roles.workspaces"]).trim(),
        "false"
    );
    repo.ok(&["config", "set", "roles.workspaces", "true"]);
    assert!(
        repo.read(".beads/vermas.yaml")
            .contains("  workspaces: true\n")
    );
    let out = repo.ok(&["init", "--roles"]);
    assert!(out.contains("wrote .beads/roles/mayor/CLAUDE.md"), "{out}");
    let err = repo.fails(&["config", "set", "roles.workspace", "true"], 2);
    assert!(
        err.contains("unknown config key 'roles.workspace'"),
        "{err}"
    );
}

#[test]
fn start_opens_the_mayors_and_the_inspectors_panes_in_their_workspaces() {
    if !have_tmux() {
        return;
    }
    let repo = Repo::initialised();
    repo.ok(&["init", "--roles", "--workspaces"]);
    let server = Server::new();
    let name = session_of(&repo);
    server.vermas_ok(&repo, &["start"]);
    server.wait_running(&repo, &format!("={name}:"));
    let paths = server.ok(
        &repo,
        &[
            "list-panes",
            "-t",
            &format!("={name}:"),
            "-F",
            "#{@vermas-role}\t#{pane_current_path}",
        ],
    );
    let canon = |p: &str| std::fs::canonicalize(p).expect("a folder");
    for line in paths.lines() {
        let (role, path) = line.split_once('\t').expect("two fields");
        assert_eq!(
            canon(path),
            canon(
                &repo
                    .join(&format!(".beads/roles/{role}"))
                    .display()
                    .to_string()
            ),
            "{role}'s pane"
        );
    }
    assert_eq!(paths.lines().count(), 2, "{paths}");
    server.wait_for_text(&repo, &format!("={name}:.0"), "No messages for mayor/.");
    server.wait_for_text(&repo, &format!("={name}:.1"), "No test specs waiting");
}
