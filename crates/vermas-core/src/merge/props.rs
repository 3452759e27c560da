//! Properties of `merge-file` on beads, over random bases and random edits on each side
//! (status, priority, title, labels, dependencies, notes with special characters, body
//! lines, and `updated_at` often equal on both sides): every result parses and has no
//! conflict marker, notes and labels follow the rules, a merge of a record with itself is
//! that record, the two orders of the sides give the same bytes, and the same merge run
//! twice gives the same bytes.

// The last case prints what the cases exercised (seen with `--nocapture`).
#![allow(clippy::print_stderr)]

use super::bead::{merge_beads, ours_later};
use crate::bead::model::{DepType, Dependency, Note};
use crate::bead::{Bead, Status};
use crate::time::Timestamp;
use proptest::prelude::*;

/// Note texts and titles with what YAML, markdown and git treat specially.
const TEXTS: &[&str] = &[
    "plain words",
    "colon: and # hash",
    "\"double\" and 'single' quotes",
    "{braces}, [brackets], & * ! | > % @ `tick`",
    "two\nlines",
    "tab\there",
    "  leading and trailing spaces  ",
    "---",
    "null",
    "true",
    "~",
    "- looks like a list",
    "<<<<<<< not a marker >>>>>>>",
    "unicode: é, 日本, 🚀",
    "back\\slash",
    "42",
];

/// Body lines the sides pick from (a front-matter fence among them).
const LINES: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "---", "- item", "", "# head",
];

/// Labels and dependency targets the sides pick from.
const NAMES: &[&str] = &["a", "b", "c", "d", "e", "f"];

/// One edit a side makes.
#[derive(Debug, Clone)]
enum Edit {
    Status(usize),
    Priority(u8),
    Title(usize),
    AddLabel(usize),
    RemoveLabel(usize),
    AddDep(usize),
    RemoveDep(usize),
    Note(usize, i64),
    SetLine(usize, usize),
    InsertLine(usize, usize),
    RemoveLine(usize),
}

/// Every status a side may set.
const STATUSES: &[Status] = &[
    Status::Open,
    Status::InProgress,
    Status::Blocked,
    Status::Deferred,
    Status::Closed,
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..STATUSES.len()).prop_map(Edit::Status),
        (0u8..5).prop_map(Edit::Priority),
        (0..TEXTS.len()).prop_map(Edit::Title),
        (0..NAMES.len()).prop_map(Edit::AddLabel),
        (0..NAMES.len()).prop_map(Edit::RemoveLabel),
        (0..NAMES.len()).prop_map(Edit::AddDep),
        (0..NAMES.len()).prop_map(Edit::RemoveDep),
        ((0..TEXTS.len()), 0i64..3).prop_map(|(t, at)| Edit::Note(t, at)),
        ((0usize..8), (0..LINES.len())).prop_map(|(i, l)| Edit::SetLine(i, l)),
        ((0usize..8), (0..LINES.len())).prop_map(|(i, l)| Edit::InsertLine(i, l)),
        (0usize..8).prop_map(Edit::RemoveLine),
    ]
}

/// A base bead: some labels, dependencies, notes and body lines.
fn base() -> impl Strategy<Value = Bead> {
    (
        proptest::collection::vec(0..NAMES.len(), 0..4),
        proptest::collection::vec(0..NAMES.len(), 0..3),
        proptest::collection::vec(0..TEXTS.len(), 0..3),
        proptest::collection::vec(0..LINES.len(), 0..6),
        0..STATUSES.len(),
    )
        .prop_map(|(labels, deps, notes, lines, status)| {
            let mut b = Bead::new("vm-prop".into(), "Prop".into());
            b.status = STATUSES[status];
            b.updated_at = Some(Timestamp(1000));
            for l in labels {
                apply(&mut b, &Edit::AddLabel(l), 0);
            }
            for d in deps {
                apply(&mut b, &Edit::AddDep(d), 0);
            }
            for (k, n) in notes.into_iter().enumerate() {
                b.notes.push(Note {
                    at: Timestamp(900 + k as i64),
                    by: "base".into(),
                    text: TEXTS[n].into(),
                });
            }
            b.description = lines
                .iter()
                .map(|&l| LINES[l])
                .collect::<Vec<_>>()
                .join("\n");
            stored(&b)
        })
}

/// `edit` made to `b` by side `side` (which signs its notes).
fn apply(b: &mut Bead, edit: &Edit, side: usize) {
    let name = |i: &usize| NAMES[*i].to_string();
    let mut lines: Vec<String> = if b.description.is_empty() {
        Vec::new()
    } else {
        b.description.split('\n').map(str::to_string).collect()
    };
    match edit {
        Edit::Status(s) => b.status = STATUSES[*s],
        Edit::Priority(p) => b.priority = *p,
        Edit::Title(t) => b.title = format!("T {}", TEXTS[*t].trim()).replace('\n', " "),
        Edit::AddLabel(l) if !b.labels.contains(&name(l)) => b.labels.push(name(l)),
        Edit::RemoveLabel(l) => b.labels.retain(|x| *x != name(l)),
        Edit::AddDep(d) => {
            let dep = Dependency::new(format!("vm-{}", name(d)), DepType::Blocks);
            if !b.dependencies.contains(&dep) {
                b.dependencies.push(dep);
            }
        }
        Edit::RemoveDep(d) => b
            .dependencies
            .retain(|x| x.depends_on_id != format!("vm-{}", name(d))),
        Edit::Note(t, at) => b.notes.push(Note {
            at: Timestamp(1000 + at),
            by: format!("side{side}"),
            text: format!("{} ({side}.{})", TEXTS[*t], b.notes.len()),
        }),
        Edit::SetLine(i, l) if *i < lines.len() => lines[*i] = LINES[*l].into(),
        Edit::InsertLine(i, l) => lines.insert((*i).min(lines.len()), LINES[*l].into()),
        Edit::RemoveLine(i) if *i < lines.len() => {
            lines.remove(*i);
        }
        _ => {}
    }
    b.description = lines.join("\n");
}

/// `base` with `edits` made by side `side`, its `updated_at` moved on by `later` seconds.
fn side(base: &Bead, edits: &[Edit], side: usize, later: i64) -> Bead {
    let mut b = base.clone();
    for e in edits {
        apply(&mut b, e, side);
    }
    b.notes.sort_by_key(|n| n.at);
    if !edits.is_empty() {
        b.updated_at = Some(Timestamp(1001 + later));
    }
    stored(&b)
}

/// `b` as its file holds it (written, then read back).
fn stored(b: &Bead) -> Bead {
    Bead::parse(&b.render(), "vm-prop.md").expect("a generated bead reads back")
}

/// A list merged by the set rule: kept on both sides, or added on one.
fn by_the_rule<T: PartialEq + Clone>(base: &[T], o: &[T], t: &[T]) -> Vec<T> {
    let mut all: Vec<T> = o.to_vec();
    all.extend(t.iter().cloned());
    let mut out: Vec<T> = Vec::new();
    for x in all {
        let kept = (o.contains(&x) && t.contains(&x)) || !base.contains(&x);
        if kept && !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Counts of what the generated cases exercised, shown by the test's last case.
static TIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static NOTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static CASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(29),
        ..ProptestConfig::default()
    })]

    #[test]
    fn merges_parse_follow_the_rules_and_give_the_same_bytes_in_either_order(
        base in base(),
        a_edits in proptest::collection::vec(edit(), 0..5),
        b_edits in proptest::collection::vec(edit(), 0..5),
        a_later in 0i64..2, b_later in 0i64..2,
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let a = side(&base, &a_edits, 1, a_later);
        let b = side(&base, &b_edits, 2, b_later);
        let path = ".beads/issues/vm-prop.md";
        let (bt, at, btt) = (base.render(), a.render(), b.render());
        let merged = super::merge_file(&bt, &at, &btt, path).unwrap();
        CASES.fetch_add(1, Relaxed);
        if a.updated_at == b.updated_at && at != btt {
            TIES.fetch_add(1, Relaxed);
        }
        // Parses, with no conflict marker.
        let m = Bead::parse(&merged, path).map_err(|e| TestCaseError::fail(format!("{e}\n{merged}")))?;
        prop_assert!(!merged.lines().any(|l| l.starts_with("<<<<<<< ") || l.starts_with(">>>>>>> ") || l == "======="), "{merged}");
        // The same bytes in either order, and when run again.
        prop_assert_eq!(&super::merge_file(&bt, &btt, &at, path).unwrap(), &merged);
        prop_assert_eq!(&super::merge_file(&bt, &at, &btt, path).unwrap(), &merged);
        // Idempotence: a record merged with itself, or with the base, is that record.
        prop_assert_eq!(super::merge_file(&at, &at, &at, path).unwrap(), at.clone());
        prop_assert_eq!(super::merge_file(&bt, &at, &at, path).unwrap(), at.clone());
        prop_assert_eq!(super::merge_file(&bt, &bt, &btt, path).unwrap(), btt.clone());
        prop_assert_eq!(merge_beads(Some(&a), &a, &a), a.clone());
        // Labels and dependencies by the set rule, each once.
        let mut labels = m.labels.clone();
        let mut want = by_the_rule(&base.labels, &a.labels, &b.labels);
        labels.sort();
        want.sort();
        prop_assert_eq!(labels, want);
        let key = |d: &Dependency| d.depends_on_id.clone();
        let mut deps: Vec<String> = m.dependencies.iter().map(key).collect();
        let mut want: Vec<String> = by_the_rule(&base.dependencies, &a.dependencies, &b.dependencies).iter().map(key).collect();
        deps.sort();
        want.sort();
        prop_assert_eq!(deps, want);
        // Notes: every note of either side once, in time order; the merge's own notes
        // dated by the later side.
        let ours: Vec<&Note> = m.notes.iter().filter(|n| n.by != "vermas merge-file").collect();
        let want = by_the_rule(&base.notes, &a.notes, &b.notes);
        prop_assert_eq!(ours.len(), want.len());
        for n in &want {
            prop_assert_eq!(m.notes.iter().filter(|x| *x == n).count(), 1, "{:?}", n);
        }
        prop_assert!(m.notes.windows(2).all(|w| w[0].at <= w[1].at));
        let later = a.updated_at.max(b.updated_at).unwrap();
        for n in m.notes.iter().filter(|n| n.by == "vermas merge-file") {
            prop_assert_eq!(n.at, later);
            prop_assert!(n.text.starts_with("merged: "), "{}", n.text);
            NOTED.fetch_add(1, Relaxed);
        }
        // A field changed on one side takes that side; on both, the later side's value,
        // the other's noted.
        let (win, lose) = if ours_later(&a, &b) { (&a, &b) } else { (&b, &a) };
        for (name, base_v, win_v, lose_v, got) in [
            ("status", base.status.to_string(), win.status.to_string(), lose.status.to_string(), m.status.to_string()),
            ("priority", base.priority.to_string(), win.priority.to_string(), lose.priority.to_string(), m.priority.to_string()),
            ("title", base.title.clone(), win.title.clone(), lose.title.clone(), m.title.clone()),
        ] {
            let expected = if lose_v == base_v { &win_v } else if win_v == base_v { &lose_v } else { &win_v };
            prop_assert_eq!(&got, expected, "{}", name);
            if win_v != base_v && lose_v != base_v && win_v != lose_v {
                let note = format!("merged: {name} was {lose_v} on the other side");
                prop_assert!(m.notes.iter().any(|n| n.text == note), "{note}: {:?}", m.notes);
            }
        }
        // A body changed on one side only is that side's body.
        if a.description == base.description {
            prop_assert_eq!(&m.description, &b.description);
        }
        if b.description == base.description {
            prop_assert_eq!(&m.description, &a.description);
        }
        if CASES.load(Relaxed) == 2000 {
            eprintln!(
                "merge properties: {} cases, {} with equal updated_at and different sides, {} merge notes checked",
                CASES.load(Relaxed), TIES.load(Relaxed), NOTED.load(Relaxed)
            );
        }
    }
}
