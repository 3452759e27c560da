//! The pre-push gate's decisions: the refs git is pushing, the commits to verify (each
//! pushed tree once), the specs they touch, and the stamp of trees that already passed
//! with the same specs.

use crate::error::{Error, Result};
use crate::git::{GitRepo, PushBase};
use crate::spec::Spec;
use std::collections::BTreeSet;
use std::path::Path;

/// Name of the stamp file in `.beads/.cache/`.
pub const STAMP_FILE: &str = "pre-push.stamp";

/// One line git writes on a pre-push hook's stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushRef {
    /// The local ref pushed, e.g. `refs/heads/main` (`(delete)` for a deletion).
    pub local_ref: String,
    /// The commit pushed (all zeros for a deletion).
    pub local_sha: String,
    /// The ref on the remote, e.g. `refs/heads/main`.
    pub remote_ref: String,
    /// What the remote has now (all zeros for a new ref).
    pub remote_sha: String,
}

/// True when `sha` is all zeros (git's "no object").
fn is_zero(sha: &str) -> bool {
    sha.bytes().all(|b| b == b'0')
}

impl PushRef {
    /// True when the push deletes the remote ref.
    pub fn is_delete(&self) -> bool {
        is_zero(&self.local_sha)
    }

    /// True when the remote has no such ref yet.
    pub fn is_new(&self) -> bool {
        is_zero(&self.remote_sha)
    }

    /// The remote ref without `refs/heads/` or `refs/tags/`, for messages.
    pub fn short_name(&self) -> &str {
        self.remote_ref
            .strip_prefix("refs/heads/")
            .or_else(|| self.remote_ref.strip_prefix("refs/tags/"))
            .unwrap_or(&self.remote_ref)
    }
}

/// Parses git's pre-push input: `<local ref> <local sha> <remote ref> <remote sha>` lines.
pub fn parse_refs(text: &str) -> Result<Vec<PushRef>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let sha = |s: &str| matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
        match fields.as_slice() {
            [lr, ls, rr, rs] if sha(ls) && sha(rs) => out.push(PushRef {
                local_ref: lr.to_string(),
                local_sha: ls.to_ascii_lowercase(),
                remote_ref: rr.to_string(),
                remote_sha: rs.to_ascii_lowercase(),
            }),
            _ => {
                return Err(Error::invalid_with_help(
                    format!(
                        "pre-push input line {} is not `<local ref> <local sha> <remote ref> <remote sha>`: {line:?}",
                        i + 1
                    ),
                    "git writes these lines on the hook's stdin; let `git push` run the hook",
                ));
            }
        }
    }
    Ok(out)
}

/// Which specs a push must pass (`hooks.pre_push.scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Specs changed by the push, and specs whose links point at files it changes.
    Changed,
    /// Every spec.
    All,
}

impl Scope {
    /// The scope a config value names (`all`, else `changed`; config validated it).
    pub fn from_config(value: &str) -> Scope {
        if value == "all" {
            Scope::All
        } else {
            Scope::Changed
        }
    }

    /// `changed` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Changed => "changed",
            Scope::All => "all",
        }
    }
}

/// One commit a push sends, to verify: every pushed ref with the same tree shares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushTarget {
    /// The tree id of the pushed commit.
    pub tree: String,
    /// The pushed commit (the first ref's, when several refs carry the same tree).
    pub commit: String,
    /// The short names of the remote refs that receive it.
    pub refs: Vec<String>,
    /// True when the checkout the hook runs in is this very tree: HEAD's tree, with no
    /// tracked change and no untracked file. Checks then run in place; otherwise in a
    /// temporary worktree of the commit.
    pub in_place: bool,
}

/// What a push must pass.
#[derive(Debug, Clone)]
pub struct PushPlan {
    /// The scope applied (`changed` falls back to `all` when the change is unknowable).
    pub scope: Scope,
    /// Files the push changes, relative to the spec root (scope `changed` only).
    pub changed: BTreeSet<String>,
    /// One line per pushed ref: what it was compared against.
    pub notes: Vec<String>,
    /// The commits to verify, one per distinct tree, in the order git gave the refs.
    pub targets: Vec<PushTarget>,
}

/// Decides what pushing `refs` to `remote` must pass: each pushed commit (deletions
/// need nothing), and, for scope `changed`, the files the push changes relative to the
/// spec root `root`.
pub fn plan_push(
    repo: &GitRepo,
    root: &Path,
    remote: &str,
    refs: &[PushRef],
    scope: Scope,
) -> Result<PushPlan> {
    let pushed: Vec<&PushRef> = refs.iter().filter(|r| !r.is_delete()).collect();
    let mut plan = PushPlan {
        scope,
        changed: BTreeSet::new(),
        notes: Vec::new(),
        targets: Vec::new(),
    };
    if pushed.is_empty() {
        plan.notes.push(if refs.is_empty() {
            "no refs pushed".to_string()
        } else {
            "the push only deletes refs".to_string()
        });
        return Ok(plan);
    }
    let head_tree = repo.tree_of("HEAD").ok();
    let mut clean = None;
    for r in &pushed {
        if !repo.is_commit(&r.local_sha) {
            return Err(Error::invalid_with_help(
                format!(
                    "{} pushes {}, which is not a commit (a bare tree or blob): the pre-push \
                     gate verifies commits only, so it refuses what it cannot verify",
                    r.short_name(),
                    r.local_sha
                ),
                "push a commit (or a tag of one)",
            ));
        }
        let tree = repo.tree_of(&r.local_sha)?;
        if let Some(t) = plan.targets.iter_mut().find(|t| t.tree == tree) {
            t.refs.push(r.short_name().to_string());
            continue;
        }
        let in_place = head_tree.as_deref() == Some(tree.as_str())
            && *clean.get_or_insert_with(|| checkout_is_clean(repo));
        plan.targets.push(PushTarget {
            tree,
            commit: r.local_sha.clone(),
            refs: vec![r.short_name().to_string()],
            in_place,
        });
    }
    if scope == Scope::Changed {
        let mut changed = BTreeSet::new();
        for r in &pushed {
            match changes_of(repo, remote, r) {
                Ok((paths, note)) => {
                    changed.extend(paths);
                    plan.notes.push(note);
                }
                Err(e) => {
                    plan.notes.push(format!(
                        "{}: cannot tell what the push changes ({e}); checking every spec",
                        r.short_name()
                    ));
                    plan.scope = Scope::All;
                    break;
                }
            }
        }
        plan.changed = relative_to_root(repo, root, changed);
    }
    Ok(plan)
}

/// True when the checkout holds exactly HEAD: no tracked change, no untracked file (an
/// ignored file, such as a build folder, is not part of what is pushed either way).
fn checkout_is_clean(repo: &GitRepo) -> bool {
    crate::git::cli::run(repo.workdir(), &["status", "--porcelain"])
        .is_ok_and(|out| out.trim().is_empty())
}

/// The specs of one pushed tree that `plan` must run, and a note for each one skipped.
pub fn specs_to_run(plan: &PushPlan, specs: Vec<Spec>) -> (Vec<Spec>, Vec<String>) {
    let mut notes = Vec::new();
    if plan.scope == Scope::All {
        return (specs, notes);
    }
    let kept = select_changed(specs, &plan.changed, &mut notes);
    (kept, notes)
}

/// The specs a change can break. A change of `.beads/` records alone breaks none; any
/// other change runs every spec except those whose `covers:` globs (and own files) it
/// misses. Each skipped spec gets a note saying why.
fn select_changed(
    specs: Vec<Spec>,
    changed: &BTreeSet<String>,
    notes: &mut Vec<String>,
) -> Vec<Spec> {
    let code: BTreeSet<&String> = changed
        .iter()
        .filter(|p| !p.starts_with(".beads/"))
        .collect();
    if code.is_empty() {
        if !specs.is_empty() {
            notes.push(if changed.is_empty() {
                "the push changes no files: no spec to run".to_string()
            } else {
                "the push changes only .beads/ records: no spec to run".to_string()
            });
        }
        return Vec::new();
    }
    let mut kept = Vec::new();
    for spec in specs {
        let own = spec_files(&spec);
        let hit = spec.covers.is_empty()
            || code.iter().any(|p| {
                own.contains(p.as_str())
                    || spec.covers.iter().any(|g| crate::text::glob::matches(g, p))
            });
        if hit {
            kept.push(spec);
        } else {
            notes.push(format!(
                "{} skipped: no changed file matches its covers ({})",
                spec.path,
                spec.covers.join(", ")
            ));
        }
    }
    kept
}

/// The spec file and every file its links name.
fn spec_files(spec: &Spec) -> BTreeSet<&str> {
    std::iter::once(spec.path.as_str())
        .chain(
            spec.criteria
                .iter()
                .flat_map(|c| &c.annotations)
                .map(|a| a.file.as_str()),
        )
        .collect()
}

fn relative_to_root(repo: &GitRepo, root: &Path, paths: BTreeSet<String>) -> BTreeSet<String> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let prefix = match root.strip_prefix(repo.workdir()) {
        Ok(p) if !p.as_os_str().is_empty() => format!("{}/", p.to_string_lossy()),
        _ => return paths,
    };
    paths
        .into_iter()
        .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
        .collect()
}

/// The paths pushing `r` changes on `remote`, and a line saying what it was compared with.
fn changes_of(repo: &GitRepo, remote: &str, r: &PushRef) -> Result<(Vec<String>, String)> {
    let name = r.short_name();
    let short = |s: &str| s.chars().take(7).collect::<String>();
    if !r.is_new() && repo.has_commit(&r.remote_sha) {
        let paths = repo.changed_paths(&r.remote_sha, &r.local_sha)?;
        let note = format!(
            "{name}: {} changed since the remote's {}",
            crate::text::words::plural(paths.len(), "file"),
            short(&r.remote_sha)
        );
        return Ok((paths, note));
    }
    let why = if r.is_new() {
        "new on the remote"
    } else {
        "the remote's commit is not here"
    };
    Ok(match repo.push_base(&r.local_sha, remote)? {
        PushBase::Commits { bases, against } => {
            let mut paths = BTreeSet::new();
            for b in &bases {
                paths.extend(repo.changed_paths(b, &r.local_sha)?);
            }
            let shown: Vec<String> = bases.iter().map(|b| short(b)).collect();
            let note = format!(
                "{name} ({why}): {} changed since {}, where it leaves {against}",
                crate::text::words::plural(paths.len(), "file"),
                shown.join(", ")
            );
            (paths.into_iter().collect(), note)
        }
        PushBase::NothingNew => (
            Vec::new(),
            format!("{name} ({why}): the remote already has every pushed commit"),
        ),
        PushBase::Everything => {
            let paths = repo.tree_paths(&r.local_sha)?;
            let note = format!(
                "{name} ({why}): no history in common with what is known of the remote; every commit is pushed, so every file counts as changed ({})",
                crate::text::words::plural(paths.len(), "file")
            );
            (paths, note)
        }
    })
}

/// Most passed keys the stamp file keeps (the newest).
const STAMP_KEYS: usize = 32;

/// The stamp of running `specs` on `tree` (with judges when `judge`): one line.
pub fn stamp_key(tree: &str, specs: &[Spec], judge: bool) -> String {
    let specs: Vec<String> = specs
        .iter()
        .map(|s| s.path.escape_default().to_string())
        .collect();
    format!(
        "vermas {} pre-push tree={tree} judge={judge} specs={}",
        env!("CARGO_PKG_VERSION"),
        specs.join(" ")
    )
}

/// True when the stamp in `cache_dir` says `key` already passed: a line of `key` with a
/// valid MAC under the repository's cache key (a line vermas did not write never counts).
pub fn stamp_matches(cache_dir: &Path, key: &str) -> bool {
    let Some(signed) = signed_line(cache_dir, key) else {
        return false;
    };
    std::fs::read_to_string(cache_dir.join(STAMP_FILE))
        .is_ok_and(|s| s.lines().any(|l| l == signed))
}

/// Records that `key` passed, beside the newest keys that passed before (each line with
/// its MAC); nothing is kept when no cache key can be had.
pub fn write_stamp(cache_dir: &Path, key: &str) -> Result<()> {
    let Some(signed) = signed_line(cache_dir, key) else {
        return Ok(());
    };
    let old = std::fs::read_to_string(cache_dir.join(STAMP_FILE)).unwrap_or_default();
    let mut keys: Vec<&str> = old
        .lines()
        .filter(|l| l.starts_with("vermas ") && *l != signed)
        .collect();
    keys.push(&signed);
    let keep = &keys[keys.len().saturating_sub(STAMP_KEYS)..];
    let text = keep.join("\n") + "\n";
    crate::store::write_atomic(cache_dir, &cache_dir.join(STAMP_FILE), text.as_bytes())
}

/// `key` with its MAC under the cache key of the repository `cache_dir` is in.
fn signed_line(cache_dir: &Path, key: &str) -> Option<String> {
    let mac_key = GitRepo::open(cache_dir.parent().unwrap_or(cache_dir))?.cache_key()?;
    Some(format!(
        "{key} mac={}",
        crate::sys::hash::mac(&mac_key, key.as_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn ref_lines_parse_and_classify() {
        let refs = parse_refs(&format!(
            "refs/heads/main {A} refs/heads/main {Z}\n(delete) {Z} refs/heads/old {A}\n\n"
        ))
        .unwrap();
        assert_eq!(refs.len(), 2);
        assert!(refs[0].is_new() && !refs[0].is_delete());
        assert_eq!(refs[0].short_name(), "main");
        assert!(refs[1].is_delete());
        assert!(parse_refs("").unwrap().is_empty());
    }

    #[test]
    fn malformed_ref_lines_are_refused_with_the_line() {
        for bad in [
            "refs/heads/main 123 refs/heads/main 456",
            "only three fields",
        ] {
            let e = parse_refs(bad).unwrap_err();
            assert!(e.to_string().contains("line 1"), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
    }

    #[test]
    fn scope_from_config() {
        assert_eq!(Scope::from_config("all"), Scope::All);
        assert_eq!(Scope::from_config("changed"), Scope::Changed);
        assert_eq!(Scope::All.as_str(), "all");
    }
}
