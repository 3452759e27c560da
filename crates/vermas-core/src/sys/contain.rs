//! Keeping what vermas reads and writes inside the repository: a symlink on the way to a
//! record, a spec or a judged file is followed only when it leads to another place inside
//! the repository. One leading outside is refused with an error that names the link and
//! shows nothing of what lies behind it.
//!
//! Folders are checked once per command with [`resolve`] (a `lstat` per path component);
//! the files in them are opened with `O_NOFOLLOW` ([`read_to_string`], [`open`]), so the
//! usual case, a regular file, costs no extra system call.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// `path` made absolute against the current directory, without resolving links.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `path` (absolute and under `root`, or relative to it) as the place it really names:
/// every symlink on the way is followed only when it resolves inside `root` (a canonical
/// folder), and `..` may not climb out of it. Parts that do not exist yet are kept as
/// written (so a path about to be created can be checked). A symlink leading outside, a
/// `..` leaving `root` or an absolute path elsewhere is refused (exit 2).
pub fn resolve(root: &Path, path: &Path) -> Result<PathBuf> {
    let rel = if path.is_absolute() {
        path.strip_prefix(root)
            .map_err(|_| outside(root, path, None, path))?
    } else {
        path
    };
    let mut cur = root.to_path_buf();
    let mut exists = true;
    for part in rel.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !cur.pop() || !cur.starts_with(root) {
                    return Err(outside(root, path, None, path));
                }
            }
            Component::Normal(name) => {
                cur.push(name);
                if !exists {
                    continue;
                }
                match std::fs::symlink_metadata(&cur) {
                    Ok(md) if md.file_type().is_symlink() => {
                        let target = resolve_link(&cur)?;
                        if !target.starts_with(root) {
                            return Err(outside(root, &cur, Some(&cur), path));
                        }
                        exists = target.exists();
                        cur = target;
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => exists = false,
                    Err(e) => return Err(Error::io(&cur, e)),
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(outside(root, path, None, path));
            }
        }
    }
    Ok(cur)
}

/// Where the symlink `link` leads: its canonical target, or for a dangling link the
/// place it names (`..` resolved by name), which is where a write through it would land.
fn resolve_link(link: &Path) -> Result<PathBuf> {
    if let Ok(target) = std::fs::canonicalize(link) {
        return Ok(target);
    }
    let text = std::fs::read_link(link).map_err(|e| Error::io(link, e))?;
    let mut out = link.parent().map(Path::to_path_buf).unwrap_or_default();
    for part in text.components() {
        match part {
            Component::RootDir | Component::Prefix(_) => out = PathBuf::from(part.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    Ok(out)
}

/// The refusal of `path`: because of the symlink `link` when there is one, else because
/// `shown` itself (an absolute path or a `..`) leaves `root`. `wanted` is what was asked
/// for, named too when it is not the link itself.
fn outside(root: &Path, shown: &Path, link: Option<&Path>, wanted: &Path) -> Error {
    let name = |p: &Path| {
        p.strip_prefix(root)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    let message = match link {
        Some(link) => {
            let to = std::fs::read_link(link)
                .map(|t| format!(" (to {})", t.display()))
                .unwrap_or_default();
            let via = if link == wanted || root.join(wanted) == link {
                String::new()
            } else {
                format!(", on the way to {}", name(wanted))
            };
            format!(
                "{} is a symlink leading outside the repository{to}{via}; refused",
                name(link)
            )
        }
        None => format!("{} is outside the repository; refused", name(shown)),
    };
    Error::invalid_with_help(
        message,
        "vermas reads and writes only inside the repository: replace the symlink with the \
         real file or folder, or remove it",
    )
}

/// True for the error `open` gives when `O_NOFOLLOW` met a symlink.
fn is_link_error(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// Opens `path` with `options`, never through a final symlink unless `inside` (which
/// resolves it, refusing one leading outside) lets it through; the folders on the way
/// must have been checked already.
pub fn open(
    options: &mut OpenOptions,
    path: &Path,
    inside: impl FnOnce(&Path) -> Result<PathBuf>,
) -> Result<File> {
    match options.custom_flags(libc::O_NOFOLLOW).open(path) {
        Ok(f) => Ok(f),
        Err(e) if is_link_error(&e) => {
            let real = inside(path)?;
            options
                .custom_flags(0)
                .open(&real)
                .map_err(|e| Error::io(path, e))
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Reads the text file `path` as [`open`] opens it.
pub fn read_to_string(
    path: &Path,
    inside: impl FnOnce(&Path) -> Result<PathBuf>,
) -> Result<String> {
    let file = open(OpenOptions::new().read(true), path, inside)?;
    std::io::read_to_string(file).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn follows_links_inside_and_refuses_the_rest() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let root = base.join("repo");
        let away = base.join("away");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(&away).unwrap();
        std::fs::write(root.join("a/f"), "x").unwrap();
        std::fs::write(away.join("secret"), "TOPSECRET").unwrap();
        symlink("a", root.join("in")).unwrap();
        symlink(&away, root.join("out")).unwrap();
        symlink(away.join("secret"), root.join("leaf")).unwrap();
        symlink("../away/none", root.join("dangling")).unwrap();

        assert_eq!(resolve(&root, &root.join("a/f")).unwrap(), root.join("a/f"));
        assert_eq!(resolve(&root, Path::new("in/f")).unwrap(), root.join("a/f"));
        assert_eq!(
            resolve(&root, Path::new("new/x")).unwrap(),
            root.join("new/x")
        );
        for bad in [
            "out/secret",
            "leaf",
            "dangling",
            "../away/secret",
            "a/../../x",
        ] {
            let e = resolve(&root, Path::new(bad)).unwrap_err().to_string();
            assert!(e.contains("outside the repository"), "{bad}: {e}");
            assert_eq!(resolve(&root, Path::new(bad)).unwrap_err().exit_code(), 2);
        }
        let e = resolve(&root, &root.join("out/secret"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("out is a symlink"), "{e}");
        assert!(e.contains("on the way to out/secret"), "{e}");
        assert!(resolve(&root, &away).is_err());

        let read = |p: &str| read_to_string(&root.join(p), |p| resolve(&root, p));
        assert_eq!(read("a/f").unwrap(), "x");
        assert_eq!(read("in/f").unwrap(), "x");
        let e = read("leaf").unwrap_err().to_string();
        assert!(
            e.contains("leaf is a symlink") && !e.contains("TOPSECRET"),
            "{e}"
        );
    }
}
