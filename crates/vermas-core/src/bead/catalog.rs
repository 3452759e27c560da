//! Every bead of a workspace as the index cache holds it, without descriptions or notes,
//! read where it lies in the index text: what `list`, `ready` and plain `status` read, so
//! ten thousands of beads are listed without building a [`Bead`] for each. A bead is built
//! only for what is shown ([`Catalog::bead_set`]); a long `--json` listing builds none: it
//! is written from the lines and the cached rest of each bead ([`Catalog::json_listing`]).

use super::cache::{self, FIELDS, field};
use super::fields::BeadFields;
use super::file::{bead_path, parse_bead, read_bead};
use super::graph;
use super::idmap::IdMap;
use super::json_cache::{self, Elements};
pub use super::json_cache::{JsonCache, reading_json_cache};
use super::model::{Bead, DepType, Gate, IssueType, Status};
use super::store::BeadSet;
use crate::error::{Error, Result};
use crate::store::index::{self, FileStamp, ITEM, Indexed, LineSpan, PART, unesc_cow};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

/// Every bead of a workspace, as index lines, plus the files that did not parse.
pub struct Catalog {
    /// The index text the beads are read from.
    text: String,
    /// One slot per bead, in no particular order.
    slots: Vec<Slot>,
    /// Bead files that could not be read.
    pub broken: Vec<Error>,
    /// The listing JSON of the beads this load parsed, by key, when kept for a listing
    /// ([`Catalog::load_for_json`]).
    parsed_json: IdMap<String, Vec<u8>>,
}

/// Where one bead's fields lie in the text, and the small ones already read.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The line (its key is the id).
    span: LineSpan,
    /// Where the fields [`MARKED`] names start (each ends at the next tab, or the line's
    /// end).
    marks: [u32; MARKED.len()],
    /// Creation time in seconds, `i64::MIN` for none.
    created_at: i64,
    /// Status.
    status: Status,
    /// Type.
    issue_type: IssueType,
    /// Priority.
    priority: u8,
}

/// The positions of the fields [`Slot::marks`] points at: what the rules of `list` and
/// `ready` read, each found without stepping over the fields before it.
const MARKED: [usize; 7] = [
    field::DEPS,
    field::LABELS,
    field::ASSIGNEE,
    field::TITLE,
    field::CREATED_BY,
    field::CLOSE_REASON,
    field::PARENT,
];

/// Where [`MARKED`] holds each field.
mod mark {
    /// Dependencies.
    pub(super) const DEPS: usize = 0;
    /// Labels.
    pub(super) const LABELS: usize = 1;
    /// Assignee.
    pub(super) const ASSIGNEE: usize = 2;
    /// Title.
    pub(super) const TITLE: usize = 3;
    /// Closing reason.
    pub(super) const CLOSE_REASON: usize = 5;
    /// Parent.
    pub(super) const PARENT: usize = 6;
}

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
        let before =
            &self.text[self.slot.span.fields_start()..self.slot.marks[mark::DEPS] as usize - 1];
        before.rsplit('\t').next() == Some("1")
    }

    /// Marked field `n` (see [`MARKED`]).
    fn marked(&self, n: usize) -> &'a str {
        let start = self.slot.marks[n] as usize;
        // A field marked with the next one ends a tab before it; another, at the next tab.
        if n + 1 < MARKED.len() && MARKED[n + 1] == MARKED[n] + 1 {
            return &self.text[start..self.slot.marks[n + 1] as usize - 1];
        }
        let end = self.slot.span.fields_start() + self.slot.span.fields(self.text).len();
        let rest = &self.text[start..end];
        rest.find('\t').map_or(rest, |tab| &rest[..tab])
    }

    /// The stamp of its file when its line was made, as the line has it (all zeros for a
    /// bead read from its file because its line was corrupt: never a cached file's).
    fn stamp_text(&self) -> &'a str {
        self.slot.span.stamp_text(self.text)
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
        unesc_cow(self.marked(mark::TITLE))
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
        self.marked(mark::ASSIGNEE).strip_prefix('+').map(unesc_cow)
    }
    fn has_label(&self, label: &str) -> bool {
        let labels = self.marked(mark::LABELS);
        if labels.is_empty() {
            return false;
        }
        labels.split(ITEM).any(|l| unesc_cow(l) == label)
    }
    fn depends_on(&self, kind: DepType) -> impl Iterator<Item = Cow<'_, str>> {
        let name = cache::dep_type_name(kind);
        self.marked(mark::DEPS).split(ITEM).filter_map(move |item| {
            let (target, k) = item.split_once(PART)?;
            // A gated edge's type is followed by its gate.
            let k = k.split_once(PART).map_or(k, |(k, _)| k);
            (k == name).then(|| unesc_cow(target))
        })
    }
    fn waits_for_any(&self) -> impl Iterator<Item = Cow<'_, str>> {
        self.marked(mark::DEPS).split(ITEM).filter_map(move |item| {
            let (target, _, gate) = cache::dep_parts(item)?;
            (gate == Some(Gate::AnyChildren)).then(|| unesc_cow(target))
        })
    }
    fn close_reason(&self) -> Option<Cow<'_, str>> {
        self.marked(mark::CLOSE_REASON)
            .strip_prefix('+')
            .map(unesc_cow)
    }
    fn parent(&self) -> Option<Cow<'_, str>> {
        self.marked(mark::PARENT).strip_prefix('+').map(unesc_cow)
    }
}

impl Catalog {
    /// Every bead of `ws`, through the index: only files it does not hold are parsed (on
    /// the idle cores) and the index is brought up to date.
    pub fn load(ws: &Workspace) -> Result<Catalog> {
        Catalog::load_keeping(ws, false)
    }

    /// As [`Catalog::load`], for a `--json` listing of at most `limit` beads (0: all): for
    /// a long one the listing JSON of the beads it parses is kept, so after the caches were
    /// lost the listing does not read those files again.
    pub fn load_for_json(ws: &Workspace, limit: usize) -> Result<Catalog> {
        Catalog::load_keeping(ws, json_cache_helps(limit))
    }

    /// [`Catalog::load`], keeping the parsed beads' listing JSON when `keep_json`.
    fn load_keeping(ws: &Workspace, keep_json: bool) -> Result<Catalog> {
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
                if keep_json && let Some(stem) = path.file_stem() {
                    // Keyed as the bead's index line is: its file name, escaped.
                    let key = index::esc(&stem.to_string_lossy());
                    let json = json_cache::element(&bead);
                    kept.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((key, json));
                }
                Ok(bead)
            },
        )?;
        let mut catalog = Catalog {
            text: lines.text,
            slots: Vec::new(),
            broken: lines.broken,
            parsed_json: kept
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

/// One bead of a [`JsonListing`]: where its JSON lies in the cache, or its JSON made by
/// this load or now.
enum JsonRow<'c> {
    /// In the cache file.
    Cached(Range<usize>),
    /// Made from its file as the catalog loaded (borrowed), or from its line or its file
    /// now (not cached, or the listing is short).
    Made(Cow<'c, [u8]>),
}

/// Listings showing at most this many beads read their files rather than the JSON cache
/// (which holds every bead's JSON).
const FEW: usize = 64;

/// True when a `--json` listing of at most `limit` beads (0: all) may be long enough to
/// take its beads' JSON from the cache: worth reading it early (see
/// [`reading_json_cache`]).
pub fn json_cache_helps(limit: usize) -> bool {
    limit == 0 || limit > FEW
}

/// The beads of a `--json` listing, exactly as the pretty JSON of the [`Bead`]s would be
/// written, element by element.
pub struct JsonListing<'c> {
    /// Each shown bead, in order.
    rows: Vec<JsonRow<'c>>,
    /// The JSON cache as read.
    cache: Elements,
}

impl JsonListing<'_> {
    /// The elements of the listing's pretty JSON array (each indented one level, no
    /// comma), in order, as runs: beads that lie side by side in the cache are one run,
    /// the array's `,\n` between them included. Joined by `,\n`, the runs are the array's
    /// inside.
    pub fn runs(&self) -> Vec<JsonRun<'_>> {
        let mut runs = Vec::new();
        let mut open: Option<Range<usize>> = None;
        let cached = |run: Range<usize>| JsonRun::Cached(run.start as u64..run.end as u64);
        for row in &self.rows {
            match row {
                JsonRow::Cached(r) => match &mut open {
                    Some(run) if run.end + Elements::SEP_LEN == r.start => run.end = r.end,
                    _ => {
                        if let Some(run) = open.replace(r.clone()) {
                            runs.push(cached(run));
                        }
                    }
                },
                JsonRow::Made(json) => {
                    if let Some(run) = open.take() {
                        runs.push(cached(run));
                    }
                    runs.push(JsonRun::Made(json));
                }
            }
        }
        if let Some(run) = open {
            runs.push(cached(run));
        }
        runs
    }

    /// The cache file the [`JsonRun::Cached`] runs lie in (open: it stays the file that
    /// was checked, whatever replaces it meanwhile).
    pub fn cache_file(&self) -> Option<&std::fs::File> {
        self.cache.file()
    }
}

/// A piece of a `--json` listing's array (see [`JsonListing::runs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonRun<'a> {
    /// Elements made now, in memory.
    Made(&'a [u8]),
    /// Elements side by side in the cache file ([`JsonListing::cache_file`]): this range
    /// of its bytes.
    Cached(Range<u64>),
}

impl Catalog {
    /// The beads `shown` of this catalog as a `--json` listing: a long one takes each
    /// bead's JSON from the cache ([`json_cache`]), and reads (on every core) only the
    /// files whose entry is missing or stale, then caches those; a short one reads every
    /// file. `cache` is the cache read already, if it was (else it is read here when
    /// needed).
    pub fn json_listing(
        &self,
        ws: &Workspace,
        shown: &[IndexedBead<'_>],
        cache: Option<JsonCache>,
    ) -> Result<JsonListing<'_>> {
        let long = shown.len() > FEW;
        let wanted: Vec<(&str, &str)> = shown.iter().map(|b| (b.key(), b.stamp_text())).collect();
        let cache = if long {
            cache
                .unwrap_or_else(|| JsonCache::read(ws))
                .elements(&wanted)
        } else {
            Elements::default()
        };
        let mut rows: Vec<Option<JsonRow<'_>>> = (0..shown.len())
            .map(|n| cache.get(n).map(JsonRow::Cached))
            .collect();
        // JSON this load made while parsing files (after the caches were lost): taken as
        // it is, and saved with the rest.
        if long && !self.parsed_json.is_empty() {
            for (n, &(key, _)) in wanted.iter().enumerate() {
                if rows[n].is_none()
                    && let Some(json) = self.parsed_json.get(key)
                {
                    rows[n] = Some(JsonRow::Made(Cow::Borrowed(json)));
                }
            }
        }
        let missing: Vec<usize> = (0..shown.len()).filter(|&n| rows[n].is_none()).collect();
        // A bead whose line holds all of it needs no file (as `BeadSet::complete` does).
        let made = crate::sys::par::par_map(&missing, |_, &n| {
            Some(
                match shown[n].to_bead().filter(|b| !b.partial) {
                    Some(whole) => Ok(whole),
                    None => read_bead(ws, &bead_path(ws, shown[n].key())),
                }
                .map(|bead| json_cache::element(&bead)),
            )
        });
        for (&n, json) in missing.iter().zip(made) {
            rows[n] = Some(JsonRow::Made(Cow::Owned(json?)));
        }
        let rows: Vec<JsonRow<'_>> = rows.into_iter().flatten().collect();
        // What the cache lacked is saved (a short listing reads files, and saves nothing).
        let fresh: Vec<(&str, &str, &[u8])> = if long {
            (rows.iter().zip(&wanted))
                .filter_map(|(row, &(key, stamp))| match row {
                    JsonRow::Made(json) => Some((key, stamp, json.as_ref())),
                    JsonRow::Cached(_) => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        if !fresh.is_empty() {
            let current = self.iter().map(|b| (b.key(), b.stamp_text())).collect();
            json_cache::save(ws, &cache, &current, &fresh);
        }
        Ok(JsonListing { rows, cache })
    }
}

/// Checks at compile time that a line has room for every field the slot marks, that
/// [`mark`] names each where [`MARKED`] holds it, and that the partial flag sits just
/// before the dependencies (see [`IndexedBead::is_partial`]).
const _: () = {
    let mut n = 0;
    while n < MARKED.len() {
        assert!(MARKED[n] < FIELDS);
        n += 1;
    }
    assert!(MARKED[mark::DEPS] == field::DEPS && field::PARTIAL + 1 == field::DEPS);
    assert!(MARKED[mark::LABELS] == field::LABELS);
    assert!(MARKED[mark::ASSIGNEE] == field::ASSIGNEE);
    assert!(MARKED[mark::TITLE] == field::TITLE);
    assert!(MARKED[mark::CLOSE_REASON] == field::CLOSE_REASON);
    assert!(MARKED[mark::PARENT] == field::PARENT);
};
