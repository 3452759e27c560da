//! Annotation targets: `PATH#FUNCTION` (or legacy `PATH::FUNCTION`), resolved against the
//! repository, plus the options a link title may carry.

use std::collections::BTreeMap;

/// A target split and resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Repository-relative file, normalised (`tests/x.sh`).
    pub file: String,
    /// The function, if one was named.
    pub function: Option<String>,
    /// True when written with `::` (GitHub cannot open such a link).
    pub legacy: bool,
}

/// Splits `raw` on the first `#`, else on the first `::`, and resolves the path: relative to
/// `spec_dir` when it starts with `./` or `../`, otherwise to the repository root.
/// Errors say why the target may not be run.
pub fn resolve(raw: &str, spec_dir: &str) -> Result<Target, String> {
    let (path, function, legacy) = match raw.find('#') {
        Some(i) => (&raw[..i], Some(&raw[i + 1..]), false),
        None => match raw.find("::") {
            Some(i) => (&raw[..i], Some(&raw[i + 2..]), true),
            None => (raw, None, false),
        },
    };
    if function.is_some_and(str::is_empty) {
        return Err(format!(
            "'{raw}' ends in an empty function name: name the function after it, or drop the separator to run the whole file"
        ));
    }
    if path.is_empty() {
        return Err("the target names no file".into());
    }
    if path.contains("://") || path.starts_with("mailto:") {
        return Err(format!("'{path}' is not a file in the repository"));
    }
    if path.starts_with('/') {
        return Err(format!(
            "'{path}' is an absolute path: targets must stay in the repository"
        ));
    }
    let joined = if path.starts_with("./") || path.starts_with("../") {
        if spec_dir.is_empty() {
            path.to_string()
        } else {
            format!("{spec_dir}/{path}")
        }
    } else {
        path.to_string()
    };
    let file = normalise(&joined).ok_or_else(|| format!("'{raw}' leaves the repository"))?;
    if let Some(f) = function
        && !is_valid_function(f)
    {
        return Err(format!(
            "'{f}' is not a valid function name (letters, digits, _ : . [ ] -, not starting with a digit or -)"
        ));
    }
    Ok(Target {
        file,
        function: function.map(str::to_string),
        legacy,
    })
}

/// Lexically removes `.` and `..`; `None` when `..` climbs above the root.
pub fn normalise(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// `[A-Za-z_][A-Za-z0-9_:.\[\]-]*`: safe to pass as one argument and to name in a shell.
pub fn is_valid_function(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '[' | ']' | '-'))
}

/// Parses a link title such as `timeout=30s retries=2` into key/value options.
pub fn options(title: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for part in title.split([' ', ',', ';']).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("link option '{part}' must look like key=value"))?;
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_resolves() {
        let t = resolve("tests/x.sh#test_a", "specs").unwrap();
        assert_eq!(
            (t.file.as_str(), t.function.as_deref(), t.legacy),
            ("tests/x.sh", Some("test_a"), false)
        );
        let t = resolve("t.py::Class::test", "specs").unwrap();
        assert_eq!(
            (t.file.as_str(), t.function.as_deref(), t.legacy),
            ("t.py", Some("Class::test"), true)
        );
        let t = resolve("../tests/x.sh#f", "specs/sub").unwrap();
        assert_eq!(t.file, "specs/tests/x.sh");
        let t = resolve("./x.sh", "specs").unwrap();
        assert_eq!((t.file.as_str(), t.function), ("specs/x.sh", None));
        assert_eq!(
            resolve("tests/x.py::t[1-2]", "")
                .unwrap()
                .function
                .as_deref(),
            Some("t[1-2]")
        );
    }

    #[test]
    fn refuses_escapes_and_bad_names() {
        assert!(
            resolve("../../x.sh#f", "specs")
                .unwrap_err()
                .contains("leaves")
        );
        assert!(resolve("/etc/passwd#f", "specs").is_err());
        assert!(resolve("https://x.org/a#f", "specs").is_err());
        assert!(resolve("t.sh#-rf", "").is_err());
        assert!(resolve("t.sh#a;rm", "").is_err());
        assert!(resolve("t.sh#$(x)", "").is_err());
        assert!(resolve("t.sh#1abc", "").is_err());
        assert!(resolve("t.sh#", "").unwrap_err().contains("empty function"));
        assert!(
            resolve("t.py::", "")
                .unwrap_err()
                .contains("empty function")
        );
    }

    #[test]
    fn parses_options() {
        let o = options("timeout=30s, retries=2").unwrap();
        assert_eq!(o["timeout"], "30s");
        assert_eq!(o["retries"], "2");
        assert!(options("fast").is_err());
    }
}
