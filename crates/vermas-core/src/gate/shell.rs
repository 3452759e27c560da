//! Shell quoting of `{name}` values for the place they land in a `sh -c` command.
//!
//! A gate command is a template written for the shell; its variable values (a bead's
//! labels, a folder name...) are data and must reach the command as exactly one word,
//! never as shell code. The template is scanned with the shell's quote state (outside
//! quotes, `'...'`, `"..."`, backquotes, `$(...)`, `$((...))`, comments and here-documents)
//! and each value is quoted for the state it lands in.

use crate::error::{Error, Result};

/// Where the scanner is in the command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ctx {
    /// Outside quotes, at top level or inside `$(...)`; counts `(` opened within.
    Plain(u32),
    /// Inside `'...'`.
    Single,
    /// Inside `"..."`.
    Double,
    /// Inside `` `...` ``.
    Backtick,
    /// Inside `$((...))`; counts `(` opened within.
    Arith(u32),
    /// A `#` comment, up to the end of the line.
    Comment,
    /// A here-document body up to its delimiter line.
    Heredoc(Heredoc),
}

/// A here-document announced by `<<`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Heredoc {
    /// The line that ends it.
    delim: String,
    /// `<<-`: leading tabs are ignored on the delimiter line.
    strip_tabs: bool,
    /// The delimiter was unquoted, so `$`, `` ` `` and `\` work in the body.
    expands: bool,
}

/// Characters a backslash escapes inside `"..."`.
const DOUBLE_SPECIAL: &[char] = &['\\', '"', '$', '`'];

/// Characters a backslash escapes inside backquotes and unquoted here-documents.
const BACKQUOTE_SPECIAL: &[char] = &['\\', '$', '`'];

/// Copies `template`, replacing each `{name}` (a name of letters, digits and `_`; not
/// `${...}`, not `{{`) by `value_of(name)` quoted for where it stands, so the shell sees
/// exactly that value as one word and never runs any of it.
pub fn expand(template: &str, value_of: &mut dyn FnMut(&str) -> Result<String>) -> Result<String> {
    let chars: Vec<char> = template.chars().collect();
    let mut stack = vec![Ctx::Plain(0)];
    let mut pending: Vec<Heredoc> = Vec::new();
    let mut out = String::with_capacity(template.len());
    let mut i = 0;
    while i < chars.len() {
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        if let Some(Ctx::Heredoc(h)) = stack.last()
            && (prev.is_none() || prev == Some('\n'))
        {
            let end = chars[i..]
                .iter()
                .position(|c| *c == '\n')
                .map_or(chars.len(), |p| i + p);
            let line: String = chars[i..end].iter().collect();
            let bare = if h.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                &line
            };
            if bare == h.delim {
                out.push_str(&line);
                stack.pop();
                i = end;
                continue;
            }
        }
        let c = chars[i];
        if c == '{' && prev != Some('$') {
            if next == Some('{') {
                out.push_str("{{");
                i += 2;
                continue;
            }
            if let Some(len) = name_len(&chars[i + 1..]) {
                let name: String = chars[i + 1..i + 1 + len].iter().collect();
                let value = value_of(&name)?;
                out.push_str(&quote(&name, &value, &stack)?);
                i += len + 2;
                continue;
            }
        }
        let top = stack.last().cloned().unwrap_or(Ctx::Plain(0));
        let used = match top {
            Ctx::Single => {
                if c == '\'' {
                    stack.pop();
                }
                1
            }
            Ctx::Comment if c == '\n' => {
                // The newline belongs to the line the comment is on.
                stack.pop();
                0
            }
            Ctx::Comment => 1,
            Ctx::Heredoc(Heredoc { expands: false, .. }) => 1,
            Ctx::Double | Ctx::Heredoc(_) => match c {
                '\\' => 2,
                '"' if top == Ctx::Double => {
                    stack.pop();
                    1
                }
                '$' if next == Some('(') => open_substitution(&chars, i, &mut stack),
                '`' => {
                    stack.push(Ctx::Backtick);
                    1
                }
                _ => 1,
            },
            Ctx::Plain(_) | Ctx::Backtick | Ctx::Arith(_) => {
                plain_step(&chars, i, &mut stack, &mut pending)
            }
        };
        let end = (i + used).min(chars.len());
        out.extend(&chars[i..end]);
        i = end;
    }
    Ok(out)
}

/// One step outside quotes: returns how many characters to copy.
fn plain_step(chars: &[char], i: usize, stack: &mut Vec<Ctx>, pending: &mut Vec<Heredoc>) -> usize {
    let c = chars[i];
    let prev = i.checked_sub(1).map(|p| chars[p]);
    let next = chars.get(i + 1).copied();
    let nested = stack.len() > 1;
    match (c, stack.last_mut()) {
        ('\\', _) => 2,
        ('\'', _) => {
            stack.push(Ctx::Single);
            1
        }
        ('"', _) => {
            stack.push(Ctx::Double);
            1
        }
        ('$', _) if next == Some('(') => open_substitution(chars, i, stack),
        ('`', Some(Ctx::Backtick)) => {
            stack.pop();
            1
        }
        ('`', _) => {
            stack.push(Ctx::Backtick);
            1
        }
        ('(', Some(Ctx::Plain(n) | Ctx::Arith(n))) => {
            *n += 1;
            1
        }
        (')', Some(Ctx::Plain(n) | Ctx::Arith(n))) if *n > 0 => {
            *n -= 1;
            1
        }
        (')', Some(Ctx::Arith(_))) => {
            stack.pop();
            if next == Some(')') { 2 } else { 1 }
        }
        (')', Some(Ctx::Plain(_))) if nested => {
            stack.pop();
            1
        }
        ('#', _) if prev.is_none_or(|p| p.is_whitespace() || ";&|()<>".contains(p)) => {
            stack.push(Ctx::Comment);
            1
        }
        ('\n', _) if !pending.is_empty() => {
            // The bodies follow in order: the first announced is read first.
            stack.extend(pending.drain(..).rev().map(Ctx::Heredoc));
            1
        }
        ('<', _) if next == Some('<') && chars.get(i + 2) != Some(&'<') => {
            let (heredoc, used) = heredoc_operator(&chars[i + 2..]);
            pending.extend(heredoc);
            2 + used
        }
        _ => 1,
    }
}

/// Enters `$(...)` or `$((...))` at the `$`; returns how many characters to copy.
fn open_substitution(chars: &[char], i: usize, stack: &mut Vec<Ctx>) -> usize {
    if chars.get(i + 2) == Some(&'(') {
        stack.push(Ctx::Arith(0));
        3
    } else {
        stack.push(Ctx::Plain(0));
        2
    }
}

/// Reads what follows `<<`: an optional `-`, blanks and the delimiter word (quoted parts
/// make the body literal). Returns the here-document, if a word was there, and the number
/// of characters read.
fn heredoc_operator(rest: &[char]) -> (Option<Heredoc>, usize) {
    let mut i = 0;
    let strip_tabs = rest.first() == Some(&'-');
    if strip_tabs {
        i += 1;
    }
    while rest.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    let mut delim = String::new();
    let mut expands = true;
    while let Some(&c) = rest.get(i) {
        if c.is_whitespace() || ";&|<>()".contains(c) {
            break;
        }
        match c {
            '\\' => {
                expands = false;
                delim.extend(rest.get(i + 1));
                i += 2;
            }
            '\'' | '"' => {
                expands = false;
                let close = rest[i + 1..].iter().position(|x| *x == c);
                let end = close.map_or(rest.len(), |p| i + 1 + p);
                delim.extend(&rest[i + 1..end]);
                i = end + 1;
            }
            _ => {
                delim.push(c);
                i += 1;
            }
        }
    }
    let i = i.min(rest.len());
    if delim.is_empty() {
        return (None, i);
    }
    let heredoc = Heredoc {
        delim,
        strip_tabs,
        expands,
    };
    (Some(heredoc), i)
}

/// The length of a variable name followed by `}` at the start of `rest`.
fn name_len(rest: &[char]) -> Option<usize> {
    let len = rest
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == '_'))?;
    (len > 0 && rest[len] == '}').then_some(len)
}

/// `value` written so that, where `stack` says it stands, the shell reads exactly it.
fn quote(name: &str, value: &str, stack: &[Ctx]) -> Result<String> {
    let mut q = match stack.last() {
        Some(Ctx::Single) => format!("'{}'", crate::text::shell::quote(value)),
        Some(Ctx::Double) => escaped(value, DOUBLE_SPECIAL),
        Some(Ctx::Comment) => crate::text::shell::quote(&value.replace(['\n', '\r'], " ")),
        Some(Ctx::Arith(_)) => {
            if value.is_empty() || !value.chars().all(|c| c.is_ascii_digit()) {
                return Err(Error::invalid_with_help(
                    format!(
                        "{{{name}}} stands inside $((...)), but its value `{value}` is not a number"
                    ),
                    "use the variable outside the arithmetic expansion",
                ));
            }
            value.to_string()
        }
        Some(Ctx::Heredoc(h)) => {
            if value.contains('\n') {
                return Err(Error::invalid_with_help(
                    format!("{{{name}}} stands in a here-document, but its value has a line break"),
                    "use the variable outside the here-document",
                ));
            }
            if h.expands {
                escaped(value, BACKQUOTE_SPECIAL)
            } else {
                value.to_string()
            }
        }
        Some(Ctx::Plain(_) | Ctx::Backtick) | None => crate::text::shell::quote(value),
    };
    // Each enclosing backquote takes away one level of backslashes first.
    for _ in stack.iter().filter(|c| **c == Ctx::Backtick) {
        q = escaped(&q, BACKQUOTE_SPECIAL);
    }
    Ok(q)
}

/// `value` with a backslash before each of `special`.
fn escaped(value: &str, special: &[char]) -> String {
    let mut s = String::with_capacity(value.len());
    for c in value.chars() {
        if special.contains(&c) {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values that would run `touch PWNED`, split, glob or expand if pasted unquoted.
    const HOSTILE: &[&str] = &[
        "a b",
        "$(touch PWNED)",
        "a $(touch PWNED)",
        "`touch PWNED`",
        "'; touch PWNED; '",
        "\"; touch PWNED; \"",
        "x;touch${IFS}PWNED",
        "back\\slash\\",
        "\\'\\\"",
        "*",
        "~",
        "$HOME",
        "}{",
        "",
        "tab\there",
    ];

    /// A hostile value with a line break (not allowed in here-documents).
    const MULTILINE: &str = "line\nbreak; touch PWNED\n#";

    /// `template` with `{v}` set to `value`.
    fn expanded(template: &str, value: &str) -> Result<String> {
        expand(template, &mut |name| {
            assert_eq!(name, "v", "only {{v}} is a variable here");
            Ok(value.to_string())
        })
    }

    /// Runs `template` with `{v}` = `value` under `sh -c` in an empty folder; returns
    /// stdout and asserts nothing was executed from the value.
    fn run(template: &str, value: &str) -> String {
        let dir = tempfile::tempdir().expect("tempdir");
        let cmd = expanded(template, value).expect("expands");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .current_dir(dir.path())
            .env("HOME", "/home-of-test")
            .output()
            .expect("run sh");
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !dir.path().join("PWNED").exists(),
            "the value {value:?} ran as code in {cmd}"
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Asserts `template` prints `[value]` for every hostile value.
    fn round_trips(template: &str, with_multiline: bool) {
        let extra = if with_multiline {
            vec![MULTILINE]
        } else {
            vec![]
        };
        for value in HOSTILE.iter().chain(&extra) {
            assert_eq!(
                run(template, value),
                format!("[{value}]\n"),
                "{template} with {value:?}"
            );
        }
    }

    #[test]
    fn unquoted_values_are_one_word() {
        round_trips(r"printf '[%s]\n' {v}", true);
        for value in HOSTILE {
            let printed = run(r"printf '[%s]\n' x{v}y", value);
            assert_eq!(printed, format!("[x{value}y]\n"));
        }
    }

    #[test]
    fn double_quoted_values_stay_inside_the_quotes() {
        round_trips(r#"printf '[%s]\n' "{v}""#, true);
        assert_eq!(run(r#"printf '%s\n' "<{v}>""#, "$HOME \""), "<$HOME \">\n");
    }

    #[test]
    fn single_quoted_values_stay_literal() {
        round_trips(r"printf '[%s]\n' '{v}'", true);
        assert_eq!(run(r"printf '%s\n' '<{v}>'", "it's"), "<it's>\n");
    }

    #[test]
    fn command_substitution_and_backquotes_start_a_new_quoting() {
        round_trips(r#"printf '[%s]\n' "$(printf %s {v})""#, true);
        round_trips(r#"printf '[%s]\n' "$(printf '%s' "{v}")""#, true);
        round_trips(r#"printf '[%s]\n' "`printf %s {v}`""#, false);
        round_trips(r#"printf '[%s]\n' "$( (true) && (printf %s {v}))""#, true);
        // A closing parenthesis of the substitution ends it: back inside "...".
        round_trips(r#"printf '[%s]\n' "$(true){v}""#, true);
    }

    #[test]
    fn here_documents_comments_and_arithmetic() {
        let hostile_one_line = |template: &str| {
            for value in HOSTILE {
                assert_eq!(run(template, value), format!("[{value}]\n"), "{template}");
            }
        };
        hostile_one_line("cat <<EOF\n[{v}]\nEOF");
        hostile_one_line("cat <<-'EOF'\n[{v}]\n\tEOF");
        hostile_one_line("cat <<EOF; printf '[%s]\\n' {v} >/dev/null\n[{v}]\nEOF");
        assert!(
            expanded("cat <<EOF\n{v}\nEOF", MULTILINE)
                .unwrap_err()
                .to_string()
                .contains("here-document")
        );
        // A comment is no code, whatever the value.
        assert_eq!(run("echo ran # {v}", MULTILINE), "ran\n");
        assert_eq!(run("echo ran # it's {v}\necho next", "x"), "ran\nnext\n");
        // Numbers only inside $((...)).
        assert_eq!(run("echo $(( {v} + 1 ))", "41"), "42\n");
        let err = expanded("echo $(( {v} + 1 ))", "1+$(touch PWNED)").unwrap_err();
        assert!(err.to_string().contains("not a number"), "{err}");
    }

    #[test]
    fn shell_syntax_is_left_alone() {
        let t = "echo \"${HOME}\" '{{x}}' ${X:-y} { echo; } $(echo {{}})";
        assert_eq!(expanded(t, "v").unwrap(), t);
        assert_eq!(
            expanded(r#"a {v} "{v}" '{v}' \{v}"#, "it's $x").unwrap(),
            r#"a 'it'\''s $x' "it's \$x" '''it'\''s $x''' \{v}"#
        );
    }
}
