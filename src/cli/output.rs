//! Writing results and errors: JSON for scripts, miette diagnostics for people.

use serde::Serialize;
use serde_json::{Value, json};
use vermas_core::error::Error;
use vermas_core::store::Recorded;

/// `value` (an object) with `schema_version: 1` added, for single-object answers.
pub fn versioned(value: impl Serialize) -> Value {
    let mut v = serde_json::to_value(value).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        map.insert("schema_version".into(), json!(1));
    }
    v
}

/// Reports an error on stderr: a JSON object with `--json`, else a miette diagnostic.
pub fn error(e: &Error, json_mode: bool) {
    if json_mode {
        let mut obj = json!({"schema_version": 1, "error": e.to_string(), "code": e.code()});
        if let Error::Parse(p) = e {
            obj["file"] = json!(p.file);
            obj["line"] = json!(p.line);
            obj["column"] = json!(p.column);
        }
        eprintln!("{obj}");
    } else {
        diagnostic("error", e);
    }
}

/// Reports on stderr that a command ended short of success after doing what it could:
/// `{"error", "code"}` with `--json`, else `error: MESSAGE`.
pub fn failure(message: &str, code: &str, json_mode: bool) {
    if json_mode {
        eprintln!(
            "{}",
            json!({"schema_version": 1, "error": message, "code": code})
        );
    } else {
        eprintln!("error: {message}");
    }
}

/// Prints a diagnostic for `e` on stderr: `KIND: message`, then its snippet and help.
/// `kind` is `error` or `warning` (drawn with the warning glyph).
pub fn diagnostic(kind: &str, e: &Error) {
    let severity = if kind == "warning" {
        miette::Severity::Warning
    } else {
        miette::Severity::Error
    };
    let handler = miette::GraphicalReportHandler::new();
    let mut out = String::new();
    if handler
        .render_report(&mut out, &Headless(e, severity))
        .is_ok()
    {
        // The first line is the glyph and the message; the headline says the kind instead.
        let body = out.trim_start_matches('\n');
        let (first, rest) = body.split_once('\n').unwrap_or((body, ""));
        let message = first.trim_start();
        let message = message.split_once(' ').map_or(message, |(glyph, m)| {
            if glyph.chars().count() == 1 {
                m
            } else {
                message
            }
        });
        let rest = rest.trim_end();
        if rest.is_empty() {
            eprintln!("{kind}: {message}");
        } else {
            eprintln!("{kind}: {message}\n{rest}\n");
        }
    } else {
        eprintln!("{kind}: {e}");
    }
}

/// An error shown without its code in the headline, at the given severity.
struct Headless<'a>(&'a Error, miette::Severity);

impl std::fmt::Debug for Headless<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

impl std::fmt::Display for Headless<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // An error may quote a reply or a record: its control characters are shown.
        f.write_str(&vermas_core::text::words::printable(&self.0.to_string()))
    }
}

impl std::error::Error for Headless<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.0 {
            // A git error's message already says what its source says.
            Error::Git { .. } => None,
            e => std::error::Error::source(e),
        }
    }
}

impl miette::Diagnostic for Headless<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.1)
    }
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        let help = self.0.help()?.to_string();
        Some(Box::new(
            vermas_core::text::words::printable(&help).into_owned(),
        ))
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.0.source_code()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.0.labels()
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn miette::Diagnostic> + 'b>> {
        self.0.related()
    }
    fn diagnostic_source(&self) -> Option<&dyn miette::Diagnostic> {
        self.0.diagnostic_source()
    }
}

/// Tells the user on stderr when a change was not recorded in git.
pub fn recorded_note(recorded: &Recorded) {
    match recorded {
        Recorded::NotARepository => {
            eprintln!("note: not inside a git repository: history is not being recorded")
        }
        Recorded::Disabled => eprintln!("note: git.commit is false: the change was not committed"),
        Recorded::Commit(_) | Recorded::Unchanged => {}
    }
}

/// The short commit id of a recorded change, for human output.
pub fn short_commit(recorded: &Recorded) -> Option<&str> {
    match recorded {
        Recorded::Commit(id) => Some(&id[..id.len().min(7)]),
        _ => None,
    }
}
