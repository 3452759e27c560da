//! Reading a live spec: success-criteria sections, task items, and their annotation links.

use super::target;
use super::{Annotation, Criterion, Problem, Spec};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

/// Optional front matter of a spec.
#[derive(Debug, Default, Deserialize)]
struct Meta {
    #[serde(default)]
    bead: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    covers: Vec<String>,
}

/// Parses spec `text` found at repository-relative `path`. Never fails: problems are
/// collected on the spec.
pub fn parse(text: &str, path: &str) -> Spec {
    let lines = LineIndex::new(text);
    let spec_dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let name = path
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".md")
        .to_string();
    let mut spec = Spec {
        path: path.to_string(),
        name,
        title: String::new(),
        bead: None,
        covers: Vec::new(),
        criteria: Vec::new(),
        has_criteria_section: false,
        problems: Vec::new(),
        refused: None,
    };
    let meta = front_matter(text, path, &mut spec.problems);
    spec.bead = meta.bead;
    spec.covers = meta.covers;
    check_fences(text, &mut spec.problems);

    let opts = Options::ENABLE_TASKLISTS | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut section: Option<HeadingLevel> = None;
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut first_h1: Option<String> = None;
    // For each open list item: the criterion it is, if it is a task item in a section.
    let mut items: Vec<Option<usize>> = Vec::new();
    // An open annotation link: (criterion, start offset, end offset, text, target, title).
    let mut link: Option<(Option<usize>, usize, usize, String, String, String)> = None;
    for (event, range) in Parser::new_ext(text, opts).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                if section.is_some_and(|s| level <= s) {
                    section = None;
                }
                heading = Some((level, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, title)) = heading.take() {
                    let title = title.trim().to_string();
                    if title.eq_ignore_ascii_case("success criteria") {
                        section = Some(level);
                        spec.has_criteria_section = true;
                    }
                    if level == HeadingLevel::H1 && first_h1.is_none() {
                        first_h1 = Some(title);
                    }
                }
            }
            Event::Start(Tag::Item) => items.push(None),
            Event::End(TagEnd::Item) => {
                items.pop();
            }
            Event::TaskListMarker(checked) if section.is_some() => {
                if let Some(top) = items.last_mut()
                    && top.is_none()
                {
                    let line_end = text[range.end..]
                        .find('\n')
                        .map_or(text.len(), |i| range.end + i);
                    spec.criteria.push(Criterion {
                        text: String::new(),
                        checked,
                        line: lines.line(range.start),
                        annotations: Vec::new(),
                        text_span: (range.end, line_end),
                    });
                    *top = Some(spec.criteria.len() - 1);
                }
            }
            Event::Start(Tag::Link {
                dest_url, title, ..
            }) => {
                let owner = if section.is_some() {
                    items.iter().rev().find_map(|i| *i)
                } else {
                    None
                };
                link = Some((
                    owner,
                    range.start,
                    range.end,
                    String::new(),
                    dest_url.to_string(),
                    title.to_string(),
                ));
            }
            Event::End(TagEnd::Link) => {
                if let Some((owner, start, end, label, dest, title)) = link.take() {
                    let label = label.trim().to_string();
                    if let (Some(idx), Some(kind)) = (owner, annotation_kind(&label)) {
                        let (line, column) = lines.position(text, start);
                        let ann =
                            annotation(kind, &dest, &title, spec_dir, line, column, (start, end));
                        spec.criteria[idx].annotations.push(ann);
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, _, label, ..)) = link.as_mut() {
                    label.push_str(&t);
                }
                if let Some((_, title)) = heading.as_mut() {
                    title.push_str(&t);
                }
            }
            _ => {}
        }
    }
    for c in &mut spec.criteria {
        c.text = criterion_text(text, c);
    }
    spec.title = meta.title.or(first_h1).unwrap_or_else(|| spec.name.clone());
    spec
}

/// `verify`, `judge` or `verify:NAME` when `label` is an annotation's link text.
fn annotation_kind(label: &str) -> Option<String> {
    let lower = label.to_ascii_lowercase();
    let ok = lower == "verify"
        || lower == "judge"
        || lower.strip_prefix("verify:").is_some_and(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
    ok.then_some(lower)
}

/// Builds an annotation, recording why its target cannot be run if so.
fn annotation(
    kind: String,
    dest: &str,
    title: &str,
    spec_dir: &str,
    line: usize,
    column: usize,
    span: (usize, usize),
) -> Annotation {
    let (file, function, legacy, mut error) = match target::resolve(dest, spec_dir) {
        Ok(t) => (t.file, t.function, t.legacy, None),
        Err(e) => (dest.to_string(), None, false, Some(e)),
    };
    let options = match target::options(title) {
        Ok(o) => o,
        Err(e) => {
            error.get_or_insert(e);
            Default::default()
        }
    };
    Annotation {
        kind,
        file,
        function,
        line,
        column,
        options,
        legacy,
        raw: dest.to_string(),
        error,
        span,
    }
}

/// The criterion's first line after the checkbox, annotation links cut out, trimmed.
fn criterion_text(text: &str, c: &Criterion) -> String {
    let (start, end) = c.text_span;
    let mut out = String::new();
    let mut pos = start;
    let mut cuts: Vec<(usize, usize)> = c
        .annotations
        .iter()
        .map(|a| a.span)
        .filter(|(s, _)| *s >= start && *s < end)
        .collect();
    cuts.sort_unstable();
    for (s, e) in cuts {
        if s >= pos {
            out.push_str(&text[pos..s]);
            pos = e.min(end).max(pos);
        }
    }
    out.push_str(&text[pos.min(end)..end]);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads `bead:`, `title:` and `covers:` from optional front matter.
fn front_matter(text: &str, path: &str, problems: &mut Vec<Problem>) -> Meta {
    if !text.starts_with("---\n") && !text.starts_with("---\r\n") {
        return Meta::default();
    }
    match crate::store::frontmatter::split(text, path) {
        Ok(split) => match crate::yaml::parse::<Meta>(split.yaml, path, text, split.yaml_line) {
            Ok(meta) => meta,
            Err(e) => {
                problems.push(Problem {
                    line: e.line,
                    column: e.column,
                    message: format!("front matter: {}", e.message),
                    error: true,
                });
                Meta::default()
            }
        },
        Err(e) => {
            problems.push(Problem {
                line: e.line,
                column: e.column,
                message: e.message,
                error: true,
            });
            Meta::default()
        }
    }
}

/// Reports a code fence that is never closed (everything after it would be code).
fn check_fences(text: &str, problems: &mut Vec<Problem>) {
    let mut open: Option<(usize, char, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let t = line.trim_start_matches(' ');
        let Some(ch) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = t.chars().take_while(|c| *c == ch).count();
        if run < 3 {
            continue;
        }
        match open {
            None => {
                if ch == '`' && t[run..].contains('`') {
                    continue;
                }
                open = Some((i + 1, ch, run));
            }
            Some((_, och, orun)) if och == ch && run >= orun && t[run..].trim().is_empty() => {
                open = None;
            }
            Some(_) => {}
        }
    }
    if let Some((line, _, _)) = open {
        problems.push(Problem {
            line,
            column: 1,
            message: "this code fence is never closed: everything after it is read as code".into(),
            error: true,
        });
    }
}

/// Maps byte offsets to one-based lines and columns.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|s| *s <= offset)
    }

    /// One-based line and column (in characters, as error positions count) of `offset`.
    fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        let start = self.starts[line - 1];
        let column = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line, column + 1)
    }
}
