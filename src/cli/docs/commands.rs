//! Every vermas command README.md, docs/*.md and the role contexts show (in a console or
//! other code block, or an inline code span starting `vermas `) names commands that exist,
//! spelled as they are now (an old spelling kept as a hidden alias is refused), with flags
//! those commands take (synopses such as `vermas status --verify [--judge]` included), and
//! so does the synopsis in the first cell of a command table (`| `refinery run [--once]
//! [--batch N]` | ... |`), and every `vermas ...` a message of the code names (a hint such
//! as "e.g. `vermas git-hooks install pre-push`").

use clap::{Arg, Command, CommandFactory};

/// Hidden commands the docs may name: internal ones a reader can still see run.
const HIDDEN_OK: &[&str] = &["status-line"];

/// The commands shown on a page: (line, the words after `vermas`).
fn shown(text: &str) -> Vec<(usize, Vec<String>)> {
    let code = super::markdown::read(text);
    let mut out = Vec::new();
    for (at, span) in &code.spans {
        collect(*at, span, &mut out);
    }
    for block in &code.blocks {
        for (at, line) in &block.lines {
            let line = line.trim();
            let line = match (block.lang.as_str(), line.strip_prefix("$ ")) {
                ("console", Some(cmd)) => cmd,
                ("console", None) => continue,
                _ => line,
            };
            collect(*at, line, &mut out);
        }
    }
    out
}

/// The synopses of a page's command tables: each code span of a row's first cell whose
/// first word is one of vermas's commands (`mail send ADDR -s SUBJECT [--cc ADDR]...`),
/// as (line, its words), a choice written `\|` in the table read as `|`.
fn synopses(text: &str, commands: &[&str]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        let Some(row) = t.strip_prefix("| ").filter(|_| !fence) else {
            continue;
        };
        // The first cell ends at the first ` | ` that is not a choice (`\|`).
        let end = row
            .match_indices(" | ")
            .map(|(at, _)| at)
            .find(|&at| !row[..at].ends_with('\\'))
            .unwrap_or(row.len());
        for (_, span) in super::markdown::read(&row[..end]).spans {
            let span = span.replace("\\|", "|");
            let span = span.strip_prefix("vermas ").unwrap_or(&span);
            let words = words(span);
            if words
                .first()
                .is_some_and(|w| commands.contains(&w.as_str()))
            {
                out.push((i + 1, words));
            }
        }
    }
    out
}

/// Adds each `vermas ...` command of the shell text `text` (split at `&&`, `|`, `;`, `$(`).
fn collect(at: usize, text: &str, out: &mut Vec<(usize, Vec<String>)>) {
    let text = text.split(" #").next().unwrap_or(text);
    for part in text.split(['|', ';', '&', '(', '`']) {
        let mut part = part.trim().trim_start_matches("- ");
        part = part.strip_prefix("run: ").unwrap_or(part);
        while let Some((var, rest)) = part.split_once(' ') {
            // Leading `NAME=value` assignments.
            if var.contains('=') && !var.starts_with('-') {
                part = rest.trim_start();
            } else {
                break;
            }
        }
        if let Some(rest) = part.strip_prefix("vermas ") {
            // `vermas doctor: commit 2 unrecorded files` is a commit's subject.
            if rest.split_whitespace().take(2).any(|w| w.ends_with(':')) {
                continue;
            }
            out.push((at, words(rest)));
        }
    }
}

/// Shell words of `text`, up to a redirection.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut started = false;
    for ch in text.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(ch);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, '>' | '<') => break,
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        out.push(word);
    }
    out
}

/// What is wrong with `vermas WORDS`, if anything.
fn check(root: &Command, words: &[String]) -> Option<String> {
    let mut cur = root;
    let mut path = String::from("vermas");
    let mut commands_next = true;
    let mut skip_value = false;
    for raw in words {
        if skip_value {
            skip_value = false;
            continue;
        }
        // Synopses wrap flags in brackets and separate choices with `|`.
        let tok = raw.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ',' | '.'));
        for tok in tok.split('|').filter(|t| !t.is_empty()) {
            if let Some(long) = tok.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((n, _)) => (n, true),
                    None => (long, false),
                };
                if name.is_empty() {
                    return None;
                }
                match find(cur, root, |a| {
                    a.get_long() == Some(name)
                        || a.get_all_aliases().is_some_and(|al| al.contains(&name))
                }) {
                    Some(arg) => skip_value = !inline && takes_value(arg) && !raw.contains(']'),
                    None => return Some(format!("`{path}` has no flag `--{name}`")),
                }
            } else if let Some(shorts) = tok
                .strip_prefix('-')
                .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic()))
            {
                for c in shorts.chars() {
                    let Some(arg) = find(cur, root, |a| a.get_short() == Some(c)) else {
                        return Some(format!("`{path}` has no flag `-{c}`"));
                    };
                    skip_value = shorts.len() == 1 && takes_value(arg) && !raw.contains(']');
                }
            } else if commands_next && cur.has_subcommands() && !is_placeholder(tok) {
                match cur.find_subcommand(tok) {
                    Some(sub) if sub.get_name() != tok => {
                        let hidden = sub.get_all_aliases().any(|a| a == tok)
                            && !sub.get_visible_aliases().any(|a| a == tok);
                        if hidden {
                            return Some(format!(
                                "`{path} {tok}` is an old spelling: write `{path} {}`",
                                sub.get_name()
                            ));
                        }
                        path = format!("{path} {tok}");
                        cur = sub;
                    }
                    Some(sub) if sub.is_hide_set() && !HIDDEN_OK.contains(&tok) => {
                        return Some(format!("`{path} {tok}` is hidden: an old spelling"));
                    }
                    Some(sub) => {
                        path = format!("{path} {tok}");
                        cur = sub;
                    }
                    None if cur.get_positionals().next().is_some() => commands_next = false,
                    None => return Some(format!("`{path}` has no command `{tok}`")),
                }
            } else {
                commands_next = false;
            }
        }
    }
    None
}

/// A word standing for a value in a synopsis: `ID`, `K/N`, `FILE#FN`, `<id>`, or a
/// format argument in a message (`{}`, `{id}`).
fn is_placeholder(tok: &str) -> bool {
    tok.starts_with('<')
        || tok.contains('{')
        || (tok.chars().any(|c| c.is_ascii_uppercase())
            && !tok.chars().any(|c| c.is_ascii_lowercase()))
}

/// The argument of `cmd` (or a global one of the root) that `is` picks.
fn find<'c>(cmd: &'c Command, root: &'c Command, is: impl Fn(&Arg) -> bool) -> Option<&'c Arg> {
    cmd.get_arguments()
        .find(|a| is(a))
        .or_else(|| root.get_arguments().find(|a| a.is_global_set() && is(a)))
}

/// True when the flag `arg` takes a value.
fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// The built command line (help and version flags added, globals propagated).
pub(super) fn vermas() -> Command {
    let mut cmd = crate::cli::args::Cli::command();
    cmd.build();
    cmd
}

#[test]
fn every_command_and_flag_the_docs_show_exists() {
    let root = vermas();
    let mut wrong = Vec::new();
    let mut count = 0;
    // The generated reference shows usages (`vermas [OPTIONS] <COMMAND>`), not commands.
    // The role contexts `init --roles` writes tell agents which commands to run.
    let roles = vermas_core::roles::ROLES.iter().map(|(role, text)| {
        (
            format!("crates/vermas-core/src/roles/{role}.md"),
            text.to_string(),
        )
    });
    for (name, text) in super::documents()
        .into_iter()
        .filter(|(n, _)| n != "docs/reference.md")
        .chain(roles)
    {
        let commands: Vec<&str> = root
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| c.get_name())
            .collect();
        let mut all = shown(&text);
        all.extend(synopses(&text, &commands));
        for (at, words) in all {
            count += 1;
            if let Some(why) = check(&root, &words) {
                wrong.push(format!("{name}:{at}: {why} (`vermas {}`)", words.join(" ")));
            }
        }
    }
    eprintln!(
        "{count} commands shown in README.md, docs/*.md and the role contexts checked against clap"
    );
    assert!(count > 100, "only {count} commands found in the docs");
    assert!(
        wrong.is_empty(),
        "commands the docs show that vermas does not have:\n{}",
        wrong.join("\n")
    );
}

/// The `vermas ...` commands the code's own messages name (a code span in a line holding a
/// string, outside comments), in every source file but these tests, as (file:line, words).
fn named_in_messages() -> Vec<(String, Vec<String>)> {
    let root = super::root();
    let mut out = Vec::new();
    for dir in ["src", "crates/vermas-core/src"] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let entry = entry.expect("walk");
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "rs")
                || path.starts_with(root.join("src/cli/docs"))
            {
                continue;
            }
            let text = std::fs::read_to_string(path).expect("read source");
            let name = path
                .strip_prefix(&root)
                .expect("under root")
                .display()
                .to_string();
            let lines: Vec<&str> = text.lines().collect();
            let mut i = 0;
            while i < lines.len() {
                let at = i + 1;
                // A string continued with `\` at the end of a line is one line.
                let mut line = lines[i].to_string();
                while line.ends_with('\\') && i + 1 < lines.len() {
                    line.pop();
                    i += 1;
                    line.push_str(lines[i].trim_start());
                }
                i += 1;
                let code = line.trim_start();
                if code.starts_with("//") || !code.contains('"') {
                    continue;
                }
                for span in line.split('`').skip(1).step_by(2) {
                    if let Some(rest) = span.strip_prefix("vermas ") {
                        out.push((format!("{name}:{at}"), words(rest)));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_command_the_codes_messages_name_exists() {
    let root = vermas();
    let named = named_in_messages();
    let wrong: Vec<String> = named
        .iter()
        .filter_map(|(at, words)| Some(format!("{at}: {}", check(&root, words)?)))
        .collect();
    assert!(
        named.len() > 50,
        "only {} commands found in messages",
        named.len()
    );
    assert!(
        wrong.is_empty(),
        "messages naming commands vermas does not have:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_wrong_command_flag_or_old_spelling_is_caught() {
    let root = vermas();
    let check = |s: &str| check(&root, &words(s));
    assert_eq!(check("status --verify --shard 1/2 --json"), None);
    assert_eq!(
        check("status --verify [--judge] [--spec NAME]... [--jobs N]"),
        None
    );
    assert_eq!(check("--actor bob inspect run vm-k3f9 --base main"), None);
    assert_eq!(check("comments vm-k3f9"), None);
    assert_eq!(check("dep remove vm-k3f9 vm-2b7c"), None);
    assert_eq!(check("ralph spec -vj -s notify"), None);
    assert_eq!(check("ralph ARGS"), None);
    assert!(shown("`vermas doctor: commit 2 unrecorded files`").is_empty());
    assert!(
        check("status --verfy")
            .unwrap()
            .contains("no flag `--verfy`")
    );
    assert!(
        check("inspect runn vm-k3f9")
            .unwrap()
            .contains("no command `runn`")
    );
    assert!(check("hooks install").unwrap().contains("old spelling"));
    assert!(
        check("inspect status")
            .unwrap()
            .contains("write `vermas inspect verdicts`")
    );
    assert!(check("inspector run --once").unwrap().contains("hidden"));
    let table = "| command | example |\n|---|---|\n\
                 | `mail send ADDR -s S (-m TEXT \\| --stdin) [--cc ADDR]...` | `vermas mail` |\n\
                 | `mol list` / `mol show ID` | x \\| y |\n| `status` | a field |\n";
    let found = synopses(table, &["mail", "mol"]);
    let lines: Vec<usize> = found.iter().map(|(at, _)| *at).collect();
    assert_eq!(lines, vec![3, 4, 4]);
    assert!(
        found.iter().all(|(_, w)| self::check(&root, w).is_none()),
        "{found:?}"
    );
    let stale = synopses("| `refinery run [--onec]` | x |\n", &["refinery"]);
    assert!(
        self::check(&root, &stale[0].1)
            .unwrap()
            .contains("no flag `--onec`")
    );
    assert_eq!(
        shown("Run `vermas ready -n 3 | head` or\n\n```yaml\n- run: vermas status --verify\n```\n")
            .len(),
        2
    );
}
