//! Live specs: markdown files whose success criteria carry `[verify]` and `[judge]` links.

mod kind;
pub mod lint;
mod parse;
mod plain;
pub mod shard;
pub mod target;

pub use kind::AnnotationKind;
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
    /// Every task item under every "Success Criteria" (or "Acceptance Criteria") heading,
    /// in file order.
    pub criteria: Vec<Criterion>,
    /// False when the file has no criteria heading at all.
    #[serde(skip)]
    pub has_criteria_section: bool,
    /// Things wrong with the file itself.
    #[serde(skip)]
    pub problems: Vec<Problem>,
    /// Why the file was not read at all (a symlink leading outside the repository).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
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
    pub kind: AnnotationKind,
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
    /// A markdown link, or link-like text CommonMark does not read as one.
    #[serde(skip)]
    pub form: LinkForm,
    /// The target exactly as written.
    #[serde(skip)]
    pub raw: String,
    /// Why this annotation may not be run, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Byte range of the link in the file.
    #[serde(skip)]
    pub span: (usize, usize),
}

/// How an annotation is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkForm {
    /// A markdown link: CommonMark reads it, GitHub and editors can open it.
    Markdown,
    /// `[verify](...)` text that CommonMark does not read as a link, as ralph writes a
    /// subtest named in words (`[verify](tests/city.nix::Wait for worker)`): it runs, but
    /// GitHub shows it as text.
    Text,
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
        self.kind.is_verify()
    }
}

/// Markdown files under the specs folder that are working files, not specs: a README and
/// smart-ralph's per-spec notes (`tasks verify` appends to `.progress.md`).
const NOT_SPECS: &[&str] = &[
    "README.md",
    "tasks.md",
    "requirements.md",
    "design.md",
    "research.md",
];

/// True for a markdown file under the specs folder that is a spec (not a dot-file, not a
/// README or a working file).
pub fn is_spec_file(file_name: &str) -> bool {
    file_name.ends_with(".md") && !file_name.starts_with('.') && !NOT_SPECS.contains(&file_name)
}

/// Every spec under `root/dir` (`root` canonical), parsed, sorted by path; dot-folders
/// are not searched. A missing folder yields none; one reached through a symlink leading
/// outside the repository is an error. A spec file that is such a symlink, or is not
/// UTF-8, is not parsed: it is listed with one error saying why (and nothing of its
/// content), and the other specs are read as usual.
pub fn discover(root: &Path, dir: &str) -> Result<Vec<Spec>> {
    let base = root.join(dir);
    // Checked first: walkdir follows its starting folder when that is a symlink.
    if !crate::sys::contain::resolve(root, &base)?.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(&base)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walk {
        let entry = entry.map_err(|e| Error::io(&base, e.into()))?;
        let p = entry.path();
        if !is_spec_file(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let spec = if entry.file_type().is_file() {
            read(root, p, p)?
        } else if entry.file_type().is_symlink() {
            match crate::sys::contain::resolve(root, p) {
                Ok(real) if real.is_file() => read(root, p, &real)?,
                // A link to a folder (not walked) or to nothing is no spec.
                Ok(_) => continue,
                Err(e) => refused(root, p, &e),
            }
        } else {
            continue;
        };
        out.push(named_by_path(spec, dir));
    }
    Ok(out)
}

/// A spec named by its path under the specs folder without `.md` (`login/tasks`), so two
/// specs with the same file name in different folders never share a name or a record.
fn named_by_path(mut spec: Spec, dir: &str) -> Spec {
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    if let Some(under) = spec.path.strip_prefix(&prefix) {
        spec.name = under.trim_end_matches(".md").to_string();
    }
    spec
}

/// Reads and parses one spec file.
pub fn load(root: &Path, path: &Path) -> Result<Spec> {
    read(root, path, path)
}

/// Parses the spec at `path` (as the repository names it) from the file `real`; a file
/// that is not UTF-8 becomes a spec with that one error.
fn read(root: &Path, path: &Path, real: &Path) -> Result<Spec> {
    let bytes = std::fs::read(real).map_err(|e| Error::io(path, e))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(parse(&text, &relative(root, path))),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let mut spec = unread(
                root,
                path,
                format!("not UTF-8 text (invalid byte at offset {at}); save it as UTF-8"),
            );
            spec.refused = None;
            Ok(spec)
        }
    }
}

/// `path` relative to `root`, with `/` separators.
fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The stand-in for a spec file that was not read: no criteria, one error problem saying
/// why, nothing of its content.
fn refused(root: &Path, path: &Path, why: &Error) -> Spec {
    unread(root, path, why.to_string())
}

/// A spec that could not be read, with `why` as its one error.
fn unread(root: &Path, path: &Path, why: String) -> Spec {
    let mut spec = parse("", &relative(root, path));
    spec.title = spec.name.clone();
    spec.has_criteria_section = true;
    spec.problems = vec![Problem {
        line: 1,
        column: 1,
        message: why.clone(),
        error: true,
    }];
    spec.refused = Some(why);
    spec
}

/// The specs that can be checked: those with a "Success Criteria" section (or a problem
/// to report). Others are listed by `spec list` only, as ralph does.
pub fn checkable(specs: Vec<Spec>) -> Vec<Spec> {
    specs
        .into_iter()
        .filter(|s| s.has_criteria_section || !s.problems.is_empty())
        .collect()
}

/// The specs `names` select (by name such as `login/tasks`, path, or path without `.md`;
/// a bare file name like `tasks` when only one spec has it); all when empty.
pub fn select(specs: Vec<Spec>, names: &[String]) -> Result<Vec<Spec>> {
    if names.is_empty() {
        return Ok(specs);
    }
    let mut wanted: Vec<&str> = Vec::new();
    for n in names {
        let exact: Vec<&Spec> = specs.iter().filter(|s| matches_name(s, n)).collect();
        if !exact.is_empty() {
            wanted.extend(exact.iter().map(|s| s.path.as_str()));
            continue;
        }
        let by_file: Vec<&Spec> = specs
            .iter()
            .filter(|s| s.name.rsplit('/').next() == Some(n.as_str()))
            .collect();
        match by_file.as_slice() {
            [one] => wanted.push(one.path.as_str()),
            [] => {
                let known: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
                return Err(Error::Missing {
                    message: format!("no spec named '{n}'"),
                    help: format!("specs: {}", known.join(", ")),
                });
            }
            many => {
                let names: Vec<&str> = many.iter().map(|s| s.name.as_str()).collect();
                return Err(Error::invalid_with_help(
                    format!("'{n}' names more than one spec: {}", names.join(", ")),
                    "give the spec's path under the specs folder, such as login/tasks",
                ));
            }
        }
    }
    let wanted: Vec<String> = wanted.into_iter().map(str::to_string).collect();
    Ok(specs
        .into_iter()
        .filter(|s| wanted.contains(&s.path))
        .collect())
}

/// True when `n` is the spec's name, path, or path without `.md`.
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
        assert_eq!(c1.annotations[0].kind, AnnotationKind::Judge);
        assert_eq!(c1.annotations[0].options["timeout"], "30s");
        assert!(s.criteria[2].annotations.is_empty());
        let c3 = &s.criteria[3];
        assert_eq!(c3.annotations.len(), 2, "{:?}", c3.annotations);
        assert_eq!(c3.annotations[0].file, "specs/a.sh");
        assert_eq!(c3.annotations[1].kind.to_string(), "verify:lint");
        assert_eq!(s.criteria[4].annotations[0].file, "up.sh");
        // The two links outside every criterion are warned about, never run.
        let warned: Vec<(usize, bool)> = s.problems.iter().map(|p| (p.line, p.error)).collect();
        assert_eq!(warned, [(6, false), (23, false)], "{:?}", s.problems);
    }

    #[test]
    fn reads_link_text_with_spaces_as_ralph_writes_it() {
        let text = "# City\n\n## Success Criteria\n\n- [x] Workers use worktrees\n  [verify](tests/city.nix::Wait for worker worktree)\n- [x] Two on a line [verify](tests/u.nix::city-a), [verify](tests/i.nix::Wait for judge (via gate))\n- [ ] In code `[verify](tests/c.nix::Not this one)`\n  ```\n  [verify](tests/c.nix::Nor this)\n  ```\n- [ ] Bad name [verify](tests/c.nix::rm -rf; echo)\n- [ ] Rooted [verify](/tests/x.sh#test_root)\n";
        let s = parse(text, "specs/city.md");
        let got: Vec<Vec<(String, Option<String>, LinkForm)>> = s
            .criteria
            .iter()
            .map(|c| {
                c.annotations
                    .iter()
                    .map(|a| (a.file.clone(), a.function.clone(), a.form))
                    .collect()
            })
            .collect();
        let f =
            |file: &str, function: &str, form| (file.to_string(), Some(function.to_string()), form);
        assert_eq!(
            got,
            [
                vec![f(
                    "tests/city.nix",
                    "Wait for worker worktree",
                    LinkForm::Text
                )],
                vec![
                    f("tests/u.nix", "city-a", LinkForm::Markdown),
                    f("tests/i.nix", "Wait for judge (via gate)", LinkForm::Text)
                ],
                vec![],
                vec![(
                    "tests/c.nix::rm -rf; echo".to_string(),
                    None,
                    LinkForm::Text
                )],
                vec![f("tests/x.sh", "test_root", LinkForm::Markdown)],
            ]
        );
        let a = &s.criteria[0].annotations[0];
        assert!(a.legacy && a.error.is_none());
        assert_eq!((a.line, a.column), (6, 3));
        assert_eq!(s.criteria[1].text, "Two on a line ,");
        assert!(s.criteria[3].annotations[0].error.is_some());
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
