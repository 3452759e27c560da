//! The one error type of the library: every failure a user can see, with a stable code.

pub mod textpos;

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
        let offset = crate::error::textpos::offset_of(text, line, column);
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

    /// Options that do not go together, or one that another needs is missing.
    #[error("{message}")]
    #[diagnostic(code(vermas::usage))]
    Usage {
        /// What is wrong.
        message: String,
        /// How to fix it, where known.
        #[help]
        help: Option<String>,
    },

    /// The record is not in a state that allows this (already archived, not approved yet).
    #[error("{message}")]
    #[diagnostic(code(vermas::wrong_state))]
    WrongState {
        /// What is wrong.
        message: String,
        /// How to fix it, where known.
        #[help]
        help: Option<String>,
    },

    /// Someone or something else holds it (claimed by another, another tool's file).
    #[error("{message}")]
    #[diagnostic(code(vermas::conflict))]
    Conflict {
        /// What is wrong.
        message: String,
        /// How to fix it, where known.
        #[help]
        help: Option<String>,
    },

    /// A setting's key or value is not allowed.
    #[error("{message}")]
    #[diagnostic(code(vermas::config))]
    Setting {
        /// What is wrong.
        message: String,
        /// How to fix it, where known.
        #[help]
        help: Option<String>,
    },

    /// No record has this id.
    #[error("no bead matches '{0}'")]
    #[diagnostic(
        code(vermas::not_found),
        help(
            "`vermas list --all` shows every bead; test specs: `vermas inspect pending` (waiting) or `vermas list --all -t test-spec`"
        )
    )]
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
    #[error("git: {message}")]
    #[diagnostic(code(vermas::git))]
    Git {
        /// What went wrong, as shown.
        message: String,
        /// The error from gix (or the system) behind it, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },

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
            Error::Usage { .. } => "usage",
            Error::WrongState { .. } => "wrong_state",
            Error::Conflict { .. } => "conflict",
            Error::Setting { .. } => "config",
            Error::NotFound(_) | Error::NoMessage(_) | Error::Missing { .. } => "not_found",
            Error::Ambiguous { .. } => "ambiguous",
            Error::Cycle(_) => "cycle",
            Error::Llm { .. } => "llm",
            Error::Git { .. } => "git",
            Error::Io { .. } => "io",
        }
    }

    /// Process exit code: 2 for bad input, 1 for failures of the system around it.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Git { .. } | Error::Io { .. } | Error::Llm { .. } => 1,
            _ => 2,
        }
    }

    /// A git failure described by `message` alone.
    pub fn git(message: impl Into<String>) -> Self {
        Error::Git {
            message: message.into(),
            source: None,
        }
    }

    /// A git failure described by `message`, caused by `source` (kept as the error's
    /// source, not only flattened into the text).
    pub fn git_with(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Git {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// A git failure that is `source` itself: its text is the message.
    pub fn git_from(source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::git_with(source.to_string(), source)
    }

    /// Options that do not go together, or a missing one (`usage`, exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            help: None,
        }
    }

    /// The record is not in a state that allows this (`wrong_state`, exit 2).
    pub fn wrong_state(message: impl Into<String>) -> Self {
        Error::WrongState {
            message: message.into(),
            help: None,
        }
    }

    /// Someone or something else holds it (`conflict`, exit 2).
    pub fn conflict(message: impl Into<String>) -> Self {
        Error::Conflict {
            message: message.into(),
            help: None,
        }
    }

    /// A setting's key or value is not allowed (`config`, exit 2).
    pub fn config(message: impl Into<String>) -> Self {
        Error::Setting {
            message: message.into(),
            help: None,
        }
    }

    /// The same error with a hint on how to fix it (for the kinds that carry one).
    pub fn with_help(self, hint: impl Into<String>) -> Self {
        let text = hint.into();
        let hint = Some(text.clone());
        match self {
            Error::Invalid(message) | Error::InvalidWithHelp { message, .. } => {
                Error::InvalidWithHelp {
                    message,
                    help: text,
                }
            }
            Error::Usage { message, .. } => Error::Usage {
                message,
                help: hint,
            },
            Error::WrongState { message, .. } => Error::WrongState {
                message,
                help: hint,
            },
            Error::Conflict { message, .. } => Error::Conflict {
                message,
                help: hint,
            },
            Error::Setting { message, .. } => Error::Setting {
                message,
                help: hint,
            },
            other => other,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_and_its_exit_code() {
        let cases = [
            (Error::NoWorkspace(PathBuf::from("/x")), "no_workspace", 2),
            (Error::Invalid("x".into()), "invalid", 2),
            (Error::invalid_with_help("x", "y"), "invalid", 2),
            (Error::usage("x"), "usage", 2),
            (Error::wrong_state("x"), "wrong_state", 2),
            (Error::conflict("x"), "conflict", 2),
            (Error::config("x"), "config", 2),
            (Error::NotFound("x".into()), "not_found", 2),
            (Error::NoMessage("x".into()), "not_found", 2),
            (
                Error::Ambiguous {
                    prefix: "a".into(),
                    candidates: vec!["a1".into(), "a2".into()],
                },
                "ambiguous",
                2,
            ),
            (Error::Cycle(vec!["a".into(), "b".into()]), "cycle", 2),
            (
                Error::Llm {
                    message: "x".into(),
                    help: "y".into(),
                },
                "llm",
                1,
            ),
            (Error::git("x"), "git", 1),
            (Error::io("f", std::io::Error::other("x")), "io", 1),
        ];
        for (e, code, exit) in cases {
            assert_eq!((e.code(), e.exit_code()), (code, exit), "{e:?}");
        }
    }

    #[test]
    fn a_hint_keeps_the_kind_and_the_message() {
        let e = Error::wrong_state("step s is already done").with_help("look at `mol show`");
        assert_eq!(e.code(), "wrong_state");
        assert_eq!(e.to_string(), "step s is already done");
        assert_eq!(
            e.help().map(|h| h.to_string()).as_deref(),
            Some("look at `mol show`")
        );
        let e = Error::Invalid("bad".into()).with_help("fix it");
        assert!(matches!(&e, Error::InvalidWithHelp { help, .. } if help == "fix it"));
    }

    #[test]
    fn a_git_error_keeps_its_source_and_its_text() {
        let io = std::io::Error::other("disk gone");
        let e = Error::git_with(format!("cannot run git: {io}"), io);
        assert_eq!(e.to_string(), "git: cannot run git: disk gone");
        let source = std::error::Error::source(&e).expect("a source");
        assert_eq!(source.to_string(), "disk gone");
        assert!(std::error::Error::source(&Error::git("x")).is_none());
        assert_eq!(
            Error::git_from(std::io::Error::other("y")).to_string(),
            "git: y"
        );
    }
}
