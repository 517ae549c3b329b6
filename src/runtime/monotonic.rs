//! The runtime's own monotonic clock in nanoseconds: small enough for an
//! atomic, so a worker can publish "when" in one word for others to read.
//! The stall rescue (`driver/stall.rs`) and task schedule
//! latency (`metrics/schedule_latency.rs`, `tokio_unstable`) read it; the
//! paused clock of `test-util` does not move it (neither is about timers).
use std::sync::OnceLock;
use std::time::Instant;

/// Nanoseconds since the first call in this process, plus one: never 0,
/// so a zero word can mean "never" to a reader.
pub(crate) fn now_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let nanos = ORIGIN.get_or_init(Instant::now).elapsed().as_nanos();
    u64::try_from(nanos).unwrap_or(u64::MAX - 1) + 1
}
