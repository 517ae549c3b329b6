//! The per-thread generator behind `select!`'s start branch
//! (`macros::support::thread_rng_n`, tokio's name for it).
//!
//! Each thread has its own xorshift64* state, seeded at first use from
//! std's per-process random hasher keys, so unbiased `select!`s on
//! different threads, and in different runs, start at unrelated branches.
//!
//! With `--cfg tokio_unstable`, a runtime built with
//! `Builder::rng_seed` replaces a thread's state for as long as the thread
//! is inside the runtime (`runtime::rng_seed`), and puts the old one back
//! when it leaves: the same seed then gives the same sequence of start
//! branches on every run.
use std::cell::Cell;

thread_local! {
    static STATE: Cell<u64> = Cell::new(random_state());
}

/// A pseudo-random number in `0..n` (`0` when `n` is zero), from the
/// calling thread's generator: where an unbiased `select!` starts polling.
pub fn thread_rng_n(n: u32) -> u32 {
    STATE.with(|state| {
        let (next, value) = step(state.get());
        state.set(next);
        // Lemire's multiply-shift: a value in 0..n without division.
        ((u64::from(value) * u64::from(n)) >> 32) as u32
    })
}

/// Makes `seed` the calling thread's generator state; returns the state it
/// replaced, for [`restore`]. `None` when the thread-local is gone (thread
/// exit), where nothing is replaced.
#[cfg(all(tokio_unstable, feature = "rt"))]
pub(crate) fn replace(seed: u64) -> Option<u64> {
    // Zero is the generator's fixed point.
    STATE.try_with(|state| state.replace(seed | 1)).ok()
}

/// Puts back a state [`replace`] returned.
#[cfg(all(tokio_unstable, feature = "rt"))]
pub(crate) fn restore(previous: u64) {
    let _ = STATE.try_with(|state| state.set(previous));
}

/// A per-thread starting state: std's hasher keys are random per process
/// and differ between threads.
fn random_state() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x5EED);
    // Zero is the generator's fixed point.
    hasher.finish() | 1
}

/// One xorshift64* step: the next state and 32 output bits.
fn step(mut x: u64) -> (u64, u32) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    (x, (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32)
}

#[cfg(all(test, tokio_unstable, feature = "rt"))]
mod tests {
    use super::*;

    fn draws() -> Vec<u32> {
        (0..16).map(|_| thread_rng_n(1000)).collect()
    }

    #[test]
    fn a_replaced_state_gives_its_own_sequence_and_restore_resumes_the_old_one() {
        let saved = replace(42).unwrap();
        let seeded = draws();
        // The same seed, the same draws.
        replace(42).unwrap();
        assert_eq!(draws(), seeded);
        restore(saved);
        // The thread's own generator goes on from the state it had: replay
        // it from that state.
        let resumed = draws();
        replace(saved).unwrap();
        assert_eq!(draws(), resumed);
    }

    #[test]
    fn values_stay_below_n() {
        replace(7).unwrap();
        assert!((0..1000).all(|_| thread_rng_n(10) < 10));
        assert_eq!(thread_rng_n(0), 0);
    }
}
