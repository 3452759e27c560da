//! Places in a document as vermas counts them (one-based lines, columns in characters,
//! byte offsets) turned into LSP positions (zero-based lines, UTF-16 code units), and
//! back for the edits a client sends.

use lsp_types::{Position, Range};

/// The text of zero-based line `line` without its line break; empty past the end.
pub fn line_text(text: &str, line: usize) -> &str {
    let l = text.split('\n').nth(line).unwrap_or("");
    l.strip_suffix('\r').unwrap_or(l)
}

/// UTF-16 code units in the first `chars` characters of `line`.
fn utf16_len(line: &str, chars: usize) -> u32 {
    let units: usize = line.chars().take(chars).map(char::len_utf16).sum();
    u32::try_from(units).unwrap_or(u32::MAX)
}

/// A zero-based line number as LSP carries it.
fn lsp_line(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// The position of one-based `line` and one-based character `column`.
pub fn at(text: &str, line: usize, column: usize) -> Position {
    let line0 = line.saturating_sub(1);
    let chars = column.saturating_sub(1);
    Position::new(lsp_line(line0), utf16_len(line_text(text, line0), chars))
}

/// The position of byte `offset` (clamped to the text, moved back to a character
/// boundary).
pub fn of_offset(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line0 = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let units: usize = text[start..offset].chars().map(char::len_utf16).sum();
    Position::new(lsp_line(line0), u32::try_from(units).unwrap_or(u32::MAX))
}

/// The range of the bytes `start..end`.
pub fn of_span(text: &str, (start, end): (usize, usize)) -> Range {
    Range::new(of_offset(text, start), of_offset(text, end.max(start)))
}

/// One-based `line` from its first non-blank character to its end.
pub fn line_range(text: &str, line: usize) -> Range {
    let line0 = line.saturating_sub(1);
    let l = line_text(text, line0);
    let indent = l.chars().take_while(|c| c.is_whitespace()).count();
    Range::new(
        Position::new(lsp_line(line0), utf16_len(l, indent)),
        Position::new(lsp_line(line0), utf16_len(l, usize::MAX)),
    )
}

/// From one-based `line` and `column` to the end of that line.
pub fn to_line_end(text: &str, line: usize, column: usize) -> Range {
    let start = at(text, line, column);
    let end = line_range(text, line).end;
    Range::new(start, if end < start { start } else { end })
}

/// The byte offset of `pos`: a line past the end is the end of the text, a character past
/// the end of its line is the end of that line (as the protocol asks).
pub fn offset_of(text: &str, pos: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..pos.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let rest = &text[line_start..];
    let line_end = rest.find('\n').map_or(rest.len(), |i| i);
    let line = rest[..line_end]
        .strip_suffix('\r')
        .unwrap_or(&rest[..line_end]);
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= pos.character {
            return line_start + i;
        }
        units = units.saturating_add(u32::try_from(c.len_utf16()).unwrap_or(2));
    }
    line_start + line.len()
}

/// `text` with `range` replaced by `new_text`; a range whose end comes before its start is
/// read as empty at its start.
pub fn apply_edit(text: &str, range: Range, new_text: &str) -> String {
    let start = offset_of(text, range.start);
    let end = offset_of(text, range.end).max(start);
    let mut out = String::with_capacity(text.len() + new_text.len());
    out.push_str(&text[..start]);
    out.push_str(new_text);
    out.push_str(&text[end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_utf16_units() {
        let text = "ab\n- [ ] é😀 [verify](x.sh#f)\n";
        // "[verify]" starts at character 10 and UTF-16 unit 10: 😀 takes two units.
        assert_eq!(at(text, 2, 10), Position::new(1, 10));
        let offset = text.find("[verify]").unwrap();
        assert_eq!(of_offset(text, offset), Position::new(1, 10));
        assert_eq!(offset_of(text, Position::new(1, 10)), offset);
        assert_eq!(line_range(text, 2).end, Position::new(1, 26));
    }

    #[test]
    fn clamps_out_of_range_places() {
        let text = "one\r\ntwo";
        assert_eq!(line_text(text, 0), "one");
        assert_eq!(line_text(text, 9), "");
        assert_eq!(offset_of(text, Position::new(0, 99)), 3);
        assert_eq!(offset_of(text, Position::new(7, 0)), text.len());
        assert_eq!(of_offset(text, 999), Position::new(1, 3));
        let edited = apply_edit(
            text,
            Range::new(Position::new(1, 0), Position::new(1, 3)),
            "2",
        );
        assert_eq!(edited, "one\r\n2");
        let backwards = Range::new(Position::new(1, 2), Position::new(0, 0));
        assert_eq!(apply_edit(text, backwards, "x"), "one\r\ntwxo");
    }
}
