//! Slicing the criteria of the specs into N shards for a CI matrix (`status --verify
//! --shard K/N`): every criterion in exactly one shard, and every machine computing the
//! same slices from the same commit. Criteria are ordered by spec path and line; with no
//! recorded durations they are dealt round-robin, and with some they are balanced by
//! them (longest first onto the lightest shard), unknown ones counting as the median.

use super::Spec;
use crate::error::{Error, Result};
use std::str::FromStr;

/// The K-th of N slices (`K/N`, both from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, from 1.
    pub index: usize,
    /// How many slices in all.
    pub of: usize,
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shard> {
        let bad = || {
            Error::usage(format!(
                "--shard takes K/N with 1 <= K <= N (e.g. 2/4), not '{s}'"
            ))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let of: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || of == 0 || index > of {
            return Err(bad());
        }
        Ok(Shard { index, of })
    }
}

/// The criteria of `specs` in `shard`, by `duration` (milliseconds a criterion took when
/// last recorded, keyed `path:line`); a spec keeps only its criteria in the shard and is
/// left out when none is. A spec with no criteria at all stays in the first shard, so its
/// problems are reported once.
pub fn select(specs: Vec<Spec>, shard: Shard, duration: impl Fn(&str) -> Option<u64>) -> Vec<Spec> {
    let mut keys: Vec<(String, usize, usize, usize)> = Vec::new();
    for (si, s) in specs.iter().enumerate() {
        for (ci, c) in s.criteria.iter().enumerate() {
            keys.push((s.path.clone(), c.line, si, ci));
        }
    }
    keys.sort();
    let weights: Vec<Option<u64>> = keys
        .iter()
        .map(|(path, line, _, _)| duration(&format!("{path}:{line}")))
        .collect();
    let bins = assign(&weights, shard.of);
    let mut keep = vec![Vec::new(); specs.len()];
    for ((_, _, si, ci), bin) in keys.iter().zip(bins) {
        if bin == shard.index - 1 {
            keep[*si].push(*ci);
        }
    }
    specs
        .into_iter()
        .zip(keep)
        .filter_map(|(mut s, mine)| {
            if s.criteria.is_empty() {
                return (shard.index == 1).then_some(s);
            }
            if mine.is_empty() {
                return None;
            }
            let all = std::mem::take(&mut s.criteria);
            s.criteria = all
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mine.contains(i))
                .map(|(_, c)| c)
                .collect();
            Some(s)
        })
        .collect()
}

/// The shard (from 0) of each item, in order: round-robin when no weight is known, else
/// the heaviest first onto the lightest shard (ties: the lower shard, the earlier item).
fn assign(weights: &[Option<u64>], of: usize) -> Vec<usize> {
    let mut known: Vec<u64> = weights.iter().flatten().copied().collect();
    if known.is_empty() {
        return (0..weights.len()).map(|i| i % of).collect();
    }
    known.sort_unstable();
    let median = known[known.len() / 2].max(1);
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(weights[i].unwrap_or(median).max(1)), i));
    let mut load = vec![0u64; of];
    let mut out = vec![0; weights.len()];
    for i in order {
        let lightest = (0..of).min_by_key(|&b| (load[b], b)).unwrap_or(0);
        load[lightest] += weights[i].unwrap_or(median).max(1);
        out[i] = lightest;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_lands_in_exactly_one_shard() {
        for of in 1..=5 {
            for weights in [vec![None; 11], (0..11).map(|i| Some(i * 7 % 5)).collect()] {
                let bins = assign(&weights, of);
                assert_eq!(bins.len(), 11);
                assert!(bins.iter().all(|b| *b < of));
            }
        }
    }

    #[test]
    fn known_durations_balance_the_shards() {
        // One long criterion and four short ones: the long one is alone.
        let bins = assign(&[Some(100), Some(10), Some(10), Some(10), Some(10)], 2);
        assert_eq!(bins, [0, 1, 1, 1, 1]);
    }

    #[test]
    fn k_of_n_reads_and_refuses() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard { index: 2, of: 4 });
        for bad in ["0/3", "4/3", "1", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
