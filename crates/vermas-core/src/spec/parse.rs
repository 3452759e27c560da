//! Reading a live spec: success-criteria sections, task items, and their annotation links.

use super::plain;
use super::target::{self, NameRule};
use super::{Annotation, Criterion, LinkForm, Problem, Spec};
use crate::error::textpos::LineIndex;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;
use std::ops::Range;

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

    let mut walk = Walk::new(text, spec_dir);
    let opts = Options::ENABLE_TASKLISTS | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    for (event, range) in Parser::new_ext(text, opts).into_offset_iter() {
        walk.event(&mut spec, event, range);
    }
    walk.add_plain_text_links(&mut spec);
    walk.report_stray_links(&mut spec);
    for c in &mut spec.criteria {
        c.annotations.sort_by_key(|a| a.span.0);
        c.text = criterion_text(text, c);
    }
    spec.title = meta
        .title
        .or(walk.first_h1)
        .unwrap_or_else(|| spec.name.clone());
    spec
}

/// A link being read: the criterion it belongs to, its byte range, label text, target and
/// title.
struct OpenLink {
    owner: Option<usize>,
    span: (usize, usize),
    label: String,
    dest: String,
    title: String,
}

/// What the walk over pulldown-cmark's events has seen so far.
struct Walk<'a> {
    text: &'a str,
    spec_dir: &'a str,
    lines: LineIndex,
    /// The level of the criteria heading whose section the walk is in.
    section: Option<HeadingLevel>,
    /// The heading being read: its level and its text so far.
    heading: Option<(HeadingLevel, String)>,
    first_h1: Option<String>,
    /// For each open list item: the criterion it is (a task item in a section) and its
    /// byte range.
    items: Vec<(Option<usize>, (usize, usize))>,
    link: Option<OpenLink>,
    /// The byte range of each criterion's whole item, by criterion index.
    criterion_items: Vec<(usize, usize)>,
    /// Byte ranges never read as plain-text links: code, HTML and the links CommonMark saw.
    shields: Vec<(usize, usize)>,
    /// `[verify]` / `[judge]` links that belong to no criterion: their byte range, label
    /// and whether they lie in a criteria section.
    stray: Vec<((usize, usize), String, bool)>,
}

impl<'a> Walk<'a> {
    fn new(text: &'a str, spec_dir: &'a str) -> Walk<'a> {
        Walk {
            text,
            spec_dir,
            lines: LineIndex::new(text),
            section: None,
            heading: None,
            first_h1: None,
            items: Vec::new(),
            link: None,
            criterion_items: Vec::new(),
            shields: Vec::new(),
            stray: Vec::new(),
        }
    }

    /// Takes in one event and its byte range.
    fn event(&mut self, spec: &mut Spec, event: Event, range: Range<usize>) {
        let span = (range.start, range.end);
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                if self.section.is_some_and(|s| level <= s) {
                    self.section = None;
                }
                self.heading = Some((level, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => self.end_heading(spec),
            Event::Start(Tag::Item) => self.items.push((None, span)),
            Event::End(TagEnd::Item) => {
                self.items.pop();
            }
            Event::TaskListMarker(checked) if self.section.is_some() => {
                self.task_item(spec, checked, span);
            }
            Event::Start(Tag::Link {
                dest_url, title, ..
            }) => {
                self.shields.push(span);
                let owner = if self.section.is_some() {
                    self.items.iter().rev().find_map(|(c, _)| *c)
                } else {
                    None
                };
                self.link = Some(OpenLink {
                    owner,
                    span,
                    label: String::new(),
                    dest: dest_url.to_string(),
                    title: title.to_string(),
                });
            }
            Event::End(TagEnd::Link) => self.end_link(spec),
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::Image { .. })
            | Event::Html(_)
            | Event::InlineHtml(_) => self.shields.push(span),
            Event::Code(t) => {
                self.shields.push(span);
                self.text_read(&t);
            }
            Event::Text(t) => self.text_read(&t),
            _ => {}
        }
    }

    /// Text goes into the link label or the heading being read.
    fn text_read(&mut self, t: &str) {
        if let Some(link) = self.link.as_mut() {
            link.label.push_str(t);
        }
        if let Some((_, title)) = self.heading.as_mut() {
            title.push_str(t);
        }
    }

    /// A heading ends: it may open a criteria section or title the spec.
    fn end_heading(&mut self, spec: &mut Spec) {
        if let Some((level, title)) = self.heading.take() {
            let title = title.trim().to_string();
            if is_criteria_heading(&title) {
                self.section = Some(level);
                spec.has_criteria_section = true;
            }
            if level == HeadingLevel::H1 && self.first_h1.is_none() {
                self.first_h1 = Some(title);
            }
        }
    }

    /// A task-list marker in a section: the open item becomes a criterion.
    fn task_item(&mut self, spec: &mut Spec, checked: bool, marker: (usize, usize)) {
        let Some((top, item)) = self.items.last_mut() else {
            return;
        };
        if top.is_some() {
            return;
        }
        let text = self.text;
        let line_end = text[marker.1..]
            .find('\n')
            .map_or(text.len(), |i| marker.1 + i);
        spec.criteria.push(Criterion {
            text: String::new(),
            checked,
            line: self.lines.line(marker.0),
            annotations: Vec::new(),
            text_span: (marker.1, line_end),
        });
        *top = Some(spec.criteria.len() - 1);
        self.criterion_items.push(*item);
    }

    /// A link ends: an annotation when its text is a kind and it lies in a criterion.
    fn end_link(&mut self, spec: &mut Spec) {
        let Some(link) = self.link.take() else {
            return;
        };
        let Some(kind) = annotation_kind(link.label.trim()) else {
            return;
        };
        let Some(idx) = link.owner else {
            let label = link.label.trim().to_string();
            self.stray.push((link.span, label, self.section.is_some()));
            return;
        };
        let ann = self.annotation(kind, &link.dest, &link.title, link.span, LinkForm::Markdown);
        spec.criteria[idx].annotations.push(ann);
    }

    /// Adds the annotations written as text CommonMark did not read as links.
    fn add_plain_text_links(&self, spec: &mut Spec) {
        for found in plain::scan(self.text, &self.criterion_items, &self.shields) {
            let Some(kind) = annotation_kind(&found.label) else {
                continue;
            };
            let ann = self.annotation(kind, &found.dest, &found.title, found.span, LinkForm::Text);
            spec.criteria[found.criterion].annotations.push(ann);
        }
    }

    /// Warns about each `[verify]` / `[judge]` link that belongs to no criterion: it is
    /// never run, and must not vanish silently.
    fn report_stray_links(&self, spec: &mut Spec) {
        for (span, label, in_section) in &self.stray {
            let (line, column) = self.lines.position(self.text, span.0);
            let message = if *in_section {
                format!(
                    "this [{label}] link is not in a task item (`- [ ] ...`), so it is no criterion's check and never runs"
                )
            } else if spec.has_criteria_section {
                format!(
                    "this [{label}] link is outside the criteria sections, so it never runs: move it under `## Success Criteria`"
                )
            } else {
                format!(
                    "this [{label}] link never runs: the spec has no `## Success Criteria` (or `## Acceptance Criteria`) heading"
                )
            };
            spec.problems.push(Problem {
                line,
                column,
                message,
                error: false,
            });
        }
    }

    /// Builds an annotation at `span`, recording why its target cannot be run if so.
    fn annotation(
        &self,
        kind: super::AnnotationKind,
        dest: &str,
        title: &str,
        span: (usize, usize),
        form: LinkForm,
    ) -> Annotation {
        let (line, column) = self.lines.position(self.text, span.0);
        let rule = match form {
            LinkForm::Markdown => NameRule::Identifier,
            LinkForm::Text => NameRule::Described,
        };
        let (file, function, legacy, mut error) =
            match target::resolve_with(dest, self.spec_dir, rule) {
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
            form,
            raw: dest.to_string(),
            error,
            span,
        }
    }
}

/// True when a heading's text opens a criteria section: "Success Criteria" or
/// "Acceptance Criteria" in any case and spacing, with or without a trailing colon or a
/// parenthesised note (`Success Criteria (v2):`).
fn is_criteria_heading(title: &str) -> bool {
    let mut t = title.trim();
    loop {
        let before = t;
        t = t.trim_end_matches(':').trim_end();
        if t.ends_with(')')
            && let Some(open) = t.rfind('(')
        {
            t = t[..open].trim_end();
        }
        if t == before {
            break;
        }
    }
    let mut words = t.split_whitespace().map(str::to_lowercase);
    let (first, second) = (words.next(), words.next());
    words.next().is_none()
        && matches!(first.as_deref(), Some("success" | "acceptance"))
        && second.as_deref() == Some("criteria")
}

/// `verify`, `judge` or `verify:NAME` when `label` is an annotation's link text.
fn annotation_kind(label: &str) -> Option<super::AnnotationKind> {
    super::AnnotationKind::parse(label)
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
        Ok(split) => {
            match crate::text::yaml::parse::<Meta>(split.yaml, path, text, split.yaml_line) {
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
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_headings_are_read_in_their_evident_spellings() {
        for yes in [
            "Success Criteria",
            "success criteria",
            "Success Criteria:",
            "Success  Criteria",
            "Success Criteria (v2)",
            "Success Criteria (v2):",
            "Acceptance Criteria",
            "ACCEPTANCE CRITERIA :",
        ] {
            assert!(is_criteria_heading(yes), "{yes:?}");
        }
        for no in [
            "Criteria",
            "Success",
            "Success Criteria and more",
            "Other",
            "",
        ] {
            assert!(!is_criteria_heading(no), "{no:?}");
        }
    }

    #[test]
    fn annotation_links_outside_every_criterion_are_warned_about() {
        let s = parse(
            "# T\n\nSee [verify](t.sh#a).\n\n## Success Criteria\n\nprose [judge](j.sh#b)\n\n- [ ] ok [verify](t.sh#c)\n",
            "specs/t.md",
        );
        assert_eq!(s.criteria.len(), 1);
        let got: Vec<(usize, bool)> = s.problems.iter().map(|p| (p.line, p.error)).collect();
        assert_eq!(got, [(3, false), (7, false)], "{:?}", s.problems);
        assert!(
            s.problems[0]
                .message
                .contains("outside the criteria sections")
        );
        assert!(s.problems[1].message.contains("not in a task item"));
        let s = parse(
            "# T\n\n## Criteria\n\n- [ ] x [verify](t.sh#a)\n",
            "specs/t.md",
        );
        assert!(!s.has_criteria_section);
        assert!(s.problems[0].message.contains("no `## Success Criteria`"));
    }
}
