//! A quick map keyed by bead ids: their hasher, shared by the graph's rules and the caches.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A quick hash for bead ids (short keys, read from the workspace's own files: no
/// flooding to guard against), eight bytes per multiply.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

/// The multiplier of [`IdHasher`] (odd, its bits well spread).
const ID_HASH_FACTOR: u64 = 0x9e37_79b9_7f4a_7c15;

impl IdHasher {
    /// Mixes one word in.
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(ID_HASH_FACTOR);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.mix(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        // The high bits of a product are its best: fold them into the low ones too.
        self.0 ^ (self.0 >> 32)
    }
}

/// A map keyed by bead ids, hashed with [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A set of bead ids, hashed with [`IdHasher`].
pub(crate) type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::{IdHasher, IdMap};
    use std::hash::{BuildHasher, BuildHasherDefault};

    #[test]
    fn id_hashes_differ_by_any_byte_and_by_length() {
        let hash = |s: &str| BuildHasherDefault::<IdHasher>::default().hash_one(s);
        let ids = [
            "vm-1",
            "vm-2",
            "vm-10",
            "vm-1v1e1j",
            "vm-1v1e1k",
            "vm-1v1e1j.1",
            "",
        ];
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                assert_ne!(hash(a), hash(b), "{a} and {b}");
            }
        }
        assert_ne!(hash("a\0"), hash("a"));
    }

    #[test]
    fn id_map_finds_every_key() {
        let keys: Vec<String> = (0..50_000).map(|n| format!("vm-{n:x}")).collect();
        let mut map: IdMap<&str, usize> = IdMap::default();
        for (n, k) in keys.iter().enumerate() {
            map.insert(k, n);
        }
        assert_eq!(map.len(), keys.len());
        assert!(keys.iter().enumerate().all(|(n, k)| map[k.as_str()] == n));
        assert!(!map.contains_key("vm-zz"));
    }
}
