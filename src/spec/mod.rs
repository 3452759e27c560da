//! Live specs: markdown files whose success criteria carry `[verify]` and `[judge]` links.

pub mod lint;
mod parse;
pub mod target;

pub use parse::parse;

use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One parsed spec file.
#[derive(Debug, Clone, Serialize)]
pub struct Spec {
    /// Repository-relative path, e.g. `specs/notifications.md`.
    pub path: String,
    /// File name without `.md`.
    #[serde(skip)]
    pub name: String,
    /// Front-matter title, else the first `# ` heading, else the name.
    pub title: String,
    /// The bead this spec belongs to (front matter `bead:`).
    pub bead: Option<String>,
    /// Globs of the files this spec's checks depend on (front matter `covers:`); empty
    /// means every file, so any change re-runs it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub covers: Vec<String>,
    /// Every task item under every "Success Criteria" heading, in file order.
    pub criteria: Vec<Criterion>,
    /// False when the file has no "Success Criteria" heading at all.
    #[serde(skip)]
    pub has_criteria_section: bool,
    /// Things wrong with the file itself.
    #[serde(skip)]
    pub problems: Vec<Problem>,
}

/// A success criterion: one task-list item.
#[derive(Debug, Clone, Serialize)]
pub struct Criterion {
    /// The item's first line after the checkbox, annotation links removed, trimmed.
    pub text: String,
    /// `[x]` rather than `[ ]`.
    pub checked: bool,
    /// One-based line of the item.
    pub line: usize,
    /// Its `[verify]` / `[judge]` links.
    pub annotations: Vec<Annotation>,
    /// Byte range of the first line's text, for cutting links out.
    #[serde(skip)]
    pub(crate) text_span: (usize, usize),
}

/// One `[verify](...)` or `[judge](...)` link.
#[derive(Debug, Clone, Serialize)]
pub struct Annotation {
    /// `verify`, `judge`, or `verify:NAME`.
    pub kind: String,
    /// Repository-relative file (as written when the target is invalid).
    pub file: String,
    /// The function named after `#` or `::`.
    pub function: Option<String>,
    /// One-based line of the link.
    pub line: usize,
    /// One-based column of the link.
    #[serde(skip)]
    pub column: usize,
    /// Options from the link title, such as `timeout=30s`.
    pub options: BTreeMap<String, String>,
    /// Written with the legacy `::` separator.
    #[serde(skip)]
    pub legacy: bool,
    /// The target exactly as written.
    #[serde(skip)]
    pub raw: String,
    /// Why this annotation may not be run, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Byte range of the link in the file.
    #[serde(skip)]
    pub(crate) span: (usize, usize),
}

/// Something wrong with a spec file as a whole.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// An error (not just a warning).
    pub error: bool,
}

impl Annotation {
    /// `file#function` as a clickable target.
    pub fn target(&self) -> String {
        match &self.function {
            Some(f) => format!("{}#{f}", self.file),
            None => self.file.clone(),
        }
    }

    /// True for `verify` and `verify:NAME`.
    pub fn is_verify(&self) -> bool {
        self.kind == "verify" || self.kind.starts_with("verify:")
    }
}

/// Every `*.md` under `root/dir`, parsed, sorted by path. A missing folder yields none.
pub fn discover(root: &Path, dir: &str) -> Result<Vec<Spec>> {
    let base = root.join(dir);
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&base).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::io(&base, e.into()))?;
        let p = entry.path();
        if !entry.file_type().is_file() || p.extension().is_none_or(|e| e != "md") {
            continue;
        }
        out.push(load(root, p)?);
    }
    Ok(out)
}

/// Reads and parses one spec file.
pub fn load(root: &Path, path: &Path) -> Result<Spec> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    Ok(parse(&text, &rel))
}

/// The specs `names` select (by name, path, or path without `.md`); all when empty.
pub fn select(specs: Vec<Spec>, names: &[String]) -> Result<Vec<Spec>> {
    if names.is_empty() {
        return Ok(specs);
    }
    for n in names {
        if !specs.iter().any(|s| matches_name(s, n)) {
            let known: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
            return Err(Error::invalid_with_help(
                format!("no spec named '{n}'"),
                format!("specs: {}", known.join(", ")),
            ));
        }
    }
    Ok(specs
        .into_iter()
        .filter(|s| names.iter().any(|n| matches_name(s, n)))
        .collect())
}

fn matches_name(s: &Spec, n: &str) -> bool {
    s.name == n || s.path == n || s.path.trim_end_matches(".md") == n
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\nbead: vm-k3f9\n---\n# Notifications\n\nIntro [verify](x.sh#not_in_section).\n\n## Success Criteria\n\n- [ ] Notification appears within 2s\n  [verify](tests/notify-test.sh#test_notification_timing)\n- [x] Clear *visibility* [judge](tests/judges/notify.sh::test_clear \"timeout=30s\")\n- [ ] Works on both Linux and macOS\n- [ ] Two checks [verify](./a.sh#one) [verify:lint](b.sh#two)\n  ```\n  [verify](ignored.sh#in_code)\n  ```\n  and `[verify](ignored.sh#inline)`\n- plain item, not a task\n\n## Other\n\n- [ ] not a criterion [verify](x.sh#nope)\n\n### Success Criteria\n\n- [ ] second section [verify](../up.sh#f)\n";

    #[test]
    fn parses_criteria_and_annotations() {
        let s = parse(SAMPLE, "specs/notify.md");
        assert_eq!(s.title, "Notifications");
        assert_eq!(s.bead.as_deref(), Some("vm-k3f9"));
        let texts: Vec<&str> = s.criteria.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Notification appears within 2s",
                "Clear *visibility*",
                "Works on both Linux and macOS",
                "Two checks",
                "second section"
            ]
        );
        let c0 = &s.criteria[0];
        assert_eq!(c0.line, 10);
        assert_eq!(c0.annotations[0].file, "tests/notify-test.sh");
        assert_eq!(c0.annotations[0].line, 11);
        let c1 = &s.criteria[1];
        assert!(c1.checked);
        assert!(c1.annotations[0].legacy);
        assert_eq!(c1.annotations[0].kind, "judge");
        assert_eq!(c1.annotations[0].options["timeout"], "30s");
        assert!(s.criteria[2].annotations.is_empty());
        let c3 = &s.criteria[3];
        assert_eq!(c3.annotations.len(), 2, "{:?}", c3.annotations);
        assert_eq!(c3.annotations[0].file, "specs/a.sh");
        assert_eq!(c3.annotations[1].kind, "verify:lint");
        assert_eq!(s.criteria[4].annotations[0].file, "up.sh");
        assert!(s.problems.is_empty(), "{:?}", s.problems);
    }

    #[test]
    fn reports_unclosed_fence_and_missing_section() {
        let s = parse("# T\n\n```sh\n## Success Criteria\n- [ ] x\n", "specs/t.md");
        assert!(!s.has_criteria_section);
        assert_eq!(s.problems[0].line, 3);
        let s = parse("# T\n\nno criteria here\n", "specs/t.md");
        assert!(!s.has_criteria_section && s.criteria.is_empty());
    }
}
