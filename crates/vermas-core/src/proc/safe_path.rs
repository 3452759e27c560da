//! The PATH every command vermas runs is looked up on and gets: the caller's (or the
//! job's own), without the entries through which the checked code could stand in for the
//! checker: an empty entry, `.` or any relative one (the folder the command runs in), and
//! any folder inside the repository the command runs in. So `bash`, `cargo`, `python3`,
//! `git` or the LLM command are never the repository's own copies. A job's program is
//! looked up there once per process ([`find`]).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// `path` without its entries that are empty, relative, or inside `dir` (the folder a
/// command runs in: the repository, or a worktree of it). Worked out once per pair.
pub fn safe(path: &OsStr, dir: &Path) -> OsString {
    static SEEN: Mutex<Option<HashMap<(OsString, PathBuf), OsString>>> = Mutex::new(None);
    let key = (path.to_os_string(), dir.to_path_buf());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = seen.as_ref().and_then(|m| m.get(&key)) {
        return found.clone();
    }
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|entry| {
            if entry.as_os_str().is_empty() || !entry.is_absolute() {
                return false;
            }
            let real = std::fs::canonicalize(entry).unwrap_or_else(|_| entry.clone());
            !real.starts_with(&root) && !entry.starts_with(&root)
        })
        .collect();
    let safe = std::env::join_paths(kept).unwrap_or_default();
    seen.get_or_insert_with(HashMap::new)
        .insert(key, safe.clone());
    safe
}

/// The PATH a job running in `dir` gets: its own `PATH` (from `env`), else vermas's, made
/// [`safe`].
pub fn for_job(env: &[(String, String)], dir: &Path) -> OsString {
    let path = match env.iter().rev().find(|(k, _)| k == "PATH") {
        Some((_, v)) => OsString::from(v),
        None => std::env::var_os("PATH").unwrap_or_default(),
    };
    safe(&path, dir)
}

/// Where the program `name` is on vermas's PATH made [`safe`] for a command in `dir`; the
/// name itself when it is not found (the spawn then fails as git or a shell would).
pub fn program(name: &str, dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = safe(&std::env::var_os("PATH").unwrap_or_default(), dir);
    std::env::split_paths(&path)
        .map(|folder| folder.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Where `program` is found on `path` (the job's PATH made [`safe`]), so
/// the child makes one `exec` rather than one per folder before it. `None` when `program`
/// is a path, is not found, or a relative folder comes first (the spawn then searches as
/// ever, on the same PATH).
pub fn find(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    if program.contains('/') || program.is_empty() {
        return None;
    }
    // Where a program was found is kept for the process, as a shell hashes a command, and
    // used while it is still an executable file there.
    type Found = HashMap<(String, std::ffi::OsString), PathBuf>;
    static FOUND: Mutex<Option<Found>> = Mutex::new(None);
    let key = (program.to_string(), path.to_os_string());
    let known = FOUND
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(|m| m.get(&key).cloned());
    if let Some(known) = known.filter(|k| is_executable_file(k)) {
        return Some(known);
    }
    let found = look_up(program, path)?;
    FOUND
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(key, found.clone());
    Some(found)
}

/// True when `path` is a file someone may execute.
fn is_executable_file(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// [`find`]'s search: the first executable file `program` in a folder of `path`.
fn look_up(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    for folder in std::env::split_paths(path) {
        if !folder.is_absolute() {
            return None;
        }
        let candidate = folder.join(program);
        if is_executable_file(&candidate) {
            return Some(candidate);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_out_empty_relative_and_repository_entries() {
        let repo = std::env::temp_dir().join(format!("vermas-safe-path-{}", std::process::id()));
        std::fs::create_dir_all(repo.join("bin")).unwrap();
        let path = format!(
            "/usr/bin::.:bin:{}:/bin:{}/../{}/bin",
            repo.join("bin").display(),
            repo.display(),
            repo.file_name().unwrap().to_string_lossy()
        );
        let got = safe(OsStr::new(&path), &repo);
        assert_eq!(got, OsString::from("/usr/bin:/bin"));
        let _ = std::fs::remove_dir_all(&repo);
    }

    #[test]
    fn a_program_is_found_on_the_jobs_own_path_first() {
        let bin = std::env::temp_dir().join(format!("vermas-on-path-{}", std::process::id()));
        std::fs::create_dir_all(&bin).unwrap();
        let tool = bin.join("vermas-test-tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let path = bin.clone().into_os_string();
        assert_eq!(find("vermas-test-tool", &path), None, "not executable");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find("vermas-test-tool", &path), Some(tool.clone()));
        assert_eq!(find(&tool.to_string_lossy(), &path), None, "a path already");
        let relative = std::ffi::OsString::from(format!("rel:{}", bin.display()));
        assert_eq!(
            find("vermas-test-tool", &relative),
            None,
            "relative folder first"
        );
        std::fs::remove_dir_all(&bin).unwrap();
    }
}
