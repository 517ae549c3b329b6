//! The io_uring driver's per-worker counters, read through
//! `RuntimeMetrics` (they exist, all zero, in builds without the driver).
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Per-worker counters of the io_uring driver. `Relaxed`: statistics read
/// without any ordering requirement.
#[derive(Debug, Default)]
pub(crate) struct UringMetrics {
    /// `io_uring_enter` calls made by the worker.
    pub(crate) enters: AtomicU64,
    /// Completions reaped.
    pub(crate) cqes: AtomicU64,
    /// Eventfd writes (one per sleep that was interrupted).
    pub(crate) eventfd_writes: AtomicU64,
    /// Notifications that needed no write (the worker was awake or
    /// already notified).
    pub(crate) coalesced: AtomicU64,
    /// Times the multishot wake poll ended and was armed again.
    pub(crate) wake_rearms: AtomicU64,
    /// Enters made because the kernel set `IORING_SQ_TASKRUN` while the
    /// worker was busy.
    pub(crate) taskrun_enters: AtomicU64,
    /// Waits of a task on this worker for a resource whose readiness poll
    /// sits on another worker's ring and stays there (a wait that moves the
    /// poll here is not one: `uring/home.rs`): that readiness will be
    /// reaped there and cross threads to reach the task (or take the task
    /// with it).
    pub(crate) foreign_io_waits: AtomicU64,
    /// Resources whose poll moved to this worker's ring because its tasks
    /// kept waiting on them here.
    pub(crate) io_rehomes: AtomicU64,
    /// Completion receives that found the provided buffer ring empty
    /// (`ENOBUFS`) and were armed again (`uring/recv.rs`).
    pub(crate) recv_no_buffers: AtomicU64,
}

#[cfg_attr(not(feature = "uring"), allow(dead_code))]
impl UringMetrics {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Relaxed);
    }
}
