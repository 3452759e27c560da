//! Dotted setting keys (`llm.timeout`, `verify.runners.*.nix`): their parts, where a
//! key is set in the file's text for error positions, and every key there is (named when
//! one is unknown).

/// The parts of a dotted key. A runner pattern is one part whatever dots it holds, so
/// `verify.runners.*.nix` names the pattern `*.nix`.
pub(crate) fn key_parts(key: &str) -> Vec<&str> {
    match key.strip_prefix("verify.runners.") {
        Some(pattern) => vec!["verify", "runners", pattern],
        None => key.split('.').collect(),
    }
}

/// One-based line and column of the value of the first line that sets `key`, for error
/// positions; a dotted key such as `llm.timeout` is looked up inside its section.
pub(crate) fn find_key_line(text: &str, key: &str) -> (usize, usize) {
    let parts = key_parts(key);
    let (mut next, mut section_indent) = (0, None::<usize>);
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if parts.len() > 1 {
            match section_indent {
                None if indent > 0 => continue,
                Some(outer) if indent <= outer => break,
                _ => {}
            }
        }
        if trimmed.starts_with(&format!("{}:", parts[next])) {
            if next + 1 == parts.len() {
                return (i + 1, indent + parts[next].len() + 3);
            }
            next += 1;
            section_indent = Some(indent);
        }
    }
    (1, 1)
}

/// The error for a key no setting has.
pub(crate) fn unknown_key(key: &str) -> crate::error::Error {
    crate::error::Error::config(format!("unknown config key '{key}'"))
        .with_help(format!("keys: {}", known_keys().join(", ")))
}

/// Every key there is, from the settings themselves (a map's entries as `KEY.NAME`), so the
/// list cannot leave one out.
fn known_keys() -> Vec<String> {
    /// The dotted keys under `node`, its own path being `at`.
    fn walk(node: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        match node {
            serde_json::Value::Object(map) if map.is_empty() => out.push(format!("{at}.NAME")),
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let key = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    walk(v, &key, out);
                }
            }
            _ => out.push(at.to_string()),
        }
    }
    let mut out = Vec::new();
    if let Ok(root) = serde_json::to_value(super::Config::default()) {
        walk(&root, "", &mut out);
    }
    out
}
