//! Reading a bead file written in the shape vermas writes it ([`Bead::render`]: one
//! `key: value` line per field, flow lists, plain or JSON-quoted scalars) without the YAML
//! parser, so that a first read of a hundred thousand beads is spent on reading files,
//! not on parsing them. Whatever else a file holds (comments, block lists, other quoting,
//! unknown keys, acceptance criteria, values out of range...) is left to the YAML parser,
//! which also reports errors: [`parse`] answers `None`, never something YAML would read
//! differently (the tests below hold it to that, edit by edit).

use super::cache;
use super::model::{Bead, Dependency, Note};
use super::table::{self, FIELDS, Mut};
use crate::text::yaml::is_plain_safe;
use crate::time::Timestamp;
use std::borrow::Cow;

/// The bead in `text` when it is in the shape vermas writes; `None` otherwise (then the
/// YAML parser must read it).
pub fn parse(text: &str) -> Option<Bead> {
    let split = crate::store::frontmatter::split(text, "").ok()?;
    if split.yaml.contains('\r') {
        return None;
    }
    let mut fields = Fields {
        bead: Bead::new(String::new(), String::new()),
        seen: 0,
        next: 0,
    };
    let mut lines = split.yaml.lines().peekable();
    while let Some(line) = lines.next() {
        let (key, value) = line.split_once(':')?;
        let n = fields.see(key)?;
        let field = fields.bead.fields_mut().into_iter().nth(n)?;
        if value.is_empty() {
            // `key:` then one `  - {...}` line per item.
            let mut items = Vec::new();
            while let Some(item) = lines.next_if(|l| l.starts_with("  - ")) {
                items.push(&item[4..]);
            }
            if items.is_empty() {
                return None;
            }
            list(field, &items)?;
        } else {
            set(field, value.strip_prefix(' ')?)?;
        }
    }
    // YAML refuses a bead without these two (for its message).
    let must = (1 << table::row("id")) | (1 << table::row("title"));
    if fields.seen & must != must {
        return None;
    }
    let mut bead = fields.bead;
    bead.description = split.body.to_string();
    // What `Bead::parse` refuses is left to it, for its message.
    let valid =
        bead.priority <= 4 && crate::store::id::is_valid(&bead.id) && !bead.title.trim().is_empty();
    valid.then_some(bead)
}

/// The bead being read, and the keys seen so far.
struct Fields {
    /// The bead, filled key by key.
    bead: Bead,
    /// Rows of [`FIELDS`] seen (a repeated key is left to YAML).
    seen: u32,
    /// The row of [`FIELDS`] whose key is expected next.
    next: usize,
}

impl Fields {
    /// Marks `key` as seen, giving its row in [`FIELDS`]; `None` when it is not a field's
    /// key or was seen before.
    fn see(&mut self, key: &str) -> Option<usize> {
        let n = match FIELDS.get(self.next) {
            Some(f) if f.name == key => self.next,
            _ => FIELDS.iter().position(|f| f.name == key)?,
        };
        self.next = n + 1;
        let bit = 1 << n;
        if self.seen & bit != 0 {
            return None;
        }
        self.seen |= bit;
        Some(n)
    }
}

/// Reads a field from its one-line `value`.
fn set(field: Mut<'_>, value: &str) -> Option<()> {
    match field {
        Mut::Text(s) => *s = whole(value)?.into_owned(),
        Mut::Status(s) => *s = cache::read_status(value)?,
        Mut::Priority(p) => {
            // One digit, as written: YAML reads `01` or `+1` its own way.
            let [digit @ b'0'..=b'9'] = value.as_bytes() else {
                return None;
            };
            *p = digit - b'0';
        }
        Mut::Type(t) => *t = cache::read_type(value)?,
        Mut::Labels(l) => *l = flow_list(value)?,
        Mut::OptText(s) => *s = optional(value)?,
        Mut::Time(t) => *t = time(value)?,
        Mut::Deps(_) | Mut::Notes(_) if value == "[]" => {}
        // Criteria and approvals (rare, and nested) are left to YAML; the body is no key.
        Mut::Deps(_) | Mut::Notes(_) | Mut::Criteria(_) | Mut::Approval(_) | Mut::Body(_) => {
            return None;
        }
    }
    Some(())
}

/// Reads a field written as `key:` followed by the flow mappings `items`.
fn list(field: Mut<'_>, items: &[&str]) -> Option<()> {
    match field {
        Mut::Deps(deps) => {
            for item in items {
                deps.push(dependency(item)?);
            }
        }
        Mut::Notes(notes) => {
            for item in items {
                notes.push(note(item)?);
            }
        }
        _ => return None,
    }
    Some(())
}

/// A scalar filling the whole value.
fn whole(value: &str) -> Option<Cow<'_, str>> {
    let mut rest = value;
    let s = scalar(&mut rest, false)?;
    rest.is_empty().then_some(s)
}

/// `null`, or a scalar.
fn optional(value: &str) -> Option<Option<String>> {
    if value == "null" {
        return Some(None);
    }
    whole(value).map(|s| Some(s.into_owned()))
}

/// `null`, or an RFC 3339 time.
fn time(value: &str) -> Option<Option<Timestamp>> {
    if value == "null" {
        return Some(None);
    }
    Timestamp::parse(&whole(value)?).map(Some)
}

/// One scalar at the start of `rest`, which is moved past it: JSON-quoted, or plain (in
/// a flow collection it ends before `,`, `]` or `}`).
fn scalar<'a>(rest: &mut &'a str, in_flow: bool) -> Option<Cow<'a, str>> {
    if rest.starts_with('"') {
        let (s, after) = quoted(rest)?;
        *rest = after;
        return Some(Cow::Owned(s));
    }
    let end = if in_flow {
        rest.find([',', ']', '}'])?
    } else {
        rest.len()
    };
    let plain = &rest[..end];
    if !is_plain_safe(plain) {
        return None;
    }
    *rest = &rest[end..];
    Some(Cow::Borrowed(plain))
}

/// A double-quoted scalar with JSON escapes (which YAML reads alike) at the start of
/// `s`, and what follows it. Anything else YAML allows there is left to YAML.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                out.push(match e {
                    '"' => '"',
                    '\\' => '\\',
                    '/' => '/',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'u' => {
                        let mut code = 0u32;
                        for _ in 0..4 {
                            code = code * 16 + chars.next()?.1.to_digit(16)?;
                        }
                        // Surrogates (JSON's pairs) are not YAML's: left to it.
                        char::from_u32(code)?
                    }
                    _ => return None,
                });
            }
            // Control characters, line and paragraph separators, BOMs: what YAML does
            // not take as printable, or folds as a line break, is left to it.
            c if c < ' '
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                return None;
            }
            c => out.push(c),
        }
    }
    None
}

/// `[a, b]` (or `[]`).
fn flow_list(value: &str) -> Option<Vec<String>> {
    let mut rest = value.strip_prefix('[')?;
    let mut out = Vec::new();
    if rest == "]" {
        return Some(out);
    }
    loop {
        out.push(scalar(&mut rest, true)?.into_owned());
        if rest == "]" {
            return Some(out);
        }
        rest = rest.strip_prefix(", ")?;
    }
}

/// `{key: value, ...}` as (key, value) pairs, keys in `allowed`, each at most once.
fn flow_map<'a>(item: &'a str, allowed: &[&str]) -> Option<Vec<(&'a str, Cow<'a, str>)>> {
    let mut rest = item.strip_prefix('{')?;
    let mut out: Vec<(&str, Cow<'_, str>)> = Vec::new();
    loop {
        let (key, after) = rest.split_once(": ")?;
        if !allowed.contains(&key) || out.iter().any(|(k, _)| *k == key) {
            return None;
        }
        rest = after;
        out.push((key, scalar(&mut rest, true)?));
        if rest == "}" {
            return Some(out);
        }
        rest = rest.strip_prefix(", ")?;
    }
}

/// `{depends_on_id: ID, type: T}`, with `gate: G` on a `waits-for` edge.
fn dependency(item: &str) -> Option<Dependency> {
    let mut id = None;
    let mut kind = super::model::DepType::Blocks;
    let mut gate = None;
    for (key, value) in flow_map(item, &["depends_on_id", "type", "gate"])? {
        match key {
            "depends_on_id" => id = Some(value.into_owned()),
            "gate" => gate = Some(value.parse().ok()?),
            _ => kind = cache::read_dep_type(&value)?,
        }
    }
    if gate.is_some() && kind != super::model::DepType::WaitsFor {
        // Refused with its position by the full parser.
        return None;
    }
    Some(Dependency {
        depends_on_id: id?,
        dep_type: kind,
        gate,
    })
}

/// `{at: TIME, by: NAME, text: TEXT}`.
fn note(item: &str) -> Option<Note> {
    let (mut at, mut by, mut text) = (None, String::new(), None);
    for (key, value) in flow_map(item, &["at", "by", "text"])? {
        match key {
            "at" => at = Some(Timestamp::parse(&value)?),
            "by" => by = value.into_owned(),
            _ => text = Some(value.into_owned()),
        }
    }
    Some(Note {
        at: at?,
        by,
        text: text?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::{DepType, IssueType, Status};
    use proptest::prelude::*;

    fn full(text: &str) -> Option<Bead> {
        Bead::parse(text, "x.md").ok()
    }

    fn sample() -> Bead {
        let mut b = Bead::new("vm-a1".into(), "Fix \"the\" login: now # really\\".into());
        b.status = Status::InProgress;
        b.priority = 0;
        b.issue_type = IssueType::Bug;
        b.labels = vec!["area:ui".into(), "needs, commas".into(), "ünï".into()];
        b.assignee = Some("alice".into());
        b.created_at = Some(Timestamp(1_700_000_000));
        b.created_by = Some("bob smith".into());
        b.close_reason = Some("true".into());
        b.parent = Some("vm-p".into());
        b.spec = Some("specs/x.md".into());
        b.dependencies = vec![
            Dependency {
                depends_on_id: "vm-b".into(),
                dep_type: DepType::Blocks,
                gate: None,
            },
            Dependency {
                depends_on_id: "vm-c".into(),
                dep_type: DepType::DiscoveredFrom,
                gate: None,
            },
        ];
        b.notes = vec![Note {
            at: Timestamp(1_700_000_100),
            by: "carol".into(),
            text: "Question: tabs\tand\nnewlines, {braces} [brackets]?".into(),
        }];
        b.description = "Body\n\n- [ ] item".into();
        b
    }

    #[test]
    fn reads_what_render_writes_as_yaml_does() {
        let text = sample().render();
        let fast = parse(&text).expect("canonical");
        assert_eq!(Some(fast.clone()), full(&text));
        assert_eq!(fast, sample());
        let minimal = "---\nid: vm-m\ntitle: Minimal\n---\n";
        assert_eq!(parse(minimal), full(minimal));
        assert!(parse(minimal).is_some());
    }

    #[test]
    fn leaves_everything_else_to_yaml() {
        for text in [
            "---\nid: vm-a\ntitle: x # comment\n---\n",
            "---\nid: vm-a\ntitle: 'single'\n---\n",
            "---\nid: vm-a\ntitle: x\nlabels:\n  - a\n---\n",
            "---\nid: vm-a\ntitle: x\nextra: 1\n---\n",
            "---\nid: vm-a\ntitle: x\ntitle: y\n---\n",
            "---\nid: vm-a\ntitle: x\npriority: 9\n---\n",
            "---\nid: vm-a\ntitle: 123\n---\n",
            "---\nid: vm-a\ntitle: yes\n---\n",
            "---\nid: vm-a\ntitle: x\n  continued\n---\n",
            "---\nid: vm-a\ntitle: \"\\ud83d\\ude00\"\n---\n",
            "---\nid: vm-a\ntitle: \"a\\x41\"\n---\n",
            "---\nid: vm-a\ntitle: \"a\u{85}b\"\n---\n",
            "---\nid: vm-a\ntitle: \"a\u{2028}b\"\n---\n",
            "---\nid: vm-a\ntitle: x\nassignee: ~\n---\n",
            "---\nid: vm-a\ntitle: x\nacceptance_criteria:\n  - {id: ac-1, description: d}\n---\n",
            "---\r\nid: vm-a\r\ntitle: x\r\n---\r\n",
            "---\nid: bad id\ntitle: x\n---\n",
            "---\nid: vm-a\ntitle: \"  \"\n---\n",
            "no front matter",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    /// Text pieces YAML gives meaning to, for edits of a canonical file.
    const PIECES: &[&str] = &[
        "", " ", ":", ": ", "#", " #", "\"", "'", "\\", "\\n", "\\u0041", "[", "]", "{", "}", ",",
        ", ", "-", "- ", "\n", "\n  - ", "\t", "null", "~", "yes", "1", "0x1", "&a", "*a", "!",
        "|", ">", "%", "@", "`", "?", "é", "\u{85}", "\u{2028}", "\u{feff}",
    ];

    /// Every piece inserted at every place of a canonical file, or put in place of the
    /// character there: the fast reader gives up or agrees with YAML, and still reads many
    /// of them itself.
    #[test]
    fn every_single_insertion_agrees_with_yaml() {
        for text in [
            sample().render(),
            // As bench/beads.sh writes them.
            "---\nid: vm-0a1b2c\ntitle: \"Parser cache sync\"\nstatus: open\npriority: 2\n\
             issue_type: task\nlabels: [area:ui, perf]\nassignee: null\n\
             created_at: 2025-11-22T00:12:00Z\ncreated_by: alice\nclosed_at: null\n\
             dependencies: []\nnotes: []\n---\nRetry the upload.\n"
                .to_string(),
        ] {
            every_single_edit_agrees(&text);
        }
    }

    /// [`every_single_insertion_agrees_with_yaml`] for one text.
    fn every_single_edit_agrees(text: &str) {
        let mut read = 0;
        let mut total = 0;
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for (n, &at) in bounds.iter().enumerate() {
            let next = bounds.get(n + 1).copied().unwrap_or(at);
            // Inserted before the character at `at`, or put in its place.
            for (piece, cut) in PIECES.iter().flat_map(|p| [(*p, at), (*p, next)]) {
                let mut t = text.to_string();
                t.replace_range(at..cut, piece);
                total += 1;
                if let Some(fast) = parse(&t) {
                    read += 1;
                    assert_eq!(Some(fast), full(&t), "{t:?}");
                }
            }
        }
        assert!(
            parse(text).is_some() && read * 10 > total,
            "read {read} of {total} itself"
        );
    }

    proptest! {
        // Failures become named tests here, as in tests/it/cli/robustness.rs: no seed files.
        #![proptest_config(ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Whatever an edit makes of a canonical file, the fast reader either gives up or
        /// reads exactly what YAML reads.
        #[test]
        fn never_disagrees_with_yaml(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), 0..PIECES.len(), 0usize..3), 1..4)
        ) {
            let mut text = sample().render();
            for (at, piece, cut) in edits {
                let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
                let start = bounds[at.index(bounds.len())];
                let end = bounds[(bounds.iter().position(|&b| b == start).unwrap_or(0) + cut).min(bounds.len() - 1)];
                text.replace_range(start..end, PIECES[piece]);
            }
            if let Some(fast) = parse(&text) {
                prop_assert_eq!(Some(fast), full(&text), "{:?}", text);
            }
        }

        /// Beads with any text in their fields are read as YAML reads them, or left to it.
        #[test]
        fn any_rendered_bead_reads_as_yaml_reads_it(
            title in "\\PC{1,40}",
            label in "\\PC{0,12}",
            who in proptest::option::of("[a-z :#'\"\\\\-]{0,10}"),
            note_text in "\\PC{0,30}",
        ) {
            let mut b = sample();
            b.title = title;
            b.labels = vec![label];
            b.assignee = who;
            b.notes[0].text = note_text;
            let text = b.render();
            if let Some(fast) = parse(&text) {
                prop_assert_eq!(Some(fast), full(&text));
            }
        }
    }
}
