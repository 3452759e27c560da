//! Which command runs a verify target: the file itself when executable, else an
//! interpreter chosen by file pattern (config `verify.runners` first, then the built-ins).

use super::VerifySettings;
use super::proof::{self, BashMode, Interpreter, Proof};
use crate::proc::{Finished, Job};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Printed by the bash runner when the function is not defined after sourcing.
const NO_FUNCTION_MARK: &str = "vermas: function not defined:";
/// Exit code paired with [`NO_FUNCTION_MARK`].
const NO_FUNCTION_EXIT: i32 = 127;

/// The job that runs `file#function` from `root`, or why it cannot be run.
pub fn command_for(
    root: &Path,
    file: &str,
    function: Option<&str>,
    settings: &VerifySettings,
) -> Result<Job, String> {
    plan(root, file, function, settings).map(|(job, _)| job)
}

/// The job for `file#function` and how its run proves it exercised the target. The file
/// must resolve (symlinks followed) to a file inside the repository.
pub fn plan(
    root: &Path,
    file: &str,
    function: Option<&str>,
    settings: &VerifySettings,
) -> Result<(Job, Proof), String> {
    let path = contained(root, file)?;
    let meta =
        std::fs::metadata(&path).map_err(|_| format!("target file {file} does not exist"))?;
    if !meta.is_file() {
        return Err(format!("target {file} is not a file"));
    }
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let job =
        |program: &str, args: Vec<String>| Job::new(program, args, root, settings.timeout, 1 << 20);
    if meta.permissions().mode() & 0o111 != 0 {
        return executable(root, file, &path, function, &job);
    }
    if let Some((_, runner)) = settings.runners.iter().find(|(pattern, _)| {
        crate::text::glob::matches(pattern, if pattern.contains('/') { file } else { &name })
    }) {
        return runner_job(runner, file, function, &job).map(|j| (j, Proof::ExitCode));
    }
    let ext = Path::new(&name)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let mut leaves = proof::Leaves::MayTrap;
    if matches!(ext, "sh" | "bash") {
        let scanned = proof::scan_script(root, file);
        if let Some(why) = scanned.refusal {
            return Err(why);
        }
        leaves = scanned.leaves;
        // What bash reads before the file (a startup file, options it inherits) may do
        // anything.
        if ["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
        {
            leaves = proof::Leaves::MayTrap;
        }
    }
    // Bash proves at run time that it entered the function; runners need it up front.
    if let Some(f) = function
        && matches!(ext, "py" | "rs")
    {
        proof::defined_in_file(&path, file, f)?;
    }
    builtin_job(ext, file, function, leaves, &job)
}

/// Makes a job from a program and its arguments.
type MakeJob<'a> = dyn Fn(&str, Vec<String>) -> Job + 'a;

/// The job for the executable file `path` (`file` as linked) and its proof. A shell
/// script (by its `#!` line, whatever shell it names, or none) runs with bash and the
/// probe, its `#!` options kept, so a function that was not called or failed is never a
/// pass; any other program runs itself, and with a function named that is an ERROR: vermas
/// could not tell the function ran.
fn executable(
    root: &Path,
    file: &str,
    path: &Path,
    function: Option<&str>,
    job: &MakeJob<'_>,
) -> Result<(Job, Proof), String> {
    match proof::interpreter(path) {
        Interpreter::Shell(options) => {
            refused_by_scan(root, file)?;
            let mut args = options;
            args.push(path.to_string_lossy().into_owned());
            args.extend(function.map(str::to_string));
            let mut j = job("bash", args);
            let mode = if function.is_some() {
                BashMode::Dispatched
            } else {
                BashMode::Whole
            };
            let (proof, _) = proof::arm_bash(&mut j, function, mode);
            Ok((j, proof))
        }
        Interpreter::Other(name) => match function {
            Some(f) => Err(format!(
                "{file} runs under {name}, where vermas cannot see whether {f} was called or \
                 how it ended: make it tellable: a shell script that runs \"$@\" (or a \
                 non-executable .sh), a non-executable .py (pytest runs {file}::{f}), or a \
                 runner for it under verify.runners"
            )),
            // Absolute: a relative program is looked up from vermas's own folder, not `dir`.
            None => Ok((job(&path.to_string_lossy(), Vec::new()), Proof::ExitCode)),
        },
    }
}

/// Refuses a shell check that names vermas's probe (see [`proof::refusal`]).
fn refused_by_scan(root: &Path, file: &str) -> Result<(), String> {
    match proof::refusal(root, file) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// The job of a configured runner: its words, then the file, then the function.
fn runner_job(
    runner: &str,
    file: &str,
    function: Option<&str>,
    job: &MakeJob<'_>,
) -> Result<Job, String> {
    let mut words = runner.split_whitespace().map(str::to_string);
    let program = words
        .next()
        .ok_or_else(|| format!("the runner for {file} is empty"))?;
    let mut args: Vec<String> = words.collect();
    args.push(file.to_string());
    args.extend(function.map(str::to_string));
    Ok(job(&program, args))
}

/// The job of the built-in runner for extension `ext` (bash, pytest, cargo test) and how
/// its run proves it exercised the target; a shell file `leaves` the shell so.
fn builtin_job(
    ext: &str,
    file: &str,
    function: Option<&str>,
    leaves: proof::Leaves,
    job: &MakeJob<'_>,
) -> Result<(Job, Proof), String> {
    match (ext, function) {
        ("sh" | "bash", Some(f)) => {
            let mut j = job("bash", Vec::new());
            let (proof, name) = proof::arm_bash(&mut j, function, BashMode::Sourced);
            j.args = vec![
                "-c".into(),
                proof::call_program(name.as_deref().unwrap_or("unarmed"), leaves),
                "vermas".into(),
                file.into(),
                f.into(),
            ];
            Ok((j, proof))
        }
        ("sh" | "bash", None) => {
            let mut j = job("bash", vec![file.into()]);
            let (proof, _) = proof::arm_bash(&mut j, None, BashMode::Whole);
            Ok((j, proof))
        }
        // `-P`: the repository is not put first on `sys.path`, so its files cannot stand in
        // for pytest (a `pytest/__main__.py` of its own).
        ("py", Some(f)) => Ok((
            job(
                "python3",
                vec![
                    "-P".into(),
                    "-m".into(),
                    "pytest".into(),
                    "-q".into(),
                    format!("{file}::{f}"),
                ],
            ),
            Proof::Pytest,
        )),
        ("py", None) => Ok((
            job(
                "python3",
                vec![
                    "-P".into(),
                    "-m".into(),
                    "pytest".into(),
                    "-q".into(),
                    file.into(),
                ],
            ),
            Proof::Pytest,
        )),
        ("rs", _) => {
            let mut args = vec!["test".to_string()];
            // A file directly under tests/ is its own test target: run only that one.
            if let Some(stem) = file
                .strip_prefix("tests/")
                .and_then(|rest| rest.strip_suffix(".rs"))
                .filter(|stem| !stem.contains('/'))
            {
                args.extend(["--test".to_string(), stem.to_string()]);
            }
            if let Some(f) = function {
                args.extend(["--".to_string(), f.to_string()]);
            }
            Ok((job("cargo", args), Proof::Cargo))
        }
        _ => Err(format!(
            "{file} is not executable and no runner matches it: `chmod +x {file}`, or add one under verify.runners in .beads/vermas.yaml"
        )),
    }
}

/// `root/file` with symlinks resolved, refused when it leads outside the repository.
pub fn contained(root: &Path, file: &str) -> Result<std::path::PathBuf, String> {
    let path = root.join(file);
    let Ok(real) = path.canonicalize() else {
        return Err(format!("target file {file} does not exist"));
    };
    if real.starts_with(real_root(root)) {
        Ok(real)
    } else {
        Err(format!(
            "target {file} is a symlink (or lies under one) that leads outside the repository: refused"
        ))
    }
}

/// `root` with symlinks resolved, worked out once per root (the file each check runs is
/// resolved every time).
fn real_root(root: &Path) -> std::path::PathBuf {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashMap<std::path::PathBuf, std::path::PathBuf>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    let seen = seen.get_or_insert_with(HashMap::new);
    if let Some(real) = seen.get(root) {
        return real.clone();
    }
    let real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    seen.insert(root.to_path_buf(), real.clone());
    real
}

/// The command line as a person would type it (vermas's own wrapper that sources a file
/// and calls its function shown by what it does).
pub fn describe(job: &Job) -> String {
    if let ["-c", _, "vermas", file, function] =
        job.args.iter().map(String::as_str).collect::<Vec<_>>()[..]
        && job.program == "bash"
    {
        return format!("bash -c 'source {file}; {function}'");
    }
    let mut parts = vec![job.program.clone()];
    for a in &job.args {
        if a.contains(|c: char| c.is_whitespace() || "\"'$;&|<>()".contains(c)) {
            parts.push(crate::text::shell::quote(a));
        } else {
            parts.push(a.clone());
        }
    }
    parts.join(" ")
}

/// True when the bash runner reported the function as missing.
pub fn missing_function(done: &Finished, code: i32) -> bool {
    code == NO_FUNCTION_EXIT && done.text().lines().any(|l| l.starts_with(NO_FUNCTION_MARK))
}
