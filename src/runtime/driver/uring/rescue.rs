//! Serving a stalled ring's sockets from another worker.
//!
//! Only a ring's owner can collect its completions (`SINGLE_ISSUER |
//! DEFER_TASKRUN`), so an owner that is awake but does not run (see
//! `driver/stall.rs` for when that is, and how it is noticed) holds its
//! sockets' readiness. Another worker that notices it, at its maintenance
//! or before it sleeps, asks the kernel instead: one non-blocking `poll(2)`
//! over the stalled ring's registered resources (`IoState::probe_ready`),
//! which records their readiness and wakes their tasks on its own queue.
//! The tasks run there; their next waits are foreign, so their polls
//! move to the looker's ring (`home.rs`): sockets drift towards the
//! workers that run.
//!
//! A rescue polls at most [`RESCUE_CAP`] resources, round robin across
//! rescues. The owner's own completions for the same readiness arrive when
//! it runs again: a spurious wakeup at most, which readiness allows (a
//! `WouldBlock` clears it).
use super::WorkerRing;
use std::sync::atomic::Ordering::Relaxed;
use std::task::Waker;

/// The most resources one rescue polls.
const RESCUE_CAP: usize = 32;

impl WorkerRing {
    /// Whether the owner sleeps in the ring (a hint).
    pub(crate) fn is_sleeping(&self) -> bool {
        self.waker.state.is_parked()
    }

    /// Whether this ring serves sockets (a hint): a resource registered
    /// with it, or a completion receive armed on it (`recv.rs`). A stream
    /// made off the workers and read through receives never registers a
    /// poll, so counting polls alone left such a worker's peers without
    /// the yield before a sleep (`park.rs`, step 3). Echo at 256 × 64 B
    /// with completion I/O on 2 workers, 4 interleaved rounds: parks per
    /// 1,000 round trips 30-165 before, 3-10 after; context switches
    /// 42-163 before, 7-15 after; CPU per round trip 5.79 µs before, 5.35
    /// after (mean). At 16 × 64 B, 6 rounds: parks 13-87 before, 12-22
    /// after; CPU level.
    ///
    /// A stalled owner's receives are not served by a rescue (below), which
    /// polls registered resources only: their completions wait for it.
    pub(crate) fn has_resources(&self) -> bool {
        self.io.has_resources() || self.recvs.in_flight() > 0
    }

    /// The owner ran a task (`tick`: its scheduler's counter).
    pub(crate) fn note_progress(&self, tick: u64) {
        self.stall.note_progress(tick);
    }

    /// Called by another worker at `now` (`stall::now_ns`): if this ring's
    /// owner is awake and stalled, polls its resources and collects the
    /// wakers of those that are ready. Returns how many were collected.
    pub(crate) fn serve_if_stalled(
        &self,
        now: u64,
        fds: &mut Vec<libc::pollfd>,
        wakers: &mut Vec<Waker>,
    ) -> usize {
        if self.is_sleeping() || !self.stall.claim_rescue(now) {
            return 0;
        }
        let before = wakers.len();
        // `Relaxed`: only where the next rescue starts; two racing
        // rescuers poll the same resources at worst.
        let cursor = self.rescue_cursor.load(Relaxed);
        let next = self.io.probe_ready(cursor, RESCUE_CAP, fds, wakers);
        self.rescue_cursor.store(next, Relaxed);
        wakers.len() - before
    }
}
