//! `RngSeed` and `Builder::rng_seed` (`tokio_unstable`): a runtime whose
//! `select!`s choose the same start branches on every run.
//!
//! A seeded runtime owns a [`SeedGenerator`]: a counter that yields one
//! seed per *entry*. Every time a thread enters the runtime to drive it
//! (a `block_on`, a worker thread starting), `context::enter_runtime`
//! takes the next seed and makes it that thread's `select!` generator
//! state (`macros::thread_rng`) until the thread leaves, when the thread's
//! own state comes back. The seeds are handed out in entry order, so as
//! long as a program enters its runtime in the same order (tokio's own
//! tests wait for the worker to park before calling `block_on`), each
//! thread sees the same sequence of random numbers in every run.
//!
//! A runtime built without a seed leaves the threads' generators alone
//! (they are random already), so unseeded runtimes pay nothing.
//!
//! Only tokiwa's own `select!` reads that generator: when tokiwa is built
//! as the package named `tokio` (whole-graph mode). Used under a rename,
//! `select!` is crates.io tokio's macro, whose generator tokiwa cannot
//! reach; the seed is then accepted and has no effect.
use crate::loom::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::fmt;

/// A seed for the random numbers a runtime's threads use, given to
/// [`Builder::rng_seed`](crate::runtime::Builder::rng_seed).
///
/// The same seed makes the runtime's `select!` branch order the same on
/// every run (for a program that enters the runtime in the same order, on
/// the same build of tokiwa).
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[derive(Clone)]
pub struct RngSeed {
    value: u64,
}

impl RngSeed {
    /// A seed derived from `bytes`: the same bytes give the same seed, in
    /// every process and on every machine.
    pub fn from_bytes(bytes: &[u8]) -> RngSeed {
        // FNV-1a over the bytes, then a full-avalanche finish so that seeds
        // differing in one byte give unrelated generators.
        let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
        }
        RngSeed { value: mix(hash) }
    }
}

impl fmt::Debug for RngSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RngSeed").finish_non_exhaustive()
    }
}

/// The seeds a seeded runtime hands to the threads that enter it, one per
/// entry (splitmix64: a counter stepped by an odd constant, each value
/// mixed).
pub(crate) struct SeedGenerator {
    counter: AtomicU64,
}

/// The step of the counter: odd, so the counter visits every `u64`.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl SeedGenerator {
    pub(crate) fn new(seed: &RngSeed) -> SeedGenerator {
        SeedGenerator {
            counter: AtomicU64::new(seed.value),
        }
    }

    /// The next entry's seed.
    fn next_seed(&self) -> u64 {
        // Relaxed: only the increment must be atomic (no two entries get
        // the same seed); no other memory is published through the counter.
        // Which entry gets which seed follows the order in which the
        // threads enter, which the program orders itself.
        let count = self.counter.fetch_add(GOLDEN_GAMMA, Relaxed);
        mix(count.wrapping_add(GOLDEN_GAMMA))
    }
}

impl fmt::Debug for SeedGenerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeedGenerator").finish_non_exhaustive()
    }
}

/// splitmix64's finishing mix: every input bit affects every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Gives the entering thread its next seed, if the runtime has a
/// generator; the guard puts the thread's own generator back.
pub(crate) fn enter(generator: Option<&SeedGenerator>) -> ThreadRngGuard {
    let Some(generator) = generator else {
        return ThreadRngGuard { previous: None };
    };
    let seed = generator.next_seed();
    #[cfg(all(tokiwa_own_vocabulary, feature = "macros"))]
    let previous = crate::macros::thread_rng::replace(seed);
    // Under a rename `select!` is tokio's: nothing of ours to seed.
    #[cfg(not(all(tokiwa_own_vocabulary, feature = "macros")))]
    let previous = {
        let _ = seed;
        None
    };
    ThreadRngGuard { previous }
}

/// Restores the thread's own `select!` generator when the thread leaves
/// the runtime.
pub(crate) struct ThreadRngGuard {
    previous: Option<u64>,
}

impl Drop for ThreadRngGuard {
    fn drop(&mut self) {
        #[cfg(all(tokiwa_own_vocabulary, feature = "macros"))]
        if let Some(previous) = self.previous {
            crate::macros::thread_rng::restore(previous);
        }
        #[cfg(not(all(tokiwa_own_vocabulary, feature = "macros")))]
        let _ = self.previous;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(generator: &SeedGenerator) -> Vec<u64> {
        (0..8).map(|_| generator.next_seed()).collect()
    }

    #[test]
    fn the_same_bytes_give_the_same_seeds() {
        let a = SeedGenerator::new(&RngSeed::from_bytes(b"bytes used to generate seed"));
        let b = SeedGenerator::new(&RngSeed::from_bytes(b"bytes used to generate seed"));
        let a = seeds(&a);
        assert_eq!(a, seeds(&b));
        // One entry's seed differs from the next.
        assert!(a.windows(2).all(|w| w[0] != w[1]));
    }

    #[test]
    fn different_bytes_give_different_seeds() {
        let a = SeedGenerator::new(&RngSeed::from_bytes(b"seed a"));
        let b = SeedGenerator::new(&RngSeed::from_bytes(b"seed b"));
        assert_ne!(seeds(&a), seeds(&b));
    }
}
