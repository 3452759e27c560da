//! Words for people: counts (`1 spec`, `2 specs`, `3 criteria`) and text made safe to show
//! on a terminal.

/// `1 spec`, `2 specs`: a count with its noun in the right number (`-s` added).
pub fn plural(n: usize, noun: &str) -> String {
    counted(n, noun, &format!("{noun}s"))
}

/// `1 criterion`, `2 criteria`: a count with the noun's own singular or plural.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `text` safe to print on a terminal: every control character but a line break or a tab
/// (an escape sequence an LLM reply or an imported record carries, a carriage return that
/// would overwrite a line) shown as a visible escape (`\u{1b}`), so text written by an
/// agent cannot recolour, move or hide what vermas prints.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(printable("ok\nline\tcol"), "ok\nline\tcol");
        assert_eq!(printable("\u{1b}[32mPASS\r"), "\\u{1b}[32mPASS\\u{d}");
    }

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(plural(1, "spec"), "1 spec");
        assert_eq!(plural(0, "spec"), "0 specs");
        assert_eq!(plural(2, "error"), "2 errors");
        assert_eq!(counted(1, "criterion", "criteria"), "1 criterion");
        assert_eq!(counted(3, "criterion", "criteria"), "3 criteria");
    }
}
