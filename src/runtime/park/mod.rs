//! How an idle worker waits, and how other threads wake it.
//!
//! The scheduler's idle protocol (`scheduler/multi_thread/idle.rs`) decides
//! *when* a worker may sleep and *which* worker a notifier wakes; this
//! module provides the primitive that does the sleeping. Every primitive
//! provides the same contract:
//!
//! * `Parker::park` blocks the owning worker until `Unparker::unpark` is
//!   called or the timeout (the next timer deadline) passes. An `unpark`
//!   that happens *before* `park` is not lost: it leaves a token that makes
//!   the next `park` return at once. Spurious returns are allowed; the
//!   scheduler re-checks its queues after every return.
//! * `Unparker` is cheap to clone and usable from any thread.
//! * `park` reports whether it consumed an unpark token, which the paused
//!   clock uses to tell "something woke the runtime" from "nothing to do".
//!
//! The worker's parker that the drivers hand the scheduler, a choice of
//! these primitives, is `runtime/driver/parker.rs`.
//!
//! Both worker parkers keep the same wake token (`token.rs`: one word,
//! `EMPTY`/`PARKED`/`NOTIFIED`) and differ only in how they sleep and how
//! a sleeper is woken.
//!
//! The legacy primitive is a mutex and condition variable (`condvar.rs`):
//! the legacy driver's poll threads (`runtime/driver/legacy/reactor.rs`) wake
//! workers through it, and a parked worker waits on it with a timeout for
//! its next timer (`runtime/driver/mod.rs`). The io_uring driver (the
//! worker blocks in `submit_and_wait`, woken through an eventfd) plugs in
//! behind the same operations, so the protocol above them does not change.
//!
//! `thread.rs` holds the separate parker of a thread that blocks on a
//! future outside any worker (`Runtime::block_on` on a multi-thread runtime,
//! `Handle::block_on`).
pub(crate) mod condvar;
#[cfg(any(feature = "uring", all(test, tokiwa_loom)))]
pub(crate) mod ring_wake;
pub(crate) mod thread;
mod token;
