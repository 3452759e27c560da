//! Extracting a rubric from a judge file without running its code inside vermas: the
//! function runs in bash with `judge_files` and `judge_criterion` bound to record their
//! arguments, and the files it names are read (globs expanded, repository only, capped).

use crate::proc::{self, Job};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a rubric function asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rubric {
    /// The criterion text the LLM judges.
    pub criterion: String,
    /// Files (as the rubric named them, globs unexpanded).
    pub files: Vec<String>,
}

/// A file put in front of the judge.
#[derive(Debug, Clone)]
pub struct JudgedFile {
    /// Repository-relative path.
    pub path: String,
    /// Content, cut at the cap.
    pub text: String,
    /// Size of the whole file in bytes.
    pub size: u64,
    /// True when cut.
    pub truncated: bool,
}

/// Longest the sourcing of one rubric file may take.
const RUBRIC_TIMEOUT: Duration = Duration::from_secs(30);

/// Bash that binds the two rubric words, sources the file and calls the function.
const PRELUDE: &str = r#"judge_files() { for f in "$@"; do printf 'F\0%s\0' "$f" >> "$VERMAS_RUBRIC"; done; }
judge_criterion() { printf 'C\0%s\0' "$*" >> "$VERMAS_RUBRIC"; }
source "$1" || { echo "vermas: cannot source $1" >&2; exit 3; }
declare -F "$2" >/dev/null || { echo "vermas: function not defined: $2" >&2; exit 127; }
"$2""#;

/// Runs the rubric function `function` of `file` and returns what it asked for.
pub fn extract(root: &Path, file: &str, function: &str, scratch: &Path) -> Result<Rubric, String> {
    // Never sourced from behind a symlink leading outside the repository.
    let real = crate::sys::contain::resolve(&canonical(root), Path::new(file))
        .map_err(|e| format!("rubric file {e}"))?;
    if !real.is_file() {
        return Err(format!("rubric file {file} does not exist"));
    }
    std::fs::create_dir_all(scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let record = scratch.join(format!("rubric-{}-{}.bin", std::process::id(), unique()));
    // Best effort: only a record left by an earlier run (or none) is removed.
    let _ = std::fs::remove_file(&record);
    let args = vec![
        "-c".into(),
        PRELUDE.into(),
        "vermas".into(),
        file.into(),
        function.into(),
    ];
    let job = Job::new("bash", args, root, RUBRIC_TIMEOUT, 64 * 1024)
        .with_env("VERMAS_RUBRIC", record.to_string_lossy());
    let done = proc::run(&job);
    let recorded = std::fs::read(&record).unwrap_or_default();
    // Best effort: only a record left by an earlier run (or none) is removed.
    let _ = std::fs::remove_file(&record);
    if let Some(e) = done.spawn_error {
        return Err(e);
    }
    if done.timed_out {
        return Err(format!(
            "rubric {file}#{function} did not finish within 30s"
        ));
    }
    if done.exit_code != Some(0) {
        return Err(format!(
            "rubric {file}#{function} failed (exit {}): {}",
            done.exit_code
                .map_or("by signal".to_string(), |c| c.to_string()),
            super::verdict::tail(&String::from_utf8_lossy(&done.output), 400)
        ));
    }
    let mut rubric = Rubric::default();
    let fields: Vec<&[u8]> = recorded.split(|b| *b == 0).collect();
    for pair in fields.chunks(2) {
        if let [tag, value] = pair {
            let value = String::from_utf8_lossy(value).into_owned();
            match *tag {
                b"F" => rubric.files.push(value),
                b"C" if rubric.criterion.is_empty() => rubric.criterion = value,
                b"C" => {
                    rubric.criterion.push('\n');
                    rubric.criterion.push_str(&value);
                }
                _ => {}
            }
        }
    }
    if rubric.criterion.trim().is_empty() {
        return Err(format!(
            "rubric {file}#{function} never called judge_criterion"
        ));
    }
    Ok(rubric)
}

/// A number unique within this process, for scratch file names.
fn unique() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

/// `root` with its symlinks resolved, as [`crate::sys::contain::resolve`] wants it.
fn canonical(root: &Path) -> PathBuf {
    std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

/// Reads the files a rubric named: globs expanded, each kept inside the repository and
/// capped at `max_bytes`. A pattern matching nothing, or a file outside or reached through
/// a symlink leading outside, is an error (and nothing of it is read).
pub fn read_files(
    root: &Path,
    patterns: &[String],
    max_bytes: u64,
) -> Result<Vec<JudgedFile>, String> {
    let canon_root = canonical(root);
    let mut paths: Vec<String> = Vec::new();
    for pattern in patterns {
        let found = expand(root, pattern)?;
        if found.is_empty() {
            return Err(format!("judge_files: '{pattern}' matches no file"));
        }
        for p in found {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for rel in paths {
        let real = crate::sys::contain::resolve(&canon_root, Path::new(&rel))
            .map_err(|e| format!("judge_files: {e}"))?;
        let bytes = std::fs::read(&real).map_err(|e| format!("judge_files: {rel}: {e}"))?;
        let size = bytes.len() as u64;
        let keep = usize::try_from(max_bytes)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        out.push(JudgedFile {
            path: rel,
            text: String::from_utf8_lossy(&bytes[..keep]).into_owned(),
            size,
            truncated: keep < bytes.len(),
        });
    }
    Ok(out)
}

/// The repository-relative files a pattern names (itself when it has no glob characters).
fn expand(root: &Path, pattern: &str) -> Result<Vec<String>, String> {
    let rel = (!pattern.starts_with('/'))
        .then(|| crate::spec::target::normalise(pattern))
        .flatten()
        .ok_or_else(|| format!("judge_files: {pattern} is outside the repository; refused"))?;
    // A symlink counts unless it leads to a folder: `read_files` refuses one leading out.
    let candidate = |p: &Path, t: std::fs::FileType| t.is_file() || (t.is_symlink() && !p.is_dir());
    if !rel.contains(['*', '?']) {
        let p = root.join(&rel);
        return Ok(
            if p.symlink_metadata()
                .is_ok_and(|m| candidate(&p, m.file_type()))
            {
                vec![rel]
            } else {
                Vec::new()
            },
        );
    }
    // Walk from the longest folder prefix without glob characters.
    let fixed: PathBuf = rel
        .split('/')
        .take_while(|p| !p.contains(['*', '?']))
        .collect();
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root.join(&fixed))
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if !candidate(entry.path(), entry.file_type()) {
            continue;
        }
        let Ok(r) = entry.path().strip_prefix(root) else {
            continue;
        };
        let r = r.to_string_lossy().replace('\\', "/");
        if r.starts_with(".git/") {
            continue;
        }
        if crate::text::glob::matches(&rel, &r) {
            out.push(r);
        }
    }
    Ok(out)
}
