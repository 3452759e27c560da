//! Where a command's results go: a [`Ui`] holds the writer (stdout in the binary, a buffer
//! in tests), whether `--json` was asked for and whether colour may be used. Handlers render
//! through the `&mut Ui` they are given, so rendering can be checked in-process.

use std::io::Write;
use std::os::fd::AsFd;
use vermas_core::bead::catalog::JsonRun;
use vermas_core::sys::send::{RangeReader, send_range};

use serde::Serialize;

/// `print!` through a [`Ui`]: `out!(ui, "{x}")`.
macro_rules! out {
    ($ui:expr, $($arg:tt)*) => {
        $ui.write(format_args!($($arg)*), false)
    };
}

/// `println!` through a [`Ui`]: `outln!(ui, "{x}")`, or `outln!(ui)` for an empty line.
macro_rules! outln {
    ($ui:expr) => {
        $ui.write(format_args!(""), true)
    };
    ($ui:expr, $($arg:tt)*) => {
        $ui.write(format_args!($($arg)*), true)
    };
}

pub(crate) use {out, outln};

/// The output of one command: where it goes and how it is drawn.
pub(crate) struct Ui {
    /// Where rendered output goes.
    writer: Box<dyn Write + Send>,
    /// `--json` was given: results are JSON for scripts.
    pub json: bool,
    /// Human output may use ANSI colour.
    pub colour: bool,
    /// The writer is the process's stdout: a closed pipe ends the process (see
    /// [`Ui::refused`]).
    is_stdout: bool,
    /// The first write the writer refused (only kept when not stdout); later output is
    /// dropped.
    failed: Option<std::io::Error>,
}

impl Ui {
    /// Output to the process's stdout; colour when stdout is a terminal and `NO_COLOR`
    /// is not set.
    pub fn stdout(json: bool) -> Ui {
        Ui {
            writer: Box::new(std::io::stdout()),
            json,
            colour: stdout_colour(),
            is_stdout: true,
            failed: None,
        }
    }

    /// Output to `writer` (a buffer, a file): a refused write is kept (see [`Ui::failed`])
    /// instead of ending the process.
    #[cfg(test)]
    pub fn to_writer(writer: Box<dyn Write + Send>, json: bool, colour: bool) -> Ui {
        Ui {
            writer,
            json,
            colour,
            is_stdout: false,
            failed: None,
        }
    }

    /// The first write that was refused, for a Ui that is not stdout.
    #[cfg(test)]
    pub fn failed(&self) -> Option<&std::io::Error> {
        self.failed.as_ref()
    }

    /// Writes `args`, and a line break when `newline`.
    pub fn write(&mut self, args: std::fmt::Arguments<'_>, newline: bool) {
        if self.failed.is_some() {
            return;
        }
        let result = if newline {
            self.writer.write_fmt(format_args!("{args}\n"))
        } else {
            self.writer.write_fmt(args)
        };
        if let Err(e) = result {
            self.refused(e);
        }
    }

    /// Writes `value` as pretty JSON and a line break.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) {
        match serde_json::to_string_pretty(value) {
            Ok(text) => outln!(self, "{text}"),
            Err(e) => eprintln!("error: cannot render JSON: {e}"),
        }
    }

    /// Writes `items` as a pretty JSON array, exactly as [`Ui::json`] would, but
    /// serialising parts of a long list on every core and without one big string.
    pub fn json_list<T: Serialize + Sync>(&mut self, items: &[T]) {
        self.json_elements(items, json_element);
    }

    /// Writes a pretty JSON array whose elements `write` renders (each indented one level,
    /// as [`Ui::json`] would), rendering parts of a long list on every core.
    pub fn json_elements<T: Sync>(&mut self, items: &[T], write: impl Fn(&mut Vec<u8>, &T) + Sync) {
        /// Elements one thread renders at a time: buffers stay small and are reused.
        const BLOCK: usize = 512;
        if self.failed.is_some() {
            return;
        }
        let threads = if items.len() < 2 * BLOCK {
            1
        } else {
            vermas_core::sys::par::cores()
        };
        // One buffer per thread's block, kept from round to round: memory the kernel
        // handed out once is written again, not faulted in anew for every block.
        let buffers: Vec<std::sync::Mutex<Vec<u8>>> = (0..threads)
            .map(|_| std::sync::Mutex::new(Vec::new()))
            .collect();
        let render = |n: usize, part: &[T]| {
            let mut out = buffers[n].lock().unwrap_or_else(|p| p.into_inner());
            out.clear();
            if out.capacity() == 0 && threads > 1 {
                // A long listing's block: room for elements of a kilobyte, present at once.
                vermas_core::sys::mem::reserve_present(&mut out, part.len() * 1024);
            }
            for item in part {
                out.extend_from_slice(b",\n");
                write(&mut out, item);
            }
        };
        let writer = &mut self.writer;
        let result = (|| {
            if items.is_empty() {
                return writer.write_all(b"[]\n");
            }
            writer.write_all(b"[")?;
            // Rounds of one block per thread, written in order; the very first element
            // has no `,` before it.
            let mut first = true;
            for round in items.chunks(BLOCK * threads) {
                let parts: Vec<&[T]> = round.chunks(BLOCK).collect();
                vermas_core::sys::par::pool(parts.len(), threads, |n| render(n, parts[n]));
                for buf in &buffers[..parts.len()] {
                    let buf = buf.lock().unwrap_or_else(|p| p.into_inner());
                    if buf.is_empty() {
                        continue;
                    }
                    let skip = if first { 1 } else { 0 };
                    first = false;
                    writer.write_all(&buf[skip..])?;
                }
            }
            writer.write_all(b"\n]\n")?;
            writer.flush()
        })();
        if let Err(e) = result {
            self.refused(e);
        }
    }

    /// Writes a pretty JSON array whose inside is `runs` joined by `,\n` (each run one or
    /// more elements, indented one level, as [`Ui::json`] would write them; a cached run
    /// lies in `cache`): a long run goes out in one write (copied by the kernel from the
    /// cache to stdout), short ones are gathered first.
    pub fn json_runs(&mut self, runs: &[JsonRun<'_>], cache: Option<&std::fs::File>) {
        /// Runs at least this long are written as they are; shorter ones are gathered.
        const LONG: usize = 64 * 1024;
        if self.failed.is_some() {
            return;
        }
        let stdout = std::io::stdout();
        let direct = self.is_stdout.then(|| stdout.as_fd());
        let writer = &mut self.writer;
        let result = (|| {
            if runs.is_empty() {
                return writer.write_all(b"[]\n");
            }
            let mut gathered: Vec<u8> = Vec::with_capacity(2 * LONG);
            // Short cached runs are read through one window.
            let mut reader = cache.map(RangeReader::new);
            gathered.extend_from_slice(b"[\n");
            for (n, run) in runs.iter().enumerate() {
                if n > 0 {
                    gathered.extend_from_slice(b",\n");
                }
                let len = match run {
                    JsonRun::Made(bytes) => bytes.len(),
                    JsonRun::Cached(range) => {
                        usize::try_from(range.end - range.start).unwrap_or(usize::MAX)
                    }
                };
                if len >= LONG {
                    writer.write_all(&gathered)?;
                    gathered.clear();
                    match run {
                        JsonRun::Made(bytes) => writer.write_all(bytes)?,
                        JsonRun::Cached(range) => {
                            let file = cache.ok_or_else(no_cache_file)?;
                            send_range(file, range.clone(), writer, direct)?
                        }
                    }
                } else {
                    match run {
                        JsonRun::Made(bytes) => gathered.extend_from_slice(bytes),
                        JsonRun::Cached(range) => {
                            let reader = reader.as_mut().ok_or_else(no_cache_file)?;
                            gathered.extend_from_slice(reader.get(range.clone())?);
                        }
                    }
                    if gathered.len() >= LONG {
                        writer.write_all(&gathered)?;
                        gathered.clear();
                    }
                }
            }
            gathered.extend_from_slice(b"\n]\n");
            writer.write_all(&gathered)?;
            writer.flush()
        })();
        if let Err(e) = result {
            self.refused(e);
        }
    }

    /// Writes `bytes` as they are and flushes them; false when the writer refused them (a
    /// closed pipe on stdout does not end the process here: the caller stops).
    pub fn write_frame(&mut self, bytes: &[u8]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        match self
            .writer
            .write_all(bytes)
            .and_then(|()| self.writer.flush())
        {
            Ok(()) => true,
            Err(e) => {
                if !self.is_stdout {
                    self.failed = Some(e);
                }
                false
            }
        }
    }

    /// Streams what `fill` writes through a large buffer (a long export, line by line);
    /// `fill`'s own error comes back as it is, a refused write is handled as any other.
    pub fn stream<E>(
        &mut self,
        fill: impl FnOnce(&mut dyn Write) -> Result<std::io::Result<()>, E>,
    ) -> Result<(), E> {
        if self.failed.is_some() {
            return Ok(());
        }
        let mut out = std::io::BufWriter::with_capacity(256 * 1024, &mut self.writer);
        let written = fill(&mut out)?.and_then(|()| out.flush());
        drop(out);
        if let Err(e) = written {
            self.refused(e);
        }
        Ok(())
    }

    /// A write was refused. On stdout a closed pipe (`vermas list | head`) ends the
    /// process quietly with status 0, as git does, and any other error ends it with 1;
    /// any other writer keeps the error and drops later output.
    fn refused(&mut self, e: std::io::Error) {
        if self.is_stdout {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("error: cannot write to stdout: {e}");
            std::process::exit(1);
        }
        self.failed = Some(e);
    }
}

/// Pretty JSON of `item` as an array element (indented one level). Pretty output has line
/// breaks only between tokens (strings escape theirs), so indenting every line indents it.
fn json_element<T: Serialize>(out: &mut Vec<u8>, item: &T) {
    let one = serde_json::to_vec_pretty(item).unwrap_or_else(|_| b"null".to_vec());
    out.extend_from_slice(b"  ");
    for &b in &one {
        out.push(b);
        if b == b'\n' {
            out.extend_from_slice(b"  ");
        }
    }
}

/// True when stdout is a terminal and `NO_COLOR` is not set.
fn stdout_colour() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// What an in-memory [`Ui`] wrote, shared with the test that reads it.
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

#[cfg(test)]
impl Captured {
    /// A Ui writing into a new buffer, and the buffer.
    pub fn ui(json: bool) -> (Ui, Captured) {
        let captured = Captured::default();
        let ui = Ui::to_writer(Box::new(captured.clone()), json, false);
        (ui, captured)
    }

    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8(bytes.clone()).expect("the Ui writes UTF-8")
    }
}

#[cfg(test)]
impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut bytes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The error of a cached run without its cache file.
fn no_cache_file() -> std::io::Error {
    std::io::Error::other("a cached run without its cache file")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_lines_are_written_as_given() {
        let (mut ui, captured) = Captured::ui(false);
        out!(ui, "a{}", 1);
        outln!(ui, " and {}", "b");
        outln!(ui);
        outln!(ui, "end");
        assert_eq!(captured.text(), "a1 and b\n\nend\n");
        assert!(ui.failed().is_none());
    }

    #[test]
    fn json_runs_join_made_and_cached_elements_as_one_array() {
        // Elements of a pretty array, as a cache holds them side by side.
        let elements: Vec<String> = (0..400)
            .map(|n| {
                format!(
                    "  {{\n    \"n\": {n},\n    \"pad\": \"{}\"\n  }}",
                    "x".repeat(300)
                )
            })
            .collect();
        let body = elements.join(",\n") + ",\n";
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("json");
        std::fs::write(&path, &body).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        let at = |n: usize| elements[..n].iter().map(|e| e.len() + 2).sum::<usize>() as u64;
        let made = b"  {\n    \"made\": true\n  }".to_vec();
        let runs = [
            JsonRun::Cached(at(3)..at(4) - 2),    // short: through the window
            JsonRun::Made(&made),                 // in memory
            JsonRun::Cached(at(10)..at(400) - 2), // long: copied whole
            JsonRun::Cached(at(0)..at(2) - 2),    // back at the start
        ];
        let (mut ui, captured) = Captured::ui(true);
        ui.json_runs(&runs, Some(&file));
        assert!(ui.failed().is_none());
        let got: serde_json::Value = serde_json::from_str(&captured.text()).expect("JSON");
        let mut want: Vec<serde_json::Value> = vec![serde_json::from_str(&elements[3]).unwrap()];
        want.push(json!({"made": true}));
        want.extend(
            elements[10..]
                .iter()
                .map(|e| serde_json::from_str(e).unwrap()),
        );
        want.extend(
            elements[..2]
                .iter()
                .map(|e| serde_json::from_str(e).unwrap()),
        );
        assert_eq!(got, serde_json::Value::Array(want.clone()));
        // Byte for byte what the pretty JSON of those elements is.
        assert_eq!(
            captured.text(),
            format!("{}\n", serde_json::to_string_pretty(&want).unwrap())
        );
        // A cached run without its file is refused, not written as something else.
        let (mut ui, _) = Captured::ui(true);
        ui.json_runs(&runs, None);
        assert!(ui.failed().is_some());
    }

    #[test]
    fn json_is_pretty_with_a_line_break() {
        let (mut ui, captured) = Captured::ui(true);
        let value = json!({"id": "vm-1", "labels": ["a", "b"], "schema_version": 1});
        ui.json(&value);
        let expected = format!("{}\n", serde_json::to_string_pretty(&value).unwrap());
        assert_eq!(captured.text(), expected);
        assert!(captured.text().starts_with("{\n  \"id\": \"vm-1\",\n"));
    }

    #[test]
    fn a_json_list_reads_as_the_same_array_rendered_whole() {
        // Empty, short (one block) and long (several blocks rendered on several threads).
        for n in [0, 3, 5000] {
            let items: Vec<_> = (0..n)
                .map(|i| json!({"id": format!("vm-{i}"), "note": "two\nlines", "n": i}))
                .collect();
            let (mut whole, expected) = Captured::ui(true);
            whole.json(&items);
            let (mut listed, got) = Captured::ui(true);
            listed.json_list(&items);
            assert_eq!(got.text(), expected.text(), "{n} items");
        }
    }

    /// A reader that went away: every write is refused as a closed pipe.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_pipe_is_kept_and_ends_nothing_but_the_output() {
        let mut ui = Ui::to_writer(Box::new(ClosedPipe), false, false);
        outln!(ui, "first");
        // The process is still here: the error is kept, and later output is dropped.
        let kind = ui.failed().map(std::io::Error::kind);
        assert_eq!(kind, Some(std::io::ErrorKind::BrokenPipe));
        outln!(ui, "second");
        ui.json(&json!({"a": 1}));
        ui.json_list(&[1, 2, 3]);
        assert!(!ui.write_frame(b"frame\n"));
    }

    #[test]
    fn a_frame_is_written_whole_and_says_whether_it_was() {
        let (mut ui, captured) = Captured::ui(false);
        assert!(ui.write_frame(b"\x1b[2J\x1b[Hscreen\n"));
        assert_eq!(captured.text(), "\x1b[2J\x1b[Hscreen\n");
    }

    #[test]
    fn a_stream_writes_everything_and_hands_back_its_own_error() {
        let (mut ui, captured) = Captured::ui(false);
        let streamed: Result<(), &str> =
            ui.stream(|out| Ok((0..3).try_for_each(|i| writeln!(out, "line {i}"))));
        assert_eq!(streamed, Ok(()));
        assert_eq!(captured.text(), "line 0\nline 1\nline 2\n");
        let refused: Result<(), &str> = ui.stream(|_| Err("a bead could not be read"));
        assert_eq!(refused, Err("a bead could not be read"));
        let mut closed = Ui::to_writer(Box::new(ClosedPipe), false, false);
        assert_eq!(closed.stream::<()>(|out| Ok(out.write_all(b"x\n"))), Ok(()));
        let kind = closed.failed().map(std::io::Error::kind);
        assert_eq!(kind, Some(std::io::ErrorKind::BrokenPipe));
    }
}
