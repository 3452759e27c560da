//! The commands a role's workspace allows or denies (`.claude/settings.json`, written by
//! `init --roles --workspaces`) are vermas's commands, and a command's current name is
//! listed wherever its old spelling is: a renamed command cannot silently leave a role
//! without it, nor open a denied one under its new name.

use clap::Command;

/// The command path `words` names, with each word's current name (`inspect status` gives
/// `inspect verdicts`), or what is wrong.
fn current(root: &Command, words: &[&str]) -> Result<String, String> {
    let mut cur = root;
    let mut names = Vec::new();
    for word in words {
        let Some(sub) = cur.find_subcommand(word) else {
            return Err(format!("`vermas {}` is no command", words.join(" ")));
        };
        names.push(sub.get_name().to_string());
        cur = sub;
    }
    Ok(names.join(" "))
}

/// The `vermas ...` commands of one permission list of a settings file.
fn listed(settings: &serde_json::Value, list: &str) -> Vec<String> {
    settings["permissions"][list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| {
            e.as_str()?
                .strip_prefix("Bash(vermas ")?
                .strip_suffix(":*)")
        })
        .map(str::to_string)
        .collect()
}

/// What is wrong with the commands of `role`'s settings file.
fn problems(root: &Command, role: &str, text: &str) -> Vec<String> {
    let settings: serde_json::Value = serde_json::from_str(text).expect("settings JSON");
    let mut out = Vec::new();
    for list in ["allow", "deny"] {
        let commands = listed(&settings, list);
        for command in &commands {
            let words: Vec<&str> = command.split_whitespace().collect();
            match current(root, &words) {
                Err(e) => out.push(format!("{role} {list}s {e}")),
                Ok(now) if !commands.contains(&now) => out.push(format!(
                    "{role} {list}s `vermas {command}` but not its current name `vermas {now}`"
                )),
                Ok(_) => {}
            }
        }
    }
    out
}

#[test]
fn every_command_a_role_may_or_may_not_run_exists_under_its_current_name() {
    let root = super::commands::vermas();
    let mut wrong = Vec::new();
    for (role, _) in vermas_core::roles::ROLES {
        let text = vermas_core::roles::workspace::settings_text(role);
        assert!(!listed(&serde_json::from_str(&text).expect("json"), "allow").is_empty());
        wrong.extend(problems(&root, role, &text));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_missing_command_or_a_rename_left_out_is_caught() {
    let root = super::commands::vermas();
    let settings = |allow: &str| {
        format!(r#"{{"permissions": {{"allow": [{allow}], "deny": ["Edit(**/.beads/**)"]}}}}"#)
    };
    let ok = settings(r#""Bash(vermas inspect status:*)", "Bash(vermas inspect verdicts:*)""#);
    assert!(problems(&root, "r", &ok).is_empty());
    let old_only = problems(&root, "r", &settings(r#""Bash(vermas inspect status:*)""#));
    assert!(
        old_only[0].contains("`vermas inspect verdicts`"),
        "{old_only:?}"
    );
    let gone = problems(&root, "r", &settings(r#""Bash(vermas inspect statuz:*)""#));
    assert!(gone[0].contains("no command"), "{gone:?}");
}
