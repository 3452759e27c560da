//! Record ids: `<prefix>-<base36>` from a hash, as short as the record count allows.

use std::hash::{DefaultHasher, Hash, Hasher};

const ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// Hash characters needed so that `count` records are unlikely to collide:
/// the smallest length from 4 up for which the birthday bound stays under 7.5 %.
fn hash_len(count: usize) -> usize {
    let n = count as f64 + 1.0;
    (4..12)
        .find(|&len| n * n / (2.0 * 36f64.powi(len as i32)) <= 0.075)
        .unwrap_or(12)
}

/// A candidate id from the record's title, creator and creation time plus a nonce; callers
/// bump `nonce` until the id is free.
fn generate(
    prefix: &str,
    title: &str,
    creator: &str,
    nanos: u128,
    nonce: u32,
    len: usize,
) -> String {
    let mut hasher = DefaultHasher::new();
    (title, creator, nanos, nonce, std::process::id()).hash(&mut hasher);
    let mut value = hasher.finish();
    let mut hash = String::with_capacity(len);
    // 64 bits give 12 base36 digits; fold in a second hash for longer ids.
    for i in 0..len {
        if i == 12 {
            (value, nonce).hash(&mut hasher);
            value = hasher.finish();
        }
        hash.push(ALPHABET[(value % 36) as usize] as char);
        value /= 36;
    }
    format!("{prefix}-{hash}")
}

/// A free `<prefix>-<hash>` id for a new record among `count` existing ones: the first
/// candidate `taken` turns down is retried with the next nonce, and after every 16
/// collisions at one length the hash grows by a character rather than spin.
pub(crate) fn fresh(
    prefix: &str,
    title: &str,
    creator: &str,
    count: usize,
    mut taken: impl FnMut(&str) -> bool,
) -> String {
    let len = hash_len(count);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut nonce = 0u32;
    loop {
        let extra = (nonce / 16) as usize;
        let candidate = generate(prefix, title, creator, nanos, nonce, len + extra);
        if !taken(&candidate) {
            return candidate;
        }
        nonce += 1;
    }
}

/// True when `id` is a well-formed record id: letters, digits, `-`, `_` and `.` only.
pub(crate) fn is_valid(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !id.starts_with(['.', '-'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_grows_with_count() {
        assert_eq!(hash_len(0), 4);
        assert_eq!(hash_len(450), 4);
        assert_eq!(hash_len(600), 5);
        assert_eq!(hash_len(10_000), 6);
    }

    #[test]
    fn ids_differ_by_nonce_and_are_valid() {
        let a = generate("vm", "t", "me", 1, 0, 4);
        let b = generate("vm", "t", "me", 1, 1, 4);
        assert_ne!(a, b);
        assert!(a.starts_with("vm-") && a.len() == 7);
        assert!(is_valid(&a));
        assert!(!is_valid("../x"));
        assert!(!is_valid("a b"));
    }

    #[test]
    fn fresh_skips_taken_ids_and_grows_when_crowded() {
        let mut seen = Vec::new();
        let id = fresh("vm", "t", "me", 0, |c| {
            seen.push(c.to_string());
            seen.len() <= 40
        });
        assert_eq!(seen.len(), 41);
        assert_eq!(seen.last(), Some(&id));
        // 40 refusals: two steps of 16 grow the 4-character hash to 6.
        assert_eq!(id.len(), "vm-".len() + 6);
        assert!(seen[..16].iter().all(|c| c.len() == 7));
    }
}
