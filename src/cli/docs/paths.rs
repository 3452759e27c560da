//! Every path README.md and docs/*.md name exists: each relative link (and its `#anchor`,
//! a heading of the page it leads to), and each code span naming a file or folder of this
//! repository (under `src/`, `crates/`, `bench/`, `fixtures/`, `docs/`, `.ci/`, `tests/it/`,
//! `tests/cli/`, `tests/browser/`). Paths of a user's repository in examples (`specs/x.md`,
//! `.beads/...`, `tests/x.sh`) are not this repository's and are not checked. The tests a
//! `cargo test --test it FILTER` names exist too: each `::` part of FILTER a folder or file
//! under `tests/it/`, or a name in the module it reached.

use std::path::Path;

/// Where this repository's own paths start.
const OURS: &[&str] = &[
    "src/",
    "crates/",
    "bench/",
    "fixtures/",
    "docs/",
    ".ci/",
    "tests/it/",
    "tests/cli/",
    "tests/browser/",
];

/// Paths under those folders that name a user's file, not ours: ralph's pinned-context
/// file in the project ralph runs in.
const THEIRS: &[&str] = &["docs/README.md"];

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside code), with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    let mut in_code = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
        }
        if in_code || !t.starts_with('#') {
            continue;
        }
        let base = anchor(t.trim_start_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.push(if *n == 0 { base } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// What is wrong with the link `target` of the page `page`, if anything.
fn check_link(root: &Path, page: &str, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
        return None;
    }
    let (path, frag) = match target.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (target, None),
    };
    let dir = Path::new(page).parent().unwrap_or(Path::new(""));
    let file = if path.is_empty() {
        root.join(page)
    } else {
        root.join(dir).join(path)
    };
    if !file.exists() {
        return Some(format!("links to `{target}`, which does not exist"));
    }
    let frag = frag.filter(|f| !f.is_empty() && file.extension().is_some_and(|e| e == "md"))?;
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    (!anchors(&text).iter().any(|a| a == frag))
        .then(|| format!("links to `{target}`, whose page has no heading `#{frag}`"))
}

/// The repository path a code span names, if it names one of ours.
fn our_path(span: &str) -> Option<&str> {
    let path = span.split(['#', ' ']).next()?;
    let path = path.split(':').next()?.trim_end_matches(['.', ',', ')']);
    let ours = OURS.iter().any(|p| path.starts_with(p));
    let plain = !path.contains(['<', '>', '*', '{', '$', '?', '[']) && !path.contains("...");
    (ours && plain && !THEIRS.contains(&path)).then_some(path)
}

/// Each `cargo test --test it FILTER` of a page (in prose, spans or blocks, a line break
/// allowed anywhere between its words), as (line, FILTER).
fn test_filters(text: &str) -> Vec<(usize, String)> {
    let words: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .flat_map(|(i, l)| {
            l.split_whitespace()
                .map(move |w| (i + 1, w.trim_matches('`')))
        })
        .collect();
    words
        .windows(5)
        .filter(|w| {
            w[..4]
                .iter()
                .map(|(_, t)| *t)
                .eq(["cargo", "test", "--test", "it"])
        })
        .map(|w| {
            (
                w[0].0,
                w[4].1.trim_end_matches(['.', ',', ')', '`']).to_string(),
            )
        })
        .filter(|(_, f)| !f.starts_with('-'))
        .collect()
}

/// What is wrong with the test filter `filter`, if anything: a `::` part that is no module
/// under `tests/it/` (a folder, a `.rs` file) and no name in the module reached before it.
fn check_filter(root: &Path, filter: &str) -> Option<String> {
    let mut dir = root.join("tests/it");
    let mut module: Option<std::path::PathBuf> = None;
    for part in filter.split("::").filter(|p| !p.is_empty()) {
        if dir.join(part).is_dir() {
            dir = dir.join(part);
            module = Some(dir.join("mod.rs"));
        } else if dir.join(format!("{part}.rs")).is_file() {
            module = Some(dir.join(format!("{part}.rs")));
            dir = dir.join(part);
        } else {
            let text = module
                .as_ref()
                .and_then(|m| std::fs::read_to_string(m).ok());
            return match text {
                Some(t) if t.contains(part) => None,
                _ => Some(format!(
                    "names the tests `{filter}`: no `{part}` under tests/it/"
                )),
            };
        }
    }
    None
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = super::root();
    let mut wrong = Vec::new();
    for (name, text) in super::documents() {
        let code = super::markdown::read(&text);
        for (at, target) in &code.links {
            if let Some(why) = check_link(&root, &name, target) {
                wrong.push(format!("{name}:{at}: {why}"));
            }
        }
        for (at, span) in &code.spans {
            if let Some(path) = our_path(span)
                && !root.join(path).exists()
            {
                wrong.push(format!("{name}:{at}: names `{path}`, which does not exist"));
            }
        }
        for (at, filter) in test_filters(&text) {
            if let Some(why) = check_filter(&root, &filter) {
                wrong.push(format!("{name}:{at}: {why}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "paths the docs name that do not exist:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_missing_path_or_anchor_is_caught() {
    let root = super::root();
    let text = "run `cargo test --test it refinery::batch::` or `VERMAS_X=1 cargo test\n--test it docs::guide_beads`, `cargo test --test it -- --ignored`";
    assert_eq!(
        test_filters(text),
        vec![
            (1, "refinery::batch::".into()),
            (1, "docs::guide_beads".into())
        ]
    );
    assert_eq!(check_filter(&root, "refinery::batch::"), None);
    assert_eq!(check_filter(&root, "docs::guide_beads"), None);
    assert!(check_filter(&root, "html_report::browser").is_some());
    assert!(check_filter(&root, "docs::no_such_test").is_some());
    assert_eq!(
        check_link(&root, "README.md", "docs/FORMATS.md#config"),
        None
    );
    assert!(check_link(&root, "README.md", "docs/NOPE.md").is_some());
    assert!(check_link(&root, "README.md", "docs/FORMATS.md#no-such-heading").is_some());
    assert_eq!(check_link(&root, "docs/FORMATS.md", "../README.md"), None);
    assert_eq!(our_path("src/store/txn.rs"), Some("src/store/txn.rs"));
    assert!(!root.join(our_path("src/store/txn.rs").unwrap()).exists());
    assert_eq!(our_path("specs/x.md"), None);
    assert_eq!(our_path("src/cli/ui.rs:45"), Some("src/cli/ui.rs"));
    assert_eq!(
        anchors("# A\n## Set up `x`\n## A\n"),
        vec!["a", "set-up-x", "a-1"]
    );
}
