//! Writing results and errors: JSON for scripts, miette diagnostics for people.

/// `print!` to stdout that ends the process quietly when the reader went away
/// (`vermas list | head`), as git does.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!($($arg)*), false)
    };
}

/// `println!` to stdout with the same closed-pipe handling as [`out!`].
macro_rules! outln {
    () => {
        $crate::cli::output::write_stdout(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!($($arg)*), true)
    };
}

pub(crate) use {out, outln};

/// Writes to stdout; a closed pipe ends the process with status 0.
pub fn write_stdout(args: std::fmt::Arguments<'_>, newline: bool) {
    use std::io::Write;
    let mut lock = std::io::stdout().lock();
    let result = lock.write_fmt(args).and_then(|()| {
        if newline {
            lock.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = result {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

use crate::error::Error;
use crate::store::Recorded;
use serde::Serialize;
use serde_json::{Value, json};

/// Prints `value` as pretty JSON on stdout.
pub fn print_json(value: &impl Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => outln!("{text}"),
        Err(e) => eprintln!("error: cannot render JSON: {e}"),
    }
}

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

/// Prints a diagnostic for `e` on stderr, with its snippet and help.
pub fn diagnostic(kind: &str, e: &Error) {
    let handler = miette::GraphicalReportHandler::new();
    let mut out = String::new();
    if handler.render_report(&mut out, e).is_ok() {
        eprintln!("{kind}: {}", out.trim_start());
    } else {
        eprintln!("{kind}: {e}");
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
