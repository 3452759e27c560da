//! Tests that keep the documentation true to the code: docs/reference.md is what the clap
//! definitions say (`reference`); every command and flag README.md and docs/*.md show
//! parses (`commands`); every path they name exists (`paths`); and docs/ARCHITECTURE.md's
//! module map names every source file and none that is gone (`module_map`); the commands role
//! workspaces allow and deny exist (`role_commands`). `.ci/run` runs them with `cargo test`.

mod commands;
mod markdown;
mod module_map;
mod paths;
mod reference;
mod role_commands;

use std::path::PathBuf;

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/, as (path from the root, text).
fn documents() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .map(|e| format!("docs/{}", e.file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".md"))
        .collect();
    pages.sort();
    names.extend(pages);
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(root().join(&n)).expect("read doc");
            (n, text)
        })
        .collect()
}
