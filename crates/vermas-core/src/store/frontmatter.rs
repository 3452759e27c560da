//! Splitting a markdown record into its YAML front matter and its body.

use crate::error::ParseError;

/// A record file split in two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the `---` lines.
    pub yaml: &'a str,
    /// One-based line of the file where `yaml` starts.
    pub yaml_line: usize,
    /// Everything after the closing `---` line, without surrounding blank lines.
    pub body: &'a str,
}

/// Splits `text` (the content of `file`) at its `---` fences.
pub fn split<'a>(text: &'a str, file: &str) -> Result<Split<'a>, Box<ParseError>> {
    let rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(after_open) = rest
        .strip_prefix("---\n")
        .or_else(|| rest.strip_prefix("---\r\n"))
    else {
        return Err(Box::new(ParseError::at(file, text, 1, 1, "missing front matter: the file must start with a `---` line")
            .with_help("a bead file starts with `---`, YAML fields such as `id:`, `title:`, `status:`, then `---`")));
    };
    let mut offset = 0;
    for line in after_open.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            let yaml = &after_open[..offset];
            let body = after_open[offset + line.len()..].trim_matches(['\n', '\r']);
            return Ok(Split {
                yaml,
                yaml_line: 2,
                body,
            });
        }
        offset += line.len();
    }
    let lines = text.lines().count().max(1);
    Err(Box::new(
        ParseError::at(
            file,
            text,
            lines,
            1,
            "front matter is not closed: no `---` line after the YAML",
        )
        .with_help("add a line `---` after the last field"),
    ))
}

/// One-based line and column of the value of top-level `key` in a front matter text
/// (`(1, 1)` when the key is absent), for errors about a field's value.
pub(crate) fn key_position(text: &str, key: &str) -> (usize, usize) {
    let prefix = format!("{key}:");
    text.lines()
        .enumerate()
        .find(|(_, l)| l.starts_with(&prefix))
        .map_or((1, 1), |(i, l)| {
            let rest = &l[prefix.len()..];
            (
                i + 1,
                prefix.len() + rest.len() - rest.trim_start().len() + 1,
            )
        })
}

/// Refuses a record whose `id` differs from its file name `<id>.md` (`file` names it in
/// the error, `text` is its content).
pub(crate) fn check_file_name(
    file: &str,
    text: &str,
    path: &std::path::Path,
    id: &str,
) -> Result<(), Box<ParseError>> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    if stem.as_deref() == Some(id) {
        return Ok(());
    }
    let line = text.lines().position(|l| l.starts_with("id:")).unwrap_or(0) + 1;
    Err(Box::new(
        ParseError::at(
            file,
            text,
            line,
            5,
            format!(
                "id '{id}' does not match the file name {}.md",
                stem.unwrap_or_default()
            ),
        )
        .with_help("rename the file or fix the id so they agree"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_reports() {
        let s = split("---\nid: a\n---\n\nBody text\n\n", "f").unwrap();
        assert_eq!(s.yaml, "id: a\n");
        assert_eq!(s.body, "Body text");
        assert_eq!(split("---\nid: a\n---\n", "f").unwrap().body, "");
        let e = split("id: a\n", "f").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        let e = split("---\nid: a\ntitle: b\n", "f").unwrap_err();
        assert_eq!(e.line, 3);
    }
}
