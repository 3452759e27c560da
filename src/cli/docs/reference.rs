//! docs/reference.md: every command and flag, generated from the clap definitions by
//! clap-markdown, so the reference says what `vermas --help` says. The test fails while the
//! committed page differs; `VERMAS_WRITE_REFERENCE=1 cargo test --bin vermas reference`
//! writes it again.

use clap::CommandFactory;

/// Where the reference is kept.
const PAGE: &str = "docs/reference.md";

/// The reference as generated from the clap definitions now.
fn generated() -> String {
    let cmd = crate::cli::args::Cli::command();
    let options = clap_markdown::MarkdownOptions::new()
        .title("Command reference".to_string())
        .show_footer(false);
    let body = clap_markdown::help_markdown_command_custom(&cmd, &options);
    let intro = "<!-- Generated from the clap definitions (src/cli/args.rs and each command's \
                 args.rs) by `VERMAS_WRITE_REFERENCE=1 cargo test --bin vermas reference`; \
                 do not edit. -->\n\n";
    let body = body.replacen(
        "# Command reference\n",
        "# Command reference\n\nEvery command and flag, as `vermas --help` and `vermas COMMAND \
         --help` print them. The guides are linked from the [README](../README.md).\n",
        1,
    );
    let mut page = format!("{intro}{body}");
    // No trailing spaces or runs of blank lines, as the rest of the docs.
    page = page
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    while page.contains("\n\n\n") {
        page = page.replace("\n\n\n", "\n\n");
    }
    page.trim_end().to_string() + "\n"
}

#[test]
fn the_committed_reference_is_the_generated_one() {
    let path = super::root().join(PAGE);
    let now = generated();
    if std::env::var_os("VERMAS_WRITE_REFERENCE").is_some() {
        std::fs::write(&path, &now).expect("write the reference");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != now {
        let first = committed
            .lines()
            .zip(now.lines())
            .position(|(a, b)| a != b)
            .map_or(committed.lines().count().min(now.lines().count()), |i| i)
            + 1;
        panic!(
            "{PAGE} is out of date with the clap definitions (first difference at line \
             {first}); write it again with:\n  VERMAS_WRITE_REFERENCE=1 cargo test --bin vermas \
             reference"
        );
    }
}
