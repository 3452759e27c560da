//! What the documentation checks read of a markdown page: its fenced blocks (language,
//! lines), its inline code spans and its link targets, each with its line.

/// A fenced code block.
pub struct Block {
    /// The first word of the info string (`console`, `yaml`, ...).
    pub lang: String,
    /// Its lines, each with its line number in the page.
    pub lines: Vec<(usize, String)>,
}

/// A page's code: blocks, inline spans and link targets.
#[derive(Default)]
pub struct Code {
    /// Fenced blocks.
    pub blocks: Vec<Block>,
    /// Inline code spans outside blocks, each with its line.
    pub spans: Vec<(usize, String)>,
    /// Targets of `[text](target)` links outside code, each with its line.
    pub links: Vec<(usize, String)>,
}

/// Reads `text`.
pub fn read(text: &str) -> Code {
    let mut code = Code::default();
    let mut open: Option<(String, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let at = i + 1;
        let trimmed = line.trim_start();
        let fence: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        if let Some((mark, block)) = open.as_mut() {
            if fence.len() >= mark.len()
                && trimmed.trim_end() == fence
                && fence.starts_with(&mark[..1])
            {
                let (_, block) = open.take().expect("open block");
                code.blocks.push(block);
            } else {
                block.lines.push((at, line.to_string()));
            }
            continue;
        }
        if fence.len() >= 3 {
            let lang = trimmed[fence.len()..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            open = Some((
                fence,
                Block {
                    lang,
                    lines: Vec::new(),
                },
            ));
            continue;
        }
        spans_and_links(line, at, &mut code);
    }
    code
}

/// The code spans and link targets of one line of prose.
fn spans_and_links(line: &str, at: usize, code: &mut Code) {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let ticks = b[i..].iter().take_while(|c| **c == b'`').count();
            let mark = "`".repeat(ticks);
            let from = i + ticks;
            if let Some(len) = line[from..].find(&mark) {
                code.spans
                    .push((at, line[from..from + len].trim().to_string()));
                i = from + len + ticks;
                continue;
            }
            i = from;
            continue;
        }
        if line[i..].starts_with("](") {
            let from = i + 2;
            if let Some(len) = line[from..].find(')') {
                let target = line[from..from + len]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                code.links.push((at, target.to_string()));
                i = from + len;
                continue;
            }
        }
        i += line[i..].chars().next().map_or(1, char::len_utf8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_blocks_spans_and_links() {
        let code = read(
            "a `vermas list` and [x](docs/a.md#b)\n\n```console\n$ vermas ready\n```\n`` a`b ``\n",
        );
        assert_eq!(
            code.spans,
            vec![(1, "vermas list".to_string()), (6, "a`b".to_string())]
        );
        assert_eq!(code.links, vec![(1, "docs/a.md#b".to_string())]);
        assert_eq!(code.blocks[0].lang, "console");
        assert_eq!(
            code.blocks[0].lines,
            vec![(4, "$ vermas ready".to_string())]
        );
    }
}
