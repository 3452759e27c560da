//! `spec check`: every link's file exists and defines its function; unreferenced tests,
//! legacy `::` links and broken files are reported; `--fix` rewrites `::` to `#`.

use super::Spec;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Must be fixed: `spec check` exits 1.
    Error,
    /// Worth fixing.
    Warning,
}

/// One thing `spec check` found, at a place in a file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// Error or warning.
    pub level: Level,
    /// Repository-relative file.
    pub file: String,
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// Checks `specs` against the files in `root`.
pub fn check(root: &Path, specs: &[Spec]) -> Vec<Finding> {
    let mut out = Vec::new();
    // Functions each linked file is referenced for, to find unreferenced tests.
    let mut referenced: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut first_link: BTreeMap<String, (String, usize, usize)> = BTreeMap::new();
    for spec in specs {
        for p in &spec.problems {
            out.push(finding(
                Level::Error,
                &spec.path,
                p.line,
                p.column,
                p.message.clone(),
                None,
            ));
        }
        for c in &spec.criteria {
            for a in &c.annotations {
                let at = |level, message: String, help: Option<String>| {
                    finding(level, &spec.path, a.line, a.column, message, help)
                };
                if let Some(e) = &a.error {
                    out.push(at(
                        Level::Error,
                        format!("invalid target '{}': {e}", a.raw),
                        None,
                    ));
                    continue;
                }
                if let Some(t) = a.options.get("timeout")
                    && let Err(e) = crate::config::parse_duration(t)
                {
                    out.push(at(
                        Level::Error,
                        format!("link option timeout={t}: {e}"),
                        None,
                    ));
                }
                if a.legacy {
                    out.push(at(
                        Level::Warning,
                        format!(
                            "'{}' uses the legacy `::` form, which GitHub and editors cannot open",
                            a.raw
                        ),
                        Some("`vermas spec check --fix` rewrites it to `#`".into()),
                    ));
                }
                let path = match crate::check::contained(root, &a.file) {
                    Ok(p) => p,
                    Err(why) => {
                        out.push(at(Level::Error, why, None));
                        continue;
                    }
                };
                let Ok(bytes) = std::fs::read(&path) else {
                    out.push(at(Level::Error, format!("{} cannot be read", a.file), None));
                    continue;
                };
                let text = String::from_utf8_lossy(&bytes);
                first_link
                    .entry(a.file.clone())
                    .or_insert_with(|| (spec.path.clone(), a.line, a.column));
                let Some(function) = &a.function else {
                    continue;
                };
                referenced
                    .entry(a.file.clone())
                    .or_default()
                    .insert(function.clone());
                if let Some(defined) = defined_functions(&a.file, &text)
                    && !is_defined(function, &defined)
                {
                    out.push(at(
                        Level::Error,
                        format!("function {function} is not defined in {}", a.file),
                        None,
                    ));
                } else if runs_without_dispatcher(&path, &text) {
                    out.push(at(
                        Level::Error,
                        format!(
                            "{} never reads its arguments, so #{function} would never be called",
                            a.file
                        ),
                        Some(format!(
                            "add \"$@\" at the end of {} so it runs the function named on its command line",
                            a.file
                        )),
                    ));
                }
            }
        }
    }
    for (file, names) in &referenced {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let Some(defined) = defined_functions(file, &text) else {
            continue;
        };
        for (name, line) in defined {
            if name.starts_with("test_")
                && !names
                    .iter()
                    .any(|n| n == &name || n.ends_with(&format!("::{name}")))
            {
                out.push(finding(
                    Level::Warning,
                    file,
                    line,
                    1,
                    format!("{name} is not referenced by any spec criterion"),
                    first_link
                        .get(file)
                        .map(|(s, l, _)| format!("link it from a criterion, e.g. near {s}:{l}")),
                ));
            }
        }
    }
    out
}

fn finding(
    level: Level,
    file: &str,
    line: usize,
    column: usize,
    message: String,
    help: Option<String>,
) -> Finding {
    Finding {
        level,
        file: file.to_string(),
        line,
        column,
        message,
        help,
    }
}

/// True when `function` (possibly `Class::method` or `test[param]`) is among `defined`.
pub fn is_defined(function: &str, defined: &[(String, usize)]) -> bool {
    let base = function.split('[').next().unwrap_or(function);
    base.split("::")
        .all(|part| defined.iter().any(|(name, _)| name == part))
}

/// True for an executable shell script that never looks at its arguments: run with a
/// function name, it would ignore it.
fn runs_without_dispatcher(path: &Path, text: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    let shell = text
        .lines()
        .next()
        .is_some_and(|l| l.starts_with("#!") && l.contains("sh"));
    executable
        && shell
        && !["$1", "$@", "$*", "${1", "${@", "${*", "$#"]
            .iter()
            .any(|r| text.contains(r))
}

/// Functions (and Python classes) defined in a file with their lines, for languages vermas
/// can read; `None` for others.
pub fn defined_functions(file: &str, text: &str) -> Option<Vec<(String, usize)>> {
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let shell = matches!(ext, "sh" | "bash" | "bats")
        || (ext.is_empty()
            && text.starts_with("#!")
            && text.lines().next().is_some_and(|l| l.contains("sh")));
    let lang = match ext {
        "py" => "py",
        "rs" => "rs",
        _ if shell => "sh",
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

/// The leading identifier of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == ':' || c == '.'))
        .unwrap_or(s.len());
    s[..end].trim_end_matches(':')
}

/// `text` with every legacy `::` link target of `spec` rewritten to `#`.
pub fn fix_legacy(text: &str, spec: &Spec) -> String {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for c in &spec.criteria {
        for a in c
            .annotations
            .iter()
            .filter(|a| a.legacy && a.error.is_none())
        {
            let (start, end) = a.span;
            let link = &text[start..end];
            if let Some(pos) = link.find(&format!("({}", a.raw)) {
                let from = start + pos + 1;
                let fixed = a.raw.replacen("::", "#", 1);
                edits.push((from, from + a.raw.len(), fixed));
            }
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (from, to, fixed) in edits {
        out.replace_range(from..to, &fixed);
    }
    out
}
