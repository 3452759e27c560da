//! Arguments of `import` and `export`.

use clap::Subcommand;

/// `import` subcommands.
#[derive(Debug, Subcommand)]
pub enum ImportCmd {
    /// bd's JSONL (one issue per line): each issue becomes or updates the bead of its id.
    Bd {
        /// The file (default: bd's export, .beads/issues.jsonl or the file its metadata.json names).
        file: Option<std::path::PathBuf>,
    },
}

/// `export` subcommands.
#[derive(Debug, Subcommand)]
pub enum ExportCmd {
    /// bd's JSONL: one issue per line, sorted by id, that `bd import` reads.
    Bd {
        /// Write to FILE instead of standard output (`-`: standard output).
        #[arg(conflicts_with = "output")]
        file: Option<std::path::PathBuf>,
        /// Write to FILE (bd's spelling of the same).
        #[arg(short, long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
}
