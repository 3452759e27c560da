//! The LLM command keys: which roles `llm.roles` may name, and whether a command can run.

use std::path::{Path, PathBuf};

/// Every role vermas knows: the two that coordinate (mayor, inspector), then the ones
/// that ask an LLM.
pub(super) const ROLES: &[&str] = &[
    "mayor",
    "inspector",
    "judge",
    "auditor",
    "advocate",
    "critic",
    "designer",
    "strategist",
];

/// The roles `llm.roles.<role>` may give their own command: those that ask an LLM.
pub const LLM_ROLES: &[&str] = ROLES.split_at(2).1;

/// Shell builtins a command line may start with (they are never files on PATH).
const BUILTINS: &[&str] = &[".", ":", "cd", "command", "eval", "exec", "exit", "export"];

/// True when `key` holds an LLM command (`llm.command` or `llm.roles.<role>`).
pub fn is_llm_command_key(key: &str) -> bool {
    key == "llm.command" || key.starts_with("llm.roles.")
}

/// The program a shell command line runs: its first word after `NAME=value` assignments,
/// with quotes removed; `None` for an empty command.
pub(super) fn program_of(command: &str) -> Option<String> {
    words(command).into_iter().find(|w| !is_assignment(w))
}

/// The words of a command line as `sh` splits them (quotes and backslashes removed; no
/// expansion).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_with(String::new).push(next);
                }
            }
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// True when `program` can be started: a shell builtin, an executable file in a `PATH`
/// folder, or (when it holds a `/`) an existing file, relative ones against `base`.
pub fn program_exists(program: &str, base: &Path) -> bool {
    if BUILTINS.contains(&program) {
        return true;
    }
    if program.contains('/') {
        let path = match (program.strip_prefix("~/"), std::env::var_os("HOME")) {
            (Some(rest), Some(home)) => Path::new(&home).join(rest),
            _ => base.join(program),
        };
        return path.is_file();
    }
    let Some(paths) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&paths).any(|dir| is_executable(&dir.join(program)))
}

fn is_executable(path: &PathBuf) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Checks that an LLM command's program exists (an empty command means "no LLM" and is
/// fine); the message says which program is missing.
pub fn check_runnable(command: &str, base: &Path) -> Result<(), String> {
    match program_of(command) {
        Some(program) if !program_exists(&program, base) => Err(format!(
            "not a runnable command: '{command}': '{program}' is not found on PATH and is not \
             an existing file"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_is_the_first_word_after_assignments() {
        assert_eq!(program_of("claude -p").as_deref(), Some("claude"));
        assert_eq!(
            program_of("  MODEL=x  'my llm' --flag").as_deref(),
            Some("my llm")
        );
        assert_eq!(program_of("\"./ask.sh\" a").as_deref(), Some("./ask.sh"));
        assert_eq!(program_of("   "), None);
        let here = Path::new("/");
        assert!(program_exists("sh", here));
        assert!(program_exists("cd", here));
        assert!(!program_exists("vermas-no-such-program", here));
        assert!(program_exists("bin/sh", here));
        assert!(check_runnable("", here).is_ok());
        let e = check_runnable("vermas-no-such-program -p", here).unwrap_err();
        assert!(e.starts_with("not a runnable command"), "{e}");
    }
}
