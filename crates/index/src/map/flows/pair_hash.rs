//! A fast hasher for the integer keys of the flow aggregation (cell keys and pairs of
//! them): one multiply per word. Keys come from the snapshot, never from a client, so
//! flooding is not a concern.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hasher over `u64` words.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

const K: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(K);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// A `HashMap` keyed by cell keys or pairs of them.
pub type KeyMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<KeyHasher>>;
