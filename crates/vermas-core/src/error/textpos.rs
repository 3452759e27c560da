//! Positions in text: byte offsets and the one-based line and column (in characters)
//! that error messages and editors show.

/// One-based line and column (in characters) of a byte offset in `text`; an offset past the
/// end or inside a character counts from the character it falls in.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = char_floor(text, offset);
    let before = &text[..offset];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// Byte offset of a one-based line and column (in characters) of `text`, clamped to it.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let col = l
                .char_indices()
                .nth(column.max(1) - 1)
                .map_or(l.len(), |(b, _)| b);
            return offset + col;
        }
        offset += l.len();
    }
    text.len()
}

/// The largest character boundary of `text` at or before `offset`.
fn char_floor(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The line starts of one text, for many offset lookups in it without rescanning.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// One-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|s| *s <= offset)
    }

    /// One-based line and column (in characters) of a byte offset of `text`, the text this
    /// index was built from.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = char_floor(text, offset);
        let line = self.line(offset);
        let start = self.starts[line - 1];
        (line, text[start..offset].chars().count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "ab\ncé d\n";
        // 'd' is byte 7 but the fourth character of line 2.
        assert_eq!(line_col(text, 7), (2, 4));
        assert_eq!(LineIndex::new(text).position(text, 7), (2, 4));
        assert_eq!(offset_of(text, 2, 4), 7);
    }

    #[test]
    fn offsets_out_of_range_are_clamped() {
        assert_eq!(line_col("", 5), (1, 1));
        assert_eq!(line_col("ab", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        // Inside the two bytes of 'é': the column of 'é'.
        assert_eq!(line_col("é", 1), (1, 1));
        assert_eq!(offset_of("ab\n", 9, 1), 3);
        assert_eq!(offset_of("ab\n", 1, 99), 3);
    }

    #[test]
    fn index_and_scan_agree() {
        let text = "ünï\n\ncödé here\nlast";
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices() {
            assert_eq!(
                index.position(text, offset),
                line_col(text, offset),
                "{offset}"
            );
        }
        assert_eq!(index.line(text.len()), 4);
    }
}
