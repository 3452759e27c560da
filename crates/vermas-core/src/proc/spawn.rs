//! Running one external command safely: under a guard in its own process group, stdin
//! closed or fed, stdout and stderr merged and capped (the start and the end kept, where
//! test runners print their verdicts), a deadline that ends its whole tree, and no
//! descendant left running when it ends (see [`super::guard`], [`super::reap`]).

use super::interrupt;
use super::job::{Finished, Job, SELF_VAR};
use super::reap::{self, Token};
use super::wait::{Output, Running, pidfd, wait};
#[cfg(target_os = "linux")]
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Runs `job` to completion or its deadline. Never panics on the child's behaviour; every
/// process the child started (in its group or not, whatever its environment) is killed
/// when the child ends, and when vermas is killed. The calling thread does all the waiting
/// (a poll on the output pipe and on the guard's socket or the child's pidfd): no thread
/// per check.
pub fn run(job: &Job) -> Finished {
    reap::prepare();
    let start = Instant::now();
    let token = Token::new();
    let fail = |e: std::io::Error| Finished {
        spawn_error: Some(format!("cannot start {}: {e}", job.program)),
        duration: start.elapsed(),
        ..Finished::default()
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let (mut running, stdin) = match launch(job, &token, writer) {
        Ok(Some(r)) => r,
        Ok(None) => {
            // What ran it is gone before saying it started: whatever of the command is
            // left is found by its token; no exit status can be had. A guard ended by
            // vermas's own cleanup on Ctrl-C gives no result at all.
            reap::sweep(&token);
            interrupt::halt_if_interrupted();
            return Finished {
                duration: start.elapsed(),
                ..Finished::default()
            };
        }
        Err(e) => return fail(e),
    };
    let group = running.group();
    reap::track(group, running.stopper(), &token);
    if let (Some(bytes), Some(mut stdin)) = (job.stdin.clone(), stdin) {
        std::thread::spawn(move || {
            use std::io::Write;
            // A command that does not read its input is not an error.
            let _ = stdin.write_all(&bytes);
        });
    }
    let mut output = Output::new(reader, job.output_cap);
    let (status, timed_out) = wait(&mut running, &mut output, start.checked_add(job.timeout));
    if !reap::SUPERVISED || status.is_none_or(|s| s.signal().is_some()) {
        // Without a supervisor, or when it was killed, its strays are found by the token.
        reap::signal_group(group, rustix::process::Signal::KILL);
        reap::sweep(&token);
    }
    reap::release(group);
    interrupt::halt_if_interrupted();
    if let Some(e) = running.spawn_error() {
        return fail(e);
    }
    // A process outside the check's tree may hold the pipe open: what was read is kept.
    let grace_end = Instant::now() + Duration::from_secs(2);
    while output.is_open() && Instant::now() < grace_end {
        output.pump(
            None,
            Some(grace_end.saturating_duration_since(Instant::now())),
        );
    }
    let (output, output_total, dropped) = output.finish();
    Finished {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        timed_out,
        spawn_error: None,
        output,
        output_total,
        dropped,
        duration: start.elapsed(),
    }
}

/// The write end of a job's stdin pipe.
type StdinWriter = Box<dyn std::io::Write + Send>;

/// Starts `job`, output and errors on `out`: under this thread's guard where there is one,
/// else as vermas's child. Also the pipe to its stdin, when it takes one. `None`: the guard
/// took the job and ended without saying it started (see [`super::guard`]'s `Lost`).
fn launch(
    job: &Job,
    token: &Token,
    out: std::io::PipeWriter,
) -> std::io::Result<Option<(Running, Option<StdinWriter>)>> {
    let path = super::safe_path::for_job(&job.env, &job.dir);
    let found = super::safe_path::find(&job.program, &path);
    #[cfg(target_os = "linux")]
    {
        use super::guard::{self, NotStarted, Request};
        let stdin = match job.stdin {
            Some(_) => Some(std::io::pipe()?),
            None => None,
        };
        let program = found
            .as_deref()
            .map_or(std::ffi::OsStr::new(&job.program), |p| p.as_os_str());
        let env = environment(job, token);
        let request = Request {
            program,
            arg0: std::ffi::OsStr::new(&job.program),
            args: &job.args,
            dir: &job.dir,
            env: &env,
        };
        let input = stdin.as_ref().map(|(r, _)| r.as_fd());
        match guard::start(&request, out.as_fd(), input) {
            Ok(running) => {
                let writer = stdin.map(|(_, w)| Box::new(w) as StdinWriter);
                return Ok(Some((Running::Guarded(running), writer)));
            }
            Err(NotStarted::Failed(e)) => return Err(e),
            Err(NotStarted::Lost) => return Ok(None),
            Err(NotStarted::Unavailable) => {}
        }
    }
    let mut cmd = command(job, found, token, out)?;
    let spawned = cmd.spawn();
    // The command holds our copies of the pipe's write end: drop it so the pipe can close.
    drop(cmd);
    let mut child = spawned?;
    let exited = pidfd(child.id() as i32);
    let stdin = child.stdin.take().map(|s| Box::new(s) as StdinWriter);
    Ok(Some((Running::Child(child, exited), stdin)))
}

/// The variables a job's process gets on top of vermas's: its check token, vermas's own
/// path, then the job's own (which may override both).
fn environment(job: &Job, token: &Token) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut env = vec![(reap::TOKEN_VAR.into(), token.env_value.clone().into())];
    if let Some(exe) = own_exe() {
        env.push((SELF_VAR.into(), exe.as_os_str().to_owned()));
    }
    env.extend(job.env.iter().map(|(k, v)| (k.into(), v.into())));
    env.push(("PATH".into(), super::safe_path::for_job(&job.env, &job.dir)));
    env
}

/// The path of the running vermas, read once.
fn own_exe() -> Option<&'static PathBuf> {
    static EXE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    EXE.get_or_init(|| std::env::current_exe().ok()).as_ref()
}

/// The command of `job` where no guard runs it: under a supervisor on Linux (see
/// [`super::supervise`]), in a process group of its own, `found` (its program on PATH,
/// when looked up) run, output and errors on `out`, tagged with `token` so its strays can
/// be found where there is no supervisor.
fn command(
    job: &Job,
    found: Option<PathBuf>,
    token: &Token,
    out: std::io::PipeWriter,
) -> std::io::Result<std::process::Command> {
    let mut cmd = match found {
        Some(found) => {
            let mut cmd = std::process::Command::new(found);
            cmd.arg0(&job.program);
            cmd
        }
        None => std::process::Command::new(&job.program),
    };
    cmd.args(&job.args)
        .current_dir(&job.dir)
        .envs(environment(job, token))
        .stdout(out.try_clone()?)
        .stderr(out)
        .stdin(if job.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: the hook runs only as this command's pre_exec hook, in the child between
    // fork and exec, and makes only async-signal-safe calls there (see supervise).
    unsafe {
        cmd.pre_exec(super::supervise::hook(std::process::id() as libc::pid_t));
    }
    Ok(cmd)
}
