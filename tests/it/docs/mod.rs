//! The documentation is tested: every command block of README.md and docs/*.md runs here,
//! in a fresh home folder per document with the vermas under test first on PATH, and what
//! each command prints is compared with the output the document shows (see `pattern` for
//! ids, hashes, times and `[..]`). The model the walk-throughs use is `vermas stand-in`.
//!
//! How a document is written for it:
//! - a `console` block holds commands (`$ ` before each), each followed by its output and,
//!   when it exits non-zero, a last line `? N`; state (the folder, exported variables, the
//!   files) carries on through the document, block after block;
//! - a block whose info string holds `file=PATH` (```` ```markdown file=specs/greet.md ````)
//!   is written to PATH from the current folder before the next command runs;
//! - `<!-- test` ... `-->` holds hidden set-up commands (output not compared);
//! - any other block of commands (`sh`, `bash`, or lines starting `$ `) is refused, unless
//!   marked ```` ```console untested: REASON ````.
//!
//! The blocks that cannot run in a test, all listed in [`UNTESTED`]:
//! - README.md: `cargo install --path .` (a release build of vermas: minutes; these tests run
//!   the build they test);
//! - README.md: `cargo run -- status --verify` and `cargo test` (vermas building and testing
//!   itself: minutes; `.ci/run` runs both);
//! - docs/interop.md: `bd export` (bd is another program, not installed here).

mod block;
mod pattern;
mod session;

use block::Step;
use pattern::Names;
use session::Session;

/// Every document under test: README.md and each page of docs/.
const DOCS: &[&str] = &[
    "README.md",
    "docs/ARCHITECTURE.md",
    "docs/FORMATS.md",
    "docs/beads.md",
    "docs/benchmarks.md",
    "docs/conventions.md",
    "docs/editors.md",
    "docs/gates-and-tasks.md",
    "docs/inspector.md",
    "docs/interop.md",
    "docs/live-specs.md",
    "docs/mail-and-molecules.md",
    "docs/many-agents.md",
    "docs/reference.md",
    "docs/refinery.md",
    "docs/report.md",
    "docs/sessions.md",
    "docs/tasks-verify.md",
];

/// The blocks marked `untested`, as (document, reason): kept short, each said in the
/// module's doc above.
const UNTESTED: &[(&str, &str)] = &[
    (
        "README.md",
        "a release build of vermas (minutes); these tests run the build they test",
    ),
    (
        "README.md",
        "builds and tests vermas itself (minutes); .ci/run runs both",
    ),
    (
        "docs/interop.md",
        "bd is another program, not installed here",
    ),
];

/// The repository's root.
fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs every step of the document `name`; panics at the first that differs.
fn run_doc(name: &str) -> usize {
    let text = std::fs::read_to_string(root().join(name)).expect("read doc");
    let doc = block::parse(name, &text).unwrap_or_else(|e| panic!("{e}"));
    let session = Session::new();
    let mut names = Names::default();
    let mut ran = 0;
    for step in &doc.steps {
        match step {
            Step::Write {
                line,
                path,
                content,
            } => {
                let content = names
                    .substitute(content)
                    .unwrap_or_else(|e| panic!("{name}:{line}: {e}"));
                session.write(path, &content);
            }
            Step::Run(cmd) => {
                let real = names
                    .substitute(&cmd.text)
                    .unwrap_or_else(|e| panic!("{name}:{}: {e}", cmd.line));
                let (out, code) = session.run(&real);
                ran += usize::from(!cmd.hidden);
                let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
                let mut lines = lines;
                while lines.last().is_some_and(|l| l.is_empty()) {
                    lines.pop();
                }
                // Hidden set-up's output is not compared, but the names it shows bind.
                let same = names.match_output(&cmd.expected, &lines) || cmd.hidden;
                if std::env::var_os("VERMAS_DOC_SHOW").is_some() {
                    eprintln!(
                        "$ {}\n{}\n? {code}",
                        cmd.text,
                        names.unsubstitute(&lines.join("\n"))
                    );
                }
                if !same || code != cmd.code {
                    let report = format!(
                        "{name}:{}: `{}` differs from the document\n--- shown (exit {}):\n{}\n\
                         --- got (exit {code}; the document's names put back):\n{}\n---",
                        cmd.line,
                        cmd.text,
                        cmd.code,
                        cmd.expected.join("\n"),
                        names.unsubstitute(&lines.join("\n")),
                    );
                    if std::env::var_os("VERMAS_DOC_DRAFT").is_none() {
                        panic!("{report}");
                    }
                    eprintln!("{report}");
                    names.bind_in_order(&cmd.expected, &lines);
                }
            }
        }
    }
    ran
}

#[test]
fn readme_walk_throughs() {
    run_doc("README.md");
}

#[test]
fn guide_architecture() {
    run_doc("docs/ARCHITECTURE.md");
}

#[test]
fn guide_formats() {
    run_doc("docs/FORMATS.md");
}

#[test]
fn guide_beads() {
    run_doc("docs/beads.md");
}

#[test]
fn guide_benchmarks() {
    run_doc("docs/benchmarks.md");
}

#[test]
fn guide_conventions() {
    run_doc("docs/conventions.md");
}

#[test]
fn guide_editors() {
    run_doc("docs/editors.md");
}

#[test]
fn guide_gates_and_tasks() {
    run_doc("docs/gates-and-tasks.md");
}

#[test]
fn guide_inspector() {
    run_doc("docs/inspector.md");
}

#[test]
fn guide_interop() {
    run_doc("docs/interop.md");
}

#[test]
fn guide_live_specs() {
    run_doc("docs/live-specs.md");
}

#[test]
fn guide_mail_and_molecules() {
    run_doc("docs/mail-and-molecules.md");
}

#[test]
fn guide_many_agents() {
    run_doc("docs/many-agents.md");
}

#[test]
fn guide_reference() {
    run_doc("docs/reference.md");
}

#[test]
fn guide_refinery() {
    run_doc("docs/refinery.md");
}

#[test]
fn guide_report() {
    run_doc("docs/report.md");
}

#[test]
fn guide_sessions() {
    run_doc("docs/sessions.md");
}

#[test]
fn guide_tasks_verify() {
    run_doc("docs/tasks-verify.md");
}

#[test]
fn every_page_of_docs_is_under_test() {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .map(|e| format!("docs/{}", e.file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".md"))
        .collect();
    pages.push("README.md".into());
    pages.sort();
    let mut listed: Vec<String> = DOCS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        pages, listed,
        "DOCS in tests/it/docs/mod.rs lists every page"
    );
}

#[test]
fn the_untested_blocks_are_the_listed_ones() {
    let mut marked = Vec::new();
    for name in DOCS {
        let text = std::fs::read_to_string(root().join(name)).expect("read doc");
        let doc = block::parse(name, &text).unwrap_or_else(|e| panic!("{e}"));
        marked.extend(
            doc.untested
                .into_iter()
                .map(|u| (name.to_string(), u.reason)),
        );
    }
    let listed: Vec<(String, String)> = UNTESTED
        .iter()
        .map(|(d, r)| (d.to_string(), r.to_string()))
        .collect();
    assert_eq!(
        marked, listed,
        "UNTESTED in tests/it/docs/mod.rs lists every untested block"
    );
}

/// Runs the document `VERMAS_DOC` names (a path from the repository's root, or absolute),
/// for writing one: `VERMAS_DOC=docs/x.md VERMAS_DOC_SHOW=1 cargo test --test it
/// docs::one_document -- --ignored --nocapture` (`VERMAS_DOC_DRAFT=1` goes on past a
/// difference).
#[test]
#[ignore = "run by hand while writing a document"]
fn one_document() {
    let name = std::env::var("VERMAS_DOC").expect("VERMAS_DOC names the document");
    run_doc(&name);
}
