//! Reading markdown by lines: the `[VERIFY]` items of a tasks file with their commands, and
//! the `AC-x.y` acceptance criteria of a requirements file. Fenced code is ignored.
//!
//! An item's commands are written after the first `: ` of its line; an item with none there
//! takes the code spans of its `**Verify**:` line (smart-ralph's template writes
//! `- **Verify**: \`gh pr checks\` shows all checks passing` under `V5 [VERIFY] CI pipeline
//! passes`).

use crate::error::{Error, ParseError};
use serde::Serialize;

/// The tag that makes a task item a verification item.
const TAG: &str = "[VERIFY]";

/// One `[VERIFY]` task item of a tasks file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VerifyItem {
    /// The word before `[VERIFY]` (`V4`), when there is exactly one.
    pub id: Option<String>,
    /// One-based line of the item.
    pub line: usize,
    /// The item's text after the checkbox.
    pub text: String,
    /// The text after `[VERIFY]` up to the colon (`Full local CI`).
    pub title: String,
    /// The checkbox was already ticked.
    pub checked: bool,
    /// Byte offset in the file of the character between the checkbox's brackets.
    pub box_offset: usize,
    /// The commands after the colon, split at top-level `&&`, in order; else those in
    /// backticks on the item's `**Verify**:` line.
    pub commands: Vec<String>,
    /// The line of the `**Verify**:` line the commands were taken from, when they were.
    pub verify_line: Option<usize>,
    /// The item mentions "AC checklist": it checks requirements, not commands.
    pub ac_checklist: bool,
}

/// One acceptance criterion (`AC-1.2: Users can log in`) of a requirements file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Criterion {
    /// `AC-1.2`.
    pub id: String,
    /// What must hold, as written (backticks kept).
    pub description: String,
    /// One-based line.
    pub line: usize,
    /// Words the description puts in backticks (candidate file names to judge).
    #[serde(skip)]
    pub quoted: Vec<String>,
}

/// Lines of `text` outside fenced code: (one-based line, byte offset, line without its end).
fn prose_lines(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += raw.len();
        let t = line.trim_start();
        let marker = t.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(c) = marker {
            let run = t.chars().take_while(|x| *x == c).count();
            if run >= 3 {
                match fence {
                    None => fence = Some((c, run)),
                    Some((fc, flen)) if fc == c && run >= flen && t[run..].trim().is_empty() => {
                        fence = None;
                    }
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_none() {
            out.push((i + 1, start, line));
        }
    }
    out
}

/// A task item's checkbox: (offset of the box's inner character in `line`, ticked, text).
fn task_item(line: &str) -> Option<(usize, bool, &str)> {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let marker = if rest.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || !rest[digits..].starts_with(['.', ')']) {
            return None;
        }
        digits + 1
    };
    let after = &rest[marker..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    if spaces == 0 {
        return None;
    }
    let bx = &after[spaces..];
    let mut chars = bx.chars();
    if chars.next() != Some('[') {
        return None;
    }
    let mark = chars.next()?;
    if !matches!(mark, ' ' | 'x' | 'X') || chars.next() != Some(']') {
        return None;
    }
    let text = &bx[3..];
    if !(text.is_empty() || text.starts_with([' ', '\t'])) {
        return None;
    }
    Some((indent + marker + spaces + 1, mark != ' ', text.trim()))
}

/// Every `[VERIFY]` task item of a tasks file, in order.
pub(crate) fn verify_items(text: &str) -> Vec<VerifyItem> {
    let mut items = Vec::new();
    let lines = prose_lines(text);
    for (k, &(line_no, start, line)) in lines.iter().enumerate() {
        let Some((box_col, checked, body)) = task_item(line) else {
            continue;
        };
        let Some(tag_at) = find_tag(body) else {
            continue;
        };
        let before: Vec<&str> = body[..tag_at].split_whitespace().collect();
        let id = match before.as_slice() {
            [one] => Some(one.trim_matches(['*', '_']).to_string()).filter(|s| !s.is_empty()),
            _ => None,
        };
        let rest = &body[tag_at + TAG.len()..];
        let (title, mut commands) = match command_colon(rest) {
            Some(c) => (rest[..c].trim(), split_commands(&rest[c + 1..])),
            None => (rest.trim(), Vec::new()),
        };
        let ac_checklist = body.to_ascii_lowercase().contains("ac checklist");
        let mut verify_line = None;
        if commands.is_empty()
            && !ac_checklist
            && let Some((n, spans)) = verify_field(&lines[k + 1..], line)
        {
            commands = spans.iter().flat_map(|s| split_commands(s)).collect();
            verify_line = Some(n).filter(|_| !commands.is_empty());
        }
        items.push(VerifyItem {
            id,
            line: line_no,
            text: body.to_string(),
            title: title.to_string(),
            checked,
            box_offset: start + box_col,
            commands,
            verify_line,
            ac_checklist,
        });
    }
    items
}

/// Leading spaces of a line (a tab counts as four).
fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The `**Verify**:` line among the lines indented under `item` (up to the next line as
/// little indented as the item): its line number and its code spans.
fn verify_field(after: &[(usize, usize, &str)], item: &str) -> Option<(usize, Vec<String>)> {
    let own = indent_of(item);
    for &(n, _, line) in after {
        if line.trim().is_empty() {
            continue;
        }
        if indent_of(line) <= own {
            return None;
        }
        let t = line
            .trim_start()
            .trim_start_matches(['-', '*', '+'])
            .trim_start();
        let rest = ["**Verify**:", "**Verify:**", "__Verify__:", "Verify:"]
            .iter()
            .find_map(|p| t.strip_prefix(p));
        if let Some(rest) = rest {
            let spans: Vec<String> = rest
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            return Some((n, spans));
        }
    }
    None
}

/// Where `[VERIFY]` is in an item's text (a tag, not the text of a `[VERIFY](...)` link).
fn find_tag(body: &str) -> Option<usize> {
    body.match_indices(TAG)
        .map(|(i, _)| i)
        .find(|i| !body[i + TAG.len()..].starts_with('('))
}

/// The colon that starts the commands: the first one followed by a space or the end.
fn command_colon(rest: &str) -> Option<usize> {
    rest.char_indices()
        .filter(|(_, c)| *c == ':')
        .map(|(i, _)| i)
        .find(|i| rest[i + 1..].is_empty() || rest[i + 1..].starts_with([' ', '\t']))
}

/// `s` without one pair of enclosing backticks (markdown code), trimmed.
fn unquote(s: &str) -> &str {
    let t = s.trim();
    match t.strip_prefix('`').and_then(|x| x.strip_suffix('`')) {
        Some(inner) if !inner.contains('`') => inner.trim(),
        _ => t,
    }
}

/// The commands of `part`, split at `&&` outside quotes, backticks and parentheses, each
/// without enclosing markdown backticks; empty ones dropped. `;` and `||` are left to sh.
pub(crate) fn split_commands(part: &str) -> Vec<String> {
    let part = unquote(part);
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut single, mut double, mut back, mut depth) = (false, false, false, 0usize);
    let mut chars = part.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !single => {
                current.push(c);
                if let Some(n) = chars.next() {
                    current.push(n);
                }
                continue;
            }
            '\'' if !double && !back => single = !single,
            '"' if !single && !back => double = !double,
            '`' if !single => back = !back,
            '(' if !single && !double && !back => depth += 1,
            ')' if !single && !double && !back => depth = depth.saturating_sub(1),
            '&' if !single && !double && !back && depth == 0 && chars.peek() == Some(&'&') => {
                chars.next();
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out.iter()
        .map(|c| unquote(c).to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// Every acceptance criterion of a requirements file: lines that begin (after list,
/// checkbox, heading, table and emphasis marks) with `AC-<digits>[.<digits>...]`. The first
/// line of an id counts; later mentions (traceability tables) are ignored. Table rows take
/// the next cell as the description. An id without a description is an error.
pub(crate) fn criteria(file: &str, text: &str) -> Result<Vec<Criterion>, Error> {
    let mut out: Vec<Criterion> = Vec::new();
    for (line_no, _, line) in prose_lines(text) {
        let t = line.trim();
        let lead = strip_lead(t);
        let Some(after) = lead.strip_prefix("AC-") else {
            continue;
        };
        let digits: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let digits = digits.trim_end_matches('.');
        if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let id = format!("AC-{digits}");
        if out.iter().any(|c| c.id == id) {
            continue;
        }
        let mut desc = after[digits.len()..]
            .trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, '*' | '_' | '`' | ':' | '|' | '-' | ')' | '.')
            })
            .trim_start_matches(['–', '—'])
            .trim();
        if t.starts_with('|') {
            desc = desc.split('|').next().unwrap_or_default().trim();
        }
        let desc = desc.trim_end_matches(['|', ' ']).trim();
        if desc.is_empty() {
            let col = line.find("AC-").map_or(1, |c| c + 1);
            return Err(ParseError::at(
                file,
                text,
                line_no,
                col,
                format!("{id} has no description"),
            )
            .with_help("write it as `- AC-1.2: what must hold`")
            .into());
        }
        out.push(Criterion {
            id,
            description: desc.to_string(),
            line: line_no,
            quoted: backticked(desc),
        });
    }
    Ok(out)
}

/// `line` without its leading list, checkbox, heading, quote, table and emphasis marks.
fn strip_lead(line: &str) -> &str {
    let mut s = line;
    loop {
        let before = s;
        s = s.trim_start();
        for p in ["[ ]", "[x]", "[X]"] {
            if let Some(r) = s.strip_prefix(p) {
                s = r;
            }
        }
        s = s.trim_start_matches(['-', '*', '+', '#', '|', '>', '_', '`']);
        let digits = s.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && s[digits..].starts_with(['.', ')']) && s[digits + 1..].starts_with(' ') {
            s = &s[digits + 1..];
        }
        if s == before {
            return s;
        }
    }
}

/// The single words `text` puts in backticks.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::trim)
        .filter(|w| !w.is_empty() && !w.contains(char::is_whitespace))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_with_ids_titles_and_commands() {
        let text = "# Tasks\n\n- [ ] 1.1 Build it\n- [ ] V4 [VERIFY] Full local CI: cargo fmt --check && cargo test\n  - **Do**: run\n- [x] [VERIFY] Lint: `make lint`\n\n```\n- [ ] V9 [VERIFY] In code: false\n```\n- [ ] V6 [VERIFY] AC checklist\n";
        let items = verify_items(text);
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].id.as_deref(), Some("V4"));
        assert_eq!(items[0].line, 4);
        assert_eq!(items[0].title, "Full local CI");
        assert_eq!(items[0].commands, ["cargo fmt --check", "cargo test"]);
        assert!(!items[0].checked);
        assert_eq!(&text[items[0].box_offset..items[0].box_offset + 1], " ");
        assert_eq!(items[1].id, None);
        assert_eq!((items[1].id.as_deref(), items[1].line), (None, 6));
        assert!(items[1].checked);
        assert_eq!(&text[items[1].box_offset..items[1].box_offset + 1], "x");
        assert_eq!(items[1].commands, ["make lint"]);
        assert!(items[2].ac_checklist);
        assert!(items[2].commands.is_empty());
    }

    #[test]
    fn the_verify_line_gives_commands_to_an_item_without_them() {
        let text = "- [ ] V4 [VERIFY] Full local CI: true\n  - **Verify**: `false`\n- [ ] V5 [VERIFY] CI pipeline passes\n  - **Do**: Verify GitHub Actions/CI pipeline passes\n  - **Verify**: `gh pr checks` shows all checks passing\n  - **Done when**: All CI checks green\n- [ ] V6 [VERIFY] AC checklist\n  - **Verify**: `x`\n- [ ] V7 [VERIFY] Prose\n  - **Verify**: All commands exit 0\n- [ ] V8 [VERIFY] Alone\n- **Verify**: `not-mine`\n";
        let items = verify_items(text);
        assert_eq!(
            items[0].commands,
            ["true"],
            "the title's commands come first"
        );
        assert_eq!(items[0].verify_line, None);
        assert_eq!(items[1].title, "CI pipeline passes");
        assert_eq!(items[1].commands, ["gh pr checks"]);
        assert_eq!(items[1].verify_line, Some(5));
        assert!(
            items[2].commands.is_empty(),
            "an AC checklist runs no commands"
        );
        assert!(items[3].commands.is_empty(), "prose is not a command");
        assert!(items[4].commands.is_empty(), "a line not under the item");
    }

    #[test]
    fn splitting_respects_quotes_and_backticks() {
        assert_eq!(
            split_commands("`a && b`"),
            ["a", "b"],
            "one code span around all commands"
        );
        assert_eq!(split_commands("`a` && `b c`"), ["a", "b c"]);
        assert_eq!(
            split_commands("sh -c 'x && y' && echo \"p && q\" && (c && d)"),
            ["sh -c 'x && y'", "echo \"p && q\"", "(c && d)"]
        );
        assert_eq!(split_commands("a; b || c &&"), ["a; b || c"]);
        assert!(split_commands("  ").is_empty());
    }

    #[test]
    fn verify_links_are_not_tags() {
        assert!(verify_items("- [ ] works [VERIFY](t.sh#f)\n").is_empty());
        assert!(verify_items("- [] V1 [VERIFY] x: y\n").is_empty());
    }

    #[test]
    fn criteria_in_lists_tables_and_headings() {
        let text = "## US-1\n- [ ] AC-1.1: Users can log in via `src/login.rs`\n- **AC-1.2**: Sessions expire\n\n| AC | Description |\n|----|----|\n| AC-2.1 | Tables work | x |\n### AC-3 — Headings work\nSee AC-1.1 again.\n| AC-1.1 | US-1 |\n";
        let c = criteria("requirements.md", text).expect("parses");
        let ids: Vec<&str> = c.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["AC-1.1", "AC-1.2", "AC-2.1", "AC-3"]);
        assert_eq!(c[0].description, "Users can log in via `src/login.rs`");
        assert_eq!(c[0].quoted, ["src/login.rs"]);
        assert_eq!(c[1].description, "Sessions expire");
        assert_eq!(c[2].description, "Tables work");
        assert_eq!(c[3].description, "Headings work");
        assert_eq!(c[2].line, 7);
    }

    #[test]
    fn criterion_without_description_is_an_error() {
        let e = criteria("r.md", "- AC-1.1:\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("r.md:1:3: AC-1.1 has no description"),
            "{e}"
        );
    }
}
