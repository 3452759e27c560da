//! A run's output kept within a cap: the start and the end, where test runners print
//! their verdicts, with a line saying how much was left out between them.

/// Output kept within a cap: the first half of it, and a rolling window of the last.
#[derive(Debug, Default)]
pub(super) struct Capture {
    /// The first bytes, up to `head_cap`.
    head: Vec<u8>,
    /// The latest bytes after the head, up to `tail_cap`, as a ring.
    tail: std::collections::VecDeque<u8>,
    /// Room for the head.
    head_cap: usize,
    /// Room for the tail.
    tail_cap: usize,
    /// Bytes written in all.
    total: u64,
}

impl Capture {
    /// Keeps up to `cap` bytes: half from the start, half from the end.
    pub(super) fn new(cap: usize) -> Capture {
        Capture {
            head_cap: cap - cap / 2,
            tail_cap: cap / 2,
            ..Capture::default()
        }
    }

    /// Takes the next bytes of output.
    pub(super) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap.saturating_sub(self.head.len());
        let into_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
            return;
        }
        let over = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..over);
        self.tail.extend(bytes);
    }

    /// The kept output, within the cap (with a line marking what was left out), the bytes
    /// written in all, and how many were left out.
    pub(super) fn finish(mut self) -> (Vec<u8>, u64, u64) {
        let cap = self.head_cap + self.tail_cap;
        let mut dropped = self.total - (self.head.len() + self.tail.len()) as u64;
        let mut marker = String::new();
        while dropped > 0 {
            let sep = if self.head.ends_with(b"\n") { "" } else { "\n" };
            marker = format!("{sep}... [vermas: {dropped} bytes of output left out here] ...\n");
            let over = (self.head.len() + marker.len() + self.tail.len()).saturating_sub(cap);
            // Room for the marker comes out of the head's last bytes and the tail's first.
            let cut_head = (over / 2).min(self.head.len());
            self.head.truncate(self.head.len() - cut_head);
            let cut = (over - cut_head).min(self.tail.len());
            self.tail.drain(..cut);
            if cut + cut_head == 0 {
                break;
            }
            dropped += (cut + cut_head) as u64;
        }
        let mut out = self.head;
        out.extend_from_slice(marker.as_bytes());
        out.extend(self.tail);
        (out, self.total, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_and_the_tail_and_counts_what_it_left_out() {
        let mut c = Capture::new(100);
        c.push(b"start\n");
        c.push(&[b'a'; 300]);
        c.push(b"--- FAIL: TestFoo\n");
        let (out, total, dropped) = c.finish();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(total, 324);
        assert!(text.len() <= 100, "{}", text.len());
        assert!(text.starts_with("start\naaa"), "{text}");
        assert!(text.ends_with("aaa--- FAIL: TestFoo\n"), "{text}");
        let marker = format!("\n... [vermas: {dropped} bytes of output left out here] ...\n");
        assert!(text.contains(&marker), "{text}");
        assert_eq!(text.len() - marker.len() + dropped as usize, 324);
        let mut small = Capture::new(10);
        small.push(b"0123456789");
        assert_eq!(small.finish(), (b"0123456789".to_vec(), 10, 0));
    }
}
