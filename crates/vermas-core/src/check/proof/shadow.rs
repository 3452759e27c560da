//! Lines that would make vermas's own bash code run something else: a function or alias
//! named as a command that code runs after the checked function (`printf` writing the
//! record, `exit`, `return`, `builtin`...), or `enable` turning a builtin off or loading one.
//! In one shell with the check, such a name would let the check write the record of a
//! pass that never happened (a `printf` that always writes status 0 and exits 0), so a
//! script that has one is refused, as one naming the probe is.

/// The commands vermas's probe and wrapper run, which a check may not redefine.
const RUN_BY_VERMAS: &[&str] = &[
    ".", "builtin", "command", "declare", "echo", "eval", "exec", "exit", "export", "local",
    "printf", "return", "set", "source", "trap", "typeset", "unset",
];

/// The command `line` redefines or turns off, when it does one of those things: defines
/// a function (`NAME()`, `function NAME`) or an alias of one of [`RUN_BY_VERMAS`], or runs
/// `enable` with `-n`, `-f` or `-d`.
pub fn shadowed(line: &str) -> Option<String> {
    let vermas_runs = |name: &str| {
        let name = unquoted(name);
        RUN_BY_VERMAS.contains(&name.as_str()).then_some(name)
    };
    // `NAME()` or `NAME ()`: the word before a `(` that only spaces part from its `)`.
    for (at, _) in line.match_indices('(') {
        let after = line[at + 1..].trim_start();
        if !after.starts_with(')') {
            continue;
        }
        let before = line[..at].trim_end();
        let name = before
            .rsplit(|c: char| c.is_whitespace() || is_separator(c))
            .next()
            .unwrap_or("");
        if let Some(name) = vermas_runs(name) {
            return Some(format!("defines a function `{name}`"));
        }
    }
    for command in line.split(is_separator) {
        let mut words = command
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('='));
        let (Some(first), rest) = (words.next(), words) else {
            continue;
        };
        let rest: Vec<&str> = rest.collect();
        match first {
            "function" => {
                let name = rest.first().copied().unwrap_or("");
                if let Some(name) = vermas_runs(name) {
                    return Some(format!("defines a function `{name}`"));
                }
            }
            "alias" => {
                for def in rest.iter().filter(|d| d.contains('=')) {
                    if let Some(name) = vermas_runs(def.split('=').next().unwrap_or("")) {
                        return Some(format!("defines an alias `{name}`"));
                    }
                }
            }
            "enable"
                if rest
                    .iter()
                    .take_while(|w| w.starts_with('-'))
                    .any(|w| w.contains(['n', 'f', 'd'])) =>
            {
                return Some("turns a builtin off or loads one (`enable`)".to_string());
            }
            _ => {}
        }
    }
    None
}

/// True for a character that ends a shell command or a word before a function's `()`.
fn is_separator(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '{' | '}' | '(' | ')' | '`')
}

/// `word` without the quotes and backslashes bash would remove.
fn unquoted(word: &str) -> String {
    word.chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redefined_command_of_vermas_is_named_and_ordinary_lines_are_not() {
        for line in [
            "printf() { builtin printf \"$1\" \"$2\" 0; }",
            "return () { :; }",
            "  function exit { :; }",
            "function builtin() { :; }",
            "t() { \"ret\"urn() { :; }; return 1; }",
            "shopt -s expand_aliases; alias printf='echo'",
            "alias -p x=y 'exit=true'",
            "enable -n printf",
            "enable -f ./evil.so printf",
        ] {
            assert!(shadowed(line).is_some(), "{line}");
        }
        for line in [
            "test_ok() { printf '%s\\n' ok; return 0; }",
            "function test_x { exit 1; }",
            "pushd() { command pushd \"$@\" >/dev/null; }",
            "alias ll='ls -l'",
            "echo enable -n is not run here",
            "enable printf",
            "(exit 3)",
            "x=$(printf '%s' a)",
        ] {
            assert_eq!(shadowed(line), None, "{line}");
        }
    }
}
