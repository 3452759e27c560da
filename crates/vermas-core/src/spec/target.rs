//! Annotation targets: `PATH#FUNCTION` (or legacy `PATH::FUNCTION`), resolved against the
//! repository, plus the options a link title may carry.

use std::collections::BTreeMap;

/// A target split and resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// Repository-relative file, normalised (`tests/x.sh`).
    pub file: String,
    /// The function, if one was named.
    pub function: Option<String>,
    /// True when written with `::` (GitHub cannot open such a link).
    pub legacy: bool,
}

/// What a target's path is written relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathBase {
    /// No leading `/`, `./` or `../` (`tests/x.sh`): vermas reads it from the repository
    /// root, GitHub and editors from the spec's folder.
    Bare,
    /// A leading `/` (`/tests/x.sh`): the repository root, for vermas and GitHub alike.
    Root,
    /// A leading `./` or `../`: the spec's folder, for vermas, GitHub and editors alike.
    Spec,
}

/// How the path of `raw` (a target as written) is based.
pub(crate) fn path_base(raw: &str) -> PathBase {
    if raw.starts_with("./") || raw.starts_with("../") {
        PathBase::Spec
    } else if raw.starts_with('/') {
        PathBase::Root
    } else {
        PathBase::Bare
    }
}

/// Which function names a target may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameRule {
    /// `[A-Za-z_][A-Za-z0-9_:.\[\]-]*` ([`is_valid_function`]): every markdown link.
    Identifier,
    /// An identifier that may also hold spaces and `( ) , / +` with balanced parentheses
    /// ([`is_valid_described_function`]): a link read from plain text, as ralph writes a
    /// named subtest (`tests/city.nix::Wait for worker worktree`).
    Described,
}

/// [`resolve_with`] under [`NameRule::Identifier`].
pub(crate) fn resolve(raw: &str, spec_dir: &str) -> Result<Target, String> {
    resolve_with(raw, spec_dir, NameRule::Identifier)
}

/// Splits `raw` on the first `#`, else on the first `::`, and resolves the path: relative to
/// `spec_dir` when it starts with `./` or `../`, otherwise to the repository root (a
/// leading `/` naming that root). The function name must follow `rule`. Errors say why
/// the target may not be run.
pub(crate) fn resolve_with(raw: &str, spec_dir: &str, rule: NameRule) -> Result<Target, String> {
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
    if path.is_empty() || path == "/" {
        return Err("the target names no file".into());
    }
    if path.contains("://") || path.starts_with("mailto:") || path.starts_with("//") {
        return Err(format!("'{path}' is not a file in the repository"));
    }
    let path = &decode_percent(path)?;
    let joined = match path_base(path) {
        PathBase::Spec if !spec_dir.is_empty() => format!("{spec_dir}/{path}"),
        _ => path.to_string(),
    };
    let file = normalise(&joined).ok_or_else(|| format!("'{raw}' leaves the repository"))?;
    if let Some(f) = function {
        match rule {
            NameRule::Identifier if !is_valid_function(f) => {
                return Err(format!(
                    "'{f}' is not a valid function name (letters, digits, _ : . [ ] -, not starting with a digit or -)"
                ));
            }
            NameRule::Described if !is_valid_described_function(f) => {
                return Err(format!(
                    "'{f}' is not a valid function name (letters, digits, spaces, _ : . [ ] ( ) , / + -, balanced parentheses, not starting with a digit, - or a space)"
                ));
            }
            _ => {}
        }
    }
    Ok(Target {
        file,
        function: function.map(str::to_string),
        legacy,
    })
}

/// `path` with each `%XX` escape decoded, as GitHub and browsers read a link
/// (`my%20tests.sh` is `my tests.sh`); a `%` not followed by two hex digits stays as it
/// is. Refused when the decoded bytes are not UTF-8 or hold a NUL.
pub(crate) fn decode_percent(path: &str) -> Result<String, String> {
    if !path.contains('%') {
        return Ok(path.to_string());
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            // Two hex digits make one byte: hi * 16 + lo is below 256.
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(out)
        .map_err(|_| format!("'{path}' decodes to bytes that are not UTF-8"))?;
    if decoded.contains('\0') {
        return Err(format!("'{path}' decodes to a NUL byte"));
    }
    Ok(decoded)
}

/// `path` with the characters a markdown link target cannot hold as they are (space,
/// `%`, `<`, `>`, parentheses, control characters) written as `%XX`: the inverse of
/// [`decode_percent`] for a path vermas writes into a link.
pub(crate) fn encode_percent(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c == ' ' || c.is_control() || matches!(c, '%' | '<' | '>' | '(' | ')') {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
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
pub(crate) fn is_valid_function(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '[' | ']' | '-'))
}

/// An identifier as [`is_valid_function`] has it, that may also hold spaces and
/// `( ) , / +`, with parentheses balanced and no space at either end: a subtest named in
/// words (`Wait for judge approval (via monitor gate pipeline)`). Passed as one argument,
/// never through a shell.
pub(crate) fn is_valid_described_function(name: &str) -> bool {
    let mut depth = 0usize;
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = chars.all(|c| match c {
        '(' => {
            depth += 1;
            true
        }
        ')' => depth.checked_sub(1).map(|d| depth = d).is_some(),
        c => {
            c.is_ascii_alphanumeric()
                || matches!(c, ' ' | '_' | ':' | '.' | '[' | ']' | ',' | '/' | '+' | '-')
        }
    });
    first_ok && rest_ok && depth == 0 && !name.ends_with(' ')
}

/// The path to write in a spec in folder `spec_dir` so that it names repository file
/// `file` from the spec's own folder, as GitHub and editors read it: `../tests/x.sh` from
/// `specs`, `./helpers/x.sh` for a file under the spec's folder, `tests/x.sh` for a spec
/// at the repository root.
pub(crate) fn spec_relative(spec_dir: &str, file: &str) -> String {
    let from: Vec<&str> = spec_dir.split('/').filter(|p| !p.is_empty()).collect();
    let to: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    if from.is_empty() {
        return to.join("/");
    }
    // Only folders are shared: the file's own name never counts as one.
    let common = from
        .iter()
        .zip(&to[..to.len().saturating_sub(1)])
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    if parts.is_empty() {
        parts.push(".");
    }
    parts.extend(&to[common..]);
    parts.join("/")
}

/// Parses a link title such as `timeout=30s retries=2` into key/value options.
pub(crate) fn options(title: &str) -> Result<BTreeMap<String, String>, String> {
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
        assert!(resolve("//host/x.sh#f", "specs").is_err());
        assert!(resolve("/#f", "specs").is_err());
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
    fn a_leading_slash_is_the_repository_root() {
        let t = resolve("/tests/x.sh#test_a", "specs/sub").unwrap();
        assert_eq!(
            (t.file.as_str(), t.function.as_deref()),
            ("tests/x.sh", Some("test_a"))
        );
        assert_eq!(path_base("/tests/x.sh"), PathBase::Root);
        assert_eq!(path_base("../tests/x.sh"), PathBase::Spec);
        assert_eq!(path_base("./x.sh"), PathBase::Spec);
        assert_eq!(path_base("tests/x.sh"), PathBase::Bare);
        assert!(resolve("/../x.sh#f", "").unwrap_err().contains("leaves"));
    }

    #[test]
    fn described_names_allow_words_and_balanced_parentheses() {
        let ok = [
            "Wait for worker worktree",
            "Wait for judge approval (via monitor gate pipeline)",
            "Post-gate handles escalation (non-approved)",
            "city-mkcity-eval",
        ];
        for name in ok {
            assert!(is_valid_described_function(name), "{name}");
            let raw = format!("tests/city.nix::{name}");
            let t = resolve_with(&raw, "specs", NameRule::Described).unwrap();
            assert_eq!(t.function.as_deref(), Some(name));
        }
        for bad in [
            "-rf",
            " leading",
            "trailing ",
            "1abc",
            "a;rm",
            "$(x)",
            "a | b",
            "a (b",
            "a) (b",
            "say \"hi\"",
            "a\tb",
        ] {
            assert!(!is_valid_described_function(bad), "{bad:?}");
        }
        assert!(resolve("tests/city.nix::Wait for it", "").is_err());
    }

    #[test]
    fn spec_relative_paths_open_from_the_spec_folder() {
        assert_eq!(spec_relative("specs", "tests/x.sh"), "../tests/x.sh");
        assert_eq!(spec_relative("specs/sub", "tests/x.sh"), "../../tests/x.sh");
        assert_eq!(
            spec_relative("specs", "specs/helpers/x.sh"),
            "./helpers/x.sh"
        );
        assert_eq!(spec_relative("specs/a", "specs/b/x.sh"), "../b/x.sh");
        assert_eq!(spec_relative("", "tests/x.sh"), "tests/x.sh");
        assert_eq!(spec_relative("specs", "specs"), "../specs");
    }

    #[test]
    fn percent_escapes_in_the_path_are_decoded_as_github_does() {
        let t = resolve("../tests/my%20tests.sh#test_a", "specs").unwrap();
        assert_eq!(
            (t.file.as_str(), t.function.as_deref()),
            ("tests/my tests.sh", Some("test_a"))
        );
        assert_eq!(resolve("t%C3%A9st.sh", "").unwrap().file, "tést.sh");
        assert_eq!(resolve("100%.sh", "").unwrap().file, "100%.sh");
        assert_eq!(resolve("a%2g.sh", "").unwrap().file, "a%2g.sh");
        // An escaped `..` is still a `..`: the repository's edge holds.
        assert!(
            resolve("%2E%2E/%2e%2e/x.sh", "")
                .unwrap_err()
                .contains("leaves")
        );
        assert!(resolve("a%00.sh", "").is_err());
        assert!(resolve("a%FF.sh", "").is_err());
        assert_eq!(
            encode_percent("tests/my tests (1)%.sh"),
            "tests/my%20tests%20%281%29%25.sh"
        );
        assert_eq!(
            decode_percent(&encode_percent("tests/my tests (1)%.sh")).unwrap(),
            "tests/my tests (1)%.sh"
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
