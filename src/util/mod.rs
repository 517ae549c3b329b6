//! Small helpers with no better home.

/// tokio-console's resource instrumentation (`trace.rs`).
#[cfg(all(tokio_unstable, feature = "tracing"))]
pub(crate) mod trace;

/// A xorshift* generator for choices that need to be spread, not secret
/// (which worker to steal from first).
#[derive(Debug)]
pub(crate) struct FastRand {
    state: u64,
}

impl FastRand {
    pub(crate) fn new(seed: u64) -> FastRand {
        // Mix the seed so consecutive worker indices diverge at once; zero
        // is the generator's fixed point and must be avoided.
        let state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        FastRand { state }
    }

    pub(crate) fn next_u32(&mut self) -> u32 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }

    /// A value in `0..n` (`0` when `n` is zero).
    pub(crate) fn next_n(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        // Lemire's multiply-shift reduction: no division on the hot path.
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
}
