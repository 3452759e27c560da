//! Running a function over many items on the idle cores, results in order: what makes a
//! load of many records (a stat and maybe a parse each) take a fraction of the time.

use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` over `items` (with their positions) on the idle cores when there are many (the
/// per-file stat is most of the cost of a load), keeping the `Some` results in order.
pub fn par_map<I: Sync, T: Send>(items: &[I], f: impl Fn(usize, &I) -> Option<T> + Sync) -> Vec<T> {
    let parts = par_chunks(items, f);
    let total: usize = parts.iter().map(Vec::len).sum();
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_default();
    out.reserve(total - out.len());
    for part in parts {
        out.extend(part);
    }
    out
}

/// [`par_map`] without joining the parts: one vector per part, in order (saves copying
/// large records).
pub fn par_chunks<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(usize, &I) -> Option<T> + Sync,
) -> Vec<Vec<T>> {
    par_ranges(items.len(), |range| {
        // Sized up front: growing a vector of large records copies and faults in pages.
        let mut out = Vec::with_capacity(range.len());
        out.extend(range.filter_map(|i| f(i, &items[i])));
        out
    })
}

/// `f` over consecutive parts of `0..len`, the results in order. Many items are shared
/// out among the cores that are idle right now ([`idle_cores`]) in small parts, each
/// thread taking the next part when done with one, so a helper that starts late costs
/// nothing.
pub fn par_ranges<T: Send>(len: usize, f: impl Fn(Range<usize>) -> T + Sync) -> Vec<T> {
    let threads = if len < 2048 { 1 } else { idle_cores() };
    if threads == 1 {
        return vec![f(0..len)];
    }
    let size = (len / (threads * 8)).clamp(256, 8192);
    let count = len.div_ceil(size);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let n = next.fetch_add(1, Ordering::Relaxed);
            if n >= count {
                return done;
            }
            let start = n * size;
            done.push((n, f(start..(start + size).min(len))));
        }
    };
    let mut parts = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut parts = work();
        for h in helpers {
            match h.join() {
                Ok(done) => parts.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    });
    parts.sort_unstable_by_key(|(n, _)| *n);
    parts.into_iter().map(|(_, part)| part).collect()
}

/// The cores this process may use that no other task is running on right now (from
/// `/proc/loadavg`), at least one; looked at once per process. On a busy machine a
/// helper thread waits for a core, and waiting for it costs more than it saves.
pub fn idle_cores() -> usize {
    static IDLE: OnceLock<usize> = OnceLock::new();
    *IDLE.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // The fourth field is `running/total`; this thread is one of the running.
        let others = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().nth(3)?.split('/').next()?.parse().ok())
            .map_or(0, |running: usize| running.saturating_sub(1));
        cores.saturating_sub(others).max(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_every_item_once_and_in_order() {
        for len in [0, 1, 2047, 2048, 10_000, 100_003] {
            let parts = par_ranges(len, |r| r.collect::<Vec<usize>>());
            let all: Vec<usize> = parts.into_iter().flatten().collect();
            assert_eq!(all, (0..len).collect::<Vec<_>>(), "{len}");
        }
        let kept = par_map(&(0..5000).collect::<Vec<u32>>(), |i, v| {
            assert_eq!(i as u32, *v);
            (v % 3 == 0).then_some(*v)
        });
        assert_eq!(kept, (0..5000).filter(|v| v % 3 == 0).collect::<Vec<u32>>());
        assert!(idle_cores() >= 1);
    }
}
