//! Noticing a worker that stalls, so another can serve its sockets.
//!
//! Each worker's sockets wait on its own driver: in io_uring mode its
//! ring, which only the owner can reap; in legacy mode its epoll, which
//! its poll thread reaps while the worker sleeps. A worker that is awake
//! but does not run (a thread preempted for a scheduler tick on a machine
//! with more runnable threads than CPUs, one that yielded its CPU before
//! sleeping (`driver/park.rs`, step 3), or a task stuck in a long poll)
//! holds its sockets' readiness until it runs again, where tokio's one
//! shared epoll lets any worker take it. Under load from another process
//! on the same two CPUs that was the whole tail of the io_uring driver at
//! 16 connections: p99.9 of one tick (4 ms). Legacy mode's poll thread
//! reaps for a stuck worker too, but only after 10 ms
//! (`legacy/reactor.rs`, `STUCK_WORKER`), a wait it takes with a timeout
//! and that costs it a wakeup each time.
//!
//! [`StallWatch`] is the evidence: the owner publishes its progress (its
//! scheduler tick, once per task it runs), and another worker that finds
//! the same progress twice, [`STALL_AFTER_NS`] or more apart, while the owner
//! is not asleep (a sleeping owner is woken by the kernel for any event),
//! claims one rescue of it: a `poll(2)` of the stalled ring's resources
//! (`uring/rescue.rs`), or a reap of the stalled worker's epoll, as its
//! poll thread's stuck-worker check does (`Reactor::serve_if_stalled`).
//! A busy owner that keeps running tasks is not stalled, however long it
//! goes between looks at its driver: serving its sockets from elsewhere
//! then only moved its tasks back and forth (measured: `wrk` at 64
//! connections, waits crossing workers per request went from 0.42 to 0.85
//! with a rule based on the driver's last turn).
//!
//! Everything here is a hint, `Relaxed`: a stale read costs one needless
//! rescue (a non-blocking look at the driver) or one rescue later, and the
//! readiness itself always comes from the kernel.
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// How long an awake worker must show no progress before another serves
/// its sockets.
pub(crate) const STALL_AFTER_NS: u64 = 200_000;

pub(crate) use crate::runtime::monotonic::now_ns;

/// One worker's progress, as other workers see it.
#[derive(Debug, Default)]
pub(crate) struct StallWatch {
    /// The owner's scheduler tick (one writer: the thread holding the
    /// worker's core).
    progress: AtomicU64,
    /// What a looker saw last, and when (`now_ns`).
    seen_progress: AtomicU64,
    seen_at: AtomicU64,
    /// When the last rescue was claimed: one per `STALL_AFTER_NS`.
    rescued_at: AtomicU64,
}

impl StallWatch {
    /// The owner ran a task: `tick` is its scheduler's counter.
    pub(crate) fn note_progress(&self, tick: u64) {
        self.progress.store(tick, Relaxed);
    }

    /// Another worker at `now`, having checked that the owner is not
    /// asleep: whether the owner made no progress for `STALL_AFTER_NS`
    /// and this caller claimed the rescue.
    pub(crate) fn claim_rescue(&self, now: u64) -> bool {
        let progress = self.progress.load(Relaxed);
        if progress != self.seen_progress.load(Relaxed) {
            self.seen_progress.store(progress, Relaxed);
            self.seen_at.store(now, Relaxed);
            return false;
        }
        if now.saturating_sub(self.seen_at.load(Relaxed)) < STALL_AFTER_NS {
            return false;
        }
        let rescued = self.rescued_at.load(Relaxed);
        now.saturating_sub(rescued) >= STALL_AFTER_NS
            && self
                .rescued_at
                .compare_exchange(rescued, now, Relaxed, Relaxed)
                .is_ok()
    }
}
