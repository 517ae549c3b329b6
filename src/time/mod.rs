//! Utilities for tracking time (tokio's `time` module).
//!
//! * [`sleep`], [`sleep_until`] and [`Sleep`]: wait until a deadline;
//! * [`timeout`], [`timeout_at`] and [`Timeout`]: bound how long a future
//!   may take;
//! * [`interval`], [`interval_at`] and [`Interval`]: tick at a period, with
//!   a [`MissedTickBehavior`];
//! * [`Instant`] (the runtime's clock) and [`Duration`];
//! * with the `test-util` feature, `pause`, `resume` and `advance`:
//!   a paused clock that jumps to the next timer when the runtime is idle.
//!
//! Timers need a runtime built with `enable_time` (or `enable_all`); they
//! panic with tokio's messages outside one.
//!
//! # Design
//!
//! * `wheel/`: a hierarchical timing wheel (6 levels of 64 millisecond
//!   slots, slab-indexed lists, O(1) insert and remove) that stores each
//!   timer's exact deadline, so the earliest one is known to the
//!   nanosecond.
//! * `driver.rs`: one wheel per worker; how a worker parks until its next
//!   deadline, is unparked by an earlier timer inserted from elsewhere, and
//!   fires what expired; the paused clock's auto-advance; shutdown.
//! * `entry.rs`: the timer inside each `Sleep` (no allocation per timer
//!   beyond its wheel slot), its state machine, and why the wheel's raw
//!   pointer to it is sound.
//! * `clock.rs`: the clock, and the paused clock of `test-util`.
//! * `sleep.rs`, `timeout.rs`, `interval.rs`, `instant.rs`, `error.rs`: the
//!   public types, with tokio's semantics.
//!
//! A timer never fires before its deadline. A worker with nothing to do
//! sleeps exactly until its earliest deadline (not rounded to a tick), so
//! on an idle runtime a timer fires within the operating system's timer
//! slack of its deadline.
mod clock;
pub(crate) mod driver;
mod entry;
pub mod error;
mod instant;
mod interval;
mod sleep;
mod timeout;
mod wheel;

#[cfg(feature = "test-util")]
pub(crate) use clock::AutoAdvanceInhibit;
#[cfg(all(feature = "test-util", feature = "rt-multi-thread"))]
pub(crate) use clock::PAUSE_NEEDS_CURRENT_THREAD;
#[cfg(feature = "test-util")]
pub use clock::{advance, pause, resume};
pub use instant::Instant;
pub use interval::{interval, interval_at, Interval, MissedTickBehavior};
pub use sleep::{sleep, sleep_until, Sleep};
#[doc(no_inline)]
pub use std::time::Duration;
pub use timeout::{timeout, timeout_at, Timeout};

/// Caps a relative delay at about 30 years, so that adding it to an instant
/// does not overflow (tokio's bound: longer would overflow some platforms'
/// clocks).
fn safe_delay(duration: Duration) -> Duration {
    duration.min(Duration::from_secs(86_400 * 365 * 30))
}
