//! docs/ARCHITECTURE.md's module map names every source file of both crates, and no file
//! or folder that does not exist. The map is a table per crate under `## Module map`, each
//! under a `###` heading naming the crate's source folder (`src/`,
//! `crates/vermas-core/src/`). A row's first cell names its modules (`store/`, `workspace`,
//! `githooks/push.rs`); the files its text names in backticks (`txn.rs`, `index/line.rs`,
//! `guard/`) are found under those modules' folders (else the crate's folder) by the end of
//! their path, so `args.rs` in the `cli/` row names every `cli/*/args.rs`. A module covers
//! its own file (`workspace.rs`, or `store/mod.rs`); a folder named covers its `mod.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A file or folder token of a row: lower-case path ending in `.rs` or `/`.
fn is_path_token(t: &str) -> bool {
    (t.ends_with(".rs") || t.ends_with('/'))
        && t.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '/' | '.'))
        && !t.starts_with(['.', '/'])
}

/// The backticked tokens of `text`.
fn ticks(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Every `.rs` file and folder under `dir`, relative to it.
fn tree(dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.expect("walk");
        let rel = entry
            .path()
            .strip_prefix(dir)
            .expect("under")
            .to_string_lossy()
            .to_string();
        if entry.file_type().is_dir() {
            dirs.push(format!("{rel}/"));
        } else if rel.ends_with(".rs") {
            files.push(rel);
        }
    }
    (files, dirs)
}

/// True when `path` ends with the path `token` at a component boundary.
fn ends_with(path: &str, token: &str) -> bool {
    path == token || path.ends_with(&format!("/{token}"))
}

/// The problems of the map in `text` (ARCHITECTURE.md) against the tree at `root`.
fn problems(root: &Path, text: &str) -> Vec<String> {
    let Some(start) = text.find("\n## Module map") else {
        return vec!["docs/ARCHITECTURE.md has no `## Module map` section".into()];
    };
    let section = &text[start + 1..];
    let section = section[3..]
        .find("\n## ")
        .map_or(section, |end| &section[..end + 3]);
    let mut out = Vec::new();
    let mut crates: Vec<(PathBuf, BTreeSet<String>)> = Vec::new();
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            match ticks(heading).into_iter().find(|t| t.ends_with("src/")) {
                Some(src) => crates.push((root.join(src), BTreeSet::new())),
                None => out.push(format!("`{line}` names no source folder")),
            }
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").collect();
        if !line.starts_with("| `") || cells.len() < 2 {
            continue;
        }
        let Some((src, covered)) = crates.last_mut() else {
            out.push("a module row comes before any `### ... (`src/`)` heading".into());
            continue;
        };
        let (files, dirs) = tree(src);
        let mut scopes: Vec<String> = Vec::new();
        for module in ticks(cells[0]) {
            let module = module.trim_end_matches('/');
            if module.ends_with(".rs") && files.iter().any(|f| f == module) {
                covered.insert(module.to_string());
            } else if files.iter().any(|f| *f == format!("{module}.rs")) {
                covered.insert(format!("{module}.rs"));
                if dirs.iter().any(|d| *d == format!("{module}/")) {
                    scopes.push(format!("{module}/"));
                }
            } else if dirs.iter().any(|d| *d == format!("{module}/")) {
                covered.insert(format!("{module}/mod.rs"));
                scopes.push(format!("{module}/"));
            } else {
                out.push(format!(
                    "the map names module `{module}`, which is not in {}",
                    src.display()
                ));
            }
        }
        if scopes.is_empty() {
            scopes.push(String::new());
        }
        for token in ticks(cells[1..].join(" | ").as_str())
            .into_iter()
            .filter(|t| is_path_token(t))
        {
            let mut found = false;
            for scope in &scopes {
                for f in files.iter().filter(|f| f.starts_with(scope.as_str())) {
                    if ends_with(&f[scope.len()..], token) || ends_with(f, token) {
                        covered.insert(f.clone());
                        found = true;
                    }
                }
                for d in dirs.iter().filter(|d| d.starts_with(scope.as_str())) {
                    if ends_with(&d[scope.len()..], token) {
                        covered.insert(format!("{d}mod.rs"));
                        found = true;
                    }
                }
            }
            if !found {
                // Else anywhere in the crate: a row may name another module's file.
                for f in files.iter().filter(|f| ends_with(f, token)) {
                    covered.insert(f.clone());
                    found = true;
                }
            }
            // Or another module's folder (`proc/`), or a path from the repository's root
            // (`src/cli/ralph/`): named, not mapped here.
            found = found
                || dirs.iter().any(|d| ends_with(d, token))
                || ((token.starts_with("src/") || token.starts_with("crates/"))
                    && root.join(token).exists());
            if !found {
                out.push(format!(
                    "the map's `{}` row names `{token}`, which is not under {}",
                    ticks(cells[0]).join(", "),
                    scopes
                        .iter()
                        .map(|s| format!("{}/{s}", src.display()))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ));
            }
        }
    }
    for (src, covered) in &crates {
        for f in tree(src).0 {
            if !covered.contains(&f) {
                out.push(format!("the map does not name {}", src.join(&f).display()));
            }
        }
    }
    if crates.len() < 2 {
        out.push("the map has a table for each crate: `src/` and `crates/vermas-core/src/`".into());
    }
    out
}

#[test]
fn the_module_map_names_every_source_file_and_no_other() {
    let root = super::root();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("read");
    let problems = problems(&root, &text);
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md's module map:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_missing_or_stale_file_in_the_map_is_caught() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("store")).expect("mkdir");
    for f in [
        "lib.rs",
        "store/mod.rs",
        "store/txn.rs",
        "store/id.rs",
        "hash.rs",
    ] {
        std::fs::write(src.join(f), "").expect("write");
    }
    let map = |rows: &str| {
        format!(
            "# A\n\n## Module map\n\n### One (`src/`)\n\n| module | owns |\n|---|---|\n{rows}\n## Next\n"
        )
    };
    let good = "| `lib.rs` | the root |\n| `store/` | `txn.rs`, `id.rs` |\n| `hash` | hashes |\n";
    let found = problems(dir.path(), &map(good));
    assert_eq!(
        found,
        vec!["the map has a table for each crate: `src/` and `crates/vermas-core/src/`"]
    );
    let missing = problems(
        dir.path(),
        &map("| `lib.rs` | x |\n| `store/` | `txn.rs` |\n| `hash` | x |\n"),
    );
    assert!(
        missing
            .iter()
            .any(|p| p.contains("does not name") && p.ends_with("store/id.rs")),
        "{missing:?}"
    );
    let stale = problems(
        dir.path(),
        &map(&format!("{good}| `gone` | x |\n| `store/` | `old.rs` |\n")),
    );
    assert!(
        stale.iter().any(|p| p.contains("module `gone`")),
        "{stale:?}"
    );
    assert!(stale.iter().any(|p| p.contains("`old.rs`")), "{stale:?}");
}
