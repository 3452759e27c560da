//! The one place vermas hears Ctrl-C and the termination signals (INT, TERM, HUP, QUIT).
//! A handler wakes a cleanup thread, which first ends the running checks (the reaper's
//! work, handed over by [`install`]), then runs every piece of work registered with
//! [`on_signal`] (removing temporary worktrees, giving back taken molecule steps, closing a
//! tmux pane), and then lets the signal end vermas as it would have. Whatever must be
//! undone on an interrupt registers here; nothing else installs a signal handler (gix's
//! own lock-file cleanup aside, which returns to this one).

use super::lock;
use std::io::{Read, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Signals after which vermas ends its checks, then itself.
const TERMINATING: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Work to do before vermas exits on a signal (e.g. closing a tmux pane).
static ON_SIGNAL: Mutex<Vec<Box<dyn Fn() + Send>>> = Mutex::new(Vec::new());
/// The write end of the pipe the signal handler wakes the cleanup thread through.
static WAKE: std::sync::OnceLock<std::io::PipeWriter> = std::sync::OnceLock::new();
/// How the front end ends the process after a terminating signal, when re-raising it did
/// not (see [`set_terminator`]).
static TERMINATOR: std::sync::OnceLock<fn(i32)> = std::sync::OnceLock::new();
/// Set once a terminating signal arrived: finished checks then wait for the end.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Runs `work` before vermas exits on a termination signal, after the running checks have
/// ended; in the order registered.
pub fn on_signal(work: impl Fn() + Send + 'static) {
    lock(&ON_SIGNAL).push(Box::new(work));
}

/// After a terminating signal, parks the calling thread for good (vermas is ending), so a
/// check killed by the cleanup is never reported as a result.
pub fn halt_if_interrupted() {
    while INTERRUPTED.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Names how the front end ends the process with an exit code after a terminating signal
/// whose re-raise did not end it: the library itself never exits.
pub fn set_terminator(end: fn(i32)) {
    // Set once at start; a second call keeps the first.
    let _ = TERMINATOR.set(end);
}

/// Installs handlers for the terminating signals that wake a cleanup thread, which runs
/// `end_checks`, then the [`on_signal`] work, then lets the signal end vermas as it would
/// have. The first call installs; later ones do nothing.
pub(super) fn install(end_checks: fn()) {
    let Ok((mut wake, writer)) = std::io::pipe() else {
        return;
    };
    if WAKE.set(writer).is_err() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("vermas-signals".into())
        .spawn(move || {
            let mut sig = [0u8; 1];
            if wake.read_exact(&mut sig).is_ok() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                end_checks();
                for work in lock(&ON_SIGNAL).iter() {
                    work();
                }
                let sig = libc::c_int::from(sig[0]);
                // SAFETY: restoring the default action and re-raising ends the process as
                // the signal would have without vermas's handler.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    libc::raise(sig);
                }
                // Still here (the signal was held off): the front end ends the process;
                // the library never does.
                if let Some(end) = TERMINATOR.get() {
                    end(128 + sig);
                }
            }
        });
    if spawned.is_err() {
        return;
    }
    for sig in TERMINATING {
        // SAFETY: the action only loads an initialised OnceLock (an atomic read) and writes
        // one byte to a pipe (write(2), no allocation, no lock): async-signal-safe.
        let _ = unsafe {
            signal_hook_registry::register(sig, move || {
                if let Some(mut wake) = WAKE.get() {
                    // A full pipe already holds a wake-up.
                    let _ = wake.write(&[sig as u8]);
                }
            })
        };
    }
}
