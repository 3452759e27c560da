//! `vermas --help` grouped by job: the commands under headings (beads, live specs, the
//! Inspector, agents and sessions, sharing, interop, setup) instead of one flat list of
//! 45, built from the clap definitions themselves so a command's one-line help is written
//! once. A test keeps every visible command in exactly one group.

use clap::Command;

/// The groups, each a heading and its commands in the order shown.
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "Track work (beads)",
        &[
            "create", "q", "list", "show", "ready", "blocked", "update", "close", "reopen", "dep",
            "label", "comments", "clarify", "answer", "search", "stats", "history", "delete",
        ],
    ),
    (
        "Live specs and checks",
        &["status", "spec", "gate", "tasks", "discover", "git-hooks"],
    ),
    (
        "Inspector: test specs, verdicts, merges",
        &[
            "inspect",
            "sling",
            "design",
            "strategize",
            "plan",
            "refinery",
            "report",
            "stand-in",
        ],
    ),
    (
        "Agents and sessions",
        &["mail", "formula", "mol", "start", "stop"],
    ),
    ("Many agents, many machines", &["sync", "merge-file"]),
    (
        "Interop: bd, ralph, editors",
        &["import", "export", "ralph", "lsp"],
    ),
    ("Setup", &["init", "config", "doctor", "completions"]),
];

/// The right command for a near miss clap could not parse (`vermas inspector pending`:
/// the Inspector's commands are under `inspect`), when `args` is one.
pub fn near_miss(args: &[String]) -> Option<String> {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    match words.as_slice() {
        ["inspector", rest @ ..] if rest.first() != Some(&"run") => Some(format!(
            "the Inspector's commands are under `vermas inspect`: `vermas inspect {}` (its \
             mail loop is `vermas inspect loop`)",
            rest.join(" ")
        )),
        _ => None,
    }
}

/// vermas's top-level command with its help grouped.
pub fn command(base: Command) -> Command {
    let listing = grouped(&base);
    base.before_help(listing).help_template(
        "{about-with-newline}\n{usage-heading} {usage}\n\n{before-help}Options:\n\
         {options}{after-help}",
    )
}

/// The grouped listing of `cmd`'s visible subcommands.
fn grouped(cmd: &Command) -> String {
    let width = GROUPS
        .iter()
        .flat_map(|(_, names)| names.iter())
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (heading, names) in GROUPS {
        out.push_str(&format!("{heading}:\n"));
        for name in *names {
            let about = cmd
                .find_subcommand(name)
                .and_then(|s| s.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default();
            out.push_str(&format!("  {name:<width$}  {about}\n"));
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn a_near_miss_names_the_right_command() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let hint = near_miss(&args(&["vermas", "inspector", "pending"])).unwrap();
        assert!(hint.contains("`vermas inspect pending`"), "{hint}");
        assert_eq!(near_miss(&args(&["vermas", "inspector", "run"])), None);
        assert_eq!(near_miss(&args(&["vermas", "lisst"])), None);
    }

    #[test]
    fn every_visible_command_is_in_exactly_one_group() {
        let cmd = crate::cli::args::Cli::command();
        let listed: Vec<&str> = GROUPS.iter().flat_map(|(_, n)| n.iter().copied()).collect();
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = sub.get_name();
            let times = listed.iter().filter(|n| **n == name).count();
            assert_eq!(
                times, 1,
                "{name} is listed {times} times in the grouped help"
            );
        }
        for name in &listed {
            assert!(
                cmd.find_subcommand(name).is_some_and(|s| !s.is_hide_set()),
                "{name} is grouped but is no visible command"
            );
        }
    }
}
