//! Setup commands end to end: `init`, `config get/set`, `completions`, `doctor`, and what
//! every bead command says when there is no `.beads` yet. Each test runs the real binary in
//! a real temporary git repository (or, for the outside-git case, a plain folder) and
//! checks the result with real git and by reading the files.

use crate::common::*;

use std::process::Command as StdCommand;

mod config;
mod doctor;
mod init;

/// The lines of `text` belonging to top-level section `header` (e.g. `git:`), header excluded.
fn section<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| *l != header);
    assert!(lines.next().is_some(), "section {header} missing:\n{text}");
    lines
        .take_while(|l| l.is_empty() || l.starts_with(' ') || l.starts_with('#'))
        .collect()
}
