//! The one error type of the library: every failure a user can see, with a stable code.

use miette::{Diagnostic, NamedSource, SourceSpan};
use std::path::{Path, PathBuf};

/// Result with the vermas error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A problem in a file a person wrote, pointing at a line and column.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{file}:{line}:{column}: {message}")]
#[diagnostic(code(vermas::parse))]
pub struct ParseError {
    /// File the problem is in, as shown to the user.
    pub file: String,
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The file's text, for the snippet.
    #[source_code]
    pub source_code: NamedSource<String>,
    /// Where in the text; `None` when the line is too long to show.
    #[label("{message}")]
    pub span: Option<SourceSpan>,
    /// How to fix it, where known.
    #[help]
    pub help: Option<String>,
}

impl ParseError {
    /// Builds a parse error at a one-based line and column of `text`.
    pub fn at(
        file: impl Into<String>,
        text: &str,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        let file = file.into();
        let line = line.max(1);
        let column = column.max(1);
        let offset = crate::textpos::offset_of(text, line, column);
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_len = text[line_start..]
            .find('\n')
            .unwrap_or(text.len() - line_start);
        if line_len > MAX_SNIPPET_LINE {
            // Such a line cannot be drawn usefully (and past 65,535 columns not at all):
            // the headline's file:line:column says where.
            return ParseError {
                source_code: NamedSource::new(file.clone(), String::new()),
                file,
                line,
                column,
                message: message.into(),
                span: None,
                help: None,
            };
        }
        let len = text[offset..]
            .chars()
            .take_while(|c| *c != '\n')
            .map(char::len_utf8)
            .sum::<usize>()
            .clamp(1, 80)
            .min(text.len().saturating_sub(offset));
        ParseError {
            source_code: NamedSource::new(file.clone(), text.to_string()),
            file,
            line,
            column,
            message: message.into(),
            span: Some((offset, len).into()),
            help: None,
        }
    }

    /// Adds a hint on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Longest line (in bytes) a diagnostic quotes; a longer one is named, not drawn.
const MAX_SNIPPET_LINE: usize = 4096;

/// Every failure vermas reports.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    /// No `.beads` folder above the current directory.
    #[error("no .beads folder found in {0} or any parent")]
    #[diagnostic(
        code(vermas::no_workspace),
        help("run `vermas init` in your repository to create one, or set BEADS_DIR")
    )]
    NoWorkspace(PathBuf),

    /// A file could not be parsed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Parse(Box<ParseError>),

    /// A value given on the command line is not allowed.
    #[error("{0}")]
    #[diagnostic(code(vermas::invalid))]
    Invalid(String),

    /// A value given on the command line is not allowed, with a hint.
    #[error("{message}")]
    #[diagnostic(code(vermas::invalid))]
    InvalidWithHelp {
        /// What is wrong.
        message: String,
        /// How to fix it.
        #[help]
        help: String,
    },

    /// No record has this id.
    #[error("no bead matches '{0}'")]
    #[diagnostic(code(vermas::not_found), help("`vermas list --all` shows every bead"))]
    NotFound(String),

    /// No message has this id.
    #[error("no message matches '{0}'")]
    #[diagnostic(
        code(vermas::not_found),
        help("`vermas mail inbox ADDR` lists the messages of a mailbox")
    )]
    NoMessage(String),

    /// A spec, molecule, formula or other named thing does not exist.
    #[error("{message}")]
    #[diagnostic(code(vermas::not_found), help("{help}"))]
    Missing {
        /// What was not found.
        message: String,
        /// Where to look instead.
        help: String,
    },

    /// More than one record starts with this prefix.
    #[error("'{prefix}' is ambiguous: it matches {}", candidates.join(", "))]
    #[diagnostic(
        code(vermas::ambiguous),
        help("{}", ambiguous_help(prefix, candidates))
    )]
    Ambiguous {
        /// What the user typed.
        prefix: String,
        /// Every id it matches.
        candidates: Vec<String>,
    },

    /// Adding a dependency would close a loop.
    #[error("dependency cycle: {}", .0.join(" -> "))]
    #[diagnostic(
        code(vermas::cycle),
        help("remove one of these dependencies first with `vermas dep rm`")
    )]
    Cycle(Vec<String>),

    /// An LLM role could not be asked, or never gave a usable reply.
    #[error("{message}")]
    #[diagnostic(code(vermas::llm), help("{help}"))]
    Llm {
        /// What went wrong.
        message: String,
        /// What to do about it.
        help: String,
    },

    /// Git refused or failed.
    #[error("git: {0}")]
    #[diagnostic(code(vermas::git))]
    Git(String),

    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    #[diagnostic(code(vermas::io))]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A short stable name for scripts (`--json` errors carry it as `code`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::NoWorkspace(_) => "no_workspace",
            Error::Parse(_) => "parse",
            Error::Invalid(_) | Error::InvalidWithHelp { .. } => "invalid",
            Error::NotFound(_) | Error::NoMessage(_) | Error::Missing { .. } => "not_found",
            Error::Ambiguous { .. } => "ambiguous",
            Error::Cycle(_) => "cycle",
            Error::Llm { .. } => "llm",
            Error::Git(_) => "git",
            Error::Io { .. } => "io",
        }
    }

    /// Process exit code: 2 for bad input, 1 for failures of the system around it.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Git(_) | Error::Io { .. } | Error::Llm { .. } => 1,
            _ => 2,
        }
    }

    /// Builds an invalid-input error with a hint.
    pub fn invalid_with_help(message: impl Into<String>, help: impl Into<String>) -> Self {
        Error::InvalidWithHelp {
            message: message.into(),
            help: help.into(),
        }
    }
}

/// The hint for an ambiguous id: more characters, unless the text already is a whole id or
/// hash part (then only the full id, prefix included, tells them apart).
fn ambiguous_help(prefix: &str, candidates: &[String]) -> String {
    let whole = candidates
        .iter()
        .find(|c| *c == prefix || c.split_once('-').is_some_and(|(_, h)| h == prefix));
    match whole {
        Some(c) => format!("give the full id, such as {c}"),
        None => "give more characters of the id".to_string(),
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Self {
        Error::Parse(Box::new(e))
    }
}

impl From<Box<ParseError>> for Error {
    fn from(e: Box<ParseError>) -> Self {
        Error::Parse(e)
    }
}
