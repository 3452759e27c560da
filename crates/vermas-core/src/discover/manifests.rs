//! The standard commands a manifest implies: `Cargo.toml` (cargo), `go.mod` (go) and
//! `pyproject.toml` (pytest, ruff, mypy, black, pyright where configured).

use super::{Collector, Kind, Rank};
use crate::error::ParseError;
use crate::error::textpos::line_col;

/// Scans `Cargo.toml`, `go.mod` and `pyproject.toml`.
pub(super) fn scan(c: &mut Collector) {
    cargo(c);
    go(c);
    python(c);
}

/// Parses a TOML file, turning a syntax error into a warning at its line and column.
fn parse_toml(c: &mut Collector, rel: &str, text: &str) -> Option<toml::Table> {
    match toml::from_str::<toml::Table>(text) {
        Ok(t) => Some(t),
        Err(e) => {
            let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
            let msg = e.message().trim().to_string();
            c.warn(ParseError::at(rel, text, line, column, msg));
            None
        }
    }
}

/// The line of table `[path]` (or a sub-table `[path.x]`), else of the first line naming it.
fn table_line(text: &str, path: &str) -> Option<usize> {
    let header = |l: &str| {
        let l = l.trim().trim_start_matches('[');
        l.strip_prefix(path)
            .is_some_and(|rest| rest.starts_with(']') || rest.starts_with('.'))
    };
    let lines = || text.lines().enumerate();
    lines()
        .find(|(_, l)| l.trim_start().starts_with('[') && header(l))
        .or_else(|| lines().find(|(_, l)| l.trim_start().starts_with(path)))
        .map(|(i, _)| i + 1)
}

/// `Cargo.toml`: fmt, clippy, test and build.
fn cargo(c: &mut Collector) {
    let rel = "Cargo.toml";
    let Some(text) = c.read(rel) else { return };
    if parse_toml(c, rel, &text).is_none() {
        return;
    }
    c.read_ok(rel);
    let line = table_line(&text, "package")
        .or_else(|| table_line(&text, "workspace"))
        .unwrap_or(1);
    let commands = [
        (Kind::Format, "cargo fmt --check"),
        (Kind::Lint, "cargo clippy --all-targets -- -D warnings"),
        (Kind::Test, "cargo test"),
        (Kind::Build, "cargo build"),
    ];
    for (kind, cmd) in commands {
        c.add(kind, cmd.into(), rel, line, true, Rank::Manifest);
    }
}

/// `go.mod`: vet, test and build. A file without a `module` line is a warning.
fn go(c: &mut Collector) {
    let rel = "go.mod";
    let Some(text) = c.read(rel) else { return };
    let module = text
        .lines()
        .position(|l| l.trim_start().starts_with("module ") || l.trim() == "module");
    let Some(i) = module else {
        c.warn(
            ParseError::at(rel, &text, 1, 1, "no `module` directive")
                .with_help("a go.mod starts with `module example.com/name`"),
        );
        return;
    };
    c.read_ok(rel);
    let commands = [
        (Kind::Lint, "go vet ./..."),
        (Kind::Test, "go test ./..."),
        (Kind::Build, "go build ./..."),
    ];
    for (kind, cmd) in commands {
        c.add(kind, cmd.into(), rel, i + 1, true, Rank::Manifest);
    }
}

/// `pyproject.toml`: the tools it configures or depends on, run through the project's
/// runner (`uv run`, `poetry run`, `pdm run`) when its lock file is present.
fn python(c: &mut Collector) {
    let rel = "pyproject.toml";
    let Some(text) = c.read(rel) else { return };
    let Some(doc) = parse_toml(c, rel, &text) else {
        return;
    };
    c.read_ok(rel);
    let runner = [
        ("uv.lock", "uv run "),
        ("poetry.lock", "poetry run "),
        ("pdm.lock", "pdm run "),
    ]
    .iter()
    .find(|(f, _)| c.exists(f))
    .map_or("", |(_, r)| *r);
    let tool = |name: &str| {
        doc.get("tool")
            .and_then(|t| t.get(name))
            .is_some()
            .then(|| table_line(&text, &format!("tool.{name}")).unwrap_or(1))
    };
    let pytest = tool("pytest").or_else(|| {
        depends_on(&doc, "pytest").then(|| {
            text.lines()
                .position(|l| l.contains("pytest"))
                .map_or(1, |i| i + 1)
        })
    });
    let mut add = |kind, cmd: &str, line: Option<usize>| {
        if let Some(line) = line {
            c.add(
                kind,
                format!("{runner}{cmd}"),
                rel,
                line,
                true,
                Rank::Manifest,
            );
        }
    };
    add(Kind::Test, "pytest", pytest);
    add(Kind::Lint, "ruff check .", tool("ruff"));
    let ruff_format = doc
        .get("tool")
        .and_then(|t| t.get("ruff"))
        .and_then(|r| r.get("format"))
        .is_some()
        .then(|| table_line(&text, "tool.ruff.format").unwrap_or(1));
    add(Kind::Format, "ruff format --check .", ruff_format);
    add(Kind::Format, "black --check .", tool("black"));
    add(Kind::Typecheck, "mypy .", tool("mypy"));
    add(Kind::Typecheck, "pyright", tool("pyright"));
}

/// Whether `pyproject.toml` lists `package` among its dependencies: PEP 621 dependencies
/// and optional dependencies, PEP 735 dependency groups, Poetry and PDM dev dependencies.
fn depends_on(doc: &toml::Table, package: &str) -> bool {
    let names_it = |v: &toml::Value| -> bool {
        match v {
            toml::Value::Array(items) => items.iter().any(|i| {
                i.as_str()
                    .is_some_and(|s| requirement_name(s).eq_ignore_ascii_case(package))
            }),
            toml::Value::Table(t) => t.keys().any(|k| k.eq_ignore_ascii_case(package)),
            _ => false,
        }
    };
    let groups_name_it = |v: Option<&toml::Value>| {
        v.and_then(toml::Value::as_table)
            .is_some_and(|t| t.values().any(names_it))
    };
    let project = doc.get("project");
    let poetry = doc.get("tool").and_then(|t| t.get("poetry"));
    project
        .and_then(|p| p.get("dependencies"))
        .is_some_and(names_it)
        || groups_name_it(project.and_then(|p| p.get("optional-dependencies")))
        || groups_name_it(doc.get("dependency-groups"))
        || poetry
            .and_then(|p| p.get("dependencies"))
            .is_some_and(names_it)
        || poetry
            .and_then(|p| p.get("dev-dependencies"))
            .is_some_and(names_it)
        || poetry
            .and_then(|p| p.get("group"))
            .and_then(toml::Value::as_table)
            .is_some_and(|groups| {
                groups
                    .values()
                    .any(|g| g.get("dependencies").is_some_and(names_it))
            })
        || groups_name_it(
            doc.get("tool")
                .and_then(|t| t.get("pdm"))
                .and_then(|p| p.get("dev-dependencies")),
        )
}

/// The distribution name at the start of a PEP 508 requirement (`pytest>=8; python<4`).
fn requirement_name(req: &str) -> &str {
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(req.len());
    &req[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lines() {
        let text = "[project]\nname = \"x\"\n\n[tool.ruff.lint]\nselect = []\n[tool.ruffle]\n";
        assert_eq!(table_line(text, "tool.ruff"), Some(4));
        assert_eq!(table_line(text, "project"), Some(1));
        assert_eq!(table_line(text, "tool.mypy"), None);
    }

    #[test]
    fn pytest_dependency_forms() {
        let dep = |t: &str| depends_on(&toml::from_str(t).unwrap(), "pytest");
        assert!(dep("[project]\ndependencies = [\"pytest>=8\"]"));
        assert!(dep(
            "[project.optional-dependencies]\ntest = [\"pytest[cov]\"]"
        ));
        assert!(dep("[dependency-groups]\ndev = [\"pytest\"]"));
        assert!(dep("[tool.poetry.group.dev.dependencies]\npytest = \"^8\""));
        assert!(!dep("[project]\ndependencies = [\"pytest-cov\"]"));
        assert_eq!(requirement_name("pytest>=8; python_version<'4'"), "pytest");
    }
}
