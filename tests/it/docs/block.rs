//! A document's runnable parts, read from its markdown: the commands of its `console`
//! blocks with the output each shows, the files its `file=PATH` blocks hold, the hidden
//! set-up of its `<!-- test ... -->` comments, and the blocks marked `untested`.

/// One thing the test does, in document order.
#[derive(Debug)]
pub enum Step {
    /// Run a command and compare what it prints.
    Run(Command),
    /// Write a file (relative to the current folder) with a block's text.
    Write {
        /// The line of the block's opening fence.
        line: usize,
        /// Where, as the block's `file=` says.
        path: String,
        /// The block's text.
        content: String,
    },
}

/// A command of a `console` block (`$ ` lines; a line ending in `\` goes on).
#[derive(Debug)]
pub struct Command {
    /// The line of its `$ `.
    pub line: usize,
    /// The shell text, continuation lines joined with newlines.
    pub text: String,
    /// The output the document shows (`...` and `[..]` patterns allowed).
    pub expected: Vec<String>,
    /// The exit code shown by a last line `? N`; 0 when none.
    pub code: i32,
    /// Set-up inside `<!-- test` comments: its output is not compared.
    pub hidden: bool,
}

/// A block marked `untested: REASON`: shown, never run.
#[derive(Debug, PartialEq, Eq)]
pub struct Untested {
    /// The line of the block's opening fence.
    pub line: usize,
    /// Why it cannot run in a test.
    pub reason: String,
}

/// What a document holds for the tests.
#[derive(Debug, Default)]
pub struct Doc {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The blocks marked untested.
    pub untested: Vec<Untested>,
}

/// Languages whose blocks are commands: they must be `console` blocks, run or marked.
const SHELLS: &[&str] = &["sh", "bash", "shell", "zsh", "console", "shell-session"];

/// Reads `text` (the document `name`, for messages).
pub fn parse(name: &str, text: &str) -> Result<Doc, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut doc = Doc::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = i + 1;
        if line.trim_start().starts_with("<!-- test") {
            let end = (i..lines.len())
                .find(|&j| lines[j].trim_end().ends_with("-->"))
                .ok_or_else(|| format!("{name}:{at}: `<!-- test` is never closed"))?;
            let body: Vec<&str> = lines[i + 1..end].to_vec();
            commands(name, i + 2, &body, true, &mut doc)?;
            i = end + 1;
            continue;
        }
        let Some((indent, fence, info)) = opening(line) else {
            i += 1;
            continue;
        };
        let close = (i + 1..lines.len())
            .find(|&j| closes(lines[j], &fence))
            .ok_or_else(|| format!("{name}:{at}: a code block is never closed"))?;
        let body: Vec<&str> = lines[i + 1..close]
            .iter()
            .map(|l| strip_indent(l, indent))
            .collect();
        block(name, at, &info, &body, &mut doc)?;
        i = close + 1;
    }
    Ok(doc)
}

/// Reads one fenced block with info string `info`.
fn block(name: &str, at: usize, info: &str, body: &[&str], doc: &mut Doc) -> Result<(), String> {
    let mut words = info.split_whitespace();
    let lang = words.next().unwrap_or("");
    let rest: Vec<&str> = words.collect();
    if let Some(reason) = info.split_once("untested:").map(|(_, r)| r.trim()) {
        if reason.is_empty() {
            return Err(format!("{name}:{at}: `untested:` needs a reason"));
        }
        doc.untested.push(Untested {
            line: at,
            reason: reason.to_string(),
        });
        return Ok(());
    }
    if let Some(path) = rest.iter().find_map(|w| w.strip_prefix("file=")) {
        let mut content = body.join("\n");
        content.push('\n');
        doc.steps.push(Step::Write {
            line: at,
            path: path.to_string(),
            content,
        });
        return Ok(());
    }
    if lang == "console" {
        return commands(name, at + 1, body, false, doc);
    }
    if SHELLS.contains(&lang) || body.first().is_some_and(|l| l.starts_with("$ ")) {
        return Err(format!(
            "{name}:{at}: a block of commands must be a `console` block (`$ ` before each \
             command, its output below), run by the tests, or marked `untested: REASON`"
        ));
    }
    Ok(())
}

/// Reads the `$ ` commands of `body`, whose first line is line `first` of the document.
fn commands(
    name: &str,
    first: usize,
    body: &[&str],
    hidden: bool,
    doc: &mut Doc,
) -> Result<(), String> {
    let mut current: Option<Command> = None;
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        if let Some(text) = line.strip_prefix("$ ") {
            finish(current.take(), doc);
            let mut text = text.to_string();
            let start = first + i;
            while text.ends_with('\\') && i + 1 < body.len() {
                i += 1;
                text.push('\n');
                text.push_str(body[i]);
            }
            current = Some(Command {
                line: start,
                text,
                expected: Vec::new(),
                code: 0,
                hidden,
            });
        } else if let Some(cmd) = current.as_mut() {
            match exit_line(line) {
                Some(code) => cmd.code = code,
                None => cmd.expected.push(line.trim_end().to_string()),
            }
        } else if !line.trim().is_empty() {
            return Err(format!(
                "{name}:{}: output before any `$ ` command",
                first + i
            ));
        }
        i += 1;
    }
    finish(current, doc);
    Ok(())
}

/// Adds a finished command, its trailing empty lines dropped.
fn finish(cmd: Option<Command>, doc: &mut Doc) {
    if let Some(mut cmd) = cmd {
        while cmd.expected.last().is_some_and(|l| l.is_empty()) {
            cmd.expected.pop();
        }
        doc.steps.push(Step::Run(cmd));
    }
}

/// `? N`: the exit code a command ends with.
fn exit_line(line: &str) -> Option<i32> {
    line.strip_prefix("? ")?.trim().parse().ok()
}

/// A fence opening: its indentation, its fence (```` ``` ```` or `~~~`, any length) and
/// info string.
fn opening(line: &str) -> Option<(usize, String, String)> {
    let indent = line.len() - line.trim_start().len();
    let rest = line.trim_start();
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let fence = ch.to_string().repeat(len);
    Some((indent, fence, rest[len..].trim().to_string()))
}

/// True when `line` closes a block opened with `fence`.
fn closes(line: &str, fence: &str) -> bool {
    let t = line.trim();
    let ch = fence.chars().next().unwrap_or('`');
    t.len() >= fence.len() && t.chars().all(|c| c == ch)
}

/// `line` without up to `indent` leading spaces.
fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_commands_outputs_exit_codes_files_and_marks() {
        let text = "# T\n\n```console\n$ echo a \\\n  b\na b\n$ false\n? 1\n```\n\n\
                    ```sh file=x.sh\necho hi\n```\n\n```console untested: needs tmux\n$ tmux\n```\n\
                    <!-- test\n$ true\n-->\n";
        let doc = parse("t.md", text).unwrap();
        assert_eq!(doc.steps.len(), 4);
        let Step::Run(first) = &doc.steps[0] else {
            panic!()
        };
        assert_eq!((first.line, first.text.as_str()), (4, "echo a \\\n  b"));
        assert_eq!(first.expected, vec!["a b"]);
        let Step::Run(second) = &doc.steps[1] else {
            panic!()
        };
        assert_eq!(second.code, 1);
        assert!(matches!(&doc.steps[2], Step::Write { path, .. } if path == "x.sh"));
        assert!(matches!(&doc.steps[3], Step::Run(c) if c.hidden));
        assert_eq!(doc.untested[0].reason, "needs tmux");
    }

    #[test]
    fn a_shell_block_that_is_not_console_is_refused() {
        let err = parse("t.md", "```sh\nvermas list\n```\n").unwrap_err();
        assert!(err.contains("t.md:1"), "{err}");
        let err = parse("t.md", "```\n$ vermas list\n```\n").unwrap_err();
        assert!(err.contains("console"), "{err}");
        assert!(parse("t.md", "```yaml\na: 1\n```\n").is_ok());
    }
}
