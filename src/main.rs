//! The `vermas` binary: the command line (`cli`) and the terminal front ends (the language
//! server, the tmux session, ralph's commands). Everything they run is `vermas-core`'s;
//! only this crate prints or ends the process.

mod cli;
mod lsp;
mod session;

fn main() {
    // SAFETY: the first thing vermas does, before any thread exists: every git vermas and
    // its checks run then reads what is committed, never what a `git replace` ref says.
    unsafe { std::env::set_var("GIT_NO_REPLACE_OBJECTS", "1") };
    vermas_core::sys::par::tune_allocator();
    // Started as a check guard (see vermas_core::proc::guard): serve, and nothing else.
    #[cfg(target_os = "linux")]
    if let Some(code) = vermas_core::proc::guard::serve_or_enable() {
        std::process::exit(code);
    }
    std::process::exit(cli::main());
}
