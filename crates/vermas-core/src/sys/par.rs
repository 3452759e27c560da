//! The one thread pool: a function over many items on several threads, each thread
//! taking the next item when done with one, the results in order. Loads of many records
//! (a stat and maybe a parse each) use the idle cores in parts; checks run one per job.

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
    pool(len.div_ceil(size), threads, |n| {
        let start = n * size;
        f(start..(start + size).min(len))
    })
}

/// `f(0)` to `f(count - 1)` on up to `threads` threads, this one among them, each taking
/// the next number when done with one (so a thread that starts late costs nothing); the
/// results in order. A panic in `f` is raised again here.
pub fn pool<T: Send>(count: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, count.max(1));
    if threads == 1 {
        return (0..count).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let n = next.fetch_add(1, Ordering::Relaxed);
            if n >= count {
                return done;
            }
            done.push((n, f(n)));
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

/// The cores this process may use (2 when the system does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Sets the C allocator's trim threshold to 4 MiB; a binary calls it first, before any
/// thread starts. glibc's default threshold grows with the largest block freed, so memory
/// a phase is done with stays held: a 100,000-bead `ready --json` peaked at 62.8 MB that
/// way and at 59.5 MB this way, for about 5% of its time. (One arena for every thread
/// saved as much without the time, but made the first read after the cache is removed
/// twice as slow: its threads fought over the one heap.)
pub fn tune_allocator() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
    }
}

/// The cores this process may use, less those other tasks keep busy, at least one; looked
/// at once per process. On a machine whose load (the one-minute average, from
/// `/proc/loadavg`) is below its core count, every core: a task that happens to be
/// runnable at the instant vermas starts (a kernel thread, the parent on its way to wait)
/// is no reason to run alone. On a saturated machine, the cores no other task is running
/// on right now: there a helper thread waits for a core, and waiting costs more than it
/// saves.
pub fn idle_cores() -> usize {
    static IDLE: OnceLock<usize> = OnceLock::new();
    *IDLE.get_or_init(|| {
        let cores = cores();
        let Ok(loadavg) = std::fs::read_to_string("/proc/loadavg") else {
            return cores;
        };
        idle_of(cores, &loadavg)
    })
}

/// [`idle_cores`] for `cores` cores and the text of `/proc/loadavg`.
fn idle_of(cores: usize, loadavg: &str) -> usize {
    let mut fields = loadavg.split_whitespace();
    let load: Option<f64> = fields.next().and_then(|l| l.parse().ok());
    if load.is_some_and(|l| l < cores as f64) {
        return cores;
    }
    // The fourth field is `running/total`; this thread is one of the running.
    let others = fields
        .nth(2)
        .and_then(|f| f.split('/').next()?.parse::<usize>().ok())
        .map_or(0, |running| running.saturating_sub(1));
    cores.saturating_sub(others).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_unless_the_machine_is_saturated() {
        // Below the core count: every core, whatever runs this instant.
        assert_eq!(idle_of(2, "1.52 1.40 1.50 3/79 5994"), 2);
        assert_eq!(idle_of(8, "7.90 6.00 5.00 9/300 1"), 8);
        // Saturated: the cores nothing else runs on now, at least one.
        assert_eq!(idle_of(2, "2.10 1.40 1.50 2/79 5994"), 1);
        assert_eq!(idle_of(4, "6.00 5.00 5.00 3/200 1"), 2);
        assert_eq!(idle_of(4, "9.00 9.00 9.00 12/200 1"), 1);
        // Unreadable: the instant count, else every core.
        assert_eq!(idle_of(2, "garbage"), 2);
    }

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

    #[test]
    fn the_pool_keeps_order_and_uses_every_thread_it_may() {
        use std::collections::HashSet;
        use std::sync::Mutex;
        let seen = Mutex::new(HashSet::new());
        let out = pool(64, 4, |n| {
            seen.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(2));
            n * 2
        });
        assert_eq!(out, (0..64).map(|n| n * 2).collect::<Vec<_>>());
        assert!(
            seen.into_inner().unwrap().len() > 1,
            "more than one thread worked"
        );
        assert_eq!(pool(0, 4, |n| n), Vec::<usize>::new());
        assert_eq!(pool(3, 0, |n| n), vec![0, 1, 2]);
    }

    #[test]
    fn a_panic_in_the_pool_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            pool(16, 2, |n| {
                assert!(n != 7, "seven");
                n
            })
        });
        assert!(caught.is_err());
    }
}
