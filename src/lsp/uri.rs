//! `file://` URIs and the local paths they name, percent-encoding included.

use lsp_types::Uri;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The absolute local path a `file:` URI names; `None` for another scheme, a remote host
/// or a malformed escape.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    path_of(uri.as_str())
}

/// The absolute local path the URI text names (see [`to_path`]).
pub fn path_of(text: &str) -> Option<PathBuf> {
    let rest = text
        .strip_prefix("file://")
        .or_else(|| text.strip_prefix("FILE://"))?;
    let (host, path) = rest.split_at(rest.find('/')?);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = decode(path)?;
    if bytes.contains(&0) {
        return None;
    }
    Some(PathBuf::from(OsString::from_vec(bytes)))
}

/// Percent-decodes `text`; `None` for a `%` not followed by two hex digits.
fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hi = hex(bytes.next()?)?;
            let lo = hex(bytes.next()?)?;
            out.push(hi << 4 | lo);
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// The value of one hex digit.
fn hex(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// The `file://` URI of absolute `path`, with `#fragment` when given.
pub fn from_path(path: &Path, fragment: Option<&str>) -> Option<Uri> {
    let mut text = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            text.push(char::from(b));
        } else {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    if let Some(f) = fragment {
        text.push('#');
        text.push_str(f);
    }
    Uri::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_escaped_paths() {
        let path = Path::new("/tmp/a b/ünï%.md");
        let uri = from_path(path, Some("L7")).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%BCn%C3%AF%25.md#L7");
        assert_eq!(to_path(&uri).unwrap(), path);
        assert_eq!(
            path_of("file://localhost/x/y.md").unwrap(),
            Path::new("/x/y.md")
        );
    }

    #[test]
    fn refuses_what_is_no_local_file() {
        assert_eq!(path_of("untitled:Untitled-1"), None);
        assert_eq!(path_of("https://example.org/x.md"), None);
        assert_eq!(path_of("file://server/share/x.md"), None);
        assert_eq!(path_of("file:///x/%zz.md"), None);
        assert_eq!(path_of("file:///x/%4"), None);
        assert_eq!(path_of("file:///x/%00.md"), None);
        assert_eq!(path_of("file://"), None);
    }
}
