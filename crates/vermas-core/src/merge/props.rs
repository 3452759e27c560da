//! Properties of `merge-file` on beads: what either side added survives, and a merge of a
//! side with itself or with the base gives that side back.

use super::bead::merge_beads;
use crate::bead::Bead;
use crate::bead::model::Note;
use crate::time::Timestamp;
use proptest::prelude::*;

/// Labels and note texts the generated sides pick from.
const POOL: &[&str] = &["a", "b", "c", "d", "e", "f", "g", "h"];

/// A bead with the labels and notes `picks` selects (notes one second apart, in order).
fn bead(labels: &[usize], notes: &[usize], updated: i64, body: &str) -> Bead {
    let mut b = Bead::new("vm-prop".into(), "Prop".into());
    b.updated_at = Some(Timestamp(updated));
    for &i in labels {
        let l = POOL[i].to_string();
        if !b.labels.contains(&l) {
            b.labels.push(l);
        }
    }
    let mut seen = Vec::new();
    for &i in notes {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    seen.sort();
    b.notes = seen
        .iter()
        .map(|&i| Note {
            at: Timestamp(100 + i as i64),
            by: "x".into(),
            text: format!("note {}", POOL[i]),
        })
        .collect();
    b.description = body.to_string();
    b
}

/// Indexes into [`POOL`].
fn picks() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0..POOL.len(), 0..5)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 500,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every label and note added on either side is in the merge; merging a side with
    /// itself, or the base with a side, gives that side.
    #[test]
    fn additions_survive_and_trivial_merges_are_identities(
        base_l in picks(), base_n in picks(),
        a_l in picks(), a_n in picks(),
        b_l in picks(), b_n in picks(),
        a_t in 1i64..50, b_t in 1i64..50,
        body_a in "(x|y|z\n){0,6}", body_b in "(x|y|z\n){0,6}",
    ) {
        let base = bead(&base_l, &base_n, 0, "x\ny\n");
        let a = bead(&a_l, &a_n, a_t, &body_a);
        let b = bead(&b_l, &b_n, b_t, &body_b);
        let m = merge_beads(Some(&base), &a, &b, Timestamp(1000));
        for side in [&a, &b] {
            for l in side.labels.iter().filter(|l| !base.labels.contains(l)) {
                prop_assert!(m.labels.contains(l), "label {l} lost: {:?}", m.labels);
            }
            for n in side.notes.iter().filter(|n| !base.notes.contains(n)) {
                prop_assert!(m.notes.contains(n), "note {n:?} lost");
            }
        }
        prop_assert!(!m.render().contains("<<<<<<<"));
        prop_assert_eq!(merge_beads(Some(&base), &a, &a, Timestamp(1000)), a.clone());
        prop_assert_eq!(merge_beads(Some(&base), &base, &b, Timestamp(1000)), b.clone());
        let path = ".beads/issues/vm-prop.md";
        let (bt, at, btt) = (base.render(), a.render(), b.render());
        prop_assert_eq!(super::merge_file(&bt, &at, &at, path).unwrap(), at.clone());
        prop_assert_eq!(super::merge_file(&bt, &bt, &btt, path).unwrap(), btt);
        let merged = super::merge_file(&bt, &at, &b.render(), path).unwrap();
        prop_assert!(Bead::parse(&merged, path).is_ok(), "{merged}");
    }
}
