//! The approval loop of `design`, `strategize` and `plan`: a proposal shown on the
//! terminal with `Approve? [y]es / [n]o / [e]dit / [r]etry with feedback`, `$EDITOR` on its
//! text, feedback sent back to the model. Only the terminal lives here; the library builds
//! the proposals and reads the edited text.

use crate::cli::output::diagnostic;
use std::io::{BufRead, IsTerminal, Write};
use vermas_core::error::{Error, Result};
use vermas_core::planning::design::Revision;

/// The question asked after each proposal.
pub const QUESTION: &str = "Approve? [y]es / [n]o / [e]dit / [r]etry with feedback: ";

/// One kind of proposal and how to get, show and read it.
pub struct Proposal<'a, T> {
    /// What is proposed, for messages ("requirements", "criteria").
    pub what: &'a str,
    /// File extension of the text opened in the editor (`md`, `yaml`).
    pub extension: &'a str,
    /// Asks the model (again, with a person's feedback).
    pub ask: &'a dyn Fn(Option<&Revision>) -> Result<T>,
    /// The text a person reads and edits.
    pub to_text: &'a dyn Fn(&T) -> String,
    /// Reads an edited text back.
    pub from_text: &'a dyn Fn(&str) -> Result<T>,
}

/// How proposals are settled: accepted as they come (`--yes`) or asked on the terminal.
#[derive(Debug, Clone, Copy)]
pub struct Approver {
    yes: bool,
}

impl Approver {
    /// `--yes` accepts; otherwise stdin must be a terminal, or the question is an error
    /// (exit 2) that names `--yes`. Checked before any model is asked.
    pub fn new(yes: bool, what: &str) -> Result<Approver> {
        if !yes && !std::io::stdin().is_terminal() {
            return Err(Error::invalid_with_help(
                format!(
                    "the {what} need a person's approval, but stdin is not a terminal: pass --yes \
                     to accept the proposal as it comes"
                ),
                "run it in a terminal to approve, edit or send the proposal back, or add --yes",
            ));
        }
        Ok(Approver { yes })
    }

    /// True when proposals are accepted without asking.
    pub fn accepts_all(self) -> bool {
        self.yes
    }

    /// Gets a proposal and settles it: `Some` accepted (as edited), `None` declined.
    /// The first ask's error ends it; a later one (after feedback) is shown and the
    /// question asked again.
    pub fn settle<T>(self, p: &Proposal<'_, T>) -> Result<Option<T>> {
        let mut current = (p.ask)(None)?;
        if self.yes {
            return Ok(Some(current));
        }
        let mut unparsed: Option<String> = None;
        let mut show = true;
        loop {
            let text = (p.to_text)(&current);
            if show {
                eprintln!("\nProposed {}:\n\n{}", p.what, text.trim_end());
            }
            show = false;
            let Some(answer) = prompt(&format!("\n{QUESTION}"))? else {
                eprintln!();
                return Ok(None);
            };
            match answer.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => return Ok(Some(current)),
                "n" | "no" => return Ok(None),
                "e" | "edit" => {
                    let start = unparsed.take().unwrap_or(text);
                    let edited = match edit(&start, p.extension) {
                        Ok(edited) => edited,
                        Err(e) => {
                            diagnostic("error", &e);
                            continue;
                        }
                    };
                    match (p.from_text)(&edited) {
                        Ok(v) => {
                            current = v;
                            show = true;
                        }
                        Err(e) => {
                            diagnostic("error", &e);
                            eprintln!(
                                "The edit was not used; `e` opens it again, `y` accepts the {} shown before.",
                                p.what
                            );
                            unparsed = Some(edited);
                        }
                    }
                }
                "r" | "retry" => {
                    let Some(feedback) = prompt("Feedback: ")? else {
                        return Ok(None);
                    };
                    if feedback.trim().is_empty() {
                        eprintln!("No feedback given: the proposal stays as it is.");
                        continue;
                    }
                    let revision = Revision {
                        previous: text,
                        feedback: feedback.trim().to_string(),
                    };
                    eprintln!("Asking again...");
                    match (p.ask)(Some(&revision)) {
                        Ok(v) => {
                            current = v;
                            unparsed = None;
                            show = true;
                        }
                        Err(e) => diagnostic("error", &e),
                    }
                }
                _ => eprintln!("Answer y, n, e or r."),
            }
        }
    }
}

/// Writes `question` on stderr and reads one line from stdin (`None` at end of input).
fn prompt(question: &str) -> Result<Option<String>> {
    let mut err = std::io::stderr();
    // The answer is read either way; a closed stderr only hides the question.
    let _ = err.write_all(question.as_bytes());
    let _ = err.flush();
    let mut line = String::new();
    let n = std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::io("stdin", e))?;
    Ok((n > 0).then_some(line))
}

/// Opens `$VISUAL`, else `$EDITOR`, else `vi` on `text` in a temporary file and returns
/// what the person saved. The editor runs through `sh`, so it may carry arguments.
fn edit(text: &str, extension: &str) -> Result<String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let path = std::env::temp_dir().join(format!(
        "vermas-proposal-{}-{nanos}.{extension}",
        std::process::id()
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    file.write_all(text.as_bytes())
        .map_err(|e| Error::io(&path, e))?;
    drop(file);
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(&editor)
        .arg(&path)
        .status();
    let edited = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e));
    // Best effort: a temporary file left behind is harmless.
    let _ = std::fs::remove_file(&path);
    match status {
        Ok(s) if s.success() => edited,
        Ok(s) => Err(Error::Invalid(format!(
            "the editor `{editor}` ended with {s}: the proposal is unchanged"
        ))),
        Err(e) => Err(Error::Invalid(format!(
            "the editor `{editor}` could not be started: {e}"
        ))),
    }
}
