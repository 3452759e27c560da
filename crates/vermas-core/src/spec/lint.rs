//! `spec check`: every link's file exists and defines its function; unreferenced tests,
//! broken files, and links GitHub or an editor would not open (legacy `::`, a path read
//! from the wrong folder) are reported; `--fix` rewrites those links to a form they open.

use super::target::{self, PathBase};
use super::{Annotation, LinkForm, Spec};
use crate::check::functions::{defined_functions, is_defined};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Must be fixed: `spec check` exits 1.
    Error,
    /// Worth fixing.
    Warning,
}

/// One thing `spec check` found, at a place in a file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// Error or warning.
    pub level: Level,
    /// Repository-relative file.
    pub file: String,
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// A warning for each spec whose front matter names a bead that `exists` does not know
/// (a report would show the id as if it were the spec's work).
pub fn missing_beads(root: &Path, specs: &[Spec], exists: impl Fn(&str) -> bool) -> Vec<Finding> {
    specs
        .iter()
        .filter_map(|spec| {
            let id = spec.bead.as_deref()?;
            if exists(id) {
                return None;
            }
            let text = std::fs::read_to_string(root.join(&spec.path)).unwrap_or_default();
            let line = text
                .lines()
                .position(|l| l.trim_start().starts_with("bead:"))
                .map_or(1, |i| i + 1);
            Some(Finding {
                level: Level::Warning,
                file: spec.path.clone(),
                line,
                column: 1,
                message: format!("the spec names bead {id}, which does not exist"),
                help: Some(
                    "fix the id (`vermas list --all` lists the beads), or create the work it \
                     stands for"
                        .to_string(),
                ),
            })
        })
        .collect()
}

/// Checks `specs` against the files in `root`.
pub fn check(root: &Path, specs: &[Spec]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut links = Links::default();
    for spec in specs {
        for p in &spec.problems {
            let level = if p.error {
                Level::Error
            } else {
                Level::Warning
            };
            out.push(finding(
                level,
                &spec.path,
                p.line,
                p.column,
                p.message.clone(),
                None,
            ));
        }
        for a in spec.criteria.iter().flat_map(|c| &c.annotations) {
            check_annotation(root, spec, a, &mut links, &mut out);
        }
    }
    unreferenced_tests(root, &links, &mut out);
    out
}

/// What the links of all specs point at, to find tests no criterion names, and each
/// linked file as read once for the whole run.
#[derive(Default)]
struct Links {
    /// The functions each linked file is named for.
    referenced: BTreeMap<String, BTreeSet<String>>,
    /// The first link to each file: spec path and line.
    first: BTreeMap<String, (String, usize)>,
    /// Each linked file read and scanned once (`None`: it cannot be read).
    scanned: HashMap<PathBuf, Option<Rc<Scanned>>>,
}

/// A linked file as the checks of its links need it, read and scanned once per run (a
/// spec with 48 links into one large script reads it once, not 48 times).
struct Scanned {
    /// The functions it defines, with their lines (`None`: a language vermas cannot read).
    defined: Option<Vec<(String, usize)>>,
    /// True for a shell script.
    shell: bool,
    /// True for a script that never reads its arguments (so `#function` never runs).
    no_dispatcher: bool,
}

impl Links {
    /// The file at `path` (named `file` in its links), read and scanned on first use.
    fn scan(&mut self, path: &Path, file: &str) -> Option<Rc<Scanned>> {
        self.scanned
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let bytes = std::fs::read(path).ok()?;
                let text = String::from_utf8_lossy(&bytes);
                Some(Rc::new(Scanned {
                    defined: defined_functions(file, &text),
                    shell: crate::check::functions::is_shell(file, &text),
                    no_dispatcher: runs_without_dispatcher(path, &text),
                }))
            })
            .clone()
    }
}

/// Adds a finding at an annotation: level, message, help.
type At<'a> = dyn FnMut(Level, String, Option<String>) + 'a;

/// The findings of one annotation of `spec`, noting what it links to in `links`.
fn check_annotation(
    root: &Path,
    spec: &Spec,
    a: &Annotation,
    links: &mut Links,
    out: &mut Vec<Finding>,
) {
    let mut at = |level, message: String, help: Option<String>| {
        out.push(finding(level, &spec.path, a.line, a.column, message, help));
    };
    if link_form(root, spec, a, &mut at) {
        linked_file(root, spec, a, links, &mut at);
    }
}

/// The findings about how `a` is written: an invalid target (false: nothing more to
/// check), a bad `timeout=` option, a form GitHub would not open.
fn link_form(root: &Path, spec: &Spec, a: &Annotation, at: &mut At<'_>) -> bool {
    if let Some(e) = &a.error {
        at(
            Level::Error,
            format!("invalid target '{}': {e}", a.raw),
            None,
        );
        return false;
    }
    if let Some(t) = a.options.get("timeout")
        && let Err(e) = crate::config::parse_duration(t)
    {
        at(Level::Error, format!("link option timeout={t}: {e}"), None);
    }
    if let Some(fixed) = github_target(a, spec_dir(spec)) {
        at(
            Level::Warning,
            why_github_misses(root, spec_dir(spec), a),
            Some(format!(
                "`vermas spec check --fix` rewrites it to `{fixed}`"
            )),
        );
    }
    true
}

/// The findings about the file `a` links to (inside the repository, readable) and its
/// function; records the link in `links`.
fn linked_file(root: &Path, spec: &Spec, a: &Annotation, links: &mut Links, at: &mut At<'_>) {
    // A reader may take `/tests/x.sh` for an absolute path: say what it means.
    let rooted = if target::path_base(&a.raw) == PathBase::Root {
        " (a leading / is the repository root)"
    } else {
        ""
    };
    let path = match crate::check::contained(root, &a.file) {
        Ok(p) => p,
        Err(why) => {
            at(Level::Error, format!("{why}{rooted}"), None);
            return;
        }
    };
    let Some(scanned) = links.scan(&path, &a.file) else {
        at(
            Level::Error,
            format!("{} cannot be read{rooted}", a.file),
            None,
        );
        return;
    };
    links
        .first
        .entry(a.file.clone())
        .or_insert_with(|| (spec.path.clone(), a.line));
    let Some(function) = &a.function else {
        return;
    };
    links
        .referenced
        .entry(a.file.clone())
        .or_default()
        .insert(function.clone());
    linked_function(&scanned, &a.file, function, at);
}

/// The findings about `function` of linked `file` (as `scanned`): not defined there, a
/// script that would never call it, or a shell function defined more than once.
fn linked_function(scanned: &Scanned, file: &str, function: &str, at: &mut At<'_>) {
    if let Some(defined) = &scanned.defined
        && !is_defined(function, defined)
    {
        at(
            Level::Error,
            format!("function {function} is not defined in {file}"),
            Some(format!(
                "define {function} in {file}, or change the link to a function {file} defines"
            )),
        );
    } else if scanned.no_dispatcher {
        at(
            Level::Error,
            format!("{file} never reads its arguments, so #{function} would never be called"),
            Some(format!(
                "add \"$@\" at the end of {file} so it runs the function named on its command line"
            )),
        );
    }
    let redefined = match (&scanned.defined, scanned.shell) {
        (Some(defined), true) => crate::check::functions::redefinitions(defined, function),
        _ => Vec::new(),
    };
    if let [earlier @ .., last] = redefined.as_slice() {
        let earlier: Vec<String> = earlier.iter().map(usize::to_string).collect();
        at(
            Level::Warning,
            format!(
                "function {function} is defined more than once in {file} (lines {} and {last}): bash runs the last one, at line {last}",
                earlier.join(", ")
            ),
            Some(format!(
                "remove or rename the other definitions of {function}"
            )),
        );
    }
}

/// Warns about each `test_*` function of a linked file that no criterion names.
fn unreferenced_tests(root: &Path, links: &Links, out: &mut Vec<Finding>) {
    for (file, names) in &links.referenced {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let Some(defined) = defined_functions(file, &text) else {
            continue;
        };
        for (name, line) in defined {
            if name.starts_with("test_")
                && !names
                    .iter()
                    .any(|n| n == &name || n.ends_with(&format!("::{name}")))
            {
                out.push(finding(
                    Level::Warning,
                    file,
                    line,
                    1,
                    format!("{name} is not referenced by any spec criterion"),
                    links
                        .first
                        .get(file)
                        .map(|(s, l)| format!("link it from a criterion, e.g. near {s}:{l}")),
                ));
            }
        }
    }
}

/// The folder of `spec` in the repository (`specs`; empty at the root).
fn spec_dir(spec: &Spec) -> &str {
    spec.path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The target to write instead of `a.raw`, when that differs, so that GitHub and editors
/// open the file vermas runs: `#` instead of the legacy `::`, and a path without `/`, `./`
/// or `../` (which vermas reads from the repository root, but GitHub and editors from the
/// spec's folder) written from the spec's folder (`../tests/x.sh`). Only markdown links:
/// link-like text is never clickable, and ralph reads it as written.
pub(crate) fn github_target(a: &Annotation, spec_dir: &str) -> Option<String> {
    if a.form != LinkForm::Markdown || a.error.is_some() {
        return None;
    }
    let path = written_path(&a.raw);
    let path = match target::path_base(path) {
        PathBase::Bare if !spec_dir.is_empty() => {
            target::encode_percent(&target::spec_relative(spec_dir, &a.file))
        }
        _ => path.to_string(),
    };
    let fixed = match &a.function {
        Some(f) => format!("{path}#{f}"),
        None => path,
    };
    (fixed != a.raw).then_some(fixed)
}

/// The path part of a target as written: before the first `#`, else the first `::`.
fn written_path(raw: &str) -> &str {
    let end = raw
        .find('#')
        .or_else(|| raw.find("::"))
        .unwrap_or(raw.len());
    &raw[..end]
}

/// Why GitHub (and an editor) would not open the file vermas runs for `a`.
fn why_github_misses(root: &Path, spec_dir: &str, a: &Annotation) -> String {
    if a.legacy {
        return format!(
            "'{}' uses the legacy `::` form, which GitHub and editors cannot open",
            a.raw
        );
    }
    let written = target::decode_percent(written_path(&a.raw));
    let seen = written
        .ok()
        .and_then(|w| target::normalise(&format!("{spec_dir}/{w}")));
    let how = "GitHub and editors read a path without ./, ../ or / from the spec's folder, vermas from the repository root";
    match seen {
        Some(seen) if root.join(&seen).exists() => format!(
            "'{}' opens {seen} on GitHub, a different file from the {} vermas runs ({how})",
            a.raw, a.file
        ),
        Some(seen) => format!(
            "'{}' opens {seen} on GitHub, which does not exist (404) ({how})",
            a.raw
        ),
        None => format!("'{}' cannot be opened on GitHub ({how})", a.raw),
    }
}

fn finding(
    level: Level,
    file: &str,
    line: usize,
    column: usize,
    message: String,
    help: Option<String>,
) -> Finding {
    Finding {
        level,
        file: file.to_string(),
        line,
        column,
        message,
        help,
    }
}

/// True for an executable shell script that never looks at its arguments: run with a
/// function name, it would ignore it.
fn runs_without_dispatcher(path: &Path, text: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    let shell = text
        .lines()
        .next()
        .is_some_and(|l| l.starts_with("#!") && l.contains("sh"));
    executable
        && shell
        && !["$1", "$@", "$*", "${1", "${@", "${*", "$#"]
            .iter()
            .any(|r| text.contains(r))
}

/// `text` with every markdown link target of `spec` that GitHub or an editor would not
/// open rewritten to the form they do ([`github_target`]): `tests/x.sh::fn` in `specs/`
/// becomes `../tests/x.sh#fn`. Nothing else changes.
pub fn fix_links(text: &str, spec: &Spec) -> String {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for a in spec.criteria.iter().flat_map(|c| &c.annotations) {
        let Some(fixed) = github_target(a, spec_dir(spec)) else {
            continue;
        };
        let (start, end) = a.span;
        let link = &text[start..end];
        // The target follows the label's `](`; the label is a kind, so the first one.
        let Some(open) = link.find("](") else {
            continue;
        };
        if let Some(pos) = link[open..].find(&a.raw) {
            let from = start + open + pos;
            edits.push((from, from + a.raw.len(), fixed));
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (from, to, fixed) in edits {
        out.replace_range(from..to, &fixed);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fix_rewrites_only_the_links_github_would_not_open() {
        let text = "# S\n\n## Success Criteria\n\n- [ ] a [verify](tests/x.sh#f \"timeout=1s\")\n- [ ] b [verify](<tests/x.sh::g>)\n- [ ] c [verify](../tests/x.sh#h) [verify](/tests/x.sh#i)\n- [ ] d [verify](tests/x.nix::Say hi)\n";
        let spec = crate::spec::parse(text, "specs/s.md");
        let want = text
            .replace("(tests/x.sh#f", "(../tests/x.sh#f")
            .replace("(<tests/x.sh::g>)", "(<../tests/x.sh#g>)");
        assert_eq!(fix_links(text, &spec), want);
        let again = crate::spec::parse(&want, "specs/s.md");
        assert_eq!(
            fix_links(&want, &again),
            want,
            "a second fix changes nothing"
        );
        // A spec at the repository root reads bare paths as GitHub does: only `::` changes.
        let root = crate::spec::parse(text, "s.md");
        assert_eq!(
            fix_links(text, &root),
            text.replace("(<tests/x.sh::g>)", "(<tests/x.sh#g>)")
        );
    }
}
