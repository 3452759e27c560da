//! The live progress line on a terminal's stderr: how many are done, and which are running
//! with their elapsed time, repainted a few times a second.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::ui::{Ui, outln};

/// Running items named on the line before the rest are counted.
const NAMED: usize = 3;
/// Widest the line may be, so it never wraps on a usual terminal.
const WIDTH: usize = 110;

/// What the line shows.
struct State {
    /// Running items by key: label and start.
    running: BTreeMap<String, (String, Instant)>,
    /// Items finished.
    done: usize,
    /// Items in all, when known.
    total: Option<usize>,
    /// What the items are (`checks`, `steps`).
    noun: &'static str,
}

/// A progress line that repaints itself until dropped; inert when stderr is no terminal.
pub struct Board {
    /// Shared with the painter.
    state: Arc<Mutex<State>>,
    /// Tells the painter to stop.
    stop: Arc<AtomicBool>,
    /// The painter thread, when stderr is a terminal.
    painter: Option<std::thread::JoinHandle<()>>,
}

impl Board {
    /// A board for items called `noun`; it paints only when stderr is a terminal and
    /// `enabled` is true.
    pub fn new(noun: &'static str, enabled: bool) -> Board {
        let state = Arc::new(Mutex::new(State {
            running: BTreeMap::new(),
            done: 0,
            total: None,
            noun,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let painter = (enabled && std::io::stderr().is_terminal()).then(|| {
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    paint(&lock(&state));
                    std::thread::sleep(Duration::from_millis(200));
                }
            })
        });
        Board {
            state,
            stop,
            painter,
        }
    }

    /// Item `key` called `label` started; `total` items in all, when known.
    pub fn started(&self, key: String, label: &str, total: Option<usize>) {
        let mut s = lock(&self.state);
        s.running.insert(key, (label.to_string(), Instant::now()));
        s.total = total.or(s.total);
    }

    /// Item `key` finished; `done` of `total` are finished now.
    pub fn finished(&self, key: &str, done: usize, total: Option<usize>) {
        let mut s = lock(&self.state);
        s.running.remove(key);
        s.done = done;
        s.total = total.or(s.total);
    }

    /// Prints `line` on stdout without tearing the progress line.
    pub fn println(&self, ui: &mut Ui, line: &str) {
        let s = lock(&self.state);
        if self.painter.is_some() {
            clear();
        }
        outln!(ui, "{line}");
        if self.painter.is_some() {
            paint(&s);
        }
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(p) = self.painter.take() {
            // The painter only draws; a panic in it must not end the command.
            let _ = p.join();
            let _s = lock(&self.state);
            clear();
        }
    }
}

/// `[3/16 checks done] running: a.sh#x 4.2s, b.sh#y 0.3s (+2 more)`.
fn line(s: &State) -> String {
    let count = match s.total {
        Some(t) => format!("[{}/{t} {} done]", s.done, s.noun),
        None => format!("[{} {} done]", s.done, s.noun),
    };
    let mut running: Vec<&(String, Instant)> = s.running.values().collect();
    running.sort_by_key(|(_, at)| *at);
    let named: Vec<String> = running
        .iter()
        .take(NAMED)
        .map(|(label, at)| format!("{label} {:.1}s", at.elapsed().as_secs_f64()))
        .collect();
    let mut text = if named.is_empty() {
        count
    } else {
        format!("{count} running: {}", named.join(", "))
    };
    if running.len() > NAMED {
        text.push_str(&format!(" (+{} more)", running.len() - NAMED));
    }
    if text.chars().count() > WIDTH {
        text = text.chars().take(WIDTH - 1).collect::<String>() + "…";
    }
    text
}

/// Paints the line in place.
fn paint(s: &State) {
    let mut err = std::io::stderr().lock();
    // The progress line is decoration: a stderr that cannot be written is ignored.
    let _ = write!(err, "\r\x1b[2K{}", line(s));
    let _ = err.flush();
}

/// Clears the line.
fn clear() {
    let mut err = std::io::stderr().lock();
    // The progress line is decoration: a stderr that cannot be written is ignored.
    let _ = write!(err, "\r\x1b[2K");
    let _ = err.flush();
}

/// Locks `m`, recovering from a poisoned lock.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_oldest_running_items_and_counts_the_rest() {
        let now = Instant::now();
        let mut running = BTreeMap::new();
        for (i, name) in ["a.sh#x", "b.sh#y", "c.sh#z", "d.sh#w"].iter().enumerate() {
            running.insert(i.to_string(), (name.to_string(), now));
        }
        let s = State {
            running,
            done: 3,
            total: Some(16),
            noun: "checks",
        };
        let l = line(&s);
        assert!(l.starts_with("[3/16 checks done] running: a.sh#x "), "{l}");
        assert!(l.ends_with("(+1 more)"), "{l}");
        assert!(!l.contains("d.sh#w"), "{l}");
    }
}
