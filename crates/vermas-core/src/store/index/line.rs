//! One line of an index: the record's key, the stamp of its file, then the record's own
//! fields; written by [`encode_line`], and read where it lies in the index text, without
//! copying ([`LineSpan`]).

use super::Indexed;
use crate::store::escape::esc_into;
use crate::store::listing::FileStamp;
#[cfg(test)]
use std::collections::HashMap;
use std::ops::Range;

/// Where one record's line lies in an index text, as byte offsets: its key, and its fields
/// (what [`Indexed::encode`] wrote, after the stamp).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineSpan {
    /// First byte of the line (the key).
    start: u32,
    /// End of the key.
    key_end: u32,
    /// First byte of the fields.
    fields: u32,
    /// End of the line, before its newline.
    end: u32,
}

impl LineSpan {
    /// The key, still escaped.
    pub(crate) fn key<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start as usize..self.key_end as usize]
    }

    /// The record's fields.
    pub(crate) fn fields<'a>(&self, text: &'a str) -> &'a str {
        &text[self.fields as usize..self.end as usize]
    }

    /// The stamp as the line has it (four decimal numbers, tab-separated): two lines'
    /// stamps are the same exactly when these texts are.
    pub(crate) fn stamp_text<'a>(&self, text: &'a str) -> &'a str {
        &text[self.key_end as usize + 1..(self.fields as usize).saturating_sub(1)]
    }

    /// Where the fields start in the text.
    pub(crate) fn fields_start(&self) -> usize {
        self.fields as usize
    }

    /// The span of the line `text[range]` (key, stamp, fields); `None` when it is not
    /// such a line.
    pub(crate) fn of_line(text: &str, range: Range<usize>) -> Option<LineSpan> {
        LineSpan::parse(text, range).map(|(span, _)| span)
    }

    /// The whole line, without its newline.
    pub(super) fn line<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start as usize..self.end as usize]
    }

    /// The span of the line `text[range]` (key, four stamp numbers, fields), with its
    /// stamp; `None` when it is not such a line.
    fn parse(text: &str, range: Range<usize>) -> Option<(LineSpan, FileStamp)> {
        let key_len = text[range.clone()].find('\t')?;
        let line = IndexLine {
            start: u32::try_from(range.start).ok()?,
            key_end: u32::try_from(range.start + key_len).ok()?,
            end: u32::try_from(range.end).ok()?,
        };
        line.read(text)
    }
}

/// Where one line of an index lies: its start, the end of its key, and its end (before
/// the newline).
#[derive(Debug, Clone, Copy)]
pub(super) struct IndexLine {
    /// First byte.
    start: u32,
    /// End of the key.
    key_end: u32,
    /// End, before the newline.
    end: u32,
}

impl IndexLine {
    /// Its key.
    pub(super) fn key<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start as usize..self.key_end as usize]
    }

    /// Its span and stamp, when the stamp reads.
    pub(super) fn read(&self, text: &str) -> Option<(LineSpan, FileStamp)> {
        let (stamp, fields) = read_stamp(
            text.as_bytes(),
            self.key_end as usize + 1,
            self.end as usize,
        )?;
        let span = LineSpan {
            start: self.start,
            key_end: self.key_end,
            fields: fields as u32,
            end: self.end,
        };
        Some((span, stamp))
    }
}

/// Each line of an index after its header; none when the header differs (or when a line
/// has no key).
pub(super) fn index_lines(text: &str, header: &str) -> Vec<IndexLine> {
    let Some(first) = text.find('\n') else {
        return Vec::new();
    };
    if &text[..first] != header {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(text.len() / 128);
    let mut start = first + 1;
    while start < text.len() {
        let rest = &text[start..];
        let len = rest.find('\n').unwrap_or(rest.len());
        let Some(key_len) = rest[..len].find('\t') else {
            return Vec::new();
        };
        // The text is shorter than 4 GiB (see `read_index`).
        out.push(IndexLine {
            start: start as u32,
            key_end: (start + key_len) as u32,
            end: (start + len) as u32,
        });
        start += len + 1;
    }
    out
}

/// Reads the stamp written at `at` (`size`, `mtime`, `ctime`, `ino`, each followed by a
/// tab) in a line ending at `end`: the stamp, and where the fields start.
pub(crate) fn read_stamp(bytes: &[u8], at: usize, end: usize) -> Option<(FileStamp, usize)> {
    let mut at = at;
    let mut number = || -> Option<i128> {
        let negative = bytes.get(at) == Some(&b'-');
        at += usize::from(negative);
        let first = at;
        let mut n: u64 = 0;
        while at < end && bytes[at].is_ascii_digit() {
            n = n
                .checked_mul(10)?
                .checked_add(u64::from(bytes[at] - b'0'))?;
            at += 1;
        }
        if at == first || at >= end || bytes[at] != b'\t' {
            return None;
        }
        at += 1;
        Some(if negative {
            -i128::from(n)
        } else {
            i128::from(n)
        })
    };
    let stamp = FileStamp {
        size: u64::try_from(number()?).ok()?,
        mtime_ns: number()?,
        ctime_ns: number()?,
        ino: u64::try_from(number()?).ok()?,
    };
    Some((stamp, at))
}

/// Splits an index into key -> (stamp, fields); empty when the header differs.
#[cfg(test)]
pub(crate) fn decode_index<'a>(
    text: &'a str,
    header: &str,
) -> HashMap<&'a str, (FileStamp, &'a str)> {
    index_lines(text, header)
        .into_iter()
        .filter_map(|line| {
            let (span, stamp) = line.read(text)?;
            Some((span.key(text), (stamp, span.fields(text))))
        })
        .collect()
}

/// Appends one record's line: key, stamp, then its fields.
pub(crate) fn encode_line<T: Indexed>(out: &mut String, key: &str, s: FileStamp, record: &T) {
    // Into a String, write!/writeln! cannot fail: their always-Ok result is ignored.
    use std::fmt::Write;
    esc_into(out, key);
    let _ = write!(
        out,
        "\t{}\t{}\t{}\t{}\t",
        s.size, s.mtime_ns, s.ctime_ns, s.ino
    );
    record.encode(out);
    out.push('\n');
}

/// Appends `line` and a newline to `out`, and its span to `spans`.
pub(super) fn push_line(out: &mut String, line: &str, spans: &mut Vec<LineSpan>) {
    let start = out.len();
    out.push_str(line);
    if let Some((span, _)) = LineSpan::parse(out, start..out.len()) {
        spans.push(span);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::index::tests::Rec;
    use crate::store::index::{esc_opt, unesc_opt};

    #[test]
    fn lines_round_trip() {
        let rec = Rec(
            "Tab\there, newline\nthere \\ and \u{1f}".into(),
            vec!["a\u{1e}".into(), String::new(), "c".into()],
        );
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            ino: 4,
        };
        let mut text = format!("{}\n", Rec::HEADER);
        encode_line(&mut text, "k-1", stamp, &rec);
        let index = decode_index(&text, Rec::HEADER);
        let (s, rest) = index["k-1"];
        assert_eq!(s, stamp);
        assert_eq!(Rec::decode("k-1", rest).unwrap(), rec);
        assert!(decode_index(&text, "other header").is_empty());
        assert_eq!(unesc_opt(&esc_opt(Some(""))), Some(String::new()));
        assert_eq!(unesc_opt(&esc_opt(None)), None);
    }
}
