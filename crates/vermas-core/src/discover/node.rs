//! `package.json` scripts of the root package and of each npm, yarn or pnpm workspace package.

use super::{Collector, Kind, Rank, line_of, rel_path};
use crate::error::ParseError;
use serde_json::Value;
use std::path::Path;

/// The package manager that runs the scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manager {
    Npm,
    Pnpm,
    Yarn,
    Bun,
}

impl Manager {
    /// The command running `script` of the root package.
    fn run(self, script: &str) -> String {
        match self {
            Manager::Npm => format!("npm run {script}"),
            Manager::Pnpm => format!("pnpm run {script}"),
            Manager::Yarn => format!("yarn {script}"),
            Manager::Bun => format!("bun run {script}"),
        }
    }

    /// The command running `script` of the workspace package in `dir` (named `name`), from
    /// the root.
    fn run_in(self, dir: &str, name: Option<&str>, script: &str) -> String {
        match (self, name) {
            (Manager::Npm, _) => format!("npm run {script} --workspace={dir}"),
            (Manager::Pnpm, Some(n)) => format!("pnpm --filter {n} run {script}"),
            (Manager::Pnpm, None) => format!("pnpm --dir {dir} run {script}"),
            (Manager::Yarn, Some(n)) => format!("yarn workspace {n} {script}"),
            (Manager::Yarn, None) => format!("cd {dir} && yarn {script}"),
            (Manager::Bun, _) => format!("bun run --cwd {dir} {script}"),
        }
    }
}

/// Scans the root `package.json` and the workspace packages it (or `pnpm-workspace.yaml`)
/// names.
pub(super) fn scan(c: &mut Collector) {
    let root_pkg = c.read("package.json");
    let pnpm_ws = c.read("pnpm-workspace.yaml");
    if root_pkg.is_none() && pnpm_ws.is_none() {
        return;
    }
    let parsed = root_pkg
        .as_ref()
        .and_then(|text| parse(c, "package.json", text));
    let manager = manager(c, parsed.as_ref());
    let mut patterns = Vec::new();
    if let (Some(text), Some(pkg)) = (&root_pkg, &parsed) {
        c.read_ok("package.json");
        scripts(c, "package.json", text, pkg, Rank::RootPackage, &|s| {
            manager.run(s)
        });
        patterns.extend(workspaces(pkg));
    }
    if let Some(text) = pnpm_ws {
        #[derive(serde::Deserialize)]
        struct PnpmWorkspace {
            #[serde(default)]
            packages: Vec<String>,
        }
        match crate::text::yaml::parse::<Option<PnpmWorkspace>>(
            &text,
            "pnpm-workspace.yaml",
            &text,
            1,
        ) {
            Ok(ws) => {
                c.read_ok("pnpm-workspace.yaml");
                patterns.extend(ws.map(|w| w.packages).unwrap_or_default());
            }
            Err(e) => c.warn(*e),
        }
    }
    for dir in expand(c.root(), &patterns) {
        let rel = format!("{dir}/package.json");
        let Some(text) = c.read(&rel) else { continue };
        let Some(pkg) = parse(c, &rel, &text) else {
            continue;
        };
        c.read_ok(&rel);
        let name = pkg.get("name").and_then(Value::as_str).map(str::to_string);
        let run = |s: &str| manager.run_in(&dir, name.as_deref(), s);
        scripts(c, &rel, &text, &pkg, Rank::WorkspacePackage, &run);
    }
}

/// Parses a `package.json`, turning a syntax error into a warning at its line and column.
fn parse(c: &mut Collector, rel: &str, text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(_) => {
            c.warn(ParseError::at(
                rel,
                text,
                1,
                1,
                "package.json must be a JSON object",
            ));
            None
        }
        Err(e) => {
            let msg = e.to_string();
            let msg = msg.rfind(" at line ").map_or(msg.as_str(), |i| &msg[..i]);
            c.warn(ParseError::at(rel, text, e.line(), e.column(), msg));
            None
        }
    }
}

/// The package manager: `packageManager` in `package.json`, else the lock file present.
fn manager(c: &Collector, pkg: Option<&Value>) -> Manager {
    let declared = pkg
        .and_then(|p| p.get("packageManager"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let by_name = [
        ("pnpm@", Manager::Pnpm),
        ("yarn@", Manager::Yarn),
        ("bun@", Manager::Bun),
        ("npm@", Manager::Npm),
    ];
    if let Some((_, m)) = by_name.iter().find(|(p, _)| declared.starts_with(p)) {
        return *m;
    }
    let by_lock = [
        ("pnpm-lock.yaml", Manager::Pnpm),
        ("pnpm-workspace.yaml", Manager::Pnpm),
        ("yarn.lock", Manager::Yarn),
        ("bun.lock", Manager::Bun),
        ("bun.lockb", Manager::Bun),
    ];
    by_lock
        .iter()
        .find(|(f, _)| c.exists(f))
        .map_or(Manager::Npm, |(_, m)| *m)
}

/// The workspace globs of a `package.json`: `workspaces: [...]` or `workspaces: {packages: [...]}`.
fn workspaces(pkg: &Value) -> Vec<String> {
    let list = match pkg.get("workspaces") {
        Some(Value::Array(a)) => a,
        Some(Value::Object(o)) => match o.get("packages") {
            Some(Value::Array(a)) => a,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    list.iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// Adds every quality script of `pkg` (whose text is `text`, at `rel`).
fn scripts(
    c: &mut Collector,
    rel: &str,
    text: &str,
    pkg: &Value,
    rank: Rank,
    run: &dyn Fn(&str) -> String,
) {
    let Some(Value::Object(scripts)) = pkg.get("scripts") else {
        return;
    };
    let scripts_at = key_offset(text, 0, "scripts").unwrap_or(0);
    let mut rows = Vec::new();
    for (name, body) in scripts {
        let Some(body) = body.as_str() else { continue };
        let Some((kind, primary)) = script_kind(name) else {
            continue;
        };
        if kind == Kind::Test && body.contains("no test specified") {
            continue; // npm's placeholder
        }
        let line = key_offset(text, scripts_at, name).map_or(1, |o| line_of(text, o));
        rows.push((line, kind, primary, name.clone()));
    }
    rows.sort();
    for (line, kind, primary, name) in rows {
        c.add(kind, run(&name), rel, line, primary, rank);
    }
}

/// The kind of a script by its name, and whether the name is the kind's own.
fn script_kind(name: &str) -> Option<(Kind, bool)> {
    let head = name.split(':').next().unwrap_or(name);
    let kind = match head {
        "lint" | "eslint" => Kind::Lint,
        "typecheck" | "type-check" | "check-types" | "types" | "tsc" => Kind::Typecheck,
        "format" | "fmt" | "prettier" => Kind::Format,
        "test" | "tests" => Kind::Test,
        "build" => Kind::Build,
        "ci" => Kind::Ci,
        "check" if name == "check:types" => Kind::Typecheck,
        _ => return None,
    };
    Some((kind, name == kind.name()))
}

/// Byte offset of the JSON object key `key` (followed by `:`) at or after `from`.
fn key_offset(text: &str, from: usize, key: &str) -> Option<usize> {
    let quoted = serde_json::to_string(key).ok()?;
    let mut start = from;
    while let Some(i) = text.get(start..)?.find(&quoted) {
        let at = start + i;
        let after = text[at + quoted.len()..].trim_start();
        if after.starts_with(':') {
            return Some(at);
        }
        start = at + quoted.len();
    }
    None
}

/// Folders (relative, `/`-separated) matching the workspace globs, holding a `package.json`.
/// `*` matches within one path component, `**` any number of them, `!` excludes.
fn expand(root: &Path, patterns: &[String]) -> Vec<String> {
    let clean = |p: &str| -> Vec<String> {
        p.trim_start_matches("./")
            .trim_end_matches('/')
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(str::to_string)
            .collect()
    };
    let include: Vec<Vec<String>> = patterns
        .iter()
        .filter(|p| !p.starts_with('!'))
        .map(|p| clean(p))
        .filter(|p| !p.is_empty())
        .collect();
    let exclude: Vec<Vec<String>> = patterns
        .iter()
        .filter_map(|p| p.strip_prefix('!'))
        .map(clean)
        .collect();
    if include.is_empty() {
        return Vec::new();
    }
    let deep = include.iter().any(|p| p.iter().any(|s| s == "**"));
    let depth = if deep {
        8
    } else {
        include.iter().map(Vec::len).max().unwrap_or(1)
    };
    let walker = walkdir::WalkDir::new(root)
        .min_depth(1)
        .max_depth(depth)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.file_type().is_dir() && name != "node_modules" && !name.starts_with('.')
        });
    let mut out = Vec::new();
    for entry in walker.filter_map(Result::ok) {
        let rel = rel_path(root, entry.path());
        let parts: Vec<&str> = rel.split('/').collect();
        let matches = |p: &Vec<String>| crate::text::glob::matches_path(p, &parts);
        if include.iter().any(matches)
            && !exclude.iter().any(matches)
            && entry.path().join("package.json").is_file()
        {
            out.push(rel);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::textpos::line_col;

    #[test]
    fn script_names_map_to_kinds() {
        assert_eq!(script_kind("test"), Some((Kind::Test, true)));
        assert_eq!(script_kind("test:e2e"), Some((Kind::Test, false)));
        assert_eq!(script_kind("check-types"), Some((Kind::Typecheck, false)));
        assert_eq!(script_kind("check:types"), Some((Kind::Typecheck, false)));
        assert_eq!(script_kind("lint"), Some((Kind::Lint, true)));
        assert_eq!(script_kind("dev"), None);
        assert_eq!(script_kind("prebuild"), None);
    }

    #[test]
    fn key_offset_skips_values_that_look_like_keys() {
        let text = "{\n  \"scripts\": {\n    \"ci\": \"test\",\n    \"test\": \"x\"\n  }\n}";
        let o = key_offset(text, 0, "test").unwrap();
        assert_eq!(line_col(text, o), (4, 5));
    }
}
