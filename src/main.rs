//! The `vermas` binary: everything happens in the library's `cli` module.

fn main() {
    std::process::exit(vermas::cli::main());
}
