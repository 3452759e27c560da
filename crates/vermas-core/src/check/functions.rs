//! The functions a test file defines (shell, Python, Rust), found by reading it: a
//! `file#function` target is checked against them, and reports point at their lines.

use std::path::Path;

/// True when `function` (possibly `Class::method` or `test[param]`) is among `defined`.
pub fn is_defined(function: &str, defined: &[(String, usize)]) -> bool {
    let base = function.split('[').next().unwrap_or(function);
    base.split("::")
        .all(|part| defined.iter().any(|(name, _)| name == part))
}

/// Functions (and Python classes) defined in a file with their lines, for languages vermas
/// can read; `None` for others.
pub fn defined_functions(file: &str, text: &str) -> Option<Vec<(String, usize)>> {
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let lang = match ext {
        "py" => "py",
        "rs" => "rs",
        _ if is_shell(file, text) => "sh",
        _ => return None,
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let name = match lang {
            "py" => t
                .strip_prefix("async def ")
                .or_else(|| t.strip_prefix("def "))
                .or_else(|| t.strip_prefix("class "))
                .map(ident),
            "rs" => {
                let t = t.strip_prefix("pub ").unwrap_or(t);
                let t = t.strip_prefix("async ").unwrap_or(t);
                t.strip_prefix("fn ").map(ident)
            }
            _ => match t.strip_prefix("function ") {
                Some(rest) => Some(ident(rest.trim_start())),
                None => {
                    let name = ident(t);
                    let after = t[name.len()..].trim_start();
                    (!name.is_empty() && after.starts_with("()")).then_some(name)
                }
            },
        };
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            out.push((n.to_string(), i + 1));
        }
    }
    Some(out)
}

/// True when `file` (holding `text`) is a shell script, by extension or first line.
pub fn is_shell(file: &str, text: &str) -> bool {
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    matches!(ext, "sh" | "bash" | "bats")
        || (ext.is_empty()
            && text.starts_with("#!")
            && text.lines().next().is_some_and(|l| l.contains("sh")))
}

/// The lines where shell script `file` (holding `text`) defines `function`, when it does so
/// more than once (bash runs the last definition); empty otherwise.
pub fn shell_redefinitions(file: &str, text: &str, function: &str) -> Vec<usize> {
    if !is_shell(file, text) {
        return Vec::new();
    }
    redefinitions(&defined_functions(file, text).unwrap_or_default(), function)
}

/// The lines of `defined` (a shell script's functions) that define `function`, when
/// there is more than one; empty otherwise.
pub fn redefinitions(defined: &[(String, usize)], function: &str) -> Vec<usize> {
    let lines: Vec<usize> = defined
        .iter()
        .filter(|(name, _)| name == function)
        .map(|(_, line)| *line)
        .collect();
    if lines.len() > 1 { lines } else { Vec::new() }
}

/// The leading identifier of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == ':' || c == '.'))
        .unwrap_or(s.len());
    s[..end].trim_end_matches(':')
}

/// `file:line` of the definition of `function` in repository file `file`, when the file
/// is inside `root`, readable, in a language [`defined_functions`] knows, and defines it
/// (a shell function defined twice: its last definition, the one bash runs): the place a
/// report points at so a terminal click lands on the check itself.
pub fn function_location(root: &Path, file: &str, function: &str) -> Option<String> {
    let line = match Read::of(root, file) {
        Some(read) => {
            let defined = read
                .defined
                .get_or_init(|| defined_functions(file, &read.text));
            let shell = is_shell(file, &read.text);
            defined_line(shell, defined.as_deref(), function)
        }
        None => {
            let path = super::contained(root, file).ok()?;
            let text = std::fs::read_to_string(path).ok()?;
            definition_line(file, &text, function)
        }
    }?;
    Some(format!("{file}:{line}"))
}

/// A test file as last read, kept while its `lstat` (a plain file, its inode, size and
/// change time) stays the same, with the lines of the functions looked up in it: a report
/// of many checks of one file reads and parses it once.
struct Read {
    /// What `lstat` said.
    stat: (u64, u64, u64, i64, i64),
    /// Its text.
    text: String,
    /// The functions it defines, once parsed.
    defined: std::sync::OnceLock<Option<Vec<(String, usize)>>>,
}

impl Read {
    /// `root/file` as read (again, when its `lstat` changed), when it is a plain file
    /// inside the repository; `None` for a symlink (resolved every time).
    fn of(root: &Path, file: &str) -> Option<std::sync::Arc<Read>> {
        use std::collections::HashMap;
        use std::os::unix::fs::MetadataExt;
        use std::sync::{Arc, Mutex};
        static READ: Mutex<Option<HashMap<std::path::PathBuf, Arc<Read>>>> = Mutex::new(None);
        let path = root.join(file);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let stat = (
            meta.dev(),
            meta.ino(),
            meta.len(),
            meta.ctime(),
            meta.ctime_nsec(),
        );
        let mut all = READ.lock().unwrap_or_else(|p| p.into_inner());
        let all = all.get_or_insert_with(HashMap::new);
        if let Some(read) = all.get(&path).filter(|r| r.stat == stat) {
            return Some(read.clone());
        }
        let real = super::contained(root, file).ok()?;
        let read = Arc::new(Read {
            stat,
            text: std::fs::read_to_string(real).ok()?,
            defined: std::sync::OnceLock::new(),
        });
        all.insert(path, read.clone());
        Some(read)
    }
}

/// The line of `text` (the file `file`) where `function` is defined: for a shell function
/// defined twice its last definition, the one bash runs; else as [`function_line`] finds
/// it. Reports and the editor's links both point there.
pub fn definition_line(file: &str, text: &str, function: &str) -> Option<usize> {
    defined_line(
        is_shell(file, text),
        defined_functions(file, text).as_deref(),
        function,
    )
}

/// [`definition_line`] from the functions a file defines (`shell`: it is a shell script).
fn defined_line(shell: bool, defined: Option<&[(String, usize)]>, function: &str) -> Option<usize> {
    let defined = defined?;
    match redefinitions(defined, function).last() {
        Some(last) if shell => Some(*last),
        _ => function_line(function, defined),
    }
}

/// The line where `function` (possibly `Class::method` or `test[param]`) is defined among
/// `defined` (from [`defined_functions`]): the line of its last part, each part found
/// after the one before it.
pub fn function_line(function: &str, defined: &[(String, usize)]) -> Option<usize> {
    let base = function.split('[').next().unwrap_or(function);
    let mut line = 0;
    for part in base.split("::") {
        line = defined
            .iter()
            .find(|(name, at)| name == part && *at > line)?
            .1;
    }
    (line > 0).then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_is_found_inside_its_class() {
        let defined: Vec<(String, usize)> = [("test_y", 1), ("TestX", 4), ("test_y", 5)]
            .iter()
            .map(|(n, l)| (n.to_string(), *l))
            .collect();
        assert_eq!(function_line("test_y", &defined), Some(1));
        assert_eq!(function_line("TestX::test_y", &defined), Some(5));
        assert_eq!(function_line("test_y[1-2]", &defined), Some(1));
        assert_eq!(function_line("TestX::nope", &defined), None);
    }

    #[test]
    fn a_shell_function_defined_twice_is_named_by_both_lines() {
        let text = "t() { :; }\nu() { :; }\nt() { false; }\n";
        assert_eq!(shell_redefinitions("x.sh", text, "t"), vec![1, 3]);
        assert!(shell_redefinitions("x.sh", text, "u").is_empty());
        assert!(shell_redefinitions("x.py", "def t():\ndef t():\n", "t").is_empty());
    }
}
