//! The I/O driver's counts of `tokio_unstable`
//! (`RuntimeMetrics::io_driver_fd_registered_count`,
//! `io_driver_fd_deregistered_count`, `io_driver_ready_count`), the same in
//! both driver modes.
//!
//! **Registrations** are counted per I/O resource, where the I/O types
//! create and drop their [`Registration`](super::registration::Registration):
//! once when it is registered and once when it is dropped (which follows
//! its deregistration), whichever worker's driver holds it, and however
//! often its poll moves between workers (`legacy/placement.rs`,
//! `uring/home.rs`). Resources are registered and dropped on any thread, so
//! these two are runtime-wide counters, one `fetch_add` each, next to a
//! registration's own system call and allocation.
//!
//! **Ready events** are counted per worker driver (an epoll instance or a
//! ring), by whoever dispatches its events, which always does so under
//! that driver's registry lock: the lock makes it the counter's one
//! writer, so adding a batch's events is a load and a store, and the
//! readers (any thread) sum the workers' counters. An event counts when it
//! reaches a live resource and sets its readiness; stale events, the
//! drivers' own wakeups and the ends of io_uring polls do not, as tokio
//! counts only the events it dispatches to resources.
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Registrations and their drops, runtime-wide. `Relaxed`: statistics,
/// ordered with nothing.
#[derive(Debug, Default)]
pub(crate) struct FdCounts {
    registered: AtomicU64,
    deregistered: AtomicU64,
}

impl FdCounts {
    pub(crate) fn registered(&self) {
        self.registered.fetch_add(1, Relaxed);
    }

    pub(crate) fn deregistered(&self) {
        self.deregistered.fetch_add(1, Relaxed);
    }

    // Read by `RuntimeMetrics` with the `net` feature, as in tokio.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn registered_count(&self) -> u64 {
        self.registered.load(Relaxed)
    }

    // Read by `RuntimeMetrics` with the `net` feature, as in tokio.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn deregistered_count(&self) -> u64 {
        self.deregistered.load(Relaxed)
    }
}

/// Ready events one worker's driver dispatched.
#[derive(Debug, Default)]
pub(crate) struct ReadyCount(AtomicU64);

impl ReadyCount {
    /// Adds `n` events. Only with the lock of the driver's registry held:
    /// the lock orders its holders, so each one reads the previous one's
    /// store and a load and a store add without a read-modify-write
    /// (`Relaxed` suffices for the same reason, and readers want no more
    /// than a recent value).
    pub(crate) fn add_locked(&self, n: u64) {
        if n > 0 {
            self.0.store(self.0.load(Relaxed).wrapping_add(n), Relaxed);
        }
    }

    // Read by `RuntimeMetrics` with the `net` feature, as in tokio.
    #[cfg_attr(not(feature = "net"), allow(dead_code))]
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Relaxed)
    }
}
