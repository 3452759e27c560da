//! The `vermas` binary: the command line (`cli`) and the terminal front ends (the language
//! server, the tmux session, ralph's commands). Everything they run is `vermas-core`'s;
//! only this crate prints or ends the process.

mod cli;
mod lsp;
mod ralph;
mod session;

fn main() {
    std::process::exit(cli::main());
}
