//! Where the page's links to check files point: GitHub's page of the file at the line when
//! the remote is on GitHub, else the file relative to the page. A path from a spec is
//! untrusted: it is percent-encoded and always starts with `./`, `../` or GitHub's URL, so
//! it can never be read as a scheme such as `javascript:`.

use std::path::{Component, Path};
use vermas_core::report::LinkBase;

/// How the page links repository files.
pub(super) struct Links {
    /// GitHub's base or relative paths.
    base: LinkBase,
    /// The project root as seen from the page's folder (`../../`), ending in `/`.
    to_root: String,
}

impl Links {
    /// Links for a page written into `page_dir` of a project at `root` (both absolute).
    pub(super) fn new(base: LinkBase, page_dir: &Path, root: &Path) -> Links {
        Links {
            base,
            to_root: relative(page_dir, root),
        }
    }

    /// The link to `file` (repository-relative) at `line`.
    pub(super) fn file(&self, file: &str, line: Option<usize>) -> String {
        let path = encode(file.trim_start_matches('/'));
        match &self.base {
            LinkBase::GitHub { repo_url, commit } => {
                let at = line.map(|l| format!("#L{l}")).unwrap_or_default();
                format!("{repo_url}/blob/{commit}/{path}{at}")
            }
            LinkBase::Relative => format!("{}{path}", self.to_root),
        }
    }
}

/// `to` as seen from folder `from` (`./`, `../../x/`), ending in `/`.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = String::from("./");
    for _ in common..from.len() {
        out.push_str("../");
    }
    for c in &to[common..] {
        out.push_str(&encode(&c.as_os_str().to_string_lossy()));
        out.push('/');
    }
    out
}

/// `text` percent-encoded except for unreserved characters and `/`.
pub(super) fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_never_start_with_a_scheme() {
        let links = Links::new(LinkBase::Relative, Path::new("/r"), Path::new("/r"));
        assert_eq!(
            links.file("javascript:alert(1)", None),
            "./javascript%3Aalert%281%29"
        );
        let links = Links::new(
            LinkBase::Relative,
            Path::new("/r/.beads/.cache"),
            Path::new("/r"),
        );
        assert_eq!(
            links.file("tests/a b.sh", Some(3)),
            "./../../tests/a%20b.sh"
        );
        let gh = Links::new(
            LinkBase::GitHub {
                repo_url: "https://github.com/a/b".into(),
                commit: "abc".into(),
            },
            Path::new("/x"),
            Path::new("/r"),
        );
        assert_eq!(
            gh.file("tests/x.sh", Some(12)),
            "https://github.com/a/b/blob/abc/tests/x.sh#L12"
        );
        assert_eq!(relative(Path::new("/out"), Path::new("/r/p")), "./../r/p/");
    }
}
