//! git hooks: installing, removing and running the pre-push gate.
//!
//! `install` writes a small shell script into the folder git really runs hooks from
//! (`core.hooksPath`, else the common git folder's `hooks`, shared by linked worktrees). A
//! hook another tool put there first is kept as `<name>.vermas-chained`; the script runs
//! it first, with the same arguments and stdin, and its failure blocks. `uninstall` puts
//! it back. What the gate checks lives in [`push`]; where each pushed commit is checked
//! (in place, or in a temporary worktree of it) in [`tree`].

mod push;
mod tree;

pub use push::{
    PushPlan, PushRef, PushTarget, STAMP_FILE, Scope, parse_refs, plan_push, specs_to_run,
    stamp_key, stamp_matches, write_stamp,
};
pub use tree::PushedTree;

use crate::error::{Error, Result};
use crate::git::GitRepo;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The hooks vermas provides.
pub(crate) const PROVIDED: &[&str] = &["pre-push"];

/// The line that marks a hook script as vermas's own.
pub(crate) const MARKER: &str = "# vermas-managed-hook";

/// Suffix of the file that keeps the hook vermas replaced (and runs first).
pub(crate) const CHAINED_SUFFIX: &str = ".vermas-chained";

/// Hook names git knows, to tell a hook vermas does not provide from a typo.
const GIT_HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// The hook `name` if vermas provides it; otherwise an error that lists what it provides.
pub fn hook_name(name: &str) -> Result<&'static str> {
    if let Some(known) = PROVIDED.iter().find(|p| **p == name) {
        return Ok(known);
    }
    let provided = PROVIDED.join(", ");
    Err(if GIT_HOOKS.contains(&name) {
        Error::invalid_with_help(
            format!("vermas has no {name} hook"),
            format!("vermas provides: {provided}"),
        )
    } else {
        Error::invalid_with_help(
            format!("unknown hook '{name}'"),
            format!("vermas provides: {provided} (e.g. `vermas git-hooks install pre-push`)"),
        )
    })
}

/// Where a git hook vermas provides stands: its path and whether vermas's script is there.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GitHookState {
    /// The hook's name, e.g. `pre-push`.
    pub name: &'static str,
    /// Its path in the hooks folder git uses.
    pub path: PathBuf,
    /// True when vermas's script is installed there.
    pub installed: bool,
    /// True when another tool's hook is kept and chained before vermas's.
    pub chained: bool,
}

/// The git hooks vermas provides, as they stand in `repo`.
pub fn git_hooks(repo: &GitRepo) -> Result<Vec<GitHookState>> {
    let dir = repo.hooks_dir()?;
    Ok(PROVIDED
        .iter()
        .map(|name| {
            let path = dir.join(name);
            let installed = std::fs::read_to_string(&path).is_ok_and(|t| t.contains(MARKER));
            let chained = dir.join(format!("{name}{CHAINED_SUFFIX}")).exists();
            GitHookState {
                name,
                path,
                installed,
                chained,
            }
        })
        .collect())
}

/// What `install` did.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The hook script.
    pub hook: PathBuf,
    /// The other tool's hook that runs first, if there is one.
    pub chained: Option<PathBuf>,
    /// False when the same script was already installed (nothing was written).
    pub changed: bool,
}

/// What `uninstall` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Uninstalled {
    /// vermas's hook was removed and the chained hook put back at this path.
    Restored(PathBuf),
    /// vermas's hook was removed; there was nothing to restore.
    Removed(PathBuf),
    /// No vermas hook was there; a hook at this path belongs to another tool and was left.
    NotInstalled(PathBuf),
}

/// The hook script for `name`, running `exe` (found by absolute path, else `vermas` on
/// PATH) after the chained hook, if any.
pub(crate) fn script(name: &str, exe: Option<&Path>) -> String {
    let vermas = exe
        .map(|p| crate::text::shell::quote(&p.to_string_lossy()))
        .unwrap_or_else(|| "vermas".to_string());
    format!(
        "#!/bin/sh
{MARKER} ({name}): written by `vermas hooks install {name}`.
# A hook that was here before is kept as {name}{CHAINED_SUFFIX} and runs first, with the
# same arguments and input; if it fails the push is refused. Then vermas checks the specs
# the push touches. Bypass once: git push --no-verify (or VERMAS_SKIP=1 for vermas's part).
# Remove (restoring the kept hook): vermas hooks uninstall {name}
vermas={vermas}
[ -x \"$vermas\" ] || vermas=vermas
chained=\"$(dirname \"$0\")/{name}{CHAINED_SUFFIX}\"
if [ -x \"$chained\" ]; then
\tinput=$(mktemp \"${{TMPDIR:-/tmp}}/vermas-{name}.XXXXXX\") || exit 1
\tcat >\"$input\"
\t\"$chained\" \"$@\" <\"$input\" || {{ status=$?; rm -f \"$input\"; exit \"$status\"; }}
\texec <\"$input\"
\trm -f \"$input\"
fi
exec \"$vermas\" hooks run {name} \"$@\"
"
    )
}

/// True when `bytes` is a hook script vermas wrote.
fn is_ours(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .lines()
        .any(|l| l.starts_with(MARKER))
}

/// True when something (a file, a link, even a dangling one) is at `path`.
fn present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Installs hook `name` in `repo`'s hooks folder, running `exe`. An existing hook of
/// another tool is renamed to `<name>.vermas-chained` and chained; installing the same
/// script again writes nothing.
pub fn install(repo: &GitRepo, name: &str, exe: Option<&Path>) -> Result<Installed> {
    let name = hook_name(name)?;
    let dir = repo.hooks_dir()?;
    let hook = dir.join(name);
    let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
    let text = script(name, exe);
    let existing = std::fs::read(&hook).ok();
    let kept = || present(&chained).then(|| chained.clone());
    if let Some(bytes) = &existing
        && is_ours(bytes)
    {
        if bytes == text.as_bytes() && is_executable(&hook) {
            return Ok(Installed {
                hook,
                chained: kept(),
                changed: false,
            });
        }
        write_script(&dir, &hook, &text)?;
        return Ok(Installed {
            hook,
            chained: kept(),
            changed: true,
        });
    }
    if present(&hook) && present(&chained) {
        return Err(Error::conflict(format!(
            "{} is another tool's hook, and {} already holds one vermas kept earlier",
            hook.display(),
            chained.display()
        ))
        .with_help("merge or remove one of the two by hand, then install again"));
    }
    std::fs::create_dir_all(&dir).map_err(|e| unwritable(&dir, e))?;
    let tmp = write_temp(&dir, name, &text)?;
    if present(&hook) {
        if let Err(e) = std::fs::rename(&hook, &chained) {
            // Best effort: the error that matters is returned.
            let _ = std::fs::remove_file(&tmp);
            return Err(unwritable(&dir, e));
        }
        if let Err(e) = std::fs::rename(&tmp, &hook) {
            // Put the other tool's hook back: nothing is lost.
            let _ = std::fs::rename(&chained, &hook);
            // Best effort: the error that matters is returned.
            let _ = std::fs::remove_file(&tmp);
            return Err(unwritable(&dir, e));
        }
    } else {
        std::fs::rename(&tmp, &hook).map_err(|e| {
            // Best effort: the error that matters is returned.
            let _ = std::fs::remove_file(&tmp);
            unwritable(&dir, e)
        })?;
    }
    Ok(Installed {
        hook,
        chained: kept(),
        changed: true,
    })
}

/// Removes vermas's hook `name` from `repo` and restores the hook it chained, if any. A
/// hook that is not vermas's is left alone.
pub fn uninstall(repo: &GitRepo, name: &str) -> Result<Uninstalled> {
    let name = hook_name(name)?;
    let dir = repo.hooks_dir()?;
    let hook = dir.join(name);
    let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
    let ours = std::fs::read(&hook).is_ok_and(|b| is_ours(&b));
    if !ours && present(&hook) {
        return Ok(Uninstalled::NotInstalled(hook));
    }
    if present(&chained) {
        // One rename replaces vermas's script (or fills the empty place).
        std::fs::rename(&chained, &hook).map_err(|e| unwritable(&dir, e))?;
        return Ok(Uninstalled::Restored(hook));
    }
    if ours {
        std::fs::remove_file(&hook).map_err(|e| unwritable(&dir, e))?;
        return Ok(Uninstalled::Removed(hook));
    }
    Ok(Uninstalled::NotInstalled(hook))
}

/// Writes `text` to a new executable temporary file in `dir`.
fn write_temp(dir: &Path, name: &str, text: &str) -> Result<PathBuf> {
    let tmp = dir.join(format!(".{name}.vermas-tmp.{}", std::process::id()));
    let result = std::fs::write(&tmp, text)
        .and_then(|()| std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)));
    if let Err(e) = result {
        // Best effort: the error that matters is returned.
        let _ = std::fs::remove_file(&tmp);
        return Err(unwritable(dir, e));
    }
    Ok(tmp)
}

/// Replaces `hook` with an executable script holding `text`, atomically.
fn write_script(dir: &Path, hook: &Path, text: &str) -> Result<()> {
    let name = hook
        .file_name()
        .map_or_else(|| "hook".into(), |n| n.to_string_lossy().into_owned());
    let tmp = write_temp(dir, &name, text)?;
    std::fs::rename(&tmp, hook).map_err(|e| {
        // Best effort: the error that matters is returned.
        let _ = std::fs::remove_file(&tmp);
        unwritable(dir, e)
    })
}

/// True when `path` has an execute bit.
fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// An I/O error on the hooks folder, saying what vermas was trying to do.
fn unwritable(dir: &Path, e: std::io::Error) -> Error {
    let kind = e.kind();
    Error::io(
        dir,
        std::io::Error::new(kind, format!("cannot write git hooks here: {e}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_unprovided_hook_names_are_refused_with_what_exists() {
        assert_eq!(hook_name("pre-push").unwrap(), "pre-push");
        let e = hook_name("pre-commit").unwrap_err();
        assert!(
            e.to_string().contains("vermas has no pre-commit hook"),
            "{e}"
        );
        let e = hook_name("prepush").unwrap_err();
        assert!(e.to_string().contains("unknown hook 'prepush'"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn script_is_marked_quotes_the_binary_and_falls_back_to_path() {
        let s = script("pre-push", Some(Path::new("/opt/it's here/vermas")));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(is_ours(s.as_bytes()));
        assert!(s.contains("vermas='/opt/it'\\''s here/vermas'"), "{s}");
        assert!(s.contains("exec \"$vermas\" hooks run pre-push \"$@\""));
        assert!(script("pre-push", None).contains("vermas=vermas\n"));
        assert!(!is_ours(b"#!/bin/sh\nexit 0\n"));
    }
}
