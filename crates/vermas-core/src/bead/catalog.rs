//! Every bead of a workspace as the index cache holds it, without descriptions or notes,
//! read where it lies in the index text: what `list`, `ready` and plain `status` read, so
//! ten thousands of beads are listed without building a [`Bead`] for each. A bead is built
//! only for what is shown ([`Catalog::bead_set`]); a long `--json` listing builds none: it
//! is written from the lines and the cached rest of each bead ([`Catalog::json_listing`]).

use super::cache::{self, FIELDS, field};
use super::fields::BeadFields;
use super::file::{bead_path, parse_bead, read_bead};
use super::graph;
use super::model::{Bead, DepType, Gate, IssueType, Status};
use super::store::BeadSet;
use super::tails::{self, Tails};
use crate::error::{Error, Result};
use crate::store::index::{self, FileStamp, ITEM, Indexed, LineSpan, PART, unesc_cow};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Every bead of a workspace, as index lines, plus the files that did not parse.
pub struct Catalog {
    /// The index text the beads are read from.
    text: String,
    /// One slot per bead, in no particular order.
    slots: Vec<Slot>,
    /// Bead files that could not be read.
    pub broken: Vec<Error>,
    /// The JSON tails of the beads this load parsed, by key, when kept for a listing
    /// ([`Catalog::load_for_json`]).
    parsed_tails: HashMap<String, String>,
}

/// Where one bead's fields lie in the text, and the small ones already read.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The line (its key is the id).
    span: LineSpan,
    /// Where the dependencies, labels, assignee, title and creator fields start: each
    /// field ends one byte (a tab) before the next starts.
    marks: [u32; 5],
    /// Creation time in seconds, `i64::MIN` for none.
    created_at: i64,
    /// Status.
    status: Status,
    /// Type.
    issue_type: IssueType,
    /// Priority.
    priority: u8,
}

/// The positions of the fields [`Slot::marks`] points at.
const MARKED: [usize; 5] = [
    field::DEPS,
    field::LABELS,
    field::ASSIGNEE,
    field::TITLE,
    field::CREATED_BY,
];

impl Slot {
    /// Reads the line at `span` of `text`; `None` when it does not decode as a bead.
    fn read(text: &str, span: LineSpan) -> Option<Slot> {
        let key = span.key(text);
        let fields = span.fields(text);
        // An id never needs escaping: one that does is not a bead's.
        if key.contains('\\') {
            return None;
        }
        let f = cache::split(fields)?;
        let at = |s: &str| (s.as_ptr() as usize - text.as_ptr() as usize) as u32;
        let created_at = cache::time_field(f[field::CREATED_AT])?;
        let priority: u8 = f[field::PRIORITY].parse().ok()?;
        // Everything `Bead::decode` refuses is refused here too.
        for s in [f[field::UPDATED_AT], f[field::CLOSED_AT]] {
            cache::time_field(s)?;
        }
        for item in f[field::DEPS].split(ITEM).filter(|s| !s.is_empty()) {
            cache::read_dep_type(cache::dep_parts(item)?.1)?;
        }
        Some(Slot {
            span,
            marks: MARKED.map(|n| at(f[n])),
            created_at: created_at.map_or(i64::MIN, |t| t.0),
            status: cache::read_status(f[field::STATUS])?,
            issue_type: cache::read_type(f[field::TYPE])?,
            priority,
        })
    }
}

/// One bead of a [`Catalog`]: its fields read from its index line.
#[derive(Clone, Copy)]
pub struct IndexedBead<'a> {
    /// The catalog's text.
    text: &'a str,
    /// Where the bead's fields are.
    slot: &'a Slot,
}

impl<'a> IndexedBead<'a> {
    /// The id, borrowed from the catalog.
    pub fn key(&self) -> &'a str {
        self.slot.span.key(self.text)
    }

    /// True when its file holds more than its line (a description, notes or criteria):
    /// [`IndexedBead::to_bead`] would give a `partial` bead.
    pub fn is_partial(&self) -> bool {
        // The partial flag is the field just before the first marked one (the dependencies).
        let before = &self.text[self.slot.span.fields_start()..self.slot.marks[0] as usize - 1];
        before.rsplit('\t').next() == Some("1")
    }

    /// Field `n` of its line (see [`field`]), one after the last marked field: found by
    /// stepping over the fields between (a few short ones), not by splitting the line.
    fn field_after_marked(&self, n: usize) -> &'a str {
        const LAST: usize = MARKED[MARKED.len() - 1];
        let end = self.slot.span.fields_start() + self.slot.span.fields(self.text).len();
        let mut rest = &self.text[self.slot.marks[MARKED.len() - 1] as usize..end];
        for _ in LAST..n {
            rest = rest.split_once('\t').map_or("", |(_, after)| after);
        }
        rest.split_once('\t').map_or(rest, |(field, _)| field)
    }

    /// Marked field `n` (see [`MARKED`]).
    fn marked(&self, n: usize) -> &'a str {
        let start = self.slot.marks[n] as usize;
        let end = match self.slot.marks.get(n + 1) {
            Some(&next) => next as usize - 1,
            None => self.text[start..]
                .find('\t')
                .map_or(self.text.len(), |i| start + i),
        };
        &self.text[start..end]
    }

    /// The stamp of its file when its line was made (`None` for a bead read from its
    /// file because its line was corrupt).
    fn stamp(&self) -> Option<FileStamp> {
        self.slot
            .span
            .stamp(self.text)
            .filter(|s| s.ino != 0 || s.size != 0)
    }

    /// Appends `{` and its JSON members its line holds (see [`super::front`]); `None`
    /// when the line does not read (nothing is written then).
    fn write_front(&self, out: &mut Vec<u8>) -> Option<()> {
        let f = cache::split(self.slot.span.fields(self.text))?;
        super::front::write_open(out, self.key(), &f)
    }

    /// The whole bead as its line holds it (`partial` when the file has more).
    pub fn to_bead(&self) -> Option<Bead> {
        Bead::decode(self.key(), self.slot.span.fields(self.text))
    }
}

impl BeadFields for IndexedBead<'_> {
    fn id(&self) -> &str {
        self.key()
    }
    fn title(&self) -> Cow<'_, str> {
        unesc_cow(self.marked(3))
    }
    fn status(&self) -> Status {
        self.slot.status
    }
    fn priority(&self) -> u8 {
        self.slot.priority
    }
    fn issue_type(&self) -> IssueType {
        self.slot.issue_type
    }
    fn created_at(&self) -> Option<Timestamp> {
        (self.slot.created_at != i64::MIN).then_some(Timestamp(self.slot.created_at))
    }
    fn assignee(&self) -> Option<Cow<'_, str>> {
        self.marked(2).strip_prefix('+').map(unesc_cow)
    }
    fn has_label(&self, label: &str) -> bool {
        let labels = self.marked(1);
        if labels.is_empty() {
            return false;
        }
        labels.split(ITEM).any(|l| unesc_cow(l) == label)
    }
    fn depends_on(&self, kind: DepType) -> impl Iterator<Item = Cow<'_, str>> {
        let name = cache::dep_type_name(kind);
        self.marked(0).split(ITEM).filter_map(move |item| {
            let (target, k) = item.split_once(PART)?;
            // A gated edge's type is followed by its gate.
            let k = k.split_once(PART).map_or(k, |(k, _)| k);
            (k == name).then(|| unesc_cow(target))
        })
    }
    fn waits_for_any(&self) -> impl Iterator<Item = Cow<'_, str>> {
        self.marked(0).split(ITEM).filter_map(move |item| {
            let (target, _, gate) = cache::dep_parts(item)?;
            (gate == Some(Gate::AnyChildren)).then(|| unesc_cow(target))
        })
    }
    fn close_reason(&self) -> Option<Cow<'_, str>> {
        self.field_after_marked(field::CLOSE_REASON)
            .strip_prefix('+')
            .map(unesc_cow)
    }
    fn parent(&self) -> Option<Cow<'_, str>> {
        self.field_after_marked(field::PARENT)
            .strip_prefix('+')
            .map(unesc_cow)
    }
}

impl Catalog {
    /// Every bead of `ws`, through the index: only files it does not hold are parsed (on
    /// the idle cores) and the index is brought up to date.
    pub fn load(ws: &Workspace) -> Result<Catalog> {
        Catalog::load_keeping(ws, false)
    }

    /// As [`Catalog::load`], for a `--json` listing of at most `limit` beads (0: all): for
    /// a long one the JSON tails of the beads it parses are kept, so after the caches were
    /// lost the listing does not read those files again.
    pub fn load_for_json(ws: &Workspace, limit: usize) -> Result<Catalog> {
        Catalog::load_keeping(ws, limit == 0 || limit > FEW)
    }

    /// [`Catalog::load`], keeping the parsed beads' tails when `keep_tails`.
    fn load_keeping(ws: &Workspace, keep_tails: bool) -> Result<Catalog> {
        let index_path = cache::index_path(ws);
        let kept = std::sync::Mutex::new(Vec::new());
        let lines = index::lines::<Bead>(
            &ws.issues_dir(),
            &index_path,
            &ws.cache_dir(),
            |path, text| {
                let bead = match text {
                    Some(text) => parse_bead(ws, path, &text),
                    None => read_bead(ws, path),
                }?;
                if keep_tails
                    && let Some(stem) = path.file_stem()
                    && let Some(tail) = tails::tail_of(&bead)
                {
                    // Keyed as the bead's index line is: its file name, escaped.
                    let key = index::esc(&stem.to_string_lossy());
                    kept.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((key, tail));
                }
                Ok(bead)
            },
        )?;
        let mut catalog = Catalog {
            text: lines.text,
            slots: Vec::new(),
            broken: lines.broken,
            parsed_tails: kept
                .into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .into_iter()
                .collect(),
        };
        let text = &catalog.text;
        let read = crate::sys::par::par_map(&lines.spans, |_, span| {
            Some(Slot::read(text, *span).ok_or(*span))
        });
        catalog.slots.reserve(read.len());
        let mut unreadable = Vec::new();
        for r in read {
            match r {
                Ok(slot) => catalog.slots.push(slot),
                Err(span) => unreadable.push(span.key(&catalog.text).to_string()),
            }
        }
        if !unreadable.is_empty() {
            // A corrupt index: read those files, and have the index written anew.
            let _ = std::fs::remove_file(&index_path);
            for key in unreadable {
                match read_bead(ws, &bead_path(ws, &index::unesc(&key))) {
                    Ok(bead) => catalog.add(&bead),
                    Err(e) => catalog.broken.push(e),
                }
            }
        }
        Ok(catalog)
    }

    /// Adds a bead read from its file.
    fn add(&mut self, bead: &Bead) {
        let start = self.text.len();
        let zero = FileStamp {
            size: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            ino: 0,
        };
        index::encode_line(&mut self.text, &bead.id, zero, bead);
        let end = self.text.len() - 1;
        if let Some(slot) = index::LineSpan::of_line(&self.text, start..end)
            .and_then(|span| Slot::read(&self.text, span))
        {
            self.slots.push(slot);
        }
    }

    /// How many beads there are.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Every bead, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = IndexedBead<'_>> {
        self.slots.iter().map(|slot| IndexedBead {
            text: &self.text,
            slot,
        })
    }

    /// What `ready` lists (see [`graph::is_ready`]), in no particular order (see
    /// [`first_in_order`](super::fields::first_in_order)).
    pub fn ready(&self, want: Option<IssueType>) -> Vec<IndexedBead<'_>> {
        let mut others = graph::Others::default();
        for b in self.iter() {
            others.add(b.key(), &b);
        }
        others.settle(self.iter().map(|b| (b.key(), b)));
        // Each bead is judged on its own: on the idle cores when there are many.
        crate::sys::par::par_map(&self.slots, |i, _| {
            let b = IndexedBead {
                text: &self.text,
                slot: &self.slots[i],
            };
            graph::is_ready(&b, want, &others).then_some(b)
        })
    }

    /// Open work (not a test spec or message) that waits for an open test spec through a
    /// `blocks` dependency: what `ready` does not list until its spec is approved.
    pub fn awaiting_test_spec(&self) -> usize {
        let open_specs: HashSet<&str> = self
            .iter()
            .filter(|b| b.issue_type() == IssueType::TestSpec && !b.is_closed())
            .map(|b| b.key())
            .collect();
        if open_specs.is_empty() {
            return 0;
        }
        self.iter()
            .filter(|b| {
                !b.is_closed()
                    && !matches!(b.issue_type(), IssueType::TestSpec | IssueType::Message)
                    && b.depends_on(DepType::Blocks)
                        .any(|id| open_specs.contains(id.as_ref()))
            })
            .count()
    }

    /// The beads `shown` as a set, as the index holds them (partial ones are completed
    /// from their files by [`BeadSet::complete`]).
    pub fn bead_set(&self, shown: &[IndexedBead<'_>]) -> BeadSet {
        let mut set = BeadSet::default();
        for b in shown {
            if let Some(bead) = b.to_bead() {
                set.beads.insert(bead.id.clone(), bead);
            }
        }
        set
    }
}

/// One bead of a [`JsonListing`]: its index line and cached tail, or read from its file.
enum JsonRow<'a> {
    /// The line's members, and the number of its tail in the listing's [`Tails`].
    Indexed(IndexedBead<'a>, usize),
    /// Read from its file (its tail was not cached).
    Read(Box<Bead>),
}

/// Listings showing at most this many beads read their files rather than the tail cache
/// (which holds every bead's text).
const FEW: usize = 64;

/// The beads of a `--json` listing, ready to be written one by one as array elements,
/// exactly as the pretty JSON of the [`Bead`]s would be.
pub struct JsonListing<'a> {
    /// Each shown bead, in order.
    rows: Vec<JsonRow<'a>>,
    /// The cached tails.
    tails: Tails,
}

impl JsonListing<'_> {
    /// How many beads it shows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when it shows none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Appends bead `n`'s pretty JSON as an element of a pretty array (every line indented
    /// one level more, no comma).
    pub fn write(&self, out: &mut Vec<u8>, n: usize) {
        out.extend_from_slice(b"  ");
        let tail = match &self.rows[n] {
            JsonRow::Indexed(bead, t) => self
                .tails
                .get(*t)
                .and_then(|tail| bead.write_front(out).map(|()| tail)),
            JsonRow::Read(_) => None,
        };
        match (tail, &self.rows[n]) {
            (Some(tail), _) => tails::write_close(out, tail),
            (None, JsonRow::Read(bead)) => {
                let _ = serde_json::to_writer_pretty(Indented(out), bead);
            }
            // Never: an indexed row has its tail, and its line reads (`Slot::read` refuses
            // what `front` would).
            (None, JsonRow::Indexed(..)) => out.extend_from_slice(b"null"),
        }
    }
}

/// A writer into a buffer that indents every line after the first by two spaces (pretty
/// JSON has line breaks only between tokens, so this nests it one level deeper).
struct Indented<'o>(&'o mut Vec<u8>);

impl std::io::Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Most pieces (keys, strings, numbers) hold no line break: one search (`contains`
        // of a byte is a word-at-a-time search), then one copy.
        if !buf.contains(&b'\n') {
            self.0.extend_from_slice(buf);
            return Ok(buf.len());
        }
        let mut rest = buf;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.0.extend_from_slice(&rest[..=at]);
            self.0.extend_from_slice(b"  ");
            rest = &rest[at + 1..];
        }
        self.0.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        // Every write takes all of its bytes: no loop needed.
        self.write(buf).map(|_| ())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Catalog {
    /// The beads `shown` of this catalog as a `--json` listing: a long one takes each
    /// bead's tail from the cache ([`tails`]), and reads (on every core) only the files
    /// whose tail is missing or stale, then caches those; a short one reads every file.
    pub fn json_listing<'a>(
        &self,
        ws: &Workspace,
        shown: &[IndexedBead<'a>],
    ) -> Result<JsonListing<'a>> {
        let unknown = FileStamp {
            size: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            ino: 0,
        };
        // Each stamp is parsed from its line: on the idle cores when there are many.
        let wanted: Vec<(&str, FileStamp)> =
            crate::sys::par::par_map(shown, |_, b| Some((b.key(), b.stamp().unwrap_or(unknown))));
        let mut cached = if shown.len() > FEW {
            tails::load(ws, &wanted)
        } else {
            Tails::default()
        };
        // Tails this load made while parsing files (after the caches were lost): taken
        // as they are, and saved with the rest.
        let mut from_parse = Vec::new();
        if shown.len() > FEW && !self.parsed_tails.is_empty() {
            for (n, (key, stamp)) in wanted.iter().enumerate() {
                if cached.get(n).is_none()
                    && let Some(tail) = self.parsed_tails.get(*key)
                {
                    cached.insert(n, tail);
                    from_parse.push((*key, *stamp, tail.as_str()));
                }
            }
        }
        let missing: Vec<usize> = (0..shown.len())
            .filter(|&n| cached.get(n).is_none())
            .collect();
        // A bead whose line holds all of it needs no file (as `BeadSet::complete` does).
        let read = crate::sys::par::par_map(&missing, |_, &n| {
            Some(match shown[n].to_bead().filter(|b| !b.partial) {
                Some(whole) => Ok(whole),
                None => read_bead(ws, &bead_path(ws, shown[n].key())),
            })
        });
        let mut rows: Vec<JsonRow<'a>> = shown
            .iter()
            .enumerate()
            .map(|(n, b)| JsonRow::Indexed(*b, n))
            .collect();
        let mut fresh = Vec::new();
        for (&n, bead) in missing.iter().zip(read) {
            let bead = bead?;
            if shown.len() > FEW
                && let Some(tail) = tails::tail_of(&bead)
            {
                fresh.push((wanted[n].0, wanted[n].1, tail));
            }
            rows[n] = JsonRow::Read(Box::new(bead));
        }
        if !fresh.is_empty() || !from_parse.is_empty() {
            let current = self
                .iter()
                .filter_map(|b| Some((b.key(), b.stamp()?)))
                .collect();
            let mut fresh: Vec<_> = fresh.iter().map(|(k, s, t)| (*k, *s, t.as_str())).collect();
            fresh.extend(from_parse);
            tails::save(ws, &current, &fresh);
        }
        Ok(JsonListing {
            rows,
            tails: cached,
        })
    }
}

/// Checks at compile time that a line has room for every field the slot marks.
const _: () = assert!(field::CREATED_BY < FIELDS);
