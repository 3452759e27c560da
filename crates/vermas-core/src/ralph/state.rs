//! ralph's own files in a repository: its folder (`.wrapix/ralph`), the workflow it is on
//! (`state/current`), each workflow's state file, and the pinned-context file its
//! `config.nix` names. Read only; a file that is missing or does not parse counts as
//! absent, as ralph's own lookups do.

use std::path::{Path, PathBuf};

/// ralph's folder when `RALPH_DIR` is not set, relative to the repository root.
pub const DEFAULT_DIR: &str = ".wrapix/ralph";

/// The pinned-context file when `config.nix` names none.
pub const DEFAULT_PINNED_CONTEXT: &str = "docs/README.md";

/// ralph's folder in one repository.
#[derive(Debug, Clone)]
pub struct RalphDir {
    /// The repository root.
    root: PathBuf,
    /// The folder itself (absolute).
    dir: PathBuf,
}

/// One workflow (a spec ralph works on) as its state files describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workflow {
    /// The label, which is also the spec's name.
    pub label: String,
    /// The spec file, repository-relative (`specs/<label>.md`, or a hidden spec under the
    /// state folder).
    pub spec_path: String,
    /// True for a hidden spec (kept in ralph's state folder, not under `specs/`).
    pub hidden: bool,
    /// The molecule (epic) id recorded for it, if any.
    pub molecule: Option<String>,
}

impl RalphDir {
    /// ralph's folder under `root`: `dir` (from `RALPH_DIR`; relative to `root` unless
    /// absolute), else [`DEFAULT_DIR`].
    pub fn new(root: &Path, dir: Option<&Path>) -> RalphDir {
        let dir = match dir {
            Some(d) if !d.as_os_str().is_empty() => root.join(d),
            _ => root.join(DEFAULT_DIR),
        };
        RalphDir {
            root: root.to_path_buf(),
            dir,
        }
    }

    /// True when the folder exists (ralph has been set up here).
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// The folder, for messages.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The label of the current workflow: `state/current` (a plain text file), else the
    /// `label` of the older `state/current.json`.
    pub fn current_label(&self) -> Option<String> {
        let plain = std::fs::read_to_string(self.state("current"))
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        plain.or_else(|| string_field(&self.legacy_current(), "label"))
    }

    /// The workflow `label` as its state files describe it: `state/<label>.json` first,
    /// then the older `state/current.json` when it is about the same label.
    pub fn workflow(&self, label: &str) -> Workflow {
        let own = read_json(&self.state(&format!("{label}.json")));
        let legacy = read_json(&self.state("current.json"))
            .filter(|v| v.get("label").and_then(|l| l.as_str()) == Some(label));
        let field = |name: &str| {
            [own.as_ref(), legacy.as_ref()]
                .into_iter()
                .flatten()
                .find_map(|v| v.get(name).and_then(|f| f.as_str()))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let hidden_flag = legacy
            .as_ref()
            .and_then(|v| v.get("hidden"))
            .and_then(|h| h.as_bool())
            .unwrap_or(false);
        let spec_path = match field("spec_path") {
            Some(p) => p,
            None if hidden_flag => self.relative(&self.state(&format!("{label}.md"))),
            None => format!("specs/{label}.md"),
        };
        Workflow {
            label: label.to_string(),
            hidden: hidden_flag || spec_path.contains("/state/"),
            spec_path,
            molecule: field("molecule"),
        }
    }

    /// The pinned-context file (repository-relative): `pinnedContext` of `config.nix`
    /// when it is a plain string there, else [`DEFAULT_PINNED_CONTEXT`].
    pub fn pinned_context_file(&self) -> String {
        std::fs::read_to_string(self.dir.join("config.nix"))
            .ok()
            .and_then(|text| nix_string_attr(&text, "pinnedContext"))
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| DEFAULT_PINNED_CONTEXT.to_string())
    }

    /// A file of the state folder.
    fn state(&self, name: &str) -> PathBuf {
        self.dir.join("state").join(name)
    }

    /// The older single state file.
    fn legacy_current(&self) -> PathBuf {
        self.state("current.json")
    }

    /// `path` relative to the repository root, with `/` separators.
    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }
}

/// A JSON file's value, when it exists and parses.
fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// A non-empty string field of a JSON file.
fn string_field(path: &Path, name: &str) -> Option<String> {
    read_json(path)?
        .get(name)?
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The value of `name = "text";` in a Nix attribute set, when it is a plain string
/// literal (ralph evaluates the file with `nix eval`; vermas reads only this simple form).
/// Comments (`# ...`) are skipped.
pub fn nix_string_attr(text: &str, name: &str) -> Option<String> {
    for line in text.lines() {
        let code = line.split_once('#').map_or(line, |(before, _)| before);
        let mut rest = code.trim_start();
        while let Some(at) = rest.find(name) {
            let before_ok = rest[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
            let after = rest[at + name.len()..].trim_start();
            if before_ok && let Some(value) = after.strip_prefix('=') {
                return quoted(value.trim_start());
            }
            rest = &rest[at + name.len()..];
        }
    }
    None
}

/// The contents of a `"..."` string at the start of `text` (`\"` and `\\` unescaped).
fn quoted(text: &str) -> Option<String> {
    let body = text.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            '$' if chars.clone().next() == Some('{') => return None,
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_plain_string_attribute() {
        let nix = "{\n  # pinnedContext = \"old.md\";\n  model = { run = null; };\n  pinnedContext = \"docs/OVERVIEW.md\";\n}\n";
        assert_eq!(
            nix_string_attr(nix, "pinnedContext").as_deref(),
            Some("docs/OVERVIEW.md")
        );
        assert_eq!(
            nix_string_attr("{ pinnedContext = \"a\\\"b\"; }", "pinnedContext").as_deref(),
            Some("a\"b")
        );
        assert_eq!(
            nix_string_attr("{ x.pinnedContext = \"a\"; }", "pinnedContext"),
            None
        );
        assert_eq!(
            nix_string_attr("{ pinnedContext = \"${root}/a\"; }", "pinnedContext"),
            None
        );
        assert_eq!(
            nix_string_attr("{ pinnedContext = ./a.md; }", "pinnedContext"),
            None
        );
    }

    #[test]
    fn finds_the_current_label_and_workflow() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ralph = RalphDir::new(dir.path(), None);
        assert!(!ralph.exists());
        assert_eq!(ralph.current_label(), None);
        let state = dir.path().join(".wrapix/ralph/state");
        std::fs::create_dir_all(&state).expect("mkdir");
        std::fs::write(
            state.join("current.json"),
            r#"{"label":"old","molecule":"wx-1","hidden":true}"#,
        )
        .expect("write");
        assert_eq!(ralph.current_label().as_deref(), Some("old"));
        let w = ralph.workflow("old");
        assert_eq!(w.molecule.as_deref(), Some("wx-1"));
        assert!(w.hidden);
        assert_eq!(w.spec_path, ".wrapix/ralph/state/old.md");
        std::fs::write(state.join("current"), "  notify\n").expect("write");
        std::fs::write(
            state.join("notify.json"),
            r#"{"label":"notify","spec_path":"specs/notify.md","molecule":"wx-9"}"#,
        )
        .expect("write");
        assert_eq!(ralph.current_label().as_deref(), Some("notify"));
        let w = ralph.workflow("notify");
        assert_eq!(
            (w.spec_path.as_str(), w.molecule.as_deref(), w.hidden),
            ("specs/notify.md", Some("wx-9"), false)
        );
        assert_eq!(ralph.workflow("none").spec_path, "specs/none.md");
    }
}
