//! A command running on a pseudo-terminal (stdin, stdout and stderr are its slave side),
//! with what it shows collected, for tests of what vermas does when a person is there.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A process on a 100x30 pseudo-terminal; killed when dropped.
pub struct Terminal {
    master: std::fs::File,
    child: Child,
    seen: Arc<Mutex<Vec<u8>>>,
    cursor: usize,
}

impl Terminal {
    /// Starts `cmd` on a new 100x30 pseudo-terminal and collects what it shows.
    pub fn spawn(mut cmd: Command) -> Terminal {
        let (mut m, mut s) = (-1, -1);
        let size = libc::winsize {
            ws_row: 30,
            ws_col: 100,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two new descriptors into the integers given; the name
        // and termios pointers may be null, the window size is read.
        let rc = unsafe {
            libc::openpty(
                &mut m,
                &mut s,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened by openpty and are owned here alone.
        let (master, slave) = unsafe { (std::fs::File::from_raw_fd(m), OwnedFd::from_raw_fd(s)) };
        cmd.stdin(Stdio::from(slave.try_clone().expect("dup")))
            .stdout(Stdio::from(slave.try_clone().expect("dup")))
            .stderr(Stdio::from(slave));
        let child = cmd.spawn().expect("spawn on the terminal");
        // The command holds the slave's descriptors: drop it so that reading the master
        // ends once the process (and anything it started) is gone.
        drop(cmd);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let mut reader = master.try_clone().expect("dup master");
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buf[..n]);
            }
        });
        Terminal {
            master,
            child,
            seen,
            cursor: 0,
        }
    }

    /// Everything shown so far, line ends as written (`\r` dropped).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().expect("lock")).replace('\r', "")
    }

    /// Waits until `needle` shows after what earlier waits consumed; returns the text up to
    /// and including it.
    pub fn expect(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let text = self.text();
            if let Some(i) = text[self.cursor.min(text.len())..].find(needle) {
                let end = self.cursor + i + needle.len();
                let part = text[self.cursor..end].to_string();
                self.cursor = end;
                return part;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {needle:?}; the terminal shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `line` and Enter.
    pub fn send(&mut self, line: &str) {
        self.master
            .write_all(format!("{line}\n").as_bytes())
            .expect("write to the terminal");
    }

    /// Waits up to a minute for the process to end; its exit code and everything it showed.
    pub fn finish(mut self) -> (i32, String) {
        let code = self.wait_for(Duration::from_secs(60));
        (code, self.text())
    }

    /// Waits up to `limit` for the process to end; its exit code (-1 for a signal).
    pub fn wait_for(&mut self, limit: Duration) -> i32 {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // Let the reader drain what was written just before the end.
                std::thread::sleep(Duration::from_millis(100));
                return status.code().unwrap_or(-1);
            }
            assert!(
                Instant::now() < deadline,
                "the process did not end; the terminal shows:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
