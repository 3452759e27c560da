//! The field table against [`Bead`] and every form of it: the table names every field
//! serde knows, and each row, set alone or with all the others, is carried by the file
//! (both readers), the index line, the `--json` listing and the merge.

use super::*;
use crate::bead::model::{DepType, Gate};
use crate::bead::{cache, canonical, json_cache};
use crate::store::index::Indexed;
use serde::de::{self, Visitor};

/// A deserializer that only records the member names `derive(Deserialize)` hands to
/// `deserialize_struct`: the fields serde reads of a bead file.
struct NamesProbe<'a>(&'a mut &'static [&'static str]);

impl<'de> de::Deserializer<'de> for NamesProbe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("names recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// Every member of [`Bead`] serde reads, in declaration order.
fn serde_names() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = <Bead as serde::Deserialize>::deserialize(NamesProbe(&mut names));
    names
}

#[test]
fn the_table_names_every_field_of_a_bead_in_order() {
    // The body is no key of the front matter: serde is told to skip it when reading.
    let table: Vec<&str> = FIELDS
        .iter()
        .filter(|f| f.kind != Kind::Body)
        .map(|f| f.name)
        .collect();
    assert!(!serde_names().is_empty(), "the probe read no names");
    assert_eq!(
        serde_names(),
        table.as_slice(),
        "Bead's members and the field table (bead/table/mod.rs) differ: a field of Bead \
         must be a row of the table, in Bead's order"
    );
}

/// A bead with only an id and a title.
fn base() -> Bead {
    Bead::new("vm-base".into(), "Base".into())
}

/// Sets `value`, the value of row `field`, to a value its kind's rules find hard
/// (quotes, tabs, commas, colons, non-ASCII, a gated edge) and no form has by default.
fn set_sample(field: &Field, value: Mut<'_>) {
    let ts = crate::time::Timestamp;
    match value {
        Mut::Text(s) if field.name == "id" => *s = "vm-sample.1".into(),
        Mut::Text(s) => *s = "Sample: \"quoted\"\tand \\ ünï # x".into(),
        Mut::Body(s) => *s = "Body *text*\n\n---\nwith a rule\t\"q\"".into(),
        Mut::Status(s) => *s = Status::InProgress,
        Mut::Priority(p) => *p = 0,
        Mut::Type(t) => *t = IssueType::Bug,
        Mut::Labels(l) => *l = vec!["area:ui".into(), "needs, commas".into(), "\u{1}x".into()],
        Mut::OptText(s) => *s = Some(format!("{} \"who\": x", field.name)),
        Mut::Time(t) => *t = Some(ts(1_700_000_000 + field.name.len() as i64)),
        Mut::Deps(d) => {
            *d = vec![
                Dependency {
                    depends_on_id: "vm-b".into(),
                    dep_type: DepType::Blocks,
                    gate: None,
                },
                Dependency {
                    depends_on_id: "vm-c".into(),
                    dep_type: DepType::WaitsFor,
                    gate: Some(Gate::AnyChildren),
                },
            ]
        }
        Mut::Notes(n) => {
            *n = vec![Note {
                at: ts(1_700_000_100),
                by: "carol".into(),
                text: "Question: tabs\tand\nnewlines, {braces}?".into(),
            }]
        }
        Mut::Criteria(c) => {
            *c = vec![AcceptanceCriterion {
                id: "ac-1".into(),
                description: "fizzbuzz 15 prints FizzBuzz".into(),
                verify_command: None,
                verify: Some("tests/x.sh#test_fizz".into()),
                judge: None,
            }]
        }
        Mut::Approval(a) => {
            *a = Some(Approval {
                criteria: "c0ffee".into(),
                files: [("tests/x.sh".to_string(), "b10b".to_string())].into(),
                spec: Some("specs/x.md".into()),
                commit: Some("abc123".into()),
                by: Some("alice".into()),
                at: Some(ts(1_700_000_200)),
            })
        }
    }
}

/// `bead` with row `n` set to its sample.
fn with_sample(mut bead: Bead, n: usize) -> Bead {
    let value = bead.fields_mut().into_iter().nth(n).expect("a row");
    set_sample(&FIELDS[n], value);
    bead
}

/// Checks every form of `bead`, which differs from [`base`] in the rows `changed`.
fn every_form_carries(bead: &Bead, changed: &[usize]) {
    let names: Vec<&str> = changed.iter().map(|&n| FIELDS[n].name).collect();
    // The file vermas writes, read by YAML.
    let text = bead.render();
    assert_eq!(
        Bead::parse(&text, "x.md").ok().as_ref(),
        Some(bead),
        "{names:?} file:\n{text}"
    );
    // The fast reader reads it alike, or leaves criteria and approvals to YAML.
    match canonical::parse(&text) {
        Some(fast) => assert_eq!(&fast, bead, "{names:?} fast reader"),
        None => assert!(
            changed
                .iter()
                .any(|&n| matches!(FIELDS[n].kind, Kind::Criteria | Kind::Approval)),
            "{names:?}: the fast reader gave up on:\n{text}"
        ),
    }
    // The index line holds the field, or says the file has more.
    let mut line = String::new();
    bead.encode(&mut line);
    let back = Bead::decode(&bead.id, &line).expect("the line decodes");
    let left = changed.iter().any(|&n| FIELDS[n].column == Column::Left);
    assert_eq!(back.partial, left, "{names:?} index line {line:?}");
    if !left {
        assert_eq!(&back, bead, "{names:?} index line {line:?}");
    }
    for (n, (def, value)) in FIELDS.iter().zip(back.fields()).enumerate() {
        if def.column != Column::Left {
            assert_eq!(value, bead.fields()[n], "{} from the index line", def.name);
        }
    }
    // A long `--json` listing: the cached JSON of the bead (made from its file, or from
    // its line when that holds all of it), as serde_json writes it one level deep in an
    // array.
    let pretty = serde_json::to_string_pretty(bead).unwrap();
    let whole = if left { bead.clone() } else { back.clone() };
    assert_eq!(
        String::from_utf8(json_cache::element(&whole)).unwrap(),
        format!("  {}", pretty.replace('\n', "\n  ")),
        "{names:?} JSON"
    );
    // A merge keeps a change made on one side, whichever side it is, even when the other
    // side changed last (else the merge would take the field along with the whole later
    // side). A merge is of one bead: its id is the same on both.
    let b = base();
    let mut later = base();
    later.updated_at = Some(crate::time::Timestamp(1_600_000_000));
    for merged in [
        crate::merge::bead::merge_beads(Some(&b), bead, &later),
        crate::merge::bead::merge_beads(Some(&b), &later, bead),
    ] {
        for &n in changed.iter().filter(|&&n| FIELDS[n].name != "id") {
            assert_eq!(
                merged.fields()[n],
                bead.fields()[n],
                "merge of {}",
                FIELDS[n].name
            );
        }
    }
}

#[test]
fn every_form_carries_every_field() {
    every_form_carries(&base(), &[]);
    let mut all = base();
    for n in 0..FIELDS.len() {
        every_form_carries(&with_sample(base(), n), &[n]);
        all = with_sample(all, n);
    }
    let every: Vec<usize> = (0..FIELDS.len()).collect();
    every_form_carries(&all, &every);
}

#[test]
fn the_index_line_keeps_its_columns() {
    // Each column holds the field it held before the table (the layout of the index
    // files already on disk, docs/FORMATS.md), for a bead with every field set.
    let mut all = base();
    for n in 0..FIELDS.len() {
        all = with_sample(all, n);
    }
    let mut line = String::new();
    all.encode(&mut line);
    let f = cache::split(&line).unwrap();
    assert_eq!(f[cache::field::STATUS], "in_progress");
    assert_eq!(f[cache::field::TYPE], "bug");
    assert_eq!(f[cache::field::PRIORITY], "0");
    assert_eq!(f[cache::field::PARTIAL], "1");
    assert_eq!(
        f[cache::field::TITLE],
        "Sample: \"quoted\"\\tand \\\\ ünï # x"
    );
    assert_eq!(
        f[cache::field::DEPS],
        "vm-b\u{1e}blocks\u{1f}vm-c\u{1e}waits-for\u{1e}any-children"
    );
    assert_eq!(
        f[cache::field::LABELS],
        "area:ui\u{1f}needs, commas\u{1f}\u{1}x"
    );
    assert_eq!(f[cache::field::ASSIGNEE], "+assignee \"who\": x");
    assert_eq!(f[cache::field::CREATED_AT], "1700000010");
    assert_eq!(f[cache::field::UPDATED_AT], "1700000010");
    assert_eq!(f[cache::field::CLOSED_AT], "1700000009");
    assert_eq!(f[cache::field::PARENT], "+parent \"who\": x");
    assert_eq!(f[14], "+spec \"who\": x");
    assert_eq!(COLUMNS, 15);
}
