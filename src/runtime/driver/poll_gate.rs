//! Who reaps a worker's epoll: the worker itself while it is awake, its
//! poll thread while it is parked.
//!
//! The worker's side: `worker_parking` *before* its last non-blocking reap,
//! then block; `worker_awake` after waking. The poll thread's side: after
//! the outer epoll reported events, `poll_thread_may_reap`. It is the
//! store-then-load pattern of the park protocol (`multi_thread/idle.rs`):
//! the worker stores the flag and then looks at the events, the kernel
//! publishes an event and then the poll thread loads the flag, so with
//! `SeqCst` on both sides at least one of them sees the other: either the
//! worker's reap finds the event, or the poll thread sees the worker parked
//! and reaps (and wakes) it. `src/loom_tests/driver.rs` checks this with
//! the condvar parker as the worker's primitive.
use crate::loom::sync::atomic::{AtomicBool, Ordering::SeqCst};

#[derive(Debug)]
pub(crate) struct PollGate {
    worker_parked: AtomicBool,
}

impl PollGate {
    /// Starts parked: until a worker drives the reactor, only the poll
    /// thread reaps.
    pub(crate) fn new() -> PollGate {
        PollGate {
            worker_parked: AtomicBool::new(true),
        }
    }

    /// The worker is about to park; call before its last reap.
    pub(crate) fn worker_parking(&self) {
        self.worker_parked.store(true, SeqCst);
    }

    /// The worker is awake and reaps its own events.
    pub(crate) fn worker_awake(&self) {
        self.worker_parked.store(false, SeqCst);
    }

    /// The poll thread, after the outer epoll reported events: whether to
    /// reap them now (`false`: the awake worker will).
    pub(crate) fn poll_thread_may_reap(&self) -> bool {
        self.worker_parked.load(SeqCst)
    }
}
