//! A fast hasher for the evaluator's maps.
//!
//! The maps are keyed by byte offsets and by short names and bindings taken from the
//! script; SipHash's resistance to chosen collisions buys nothing there (a script
//! that collides its own offsets only slows itself down), and costs a large part of
//! the time of a walk. The maps are never iterated, so the hasher cannot change any
//! output, only the time.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// Mixes each word in with one wide multiplication.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    #[inline]
    fn mix(&mut self, n: u64) {
        let x = (self.0 ^ n).wrapping_add(0x9E37_79B9_7F4A_7C15);
        let m = u128::from(x).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        // Both halves of the product: the high half is well mixed, the low half
        // carries the low bits of the key.
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            // The length tells `ab` from `ab\0`.
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`FastHasher`]s that start from a per-process random seed: names come from
/// the file being linted, and a fixed seed would let a crafted file collide its own
/// names on purpose and turn every lookup into a scan.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seeded(u64);

impl Default for Seeded {
    fn default() -> Seeded {
        static SEED: OnceLock<u64> = OnceLock::new();
        Seeded(*SEED.get_or_init(|| RandomState::new().hash_one(0x5EED_u64)))
    }
}

impl BuildHasher for Seeded {
    type Hasher = FastHasher;

    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

/// A map with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, Seeded>;
/// A set with [`FastHasher`].
pub(crate) type FastSet<K> = HashSet<K, Seeded>;
/// A map keyed by byte offsets.
pub(crate) type OffsetMap<V> = FastMap<usize, V>;
/// A set of byte offsets.
pub(crate) type OffsetSet = FastSet<usize>;
